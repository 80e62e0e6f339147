//! The system under test as seen by `collect`: one question in, an answer and the passages it
//! used out.

use crate::questions::Question;
use ragjudge_core::Context;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// What a target returned for one question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    /// The generated answer; `[n]` cites `contexts[n-1]`.
    pub answer: String,
    /// The passages the system retrieved, in rank order.
    #[serde(default)]
    pub contexts: Vec<Context>,
}

/// Why one call failed, and whether trying again may help.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallError {
    /// One line: what went wrong (status, timeout, missing field...).
    pub message: String,
    /// Timeouts, transport errors, 429 and 5xx: worth another attempt.
    pub retryable: bool,
    /// How long the target asked us to wait (`Retry-After`), if it did.
    pub retry_after: Option<Duration>,
}

impl CallError {
    /// A failure that another attempt will not fix (bad answer shape, 4xx).
    pub fn fatal(message: impl Into<String>) -> Self {
        Self { message: message.into(), retryable: false, retry_after: None }
    }

    /// A failure that may pass on another attempt (timeout, 5xx, connection refused).
    pub fn transient(message: impl Into<String>) -> Self {
        Self { message: message.into(), retryable: true, retry_after: None }
    }
}

/// The first 200 characters of a reply, trimmed, for messages.
pub(crate) fn snippet(s: &str) -> String {
    let s = s.trim();
    let mut out: String = s.chars().take(200).collect();
    if out.len() < s.len() {
        out.push_str("...");
    }
    out
}

/// A system that answers questions.
pub trait Target: Send + Sync {
    /// Everything that decides the answers (endpoint, request template, model, corpus, settings):
    /// the call cache keys answers by it, so a changed target is asked again.
    fn identity(&self) -> String;
    /// Answers one question (its `query`, `history` and `meta`; never its reference, except for
    /// the reference tier, which is the reference).
    fn answer(&self, question: &Question) -> Result<Answer, CallError>;
}
