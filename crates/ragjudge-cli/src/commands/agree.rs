//! `ragjudge agree`: pairwise labels (A / B / tie) against human labels, as in the DICE paper's
//! agreement study: accuracy, Cohen's kappa and the 3x3 confusion matrix (rows gold, columns
//! predicted, as scikit-learn). Labels come from a judge's output or from any per-record score.

use anyhow::{Context as _, Result};
use clap::Args;
use ragjudge_dice::agreement::{agreement, Predictions};
use ragjudge_dice::labels::PairLabels;
use std::path::PathBuf;

/// `ragjudge agree`.
#[derive(Debug, Args)]
pub struct AgreeArgs {
    /// Predicted pairwise labels: JSONL of `{"id", "system_a", "system_b", "label": "A"|"B"|"tie"}`.
    #[arg(long, required_unless_present = "scorer")]
    pub pred: Option<PathBuf>,
    /// Gold (human) pairwise labels, same layout.
    #[arg(long)]
    pub gold: PathBuf,
    /// Derive labels from a per-record score instead: `metric:COLUMN` of `--scores`.
    #[arg(long, requires = "scores", conflicts_with = "pred")]
    pub scorer: Option<String>,
    /// Per-record scores (CSV or JSONL with `id`, `system` and the scorer's column).
    #[arg(long)]
    pub scores: Option<PathBuf>,
    /// With `--scorer`: a score difference within +-DELTA is a tie.
    #[arg(long, default_value_t = 0.0)]
    pub delta: f64,
    /// Print JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

/// Runs `ragjudge agree`.
pub fn run(args: &AgreeArgs) -> Result<()> {
    let gold = PairLabels::read(&args.gold)?;
    let pred = match (&args.scorer, &args.scores) {
        (Some(scorer), Some(scores)) => Predictions::from_scores(scores, scorer, args.delta)?,
        _ => Predictions::read_labels(args.pred.as_ref().context("--pred or --scorer is needed")?)?,
    };
    for r in pred.repeats() {
        eprintln!("warning: {r}");
    }
    let report = agreement(&gold, &args.gold.display().to_string(), &pred)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    let fmt = |v: Option<f64>| v.map_or("-".to_string(), |x| format!("{x:.4}"));
    println!("{} pairs ({} gold pairs without a prediction)", report.n, report.missing);
    println!("accuracy {}   Cohen's kappa {}", fmt(report.accuracy), fmt(report.kappa));
    println!("{:>10} {:>6} {:>6} {:>6}   (rows gold, columns predicted)", "", "A", "B", "tie");
    for (label, row) in report.labels.iter().zip(&report.confusion_matrix) {
        let cells: Vec<String> = row.iter().map(|c| format!("{c:>6}")).collect();
        println!("{label:>10} {}", cells.join(" "));
    }
    Ok(())
}
