//! International bank account numbers (ISO 13616): two-letter country code, two check digits and
//! a country-specific BBAN, in electronic form or printed in groups of four. Validated by the
//! mod-97 checksum (ISO 7064) and the per-country length and format of the IBAN registry, both
//! through `iban_validate`. When a printed match runs into following words, shorter prefixes ending
//! at a group boundary are tried; a shape with no valid prefix is [`Validation::Invalid`].

use super::isolated;
use crate::pii::{Finding, PiiType, Validation};
use iban::Iban;
use regex::Regex;
use std::sync::LazyLock;

#[allow(clippy::unwrap_used, reason = "a literal pattern, compiled by the tests")]
static IBAN: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b").unwrap());

/// Whether `candidate` (spaces allowed) is a valid IBAN.
pub fn is_valid(candidate: &str) -> bool {
    let compact: String = candidate.chars().filter(|c| *c != ' ').collect();
    compact.parse::<Iban>().is_ok()
}

/// IBAN shapes in `text`.
pub fn find(text: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    for m in IBAN.find_iter(text) {
        let s = m.as_str();
        // Candidate ends: the whole match, then each position before a space, longest first.
        let mut ends: Vec<usize> = vec![s.len()];
        ends.extend(s.match_indices(' ').map(|(i, _)| i).rev());
        let valid_end =
            ends.into_iter().find(|&e| isolated(text, m.start(), m.start() + e) && e >= 15 && is_valid(&s[..e]));
        match valid_end {
            Some(e) => out.push(Finding::new(text, m.start(), m.start() + e, PiiType::Iban, "iban", Validation::Valid)),
            None if isolated(text, m.start(), m.end()) => {
                out.push(Finding::new(text, m.start(), m.end(), PiiType::Iban, "iban", Validation::Invalid))
            }
            None => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_ibans_printed_and_electronic() {
        // Registry examples: DE89 3704 0044 0532 0130 00 (22 chars), GB82 WEST 1234 5698 7654 32 (22).
        let t = "Pay DE89 3704 0044 0532 0130 00 or GB82WEST12345698765432 AND thanks.";
        let f = find(t);
        assert_eq!(f.len(), 2, "{f:?}");
        assert_eq!(f[0].text, "DE89 3704 0044 0532 0130 00");
        assert_eq!(f[0].validation, Validation::Valid);
        // The greedy shape swallows " AND"; the prefix before it is the valid IBAN.
        assert_eq!(f[1].text, "GB82WEST12345698765432");
        assert_eq!(f[1].validation, Validation::Valid);
    }

    #[test]
    fn wrong_checksum_or_length_is_invalid() {
        // Check digits 89 -> 88: mod 97 of the rearranged number is no longer 1.
        let f = find("DE88 3704 0044 0532 0130 00");
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].validation, Validation::Invalid);
        // One digit short of Germany's 22 characters.
        assert_eq!(find("DE89370400440532013")[0].validation, Validation::Invalid);
        assert!(!is_valid("DE89 3704 0044 0532 0130 0"));
        assert!(find("no iban here: AB12").is_empty());
    }
}
