//! `ragjudge calibrate`: map machine scores to human labels (Platt, isotonic, ordinal) and give
//! conformal prediction sets (HCAT §5), through `ragjudge_stats::calibration::pipeline`.
//!
//! Fitting joins a score file with a label file on key columns (by default `id` and `system`
//! when both files have a `system` column, else `id`, with a note on stderr when only one has
//! it; a key repeated in the scores is joined at its first row, with a warning), fits, and
//! reports the conformal threshold, coverage, set sizes, Brier score and ECE on the test part.
//! `--save` writes the fitted calibrator as JSON; `--apply` reads one back and writes calibrated
//! probabilities and prediction sets for a new score file.

mod apply;
mod report;

use anyhow::{bail, Context as _, Result};
use clap::{Args, ValueEnum};
use ragjudge_core::table::{join_numbers, JoinKeys};
use ragjudge_stats::calibration::{CalibrationParams, LabelledScores, Method};
use std::path::PathBuf;

/// `ragjudge calibrate`.
#[derive(Debug, Args)]
pub struct CalibrateArgs {
    /// CSV or JSONL file of machine scores (with `--apply`: the new scores to calibrate).
    #[arg(long, value_name = "FILE")]
    pub scores: PathBuf,
    /// CSV or JSONL file of human labels, joined to `--scores` on `--on` (needed to fit).
    #[arg(long, value_name = "FILE")]
    pub labels: Option<PathBuf>,
    /// Calibration method: platt and isotonic need binary labels (see `--binarize`).
    #[arg(long, value_enum, default_value_t = MethodArg::Platt)]
    pub method: MethodArg,
    /// Score column(s), comma separated (CSV headers or dotted JSON paths); isotonic takes one.
    #[arg(long = "score-col", value_delimiter = ',', value_name = "COL")]
    pub score_cols: Vec<String>,
    /// Label column of `--labels`.
    #[arg(long = "label-col", value_name = "COL")]
    pub label_col: Option<String>,
    /// Binarise the labels: 1 when label >= T, else 0.
    #[arg(long, value_name = "T")]
    pub binarize: Option<f64>,
    /// Join keys, comma separated [default: id,system when both files have a `system` column, else id].
    #[arg(long, value_delimiter = ',')]
    pub on: Option<Vec<String>>,
    /// Conformal error rate: sets hold the human label with probability at least 1 - alpha.
    #[arg(long, default_value_t = 0.1)]
    pub alpha: f64,
    /// Share of the joined rows held out to set the conformal threshold.
    #[arg(long, default_value_t = 0.25)]
    pub cal_fraction: f64,
    /// Share of the joined rows held out to measure coverage and calibration (may be 0).
    #[arg(long, default_value_t = 0.25)]
    pub test_fraction: f64,
    /// Seed of the random split.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Write the fitted calibrator to this JSON file.
    #[arg(long, value_name = "FILE")]
    pub save: Option<PathBuf>,
    /// Write the fit report (what `--json` prints, with the reliability diagram and provenance)
    /// to this JSON file, for `ragjudge report`.
    #[arg(long = "report", value_name = "FILE", conflicts_with = "apply")]
    pub report_file: Option<PathBuf>,
    /// Apply a saved calibrator to `--scores` instead of fitting one.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["labels", "save"])]
    pub apply: Option<PathBuf>,
    /// With `--apply`: output file (.csv or .jsonl); stdout when absent.
    #[arg(long, value_name = "FILE", requires = "apply")]
    pub output: Option<PathBuf>,
    /// Print the report as JSON (with `--apply` to stdout: JSON lines).
    #[arg(long)]
    pub json: bool,
}

/// The `--method` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MethodArg {
    /// Platt scaling (logistic model).
    Platt,
    /// Isotonic regression.
    Isotonic,
    /// Proportional-odds ordinal logistic regression.
    Ordinal,
}

impl From<MethodArg> for Method {
    fn from(m: MethodArg) -> Self {
        match m {
            MethodArg::Platt => Method::Platt,
            MethodArg::Isotonic => Method::Isotonic,
            MethodArg::Ordinal => Method::Ordinal,
        }
    }
}

/// Runs `ragjudge calibrate`.
pub fn run(args: &CalibrateArgs) -> Result<()> {
    if !(args.alpha > 0.0 && args.alpha < 1.0) {
        bail!("--alpha must be between 0 and 1, got {}", args.alpha);
    }
    match &args.apply {
        Some(path) => apply::run(args, path),
        None => fit(args),
    }
}

/// The non-empty key names.
fn keys(on: &[String]) -> Result<Vec<&str>> {
    let keys: Vec<&str> = on.iter().map(String::as_str).filter(|k| !k.is_empty()).collect();
    if keys.is_empty() {
        bail!("--on needs at least one key column");
    }
    Ok(keys)
}

fn fit(args: &CalibrateArgs) -> Result<()> {
    let labels_path = args.labels.as_deref().context("--labels is needed to fit (or give --apply FILE)")?;
    let label_col = args.label_col.as_deref().context("--label-col is needed to fit")?;
    if args.score_cols.is_empty() {
        bail!("--score-col is needed: at least one score column");
    }
    let on = JoinKeys::named_or_default(args.on.as_deref(), &args.scores, labels_path)?;
    if let Some(m) = &on.system_missing {
        eprintln!("note: {m}");
    }
    let keys = keys(&on.keys)?;
    let params = CalibrationParams {
        method: args.method.into(),
        alpha: args.alpha,
        cal_fraction: args.cal_fraction,
        test_fraction: args.test_fraction,
        seed: args.seed,
        binarize: args.binarize,
    }
    .check()?;
    let score_cols: Vec<&str> = args.score_cols.iter().map(String::as_str).collect();
    let join = join_numbers(&args.scores, &score_cols, labels_path, label_col, &keys)?;
    for r in &join.repeated {
        eprintln!("warning: {r}");
    }
    if join.x.is_empty() {
        bail!(
            "no row of {} has all score columns and a label in {} on keys {}",
            args.scores.display(),
            labels_path.display(),
            keys.join(",")
        );
    }
    let total = join.left_rows;
    let data = LabelledScores {
        score_columns: args.score_cols.clone(),
        label_column: label_col.to_string(),
        x: join.x,
        y: join.y,
    };
    let (mut fitted, fit_report) = params.fit(&data)?;
    fitted.on = keys.iter().map(|k| k.to_string()).collect();
    if let Some(path) = &args.save {
        let text = serde_json::to_string_pretty(&fitted)?;
        ragjudge_artifacts::write_atomic(path, (text + "\n").as_bytes())?;
    }
    let report = report::Report::new(&fitted, &fit_report, total, args.seed);
    let json = serde_json::to_string_pretty(&report)?;
    if let Some(path) = &args.report_file {
        ragjudge_artifacts::write_atomic(path, format!("{json}\n").as_bytes())?;
    }
    if args.json {
        println!("{json}");
    } else {
        report::print(&report);
    }
    Ok(())
}
