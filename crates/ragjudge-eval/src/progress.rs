//! [`Progress`]: how the engine reports what it is doing, without drawing anything itself.
//!
//! The command-line tool draws a spinner on a terminal; a server or a notebook may count, log or
//! ignore. Every method has an empty default.

use ragjudge_core::InputError;
use std::path::Path;

/// Receives progress and warnings from a running evaluation. Called from the thread that runs it.
pub trait Progress {
    /// Reading of `path` starts.
    fn input(&self, _path: &Path) {}
    /// `n` more records were scored.
    fn scored(&self, _n: u64) {}
    /// A malformed record was skipped (with `skip_invalid`); `count` is the number skipped so far.
    fn skipped(&self, _error: &InputError, _count: u64) {}
    /// Something the user should know that does not stop the run (one line).
    fn warn(&self, _message: &str) {}
    /// The records are scored; only the stages' final work remains.
    fn done(&self) {}
    /// Whether the user asked to stop (e.g. Ctrl-C): the run then ends after the batch in
    /// flight with [`crate::EvalError::Interrupted`], writing nothing.
    fn cancelled(&self) -> bool {
        false
    }
}

/// Reports nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;

impl Progress for NoProgress {}
