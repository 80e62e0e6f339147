//! Errors of the HCAT metrics.

/// What went wrong while computing an HCAT metric.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum HcatError {
    /// Two embeddings without a cosine similarity (zero norm, non-finite values, lengths differ).
    #[error("embeddings: {0}")]
    Cosine(#[from] ragjudge_core::numeric::CosineError),
    /// A transport problem with no source or no sink.
    #[error("optimal transport needs at least one source and one sink")]
    EmptyTransport,
    /// A cost matrix with rows of different lengths or non-finite entries.
    #[error("invalid cost matrix: {0}")]
    InvalidCost(String),
    /// An NLI cross-encoder without an entailment label.
    #[error("the NLI model has no entailment label (labels: {0})")]
    NoEntailmentLabel(String),
    /// A model call that failed or answered something unusable; the model's error, if any, is
    /// kept as the source.
    #[error(transparent)]
    Model(ragjudge_models::Reason),
}

impl From<HcatError> for ragjudge_core::MetricError {
    fn from(e: HcatError) -> Self {
        match e {
            HcatError::Model(m) => ragjudge_core::MetricError::Model(m),
            other => ragjudge_core::MetricError::Contract(other.to_string()),
        }
    }
}
