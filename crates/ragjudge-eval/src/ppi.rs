//! `score --ppi-labels` as one job: per system and metric, the prediction-powered mean of a
//! human label (Angelopoulos et al. 2023, with PPI++'s power tuning; `ragjudge_stats::ppi`), the
//! metric serving as the prediction: records with a human label rectify the metric's bias,
//! records without one add its precision.

use crate::error::EvalError;
use ragjudge_core::table::{read_table, DroppedRepeats, RecordIndex, RecordKey};
use ragjudge_stats::ppi::{ppi_mean, PpiMean};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;

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

/// The estimates of a score file against a label file.
#[derive(Debug, Clone, Serialize)]
pub struct PpiReport {
    /// The label column.
    pub label: String,
    /// Error level of the intervals.
    pub alpha: f64,
    /// One row per system and metric with an estimate.
    pub rows: Vec<PpiRow>,
    /// Systems and metrics without one, and why.
    pub notes: Vec<String>,
    /// Labels of a key already labelled, left out (the first label is used).
    #[serde(skip)]
    pub repeats: Vec<DroppedRepeats>,
}

/// What a PPI job reads: a written score file and a label file.
#[derive(Debug, Clone)]
pub struct PpiJob {
    /// Per-record scores (`id`, `system` and the metric columns).
    pub scores: PathBuf,
    /// The metric columns used as predictions.
    pub metrics: Vec<String>,
    /// Human labels (`id`, `system`, `label`).
    pub labels: PathBuf,
    /// The label column.
    pub label: String,
    /// Error level: intervals at `1 - alpha`.
    pub alpha: f64,
}

impl PpiJob {
    /// Joins labels with scores on `(id, system)` and estimates each system's mean label through
    /// each metric. Systems with fewer than two labelled or no unlabelled scored records are
    /// listed in [`PpiReport::notes`]; none with an estimate at all is an error.
    pub fn run(&self) -> Result<PpiReport, EvalError> {
        let lt = read_table(&self.labels, &["id", "system", self.label.as_str()])?;
        let mut gold = RecordIndex::new();
        for i in 0..lt.rows.len() {
            if let Some(v) = lt.number(i, 2, &self.label)? {
                let key = lt.key(i, 2);
                gold.insert(&lt.name, RecordKey::new(&key[0], &key[1]), v);
            }
        }
        let mut cols = vec!["id", "system"];
        cols.extend(self.metrics.iter().map(String::as_str));
        let st = read_table(&self.scores, &cols)?;
        // Per system and metric: (label, prediction) of labelled rows, predictions of the rest.
        type Split = (Vec<f64>, Vec<f64>, Vec<f64>);
        let mut by: BTreeMap<(String, String), Split> = BTreeMap::new();
        for i in 0..st.rows.len() {
            let key = st.key(i, 2);
            let label = gold.get(&RecordKey::new(&key[0], &key[1]));
            for (j, col) in self.metrics.iter().enumerate() {
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
            match ppi_mean(&y, &yhat, &rest, self.alpha, None) {
                Ok(result) => rows.push(PpiRow { system, metric, result }),
                Err(_) => notes.push(format!(
                    "{system} / {metric}: {} labelled and {} unlabelled scored records; PPI needs at least 2 and 1",
                    y.len(),
                    rest.len()
                )),
            }
        }
        if rows.is_empty() && !gold.is_empty() {
            return Err(EvalError::NoPpiEstimate { labels: self.labels.clone() });
        }
        let (_, repeats) = gold.into_parts();
        Ok(PpiReport { label: self.label.clone(), alpha: self.alpha, rows, notes, repeats })
    }
}

impl PpiReport {
    /// The rows as a table.
    pub fn render(&self) -> String {
        let level = 100.0 * (1.0 - self.alpha);
        let mut out = format!(
            "Prediction-powered mean of `{}` ({level:.0}% intervals; PPI++, the metric as the prediction)\n{:<12} {:<14} {:>5} {:>6} {:>7} {:>19} {:>7} {:>19} {:>6}\n",
            self.label, "system", "metric", "n", "N", "ppi", "interval", "labels", "labels only", "lambda"
        );
        for r in &self.rows {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_label_is_left_out_and_reported() {
        let dir = tempfile::tempdir().unwrap();
        let scores = dir.path().join("s.csv");
        std::fs::write(&scores, "id,system,m\nq1,s,1\nq2,s,1\nq3,s,1\nq4,s,1\n").unwrap();
        let labels = dir.path().join("l.csv");
        // q1 labelled twice: the first label (1) is used, the second (9) left out and reported.
        std::fs::write(&labels, "id,system,label\nq1,s,1\nq2,s,3\nq1,s,9\n").unwrap();
        let job =
            PpiJob { scores, metrics: vec!["m".into()], labels: labels.clone(), label: "label".into(), alpha: 0.1 };
        let r = job.run().unwrap();
        assert_eq!(r.rows.len(), 1);
        // Labels 1 and 3 with a constant prediction: lambda 0, the estimate is the labels' mean 2.
        assert_eq!((r.rows[0].result.n, r.rows[0].result.unlabelled), (2, 2));
        assert!((r.rows[0].result.ppi.estimate - 2.0).abs() < 1e-12);
        assert_eq!(r.repeats.len(), 1);
        assert_eq!(r.repeats[0].dropped, 1);
        assert_eq!(r.repeats[0].key, RecordKey::new("q1", "s"));
        assert_eq!(r.repeats[0].file, labels.display().to_string());
    }
}
