//! Errors of the collect crate: settings and inputs that stop a run before it starts. A failed
//! call on one question is not an error here: it is a [`crate::run::Failure`], recorded and
//! counted while the run goes on.

use ragjudge_core::InputError;
use ragjudge_models::ModelError;
use ragjudge_testgen::TestgenError;

/// What stops a collection run.
#[derive(Debug, thiserror::Error)]
pub enum CollectError {
    /// Contradictory or impossible settings (a bad target spec, template or JSON path).
    #[error("{0}")]
    Settings(String),
    /// A malformed question (file, line and field).
    #[error(transparent)]
    Input(#[from] InputError),
    /// The corpus of the built-in RAG could not be read or chunked.
    #[error(transparent)]
    Corpus(#[from] TestgenError),
    /// A model could not be loaded.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// A model backend of the caller could not make a model.
    #[error("{0}")]
    Backend(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// A file named in the settings (a request template) could not be read.
    #[error("{}: cannot read: {source}", path.display())]
    Read {
        /// The file.
        path: std::path::PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A stale failures file could not be removed.
    #[error("{}: cannot remove: {source}", path.display())]
    Remove {
        /// The file.
        path: std::path::PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A record could not be written as JSON.
    #[error("{}: {source}", path.display())]
    Json {
        /// The file.
        path: std::path::PathBuf,
        /// The cause.
        source: serde_json::Error,
    },
    /// An output could not be written or put in place (or is an input).
    #[error(transparent)]
    Output(#[from] ragjudge_artifacts::ArtifactError),
}
