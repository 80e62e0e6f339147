//! Pairwise labels (A / B / tie) against human labels, as in the DICE paper's agreement study:
//! accuracy, Cohen's kappa and the 3x3 confusion matrix (rows gold, columns predicted, as
//! scikit-learn). Predictions come from a judge's label file or from a per-record score.

use crate::labels::{Label, PairKey, PairLabels};
use ragjudge_core::table::{read_table, DroppedRepeats, RecordIndex, RecordKey};
use ragjudge_core::InputError;
use ragjudge_stats::{accuracy, cohen_kappa, confusion_matrix, StatsError, Weights};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Why an agreement could not be measured.
#[derive(Debug, thiserror::Error)]
pub enum AgreementError {
    /// A label or score file could not be read.
    #[error(transparent)]
    Input(#[from] InputError),
    /// A tie margin that is negative or not finite.
    #[error("--delta must be a finite number >= 0, got {0}")]
    Delta(f64),
    /// No gold pair has a prediction.
    #[error("no gold pair has a prediction (joined on id, system_a, system_b; either order)")]
    NoOverlap,
    /// A statistic could not be computed.
    #[error(transparent)]
    Stats(#[from] StatsError),
}

/// Where the predicted labels come from.
#[derive(Debug, Clone)]
pub enum Predictions {
    /// A label file, e.g. a judge's `labels.jsonl`.
    Labels {
        /// The file, as named in the report.
        source: String,
        /// Its labels.
        labels: PairLabels,
    },
    /// A per-record score: the better-scored answer wins, a difference within `delta` is a tie.
    Scores {
        /// The score column.
        column: String,
        /// Scores by (id, system), the first of a repeated key.
        scores: RecordIndex<f64>,
        /// The tie margin.
        delta: f64,
    },
}

impl Predictions {
    /// The labels of a label file.
    pub fn read_labels(path: &Path) -> Result<Self, AgreementError> {
        Ok(Predictions::Labels { source: path.display().to_string(), labels: PairLabels::read(path)? })
    }

    /// The labels `column` of a score file implies (`metric:` before the column is dropped).
    /// Repeated (id, system) rows keep their first score; the repeats are in
    /// [`Predictions::repeats`].
    pub fn from_scores(path: &Path, column: &str, delta: f64) -> Result<Self, AgreementError> {
        if !(delta.is_finite() && delta >= 0.0) {
            return Err(AgreementError::Delta(delta));
        }
        let column = column.strip_prefix("metric:").unwrap_or(column).to_string();
        let t = read_table(path, &["id", "system", column.as_str()])?;
        let mut scores = RecordIndex::new();
        for i in 0..t.rows.len() {
            if let Some(v) = t.number(i, 2, &column)? {
                let key = t.key(i, 2);
                scores.insert(&t.name, RecordKey::new(&key[0], &key[1]), v);
            }
        }
        Ok(Predictions::Scores { column, scores, delta })
    }

    /// Score rows left out because an earlier row had their id and system.
    pub fn repeats(&self) -> &[DroppedRepeats] {
        match self {
            Predictions::Labels { .. } => &[],
            Predictions::Scores { scores, .. } => scores.repeats(),
        }
    }

    /// How the report names the predictions.
    fn source(&self) -> String {
        match self {
            Predictions::Labels { source, .. } => source.clone(),
            Predictions::Scores { column, delta, .. } => format!("metric:{column} (delta {delta})"),
        }
    }

    /// The predicted label of a pair, if there is one.
    fn predict(&self, k: &PairKey) -> Option<Label> {
        match self {
            Predictions::Labels { labels, .. } => labels.get(k),
            Predictions::Scores { scores, delta, .. } => {
                let a = scores.get(&RecordKey::new(&k.0, &k.1))?;
                let b = scores.get(&RecordKey::new(&k.0, &k.2))?;
                Some(Label::from_scores(*a, *b, *delta))
            }
        }
    }
}

/// Agreement of predicted with gold pairwise labels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgreementReport {
    /// Where the predictions came from.
    pub pred: String,
    /// The gold label file.
    pub gold: String,
    /// Gold pairs with a prediction.
    pub n: usize,
    /// Gold pairs without one.
    pub missing: usize,
    /// Share of pairs labelled alike.
    pub accuracy: Option<f64>,
    /// Cohen's kappa (unweighted).
    pub kappa: Option<f64>,
    /// The labels, in the order of the matrix's rows and columns.
    pub labels: Vec<String>,
    /// Counts, rows gold, columns predicted.
    pub confusion_matrix: Vec<Vec<u64>>,
}

/// Compares the predictions with the gold labels (read from `gold_name`) on every gold pair,
/// in either order of its systems.
pub fn agreement(gold: &PairLabels, gold_name: &str, pred: &Predictions) -> Result<AgreementReport, AgreementError> {
    let (mut y_gold, mut y_pred) = (Vec::new(), Vec::new());
    let mut missing = 0usize;
    for (key, g) in &gold.labels {
        match pred.predict(key) {
            Some(p) => {
                y_gold.push(g.as_str());
                y_pred.push(p.as_str());
            }
            None => missing += 1,
        }
    }
    if y_gold.is_empty() {
        return Err(AgreementError::NoOverlap);
    }
    let labels: Vec<&str> = Label::ALL.iter().map(|l| l.as_str()).collect();
    Ok(AgreementReport {
        pred: pred.source(),
        gold: gold_name.to_string(),
        n: y_gold.len(),
        missing,
        accuracy: accuracy(&y_gold, &y_pred)?,
        kappa: cohen_kappa(&y_gold, &y_pred, Weights::None)?,
        labels: labels.iter().map(|l| l.to_string()).collect(),
        confusion_matrix: confusion_matrix(&y_gold, &y_pred, &labels)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_score_row_keeps_its_first_value() {
        let dir = tempfile::tempdir().unwrap();
        let scores = dir.path().join("s.csv");
        // q1/a twice: 0.9 is kept (A wins), 0.1 is left out and reported.
        std::fs::write(&scores, "id,system,m\nq1,a,0.9\nq1,b,0.5\nq1,a,0.1\n").unwrap();
        let pred = Predictions::from_scores(&scores, "metric:m", 0.0).unwrap();
        assert_eq!(pred.repeats().len(), 1);
        assert_eq!((pred.repeats()[0].key.id.as_str(), pred.repeats()[0].dropped), ("q1", 1));
        let gold = PairLabels {
            labels: [(("q1".to_string(), "a".to_string(), "b".to_string()), Label::A)].into_iter().collect(),
        };
        let r = agreement(&gold, "gold.jsonl", &pred).unwrap();
        assert_eq!((r.n, r.missing, r.accuracy), (1, 0, Some(1.0)));
        assert_eq!(r.pred, "metric:m (delta 0)");
        assert!(matches!(Predictions::from_scores(&scores, "m", -1.0), Err(AgreementError::Delta(_))));
    }
}
