//! [`EvalError`]: why an evaluation could not start or could not go on.
//!
//! A failure of one metric on one record is not an `EvalError`: it is recorded in that record's
//! row and counted in the summary, and the run goes on.

use ragjudge_core::InputError;
use ragjudge_models::ModelError;
use std::path::PathBuf;

/// What stopped an evaluation.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// A malformed input (or, without `skip_invalid`, a malformed record), located by file, line and field.
    #[error(transparent)]
    Input(#[from] InputError),
    /// A setting out of its range or a bad combination of settings; the message names the option.
    #[error("{0}")]
    Settings(String),
    /// A model could not be resolved or pulled, or a model file (or the call cache) failed.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// A model could not be loaded.
    #[error("{context}: {source}")]
    ModelLoad {
        /// What the model was for, e.g. `model `minilm``.
        context: String,
        /// The model error.
        source: ModelError,
    },
    /// Reading or writing a file failed.
    #[error("{}: {message}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What failed, e.g. `cannot create: permission denied`.
        message: String,
    },
    /// An output could not be written or put in place, or an artifact could not be read.
    #[error(transparent)]
    Artifact(#[from] ragjudge_artifacts::ArtifactError),
    /// A cross-record stage failed.
    #[error("{message}")]
    Stage {
        /// The stage's name.
        stage: String,
        /// Why, in one line that names the stage or its file.
        message: String,
    },
    /// The user asked to stop ([`crate::Progress::cancelled`]) after `scored` records.
    #[error("interrupted after {scored} records: no output was written and any previous output is unchanged; model calls already made are in the call cache, so a re-run resumes there")]
    Interrupted {
        /// Records scored before the stop.
        scored: u64,
    },
    /// No system has both labelled and unlabelled scored records, so no prediction-powered
    /// estimate can be made.
    #[error("{}: no system has both labelled and unlabelled scored records (joined on id, system)", labels.display())]
    NoPpiEstimate {
        /// The label file.
        labels: PathBuf,
    },
    /// Every record was skipped as invalid (or there was none).
    #[error("no valid records to score ({skipped} skipped as invalid)")]
    NoRecords {
        /// Records skipped as invalid.
        skipped: u64,
    },
}

impl EvalError {
    /// A settings error with this message.
    pub fn settings(message: impl Into<String>) -> Self {
        EvalError::Settings(message.into())
    }

    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, message: impl std::fmt::Display) -> Self {
        EvalError::Io { path: path.into(), message: message.to_string() }
    }
}
