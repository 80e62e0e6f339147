//! The error type of test-set generation.

use std::path::PathBuf;

/// What can go wrong while reading a collection or building its topic strata.
#[derive(Debug, thiserror::Error)]
pub enum TestgenError {
    /// A file or directory could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A malformed line of a JSONL collection.
    #[error("{}:{line}: {field}: {message}", path.display())]
    Line {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// The field at fault (`json` for a line that does not parse).
        field: String,
        /// What is wrong.
        message: String,
    },
    /// Nothing usable was found.
    #[error("empty collection: {0}")]
    Empty(String),
    /// Settings that cannot work (e.g. more clusters than chunks).
    #[error("invalid settings: {0}")]
    Settings(String),
    /// A numerical step failed.
    #[error("{step}: {message}")]
    Numeric {
        /// The step (`pca`, `k-means`, ...).
        step: &'static str,
        /// The cause.
        message: String,
    },
    /// An embedding model failed.
    #[error("embedding: {0}")]
    Model(#[from] ragjudge_models::ModelError),
    /// Two embeddings without a cosine similarity (lengths differ, values not finite).
    #[error("embedding: {0}")]
    Cosine(#[from] ragjudge_core::numeric::CosineError),
    /// An output could not be written.
    #[error(transparent)]
    Artifact(#[from] ragjudge_artifacts::ArtifactError),
    /// A row or document that cannot be serialised.
    #[error("cannot serialise: {0}")]
    Record(#[source] serde_json::Error),
    /// The BM25 index could not be built or searched.
    #[error("BM25 index: {0}")]
    Index(String),
    /// A chart could not be drawn.
    #[error("topic map: {0}")]
    Chart(#[from] ragjudge_charts::ChartError),
}

impl From<tantivy::TantivyError> for TestgenError {
    fn from(e: tantivy::TantivyError) -> Self {
        TestgenError::Index(e.to_string())
    }
}
