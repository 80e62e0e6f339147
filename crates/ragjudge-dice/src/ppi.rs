//! Prediction-powered win rates (Angelopoulos et al. 2023, "Prediction-powered inference"):
//! the human pairwise labels of a few questions correct the judge's `s_A` on all of them, so
//! the win rate of one system over another gets an interval that is valid whatever the judge's
//! bias, and narrower than the labels alone give when the judge agrees with them.

use crate::bradley_terry::PairOutcome;
use crate::labels::{Label, PairLabels};
use ragjudge_stats::ppi::{ppi_mean, PpiMean};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// The prediction-powered win rate of `system_a` over `system_b` (a tie counts one half).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PpiWinRate {
    /// The first system.
    pub system_a: String,
    /// The second system.
    pub system_b: String,
    /// Error level of the intervals.
    pub alpha: f64,
    /// The label file.
    pub labels: String,
    /// The estimate beside the labels-only one.
    pub estimate: PpiMean,
}

/// Why a pair of systems has no prediction-powered win rate.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{labels}: {labelled} judged questions of {system_a} vs {system_b} have a label and {unlabelled} do not; prediction-powered inference needs at least 2 and 1 ({reason})")]
pub struct TooFewLabels {
    /// The label file.
    pub labels: String,
    /// The first system.
    pub system_a: String,
    /// The second system.
    pub system_b: String,
    /// Judged questions with a label.
    pub labelled: usize,
    /// Judged questions without one.
    pub unlabelled: usize,
    /// The estimator's reason.
    pub reason: String,
}

impl PpiWinRate {
    /// The win rate of `a` over `b` from `scores`, (question, s_A) of the judged questions: a
    /// question with a human label in `labels` gives (human outcome, s_A), the others s_A alone.
    pub fn estimate<'q>(
        labels: &PairLabels,
        path: &Path,
        scores: impl Iterator<Item = (&'q str, f64)>,
        (a, b): (&str, &str),
        alpha: f64,
    ) -> Result<Self, TooFewLabels> {
        let (mut y, mut yhat, mut rest) = (Vec::new(), Vec::new(), Vec::new());
        for (question, s_a) in scores {
            match labels.get(&(question.to_string(), a.to_string(), b.to_string())) {
                Some(l) => {
                    y.push(match l {
                        Label::A => 1.0,
                        Label::B => 0.0,
                        Label::Tie => 0.5,
                    });
                    yhat.push(s_a);
                }
                None => rest.push(s_a),
            }
        }
        let labels_name = path.display().to_string();
        let estimate = ppi_mean(&y, &yhat, &rest, alpha, None).map_err(|e| TooFewLabels {
            labels: labels_name.clone(),
            system_a: a.to_string(),
            system_b: b.to_string(),
            labelled: y.len(),
            unlabelled: rest.len(),
            reason: e.to_string(),
        })?;
        Ok(PpiWinRate { system_a: a.to_string(), system_b: b.to_string(), alpha, labels: labels_name, estimate })
    }

    /// One line: the estimate with its interval, the counts, the labels-only estimate and lambda.
    pub fn render(&self) -> String {
        let e = &self.estimate;
        format!(
            "prediction-powered win rate of {} over {}: {:.3} [{:.3}, {:.3}] ({} labelled, {} unlabelled; labels alone {:.3} [{:.3}, {:.3}]; lambda {:.2})",
            self.system_a,
            self.system_b,
            e.ppi.estimate,
            e.ppi.low,
            e.ppi.high,
            e.n,
            e.unlabelled,
            e.classical.estimate,
            e.classical.low,
            e.classical.high,
            e.lambda,
        )
    }
}

/// The prediction-powered win rates of a tournament: one per pair of systems that met, and a
/// note for each pair with too few labels.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PpiWinRates {
    /// Per pair of systems that met, the first's win rate.
    pub pairs: Vec<PpiWinRate>,
    /// Why the other pairs have none.
    pub notes: Vec<String>,
}

impl PpiWinRates {
    /// The win rates of every pair of `systems` that met in `outcomes`.
    pub fn of_outcomes(
        labels: &PairLabels,
        path: &Path,
        systems: &[String],
        outcomes: &[PairOutcome],
        alpha: f64,
    ) -> Self {
        let mut by_pair: BTreeMap<(usize, usize), Vec<(&str, f64)>> = BTreeMap::new();
        for o in outcomes {
            by_pair.entry((o.i, o.j)).or_default().push((o.question.as_str(), o.s_i));
        }
        let mut out = PpiWinRates::default();
        for ((i, j), scores) in by_pair {
            match PpiWinRate::estimate(labels, path, scores.into_iter(), (&systems[i], &systems[j]), alpha) {
                Ok(v) => out.pairs.push(v),
                Err(e) => out.notes.push(e.to_string()),
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn too_few_labels_is_a_note_naming_the_pair_and_the_counts() {
        let labels = PairLabels::default();
        let e = PpiWinRate::estimate(&labels, Path::new("l.jsonl"), [("q1", 0.8)].into_iter(), ("a", "b"), 0.1)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("l.jsonl: 0 judged questions of a vs b have a label and 1 do not"), "{e}");
    }
}
