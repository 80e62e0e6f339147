//! `ragjudge fuse`: learned fusion of metric columns into one score (the CIU paper's MoE-CIU,
//! section 3.3, and its static baselines), through `ragjudge_fusion`.
//!
//! `fit` joins a score file with human labels and saves a model; `apply` scores a new score file
//! with it; `study` runs the paper's evaluation protocol (Tables 1 and 2); `ruber` trains the
//! unreferenced RUBER-BERT scorer used by the `semantic` metric family.

mod apply;
mod fit;
mod ruber;
mod study;
mod transfer;

use anyhow::Result;
use clap::{Args, Subcommand, ValueEnum};
use ragjudge_core::table::JoinKeys;
use ragjudge_eval::families::read_definitions;
use ragjudge_fusion::dataset::{load, Dataset};
use ragjudge_fusion::model::OnShift;
use ragjudge_fusion::shift::ShiftSettings;
use serde_json::Value;
use std::path::{Path, PathBuf};
use study::StudyArgs;

/// The paper's six input metrics (Table 1), as `score` names their columns.
pub const PAPER_INPUTS: [&str; 6] = ["bleu", "meteor", "rougeL_f", "ciu", "ruber", "bertscore_f"];

/// `ragjudge fuse`.
#[derive(Debug, Args)]
pub struct FuseArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: FuseCommand,
}

/// The `fuse` subcommands.
#[derive(Debug, Subcommand)]
pub enum FuseCommand {
    /// Fit a fusion model on metric columns and human labels, and save it.
    Fit(fit::FitArgs),
    /// Score a score file with a saved model.
    Apply(apply::ApplyArgs),
    /// The CIU paper's protocol: every single metric, 17 selection strategies + SVR, MoE-Concat, MoE-CIU.
    Study(StudyArgs),
    /// Train RUBER-BERT's unreferenced scorer on (query, answer) pairs, for `score --ruber-model`.
    Ruber(ruber::RuberArgs),
}

/// Where the training data comes from (shared by `fit` and `study`).
#[derive(Debug, Args)]
pub struct DataArgs {
    /// Score file (CSV or JSONL from `ragjudge score -o`).
    #[arg(long, value_name = "FILE")]
    pub scores: PathBuf,
    /// Human labels (CSV or JSONL), joined to the scores on `--on`.
    #[arg(long, value_name = "FILE")]
    pub labels: PathBuf,
    /// Input metric columns, comma separated [default: bleu,meteor,rougeL_f,ciu,ruber,bertscore_f].
    #[arg(long, value_delimiter = ',', value_name = "COLS")]
    pub inputs: Vec<String>,
    /// Join keys, comma separated [default: id,system when both files have a `system` column, else id].
    #[arg(long, value_delimiter = ',')]
    pub on: Option<Vec<String>>,
}

/// When the shift check warns (shared by `apply` and `study --transfer`).
#[derive(Debug, Args)]
pub struct ShiftArgs {
    /// Shift check: warn when an input's population stability index over the model's training
    /// deciles exceeds this (raised for few rows, see docs/fusion.md).
    #[arg(long, value_name = "PSI", default_value_t = ShiftSettings::default().psi)]
    pub shift_threshold: f64,
    /// Shift check: warn when more than this share of rows lies outside an input's training range.
    #[arg(long, value_name = "SHARE", default_value_t = ShiftSettings::default().outside)]
    pub outside_threshold: f64,
    /// What a model fitted with --shrink scores when the shift check warns: `fallback`, the single
    /// input it is shrunk toward, alone; `keep`, the shrunk score as fitted.
    #[arg(long, value_enum, default_value_t = OnShiftArg::Fallback)]
    pub on_shift: OnShiftArg,
}

/// The `--on-shift` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OnShiftArg {
    /// The single input the model is shrunk toward, alone.
    Fallback,
    /// The shrunk score as fitted.
    Keep,
}

impl ShiftArgs {
    /// The library's shift settings.
    pub(crate) fn settings(&self) -> ShiftSettings {
        ShiftSettings { psi: self.shift_threshold, outside: self.outside_threshold }
    }

    /// What a shrunk model scores under a warning.
    pub(crate) fn on_shift(&self) -> OnShift {
        match self.on_shift {
            OnShiftArg::Fallback => OnShift::Fallback,
            OnShiftArg::Keep => OnShift::Keep,
        }
    }
}

/// The `--model` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ModelArg {
    /// MoE-CIU: bin embeddings mixed by an input-dependent gate (CIU paper, section 3.3).
    Moe,
    /// MoE-Concat: concatenated bin embeddings and a small network.
    MoeConcat,
    /// Epsilon-SVR with a grid search over C, epsilon, kernel and gamma.
    Svr,
    /// Least squares.
    Linear,
}

impl DataArgs {
    /// The input columns: as given, else the paper's six.
    fn inputs(&self) -> Vec<String> {
        if self.inputs.is_empty() {
            PAPER_INPUTS.iter().map(|s| s.to_string()).collect()
        } else {
            self.inputs.iter().map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect()
        }
    }

    /// The join keys, with a note on stderr when only one file has a `system` column.
    fn keys(&self) -> Result<Vec<String>> {
        let on = JoinKeys::named_or_default(self.on.as_deref(), &self.scores, &self.labels)?;
        if let Some(m) = &on.system_missing {
            eprintln!("note: {m}");
        }
        Ok(on.keys)
    }

    /// The joined data for one label column.
    fn load(&self, label: &str, keys: &[String]) -> Result<Dataset> {
        Ok(load(&self.scores, &self.inputs(), &self.labels, label, keys)?)
    }
}

/// Each column's definition as `score` recorded it beside `scores` (none when it was not).
fn definitions_of(scores: &Path) -> Result<impl Fn(&str) -> Option<Value>> {
    let defs = read_definitions(scores)?;
    Ok(move |col: &str| defs.as_ref().and_then(|d| d.columns.get(col)).and_then(|c| serde_json::to_value(c).ok()))
}

/// Writes `text` to `path`, naming the file on failure.
fn write(path: &Path, text: &str) -> Result<()> {
    Ok(ragjudge_artifacts::write_atomic(path, text.as_bytes())?)
}

/// Runs `ragjudge fuse`.
pub fn run(args: &FuseArgs) -> Result<()> {
    match &args.command {
        FuseCommand::Fit(a) => fit::run(a),
        FuseCommand::Apply(a) => apply::run(a),
        FuseCommand::Study(a) => study::run(a),
        FuseCommand::Ruber(a) => ruber::run(a),
    }
}
