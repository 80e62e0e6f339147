//! E-mail addresses: a practical subset of RFC 5322 `addr-spec` (dot-atom local part, dotted
//! host names with a 2-24 letter top-level domain). No checksum exists: matches are
//! [`Validation::Unchecked`], except local parts with `..` or a leading/trailing dot (not
//! allowed in a dot-atom), which are [`Validation::Invalid`].

use crate::pii::{Finding, PiiType, Validation};
use regex::Regex;
use std::sync::LazyLock;

#[allow(clippy::unwrap_used, reason = "a literal pattern, compiled by the tests")]
static EMAIL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)[a-z0-9._%+\-]{1,64}@(?:[a-z0-9](?:[a-z0-9\-]{0,61}[a-z0-9])?\.)+[a-z]{2,24}\b").unwrap()
});

/// E-mail addresses in `text`.
pub fn find(text: &str) -> Vec<Finding> {
    EMAIL
        .find_iter(text)
        .filter_map(|m| {
            let s = m.as_str();
            let local = &s[..s.find('@')?];
            // The local part must not be glued to a preceding word character.
            if text[..m.start()].chars().next_back().is_some_and(|c| c.is_alphanumeric()) {
                return None;
            }
            let bad = local.starts_with('.') || local.ends_with('.') || local.contains("..");
            let v = if bad { Validation::Invalid } else { Validation::Unchecked };
            Some(Finding::new(text, m.start(), m.end(), PiiType::Email, "email", v))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_addresses() {
        let t = "Write to Jane.Doe+bank@mail.example.co.uk or ops@x.io.";
        let f = find(t);
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].text, "Jane.Doe+bank@mail.example.co.uk");
        assert_eq!(f[0].validation, Validation::Unchecked);
        assert_eq!(f[1].text, "ops@x.io");
        assert_eq!(&t[f[1].start..f[1].end], "ops@x.io");
    }

    #[test]
    fn rejects_non_addresses() {
        assert!(find("user@localhost, @handle, a@b.c, 3 @ 4.5").is_empty());
        let f = find("john..doe@example.com");
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].validation, Validation::Invalid);
    }
}
