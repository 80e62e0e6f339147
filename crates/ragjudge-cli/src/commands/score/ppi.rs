//! `score --ppi-labels`: per system and metric, the prediction-powered mean of a human label
//! (Angelopoulos et al. 2023, with PPI++'s power tuning; `ragjudge_stats::ppi`), the metric
//! serving as the prediction: records with a human label rectify the metric's bias, records
//! without one add its precision.

use anyhow::{bail, Result};
use ragjudge_core::table::read_table;
use ragjudge_stats::ppi::{ppi_mean, PpiMean};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// One system's prediction-powered estimate through one metric.
#[derive(Debug, Clone, Serialize)]
pub struct PpiRow {
    /// The system.
    pub system: String,
    /// The metric used as the prediction.
    pub metric: String,
    /// The estimate, the labels-only one, lambda and counts.
    #[serde(flatten)]
    pub result: PpiMean,
}

/// PPI rows from the written score file `scores` (`columns` are its metric columns) and the
/// label file `labels` (`id`, `system`, `label_col`), at level `1 - alpha`. Systems with fewer
/// than two labelled or no unlabelled scored records are listed in the returned notes.
pub fn ppi_rows(
    scores: &Path,
    columns: &[String],
    labels: &Path,
    label_col: &str,
    alpha: f64,
) -> Result<(Vec<PpiRow>, Vec<String>)> {
    let lt = read_table(labels, &["id", "system", label_col])?;
    let mut gold: HashMap<(String, String), f64> = HashMap::new();
    for i in 0..lt.rows.len() {
        if let Some(v) = lt.number(i, 2, label_col)? {
            let key = lt.key(i, 2);
            if gold.insert((key[0].clone(), key[1].clone()), v).is_some() {
                bail!("{}:{}: ({}, {}) labelled twice", lt.name, lt.rows[i].0, key[0], key[1]);
            }
        }
    }
    let mut cols = vec!["id", "system"];
    cols.extend(columns.iter().map(String::as_str));
    let st = read_table(scores, &cols)?;
    // Per system and metric: (label, prediction) of labelled rows, predictions of the rest.
    type Split = (Vec<f64>, Vec<f64>, Vec<f64>);
    let mut by: BTreeMap<(String, String), Split> = BTreeMap::new();
    for i in 0..st.rows.len() {
        let key = st.key(i, 2);
        let label = gold.get(&(key[0].clone(), key[1].clone()));
        for (j, col) in columns.iter().enumerate() {
            let Some(pred) = st.number(i, 2 + j, col)? else { continue };
            let e = by.entry((key[1].clone(), col.clone())).or_default();
            match label {
                Some(&y) => {
                    e.0.push(y);
                    e.1.push(pred);
                }
                None => e.2.push(pred),
            }
        }
    }
    let (mut rows, mut notes) = (Vec::new(), Vec::new());
    for ((system, metric), (y, yhat, rest)) in by {
        match ppi_mean(&y, &yhat, &rest, alpha, None) {
            Ok(result) => rows.push(PpiRow { system, metric, result }),
            Err(_) => notes.push(format!(
                "{system} / {metric}: {} labelled and {} unlabelled scored records; PPI needs at least 2 and 1",
                y.len(),
                rest.len()
            )),
        }
    }
    if rows.is_empty() && !gold.is_empty() {
        bail!("{}: no system has both labelled and unlabelled scored records (joined on id, system)", labels.display());
    }
    Ok((rows, notes))
}

/// The rows as a table.
pub fn render(rows: &[PpiRow], label_col: &str, alpha: f64) -> String {
    let level = 100.0 * (1.0 - alpha);
    let mut out = format!(
        "Prediction-powered mean of `{label_col}` ({level:.0}% intervals; PPI++, the metric as the prediction)\n{:<12} {:<14} {:>5} {:>6} {:>7} {:>19} {:>7} {:>19} {:>6}\n",
        "system", "metric", "n", "N", "ppi", "interval", "labels", "labels only", "lambda"
    );
    for r in rows {
        let (p, c) = (&r.result.ppi, &r.result.classical);
        out += &format!(
            "{:<12} {:<14} {:>5} {:>6} {:>7.3} [{:>7.3}, {:>7.3}] {:>7.3} [{:>7.3}, {:>7.3}] {:>6.3}\n",
            r.system,
            r.metric,
            r.result.n,
            r.result.unlabelled,
            p.estimate,
            p.low,
            p.high,
            c.estimate,
            c.low,
            c.high,
            r.result.lambda
        );
    }
    out
}
