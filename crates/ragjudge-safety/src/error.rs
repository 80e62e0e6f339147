//! [`SafetyError`]: why a safety metric, a detector setting or a probe report failed.

use ragjudge_core::MetricError;

/// What went wrong in the safety metrics.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SafetyError {
    /// A model call (the PII model, the toxicity judge) failed.
    #[error("{0}")]
    Model(String),
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
