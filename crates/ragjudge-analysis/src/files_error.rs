//! The error of writing an analysis's files, shared by weakness and robustness.

use ragjudge_artifacts::OutputSet;
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

/// Adds the CSV written into `w` to `set` as `path`.
pub(crate) fn stage(w: csv::Writer<Vec<u8>>, path: &Path, set: &mut OutputSet) -> Result<(), FilesError> {
    let bytes = w.into_inner().map_err(|e| FilesError::new(path, e.error()))?;
    set.push_bytes(path, &bytes).map_err(|e| FilesError::new(path, e))
}
