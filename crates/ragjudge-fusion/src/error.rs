//! The error type of the fusion crate.

use std::path::PathBuf;

use ragjudge_models::Reason;

/// Why a fusion step failed. Every message is one line that names the file, line or column at fault.
#[derive(Debug, thiserror::Error)]
pub enum FusionError {
    /// The input data cannot be used as given (labels that do not join, constant labels, empty cells...).
    #[error("{0}")]
    Data(String),
    /// A model's parameters are invalid (e.g. a non-positive C).
    #[error("{0}")]
    Params(String),
    /// Training failed (a solver error, a non-finite loss).
    #[error("{0}")]
    Training(Reason),
    /// A saved model was fitted on inputs defined differently, or its numbers cannot be applied.
    #[error("{0}")]
    Model(Reason),
    /// A model file that cannot be read or written (the message names the file).
    #[error(transparent)]
    File(#[from] ragjudge_artifacts::ArtifactError),
    /// A JSON file of another format than a fusion model.
    #[error("{}: model format {format}; this version reads `fusion-model` files and {}", path.display(), crate::model::FORMAT)]
    Format {
        /// The file.
        path: PathBuf,
        /// Its `format` field.
        format: String,
    },
    /// A score file that cannot be read.
    #[error(transparent)]
    Input(#[from] ragjudge_core::InputError),
    /// An output table that cannot be written.
    #[error("cannot write the fused scores: {0}")]
    Csv(#[from] csv::Error),
}
