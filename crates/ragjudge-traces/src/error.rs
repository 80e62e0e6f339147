//! Why traces could not be read, and what was left out of an import.

use ragjudge_artifacts::ArtifactError;
use std::fmt;
use std::path::PathBuf;

/// The error of an import: one line naming the file (and line) or the option at fault.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// A trace file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The reason.
        source: std::io::Error,
    },
    /// A trace file is not in the format it was read as.
    #[error("{path}{}: {message}", line.map(|l| format!(":{l}")).unwrap_or_default())]
    Format {
        /// The file.
        path: PathBuf,
        /// The 1-based line, for line-oriented formats.
        line: Option<u64>,
        /// What is wrong.
        message: String,
    },
    /// An option out of range or inconsistent with the inputs.
    #[error("{0}")]
    Settings(String),
    /// The output could not be written.
    #[error(transparent)]
    Artifact(#[from] ArtifactError),
}

/// A span or trace left out of an import, with the reason; the import goes on.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Issue {
    /// The trace (hex id as in the file).
    pub trace_id: String,
    /// The span, when one span is at fault.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span_id: Option<String>,
    /// The span's name, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for Issue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "trace {}", self.trace_id)?;
        if let Some(s) = &self.span_id {
            write!(f, " span {s}")?;
        }
        if let Some(n) = &self.name {
            write!(f, " ({n:?})")?;
        }
        write!(f, ": {}", self.message)
    }
}
