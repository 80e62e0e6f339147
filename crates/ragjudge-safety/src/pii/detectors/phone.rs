//! Telephone numbers: candidate shapes found by regular expressions, then parsed and validated
//! with the `phonenumber` crate (a port of libphonenumber and its per-country metadata).
//!
//! Shapes: international, `+` then 8-15 digits with spaces, dots, hyphens or parentheses;
//! national, 7-15 digits in at least two groups split by those separators or with an area code in
//! parentheses (`(020) 7946 0958`, `415-555-2671`), or a trunk `0` and 9-10 digits unbroken
//! (`02079460958`). A national number is read in the configured region. When a match runs on into
//! another number, shorter prefixes ending at a separator are tried, longest first.
//! Unvalidated international shapes and strict North American shapes (`(NNN) NNN-NNNN`) are
//! reported as [`Validation::Invalid`]; other national shapes that fail are dropped, since dates,
//! amounts and codes share them.

use super::{digits, isolated};
use crate::pii::{Finding, PiiType, Validation};
use phonenumber::country::Id;
use regex::Regex;
use std::sync::LazyLock;

#[allow(clippy::unwrap_used, reason = "a literal pattern, compiled by the tests")]
static INTL: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\+\d[\d ().\-]{6,22}\d").unwrap());
#[allow(clippy::unwrap_used, reason = "a literal pattern, compiled by the tests")]
static NATIONAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:\(\d{2,5}\)[ .\-]?|\b\d{2,5}[ .\-])\d{2,4}(?:[ .\-]\d{2,5}){0,3}\b|\b0\d{9,10}\b").unwrap()
});
#[allow(clippy::unwrap_used, reason = "a literal pattern, compiled by the tests")]
static NANP: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^(?:\(\d{3}\) ?|\d{3}[ .\-])\d{3}[ .\-]\d{4}$").unwrap());

/// Whether `candidate` parses as a valid number (read in `region` when it has no `+`).
pub fn is_valid(candidate: &str, region: Option<Id>) -> bool {
    if !candidate.starts_with('+') && region.is_none() {
        return false;
    }
    phonenumber::parse(region, candidate).is_ok_and(|n| phonenumber::is_valid(&n))
}

/// The longest valid prefix of `s` ending before a separator (or at its end), with its length.
fn longest_valid(s: &str, region: Option<Id>, min_digits: usize) -> Option<usize> {
    let mut ends: Vec<usize> = vec![s.len()];
    ends.extend(
        s.char_indices()
            .filter(|&(i, c)| matches!(c, ' ' | '.' | '-') && s[..i].ends_with(|p: char| p.is_ascii_digit()))
            .map(|(i, _)| i)
            .rev(),
    );
    ends.into_iter().find(|&e| {
        let n = digits(&s[..e]).len();
        (min_digits..=15).contains(&n) && is_valid(&s[..e], region)
    })
}

/// Phone-number shapes in `text`, validated in `region` (international ones need none).
pub fn find(text: &str, region: Option<Id>) -> Vec<Finding> {
    let mut out = Vec::new();
    for m in INTL.find_iter(text) {
        let s = m.as_str();
        if text[..m.start()].chars().next_back().is_some_and(|c| c.is_alphanumeric()) {
            continue;
        }
        match longest_valid(s, None, 8) {
            Some(e) => {
                out.push(Finding::new(text, m.start(), m.start() + e, PiiType::Phone, "phone", Validation::Valid))
            }
            None if (8..=15).contains(&digits(s).len()) && isolated(text, m.start(), m.end()) => {
                out.push(Finding::new(text, m.start(), m.end(), PiiType::Phone, "phone", Validation::Invalid))
            }
            None => {}
        }
    }
    for m in NATIONAL.find_iter(text) {
        let s = m.as_str();
        // Part of an international number found above.
        if text[..m.start()].trim_end().ends_with(|c: char| c == '+' || c.is_ascii_digit()) {
            continue;
        }
        match longest_valid(s, region, 7) {
            Some(e) if isolated(text, m.start(), m.start() + e) => {
                out.push(Finding::new(text, m.start(), m.start() + e, PiiType::Phone, "phone", Validation::Valid))
            }
            None if NANP.is_match(s) && isolated(text, m.start(), m.end()) => {
                out.push(Finding::new(text, m.start(), m.end(), PiiType::Phone, "phone", Validation::Invalid))
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(f: &[Finding], v: Validation) -> Vec<&str> {
        f.iter().filter(|x| x.validation == v).map(|x| x.text.as_str()).collect()
    }

    #[test]
    fn international_numbers() {
        // +44 20 7946 0958: a London number (Ofcom drama range); +1 415-555-2671 is NANP-valid.
        let f = find("Call +44 20 7946 0958 or +1 (415) 555-2671 today.", None);
        assert_eq!(texts(&f, Validation::Valid), ["+44 20 7946 0958", "+1 (415) 555-2671"]);
        // +44 with too few digits for the UK plan.
        let f = find("Call +44 20 7946 09 now", None);
        assert_eq!(texts(&f, Validation::Invalid), ["+44 20 7946 09"]);
        assert!(texts(&f, Validation::Valid).is_empty());
    }

    #[test]
    fn national_numbers_in_a_region() {
        let f = find("Phone (415) 555-2671.", Some(Id::US));
        assert_eq!(texts(&f, Validation::Valid), ["(415) 555-2671"]);
        let f = find("Ring 020 7946 0958 tonight", Some(Id::GB));
        assert_eq!(texts(&f, Validation::Valid), ["020 7946 0958"]);
        // Without a region a national number cannot be validated, and is not reported.
        assert!(find("Ring 020 7946 0958 tonight", None).is_empty());
    }

    #[test]
    fn non_numbers_are_not_phones() {
        // Area code 123 does not exist: a strict NANP shape that fails is reported as invalid.
        let f = find("(123) 456-7890", Some(Id::US));
        assert_eq!(texts(&f, Validation::Invalid), ["(123) 456-7890"]);
        // Dates, amounts, short codes: nothing.
        assert!(find("On 2024-01-15 we paid 1 250.00 for 12 items, ref 45-12.", Some(Id::US)).is_empty());
    }
}
