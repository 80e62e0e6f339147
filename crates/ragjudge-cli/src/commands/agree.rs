//! `ragjudge agree`: pairwise labels (A / B / tie) against human labels, as in the DICE paper's
//! agreement study: accuracy, Cohen's kappa and the 3x3 confusion matrix (rows gold, columns
//! predicted, as scikit-learn). Labels come from a judge's output or from any per-record score.

use anyhow::{bail, Context as _, Result};
use clap::Args;
use ragjudge_core::table::read_table;
use ragjudge_dice::labels::{Label, PairKey, PairLabels};
use ragjudge_stats::{accuracy, cohen_kappa, confusion_matrix, Weights};
use serde_json::json;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Predicts the label of a gold pair, if it can.
type Predictor = Box<dyn Fn(&PairKey) -> Option<Label>>;

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
    let (source, pred): (String, Predictor) = match (&args.scorer, &args.scores) {
        (Some(scorer), Some(scores)) => {
            let column = scorer.strip_prefix("metric:").unwrap_or(scorer).to_string();
            if !(args.delta.is_finite() && args.delta >= 0.0) {
                bail!("--delta must be a finite number >= 0, got {}", args.delta);
            }
            let table = scores_by_record(scores, &column)?;
            let delta = args.delta;
            let label = move |k: &PairKey| {
                let a = table.get(&(k.0.clone(), k.1.clone()))?;
                let b = table.get(&(k.0.clone(), k.2.clone()))?;
                Some(Label::from_scores(*a, *b, delta))
            };
            (format!("metric:{column} (delta {delta})"), Box::new(label))
        }
        _ => {
            let path = args.pred.as_ref().context("--pred or --scorer is needed")?;
            let pred = PairLabels::read(path)?;
            (path.display().to_string(), Box::new(move |k: &PairKey| pred.get(k)))
        }
    };
    let (mut y_gold, mut y_pred) = (Vec::new(), Vec::new());
    let mut missing = 0usize;
    for (key, g) in &gold.labels {
        match pred(key) {
            Some(p) => {
                y_gold.push(g.as_str());
                y_pred.push(p.as_str());
            }
            None => missing += 1,
        }
    }
    if y_gold.is_empty() {
        bail!("no gold pair has a prediction (joined on id, system_a, system_b; either order)");
    }
    let labels: Vec<&str> = Label::ALL.iter().map(|l| l.as_str()).collect();
    let report = json!({
        "pred": source,
        "gold": args.gold.display().to_string(),
        "n": y_gold.len(),
        "missing": missing,
        "accuracy": accuracy(&y_gold, &y_pred)?,
        "kappa": cohen_kappa(&y_gold, &y_pred, Weights::None)?,
        "labels": labels,
        "confusion_matrix": confusion_matrix(&y_gold, &y_pred, &labels)?,
    });
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    let fmt = |v: &serde_json::Value| v.as_f64().map_or("-".to_string(), |x| format!("{x:.4}"));
    println!("{} pairs ({} gold pairs without a prediction)", report["n"], missing);
    println!("accuracy {}   Cohen's kappa {}", fmt(&report["accuracy"]), fmt(&report["kappa"]));
    println!("{:>10} {:>6} {:>6} {:>6}   (rows gold, columns predicted)", "", "A", "B", "tie");
    for (label, row) in labels.iter().zip(report["confusion_matrix"].as_array().into_iter().flatten()) {
        let cells: Vec<String> =
            row.as_array().into_iter().flatten().map(|c| format!("{:>6}", c.as_u64().unwrap_or(0))).collect();
        println!("{label:>10} {}", cells.join(" "));
    }
    Ok(())
}

/// `column` per (id, system) from a score file.
fn scores_by_record(path: &Path, column: &str) -> Result<HashMap<(String, String), f64>> {
    let t = read_table(path, &["id", "system", column])?;
    let mut out = HashMap::new();
    for i in 0..t.rows.len() {
        if let Some(v) = t.number(i, 2, column)? {
            let cells = &t.rows[i].1;
            let key = (cells[0].clone().unwrap_or_default(), cells[1].clone().unwrap_or_default());
            out.insert(key, v);
        }
    }
    Ok(out)
}
