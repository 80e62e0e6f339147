//! Errors: [`ServeError`] when the server cannot start, [`ApiError`] for one request's answer.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use ragjudge_eval::EvalError;

/// Why the server could not be set up or run.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The metrics, models or judge could not be built.
    #[error(transparent)]
    Eval(#[from] EvalError),
    /// A limit is out of range.
    #[error("{0}")]
    Settings(String),
    /// The listener failed.
    #[error("server: {0}")]
    Io(#[from] std::io::Error),
}

/// A request's failure: an HTTP status and a one-line reason, sent as `{"error": REASON}`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{status}: {message}")]
pub struct ApiError {
    /// The status sent.
    pub status: StatusCode,
    /// The reason, one line.
    pub message: String,
    /// Seconds sent in `Retry-After`, if any.
    pub retry_after: Option<u64>,
}

impl ApiError {
    /// An error with `status` and `message` (newlines flattened to keep it one line).
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        let message = message.into().replace(['\n', '\r'], " ");
        ApiError { status, message, retry_after: None }
    }

    /// 400: the body is not JSON.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, message)
    }

    /// 422: JSON of the wrong shape (a missing field, a wrong type).
    pub fn unprocessable(message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNPROCESSABLE_ENTITY, message)
    }

    /// 500: the server failed on a valid request.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, message)
    }

    /// The same error with a `Retry-After` of `seconds`.
    pub fn with_retry_after(mut self, seconds: u64) -> Self {
        self.retry_after = Some(seconds);
        self
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({ "error": self.message });
        let mut response = (self.status, axum::Json(body)).into_response();
        if let Some(s) = self.retry_after {
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(s));
        }
        response
    }
}
