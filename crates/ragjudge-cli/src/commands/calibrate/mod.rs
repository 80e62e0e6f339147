//! `ragjudge calibrate`: map machine scores to human labels (Platt, isotonic, ordinal) and give
//! conformal prediction sets (HCAT §5), through the library job `ragjudge_stats::calibration::job`.
//!
//! Fitting joins a score file with a label file on key columns (by default `id` and `system`
//! when both files have a `system` column, else `id`, with a note on stderr when only one has
//! it; a key repeated in the scores is joined at its first row, with a warning), fits, and
//! reports the conformal threshold, coverage, set sizes, Brier score and ECE on the test part.
//! `--save` writes the fitted calibrator (artifact `calibrator`), `--report` the fit report
//! (artifact `calibration-report`); `--apply` reads a calibrator back and writes calibrated
//! probabilities and prediction sets for a new score file.

mod apply;
mod fit;

use anyhow::{bail, Result};
use clap::{Args, ValueEnum};
use ragjudge_stats::calibration::{CalibrationParams, Method};
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

impl CalibrateArgs {
    /// The calibration settings these options give.
    pub fn params(&self) -> CalibrationParams {
        CalibrationParams {
            method: self.method.into(),
            alpha: self.alpha,
            cal_fraction: self.cal_fraction,
            test_fraction: self.test_fraction,
            seed: self.seed,
            binarize: self.binarize,
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
        None => fit::run(args),
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
