//! Engine errors as Python exceptions: a malformed record is a `RecordError` (a `ValueError`)
//! naming the record and the field; a bad setting a `ValueError`; anything else a `RuntimeError`.

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use ragjudge_core::InputError;
use ragjudge_eval::EvalError;

pyo3::create_exception!(
    ragjudge,
    RecordError,
    PyValueError,
    "A malformed record: `index` (0-based position, or `None`), `field` (e.g. `contexts[2].text`, \
     or `None`), `file` and `line` (when read from a file) say where."
);

/// Where the records of a run came from, for error messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// In-memory records sent as JSON lines: line `n` is record `n - 1`.
    Memory,
    /// Files: errors keep their file and line.
    Files,
}

/// The message of `e`: `record INDEX: field `FIELD`: MESSAGE` for in-memory records (line `n`
/// of their JSON lines is record `n - 1`), `FILE:LINE: field `FIELD`: MESSAGE` for files.
pub fn describe(e: &InputError, origin: Origin) -> String {
    match origin {
        Origin::Memory => {
            let mut m = match e.line {
                Some(l) => format!("record {}", l.saturating_sub(1)),
                None => "records".to_string(),
            };
            if let Some(f) = &e.field {
                m.push_str(&format!(": field `{f}`"));
            }
            m.push_str(&format!(": {}", e.message));
            m
        }
        Origin::Files => e.to_string(),
    }
}

/// A `RecordError` for `e` with its location as attributes.
pub fn record_error(py: Python<'_>, e: &InputError, origin: Origin) -> PyErr {
    let message = describe(e, origin);
    let (index, file, line) = match origin {
        Origin::Memory => (e.line.map(|l| l.saturating_sub(1)), None, None),
        Origin::Files => (None, Some(e.file.clone()), e.line),
    };
    let err = RecordError::new_err(message);
    let value = err.value(py);
    // Setting attributes on a fresh exception instance cannot fail in practice; ignore if it does.
    let _ = value.setattr("index", index);
    let _ = value.setattr("field", e.field.clone());
    let _ = value.setattr("file", file);
    let _ = value.setattr("line", line);
    err
}

/// The Python exception for an engine error.
pub fn eval_error(py: Python<'_>, e: EvalError, origin: Origin) -> PyErr {
    match e {
        EvalError::Input(i) => record_error(py, &i, origin),
        EvalError::Settings(m) => PyValueError::new_err(m),
        other => PyRuntimeError::new_err(other.to_string()),
    }
}

/// A `ValueError` with the message of `e`.
pub fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// A `RuntimeError` with the message of `e`.
pub fn runtime_error(e: impl std::fmt::Display) -> PyErr {
    PyRuntimeError::new_err(e.to_string())
}

/// The judge settings of the keyword arguments every judging function takes (`judge`, `cache`,
/// `no_cache`, `threads`), with the command line's defaults for the rest.
pub fn judge_settings(
    spec: String,
    cache: Option<std::path::PathBuf>,
    no_cache: bool,
    threads: Option<usize>,
) -> ragjudge_eval::models::JudgeSettings {
    use ragjudge_eval::models::CacheChoice;
    ragjudge_eval::models::JudgeSettings {
        spec,
        cache: CacheChoice::from_flags(cache.as_deref(), no_cache),
        threads,
        concurrency: 8,
        timeout: std::time::Duration::from_secs(120),
        hard_labels: false,
    }
}
