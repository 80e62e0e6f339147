//! Errors of reading and converting ONNX models.

/// What went wrong while reading or converting an ONNX model.
#[derive(Debug, thiserror::Error)]
pub enum OnnxError {
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The file is not a valid ONNX protobuf.
    #[error("not an ONNX model: {0}")]
    Decode(#[from] prost::DecodeError),
    /// A tensor whose data cannot be read (type, size or location).
    #[error("tensor `{name}`: {message}")]
    Tensor {
        /// Tensor name.
        name: String,
        /// One-line reason.
        message: String,
    },
    /// A node that cannot be interpreted (missing input, bad attribute).
    #[error("node `{node}` ({op}): {message}")]
    Node {
        /// Node name (or its first output when unnamed).
        node: String,
        /// Operator type.
        op: String,
        /// One-line reason.
        message: String,
    },
    /// The graph does not have the expected architecture.
    #[error("unexpected graph: {0}")]
    Graph(String),
    /// Writing the safetensors file failed.
    #[error("safetensors: {0}")]
    Safetensors(#[from] safetensors::SafeTensorError),
}

pub(crate) fn io_err(path: &std::path::Path, source: std::io::Error) -> OnnxError {
    OnnxError::Io { path: path.display().to_string(), source }
}
