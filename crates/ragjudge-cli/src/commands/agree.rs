//! `ragjudge agree`: pairwise labels (A / B / tie) against human labels, as in the DICE paper's
//! agreement study: accuracy, Cohen's kappa and the 3x3 confusion matrix (rows gold, columns
//! predicted, as scikit-learn). Labels come from a judge's output or from any per-record score.

use crate::args::AgreeArgs;
use anyhow::{bail, Context as _, Result};
use ragjudge_core::table::read_table;
use ragjudge_stats::{accuracy, cohen_kappa, confusion_matrix, Weights};
use serde::Deserialize;
use serde_json::json;
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

/// The three pairwise labels, in confusion-matrix order.
const LABELS: [&str; 3] = ["A", "B", "tie"];

/// (question id, system A, system B).
type PairKey = (String, String, String);

/// Predicts the label of a gold pair, if it can.
type Predictor = Box<dyn Fn(&PairKey) -> Option<&'static str>>;

#[derive(Deserialize)]
struct PairLabel {
    id: serde_json::Value,
    system_a: String,
    system_b: String,
    label: String,
}

/// Runs `ragjudge agree`.
pub fn run(args: &AgreeArgs) -> Result<()> {
    let gold = read_labels(&args.gold)?;
    let (source, pred): (String, Predictor) = match (&args.scorer, &args.scores) {
        (Some(scorer), Some(scores)) => {
            let column = scorer.strip_prefix("metric:").unwrap_or(scorer).to_string();
            if !(args.delta.is_finite() && args.delta >= 0.0) {
                bail!("--delta must be a finite number >= 0, got {}", args.delta);
            }
            let table = scores_by_record(scores, &column)?;
            let delta = args.delta;
            (format!("metric:{column} (delta {delta})"), Box::new(move |k: &PairKey| score_label(&table, k, delta)))
        }
        _ => {
            let path = args.pred.as_ref().context("--pred or --scorer is needed")?;
            let pred = read_labels(path)?;
            (path.display().to_string(), Box::new(move |k: &PairKey| lookup(&pred, k)))
        }
    };
    let (mut y_gold, mut y_pred) = (Vec::new(), Vec::new());
    let mut missing = 0usize;
    for (key, g) in &gold {
        match pred(key) {
            Some(p) => {
                y_gold.push(*g);
                y_pred.push(p);
            }
            None => missing += 1,
        }
    }
    if y_gold.is_empty() {
        bail!("no gold pair has a prediction (joined on id, system_a, system_b; either order)");
    }
    let labels: Vec<&str> = LABELS.to_vec();
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
    for (label, row) in LABELS.iter().zip(report["confusion_matrix"].as_array().into_iter().flatten()) {
        let cells: Vec<String> =
            row.as_array().into_iter().flatten().map(|c| format!("{:>6}", c.as_u64().unwrap_or(0))).collect();
        println!("{label:>10} {}", cells.join(" "));
    }
    Ok(())
}

/// Normalises a label: `A`, `B`, or a tie (`tie`, `C`, `T`, `draw`), case-insensitive.
fn normalize(label: &str) -> Option<&'static str> {
    match label.trim().to_ascii_lowercase().as_str() {
        "a" => Some("A"),
        "b" => Some("B"),
        "tie" | "c" | "t" | "draw" => Some("tie"),
        _ => None,
    }
}

/// Reads pairwise labels; one per (id, system_a, system_b).
fn read_labels(path: &Path) -> Result<HashMap<PairKey, &'static str>> {
    let name = path.display().to_string();
    let file = File::open(path).with_context(|| format!("{name}: cannot open"))?;
    let mut out = HashMap::new();
    for (i, line) in BufReader::new(file).lines().enumerate() {
        let n = i + 1;
        let line = line.with_context(|| format!("{name}:{n}: unreadable line (invalid UTF-8?)"))?;
        if line.trim().is_empty() {
            continue;
        }
        let r: PairLabel =
            serde_json::from_str(&line).with_context(|| format!("{name}:{n}: invalid pairwise label"))?;
        let Some(label) = normalize(&r.label) else {
            bail!("{name}:{n}: field `label`: expected A, B or tie, found {:.20}", r.label);
        };
        let id = match r.id {
            serde_json::Value::String(s) => s,
            other => other.to_string(),
        };
        if out.insert((id, r.system_a, r.system_b), label).is_some() {
            bail!("{name}:{n}: duplicate pair");
        }
    }
    if out.is_empty() {
        bail!("{name}: no records");
    }
    Ok(out)
}

/// The label of `key`, also when it was given for the swapped pair (A and B exchanged).
fn lookup(pred: &HashMap<PairKey, &'static str>, key: &PairKey) -> Option<&'static str> {
    if let Some(l) = pred.get(key) {
        return Some(l);
    }
    let swapped = (key.0.clone(), key.2.clone(), key.1.clone());
    pred.get(&swapped).map(|l| match *l {
        "A" => "B",
        "B" => "A",
        t => t,
    })
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

/// A if A's score exceeds B's by more than `delta`, B if the reverse, else a tie.
fn score_label(scores: &HashMap<(String, String), f64>, k: &PairKey, delta: f64) -> Option<&'static str> {
    let a = scores.get(&(k.0.clone(), k.1.clone()))?;
    let b = scores.get(&(k.0.clone(), k.2.clone()))?;
    Some(if a - b > delta {
        "A"
    } else if b - a > delta {
        "B"
    } else {
        "tie"
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_normalise_and_swap() {
        assert_eq!(normalize(" tie "), Some("tie"));
        assert_eq!(normalize("C"), Some("tie"));
        assert_eq!(normalize("x"), None);
        let mut pred = HashMap::new();
        pred.insert(("q".to_string(), "s2".to_string(), "s1".to_string()), "A");
        assert_eq!(lookup(&pred, &("q".into(), "s1".into(), "s2".into())), Some("B"));
    }

    #[test]
    fn score_labels_use_delta() {
        let mut s = HashMap::new();
        s.insert(("q".to_string(), "a".to_string()), 0.50);
        s.insert(("q".to_string(), "b".to_string()), 0.45);
        let k: PairKey = ("q".into(), "a".into(), "b".into());
        assert_eq!(score_label(&s, &k, 0.0), Some("A"));
        assert_eq!(score_label(&s, &k, 0.1), Some("tie"));
    }
}
