//! The error type of the fusion crate.

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
    Training(String),
    /// A saved model cannot be read, or was fitted on inputs defined differently.
    #[error("{0}")]
    Model(String),
}
