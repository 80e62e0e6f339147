//! [`ArtifactError`]: what can go wrong writing or reading an artifact, with the path at fault.

use std::path::PathBuf;

/// An error writing or reading an output, naming the file.
#[derive(Debug, thiserror::Error)]
pub enum ArtifactError {
    /// An I/O failure on `path` while doing `action`.
    #[error("{}: cannot {action}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What was being done ("create", "write", "rename into place", ...).
        action: &'static str,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// Another process holds the output's lock.
    #[error("{}: another ragjudge process is writing this output (lock {}); wait for it or choose another path", path.display(), lock.display())]
    Busy {
        /// The output.
        path: PathBuf,
        /// The lock file.
        lock: PathBuf,
    },
    /// The output is one of the inputs.
    #[error("{}: the output is also the input {}; writing it would destroy the input: choose another output path", output.display(), input.display())]
    OutputIsInput {
        /// The output path.
        output: PathBuf,
        /// The input it equals.
        input: PathBuf,
    },
    /// A JSON document that cannot be parsed or does not match its type.
    #[error("{}: {source}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: serde_json::Error,
    },
    /// A document of another kind than the reader expects.
    #[error("{}: a `{found}` file, expected `{expected}`", path.display())]
    WrongKind {
        /// The file.
        path: PathBuf,
        /// The kind the reader expects.
        expected: &'static str,
        /// The kind the file declares.
        found: String,
    },
    /// A document written by a newer ragjudge.
    #[error("{}: `{kind}` schema version {found} was written by a newer ragjudge (this one reads up to version {supported}); upgrade ragjudge", path.display())]
    NewerSchema {
        /// The file.
        path: PathBuf,
        /// Its kind.
        kind: String,
        /// Its schema version.
        found: u32,
        /// The newest version this build reads.
        supported: u32,
    },
    /// A document without a `kind` or `schema_version` where one is required.
    #[error("{}: not a ragjudge artifact (no `{field}` field)", path.display())]
    NoHeader {
        /// The file.
        path: PathBuf,
        /// The missing field.
        field: &'static str,
    },
}

impl ArtifactError {
    /// The message without the file name it starts with, for callers that name the file
    /// themselves.
    pub fn detail(&self) -> String {
        let path = match self {
            ArtifactError::Io { path, .. }
            | ArtifactError::Busy { path, .. }
            | ArtifactError::Json { path, .. }
            | ArtifactError::WrongKind { path, .. }
            | ArtifactError::NewerSchema { path, .. }
            | ArtifactError::NoHeader { path, .. } => path,
            ArtifactError::OutputIsInput { output, .. } => output,
        };
        let text = self.to_string();
        text.strip_prefix(&format!("{}: ", path.display())).map(str::to_string).unwrap_or(text)
    }

    pub(crate) fn io(path: impl Into<PathBuf>, action: &'static str, source: std::io::Error) -> Self {
        ArtifactError::Io { path: path.into(), action, source }
    }
}
