//! The error of writing an analysis's files, shared by weakness and robustness.

use std::path::{Path, PathBuf};

/// A file of the analysis could not be written.
#[derive(Debug, thiserror::Error)]
#[error("{}: cannot write: {message}", path.display())]
pub struct FilesError {
    /// The file or directory.
    pub path: PathBuf,
    /// Why.
    pub message: String,
}

impl FilesError {
    pub(crate) fn new(path: &Path, e: impl std::fmt::Display) -> Self {
        Self { path: path.to_path_buf(), message: e.to_string() }
    }
}
