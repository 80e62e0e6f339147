//! [`InputError`]: a problem with one input record (or the whole input), located by file, line
//! and field so that the CLI can print it as one line.

use std::fmt;

/// Longest piece of input echoed back in an error message, in characters.
pub(crate) const ECHO_CHARS: usize = 80;

/// A problem found while reading records.
///
/// `Display` renders one line, `FILE:LINE: field `FIELD`: MESSAGE`, omitting the parts that are
/// unknown, e.g. `runs.jsonl:3: field `query`: missing` or `runs.csv: missing column `answer``.
///
/// A non-fatal error concerns one record: a reader yields it and goes on with the next record,
/// and the caller decides whether to stop or skip. After a fatal error (I/O failure, unusable
/// header, empty input) the reader yields nothing more.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct InputError {
    /// The input's name: the path as given, or the name passed to a `from_reader` constructor.
    pub file: String,
    /// 1-based JSONL line number, or CSV row number counting the header as row 1.
    pub line: Option<u64>,
    /// The field at fault, as a path such as `contexts[2].text`.
    pub field: Option<String>,
    /// What is wrong, without the location; never more than a short excerpt of the input.
    pub message: String,
    /// Whether reading cannot go on after this error.
    pub fatal: bool,
}

impl InputError {
    /// A non-fatal error about one record.
    pub fn new(file: impl Into<String>, line: Option<u64>, field: Option<String>, message: impl Into<String>) -> Self {
        InputError { file: file.into(), line, field, message: message.into(), fatal: false }
    }

    /// A fatal error: the reader stops after it.
    pub fn fatal(file: impl Into<String>, line: Option<u64>, message: impl Into<String>) -> Self {
        InputError { file: file.into(), line, field: None, message: message.into(), fatal: true }
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(field) = &self.field {
            write!(f, ": field `{field}`")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// Shortens echoed input to at most [`ECHO_CHARS`] characters (plus `...`) and keeps it on one line.
pub(crate) fn excerpt(s: &str) -> String {
    let mut out: String = s.chars().take(ECHO_CHARS).map(|c| if c.is_control() { ' ' } else { c }).collect();
    if s.chars().nth(ECHO_CHARS).is_some() {
        out.push_str("...");
    }
    out
}

/// Renders a byte size as `16 MiB`, `64 KiB` or `1000 bytes`.
pub(crate) fn human_size(n: usize) -> String {
    const KIB: usize = 1024;
    const MIB: usize = 1024 * 1024;
    if n >= MIB && n.is_multiple_of(MIB) {
        format!("{} MiB", n / MIB)
    } else if n >= KIB && n.is_multiple_of(KIB) {
        format!("{} KiB", n / KIB)
    } else {
        format!("{n} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_omits_missing_parts() {
        let e = InputError::new("runs.jsonl", Some(3), Some("query".into()), "missing");
        assert_eq!(e.to_string(), "runs.jsonl:3: field `query`: missing");
        let e = InputError::fatal("runs.csv", None, "missing column `answer`");
        assert_eq!(e.to_string(), "runs.csv: missing column `answer`");
        let e = InputError::new("a.jsonl", Some(7), None, "invalid JSON: x");
        assert_eq!(e.to_string(), "a.jsonl:7: invalid JSON: x");
    }

    #[test]
    fn excerpt_truncates_and_flattens() {
        let long = "é".repeat(100);
        let ex = excerpt(&long);
        assert_eq!(ex.chars().count(), 83);
        assert!(ex.ends_with("..."));
        assert_eq!(excerpt("a\nb"), "a b");
    }

    #[test]
    fn sizes() {
        assert_eq!(human_size(16 * 1024 * 1024), "16 MiB");
        assert_eq!(human_size(4096), "4 KiB");
        assert_eq!(human_size(100), "100 bytes");
    }
}
