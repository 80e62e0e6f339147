//! [`Reason`]: the one-line message of a failure together with the error that caused it.

use std::error::Error;
use std::fmt;
use std::sync::Arc;

/// Why something failed: a one-line message (the first line of a cause's text), as written to a record's `error` cell, and the
/// error behind it, kept for [`Error::source`] (a timeout stays a [`crate::ModelError::Timeout`]
/// however many layers report it).
///
/// Reasons compare and display as their message alone, so a failure recorded on a row and
/// the same failure read back from the output are equal.
#[derive(Clone)]
pub struct Reason {
    message: String,
    cause: Option<Arc<dyn Error + Send + Sync + 'static>>,
}

impl Reason {
    /// `context: cause`, keeping `cause` as the source.
    pub fn caused(context: impl fmt::Display, cause: impl Error + Send + Sync + 'static) -> Self {
        Reason { message: format!("{context}: {}", first_line(&cause)), cause: Some(Arc::new(cause)) }
    }

    /// `context: cause` for a boxed cause (as `tokenizers` and other crates return them).
    pub fn caused_boxed(context: impl fmt::Display, cause: Box<dyn Error + Send + Sync + 'static>) -> Self {
        Reason { message: format!("{context}: {}", first_line(&*cause)), cause: Some(Arc::from(cause)) }
    }

    /// The error's own message, keeping it as the source.
    pub fn of(cause: impl Error + Send + Sync + 'static) -> Self {
        Reason { message: first_line(&cause), cause: Some(Arc::new(cause)) }
    }

    /// A message with no underlying error.
    pub fn new(message: impl Into<String>) -> Self {
        Reason { message: message.into(), cause: None }
    }

    /// The one-line message (the cause's text included).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The same reason with `context: ` before its message, the cause kept.
    pub fn context(self, context: impl fmt::Display) -> Self {
        Reason { message: format!("{context}: {}", self.message), cause: self.cause }
    }
}

/// The first line of an error's text: some errors (candle's with a backtrace) span several.
fn first_line(e: &dyn fmt::Display) -> String {
    let text = e.to_string();
    match text.split_once('\n') {
        Some((first, _)) => first.trim_end().to_string(),
        None => text,
    }
}

impl From<String> for Reason {
    fn from(message: String) -> Self {
        Reason::new(message)
    }
}

impl From<&str> for Reason {
    fn from(message: &str) -> Self {
        Reason::new(message)
    }
}

/// Reads as its message, so `reason.contains(..)` and `&*reason` work as on a `String`.
impl std::ops::Deref for Reason {
    type Target = str;
    fn deref(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Debug for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.cause {
            Some(cause) => write!(f, "{:?} (caused by {cause:?})", self.message),
            None => write!(f, "{:?}", self.message),
        }
    }
}

impl PartialEq for Reason {
    fn eq(&self, other: &Self) -> bool {
        self.message == other.message
    }
}

impl Eq for Reason {}

impl Error for Reason {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        self.cause.as_deref().map(|e| e as &(dyn Error + 'static))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ModelError;

    #[test]
    fn a_reason_reads_as_its_message_and_keeps_its_cause() {
        let r = Reason::caused("entailment judge failed", ModelError::Timeout(30));
        assert_eq!(r.to_string(), "entailment judge failed: timed out after 30 s");
        let source = r.source().and_then(|s| s.downcast_ref::<ModelError>());
        assert_eq!(source, Some(&ModelError::Timeout(30)));
        // Equal to the same message without a cause (a failure read back from an output file).
        assert_eq!(r, Reason::from("entailment judge failed: timed out after 30 s"));
        let wrapped = r.context("row 3");
        assert_eq!(wrapped.message(), "row 3: entailment judge failed: timed out after 30 s");
        assert!(wrapped.source().is_some());
        assert!(Reason::new("no cause").source().is_none());
        // The message stays one line; the cause keeps the rest.
        let multi = std::io::Error::other("first\nbacktrace");
        assert_eq!(Reason::caused("reading", multi).message(), "reading: first");
    }
}
