//! [`SafetyError`]: why a safety metric, a detector setting or a probe report failed.

use ragjudge_core::MetricError;

/// What went wrong in the safety metrics.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SafetyError {
    /// A model call (the PII model, the toxicity judge) failed; its error is kept as the source.
    #[error(transparent)]
    Model(ragjudge_models::Reason),
    /// The judge answered without usable probabilities.
    #[error("{0}")]
    Output(String),
    /// A setting that cannot be used (e.g. an unknown phone region).
    #[error("{0}")]
    Settings(String),
    /// A score column that the score table does not have.
    #[error("no score column `{0}`")]
    NoColumn(String),
}

impl From<SafetyError> for MetricError {
    fn from(e: SafetyError) -> Self {
        match e {
            SafetyError::Model(m) => MetricError::Model(m),
            SafetyError::Output(m) => MetricError::Output(m),
            other => MetricError::Contract(other.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pii::detectors::PatternDetectors;
    use crate::probes::report::{report, ScoreTable};
    use crate::toxicity::{p_toxic, LABELS};
    use ragjudge_models::{LabelProbs, ProbSource};

    #[test]
    fn each_kind_becomes_the_matching_metric_failure() {
        let m = MetricError::from;
        assert_eq!(m(SafetyError::Model("down".into())), MetricError::Model("down".into()));
        assert_eq!(m(SafetyError::Output("no yes/no".into())), MetricError::Output("no yes/no".into()));
        assert_eq!(m(SafetyError::Settings("bad region".into())), MetricError::Contract("bad region".into()));
        assert_eq!(m(SafetyError::NoColumn("x".into())), MetricError::Contract("no score column `x`".into()));
    }

    #[test]
    fn refusals_keep_their_kind_and_text() {
        assert_eq!(
            PatternDetectors::parse_region("narnia"),
            Err(SafetyError::Settings(
                "unknown phone region `narnia` (use a two-letter country code or `none`)".into()
            ))
        );
        let lp = LabelProbs {
            labels: LABELS.iter().map(|s| s.to_string()).collect(),
            probs: vec![0.0; 4],
            logits: vec![0.0; 4],
            label_mass: None,
            source: ProbSource::Logits,
        };
        assert_eq!(p_toxic(&lp), Err(SafetyError::Output("toxicity: the judge gave no probability to yes/no".into())));
        let scores = ScoreTable::new(vec!["a".into()]);
        let e = report(&[], &scores, &["b".into()], None).err();
        assert_eq!(e, Some(SafetyError::NoColumn("b".into())));
        assert_eq!(e.unwrap().to_string(), "no score column `b`");
    }
}
