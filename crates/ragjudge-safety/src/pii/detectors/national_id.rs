//! National identity numbers of a few countries, each with its published validity rules.
//!
//! - `us_ssn`: `AAA-GG-SSSS` (hyphens or spaces, the same twice). Invalid: area 000, 666 or
//!   900-999, group 00, serial 0000 (Social Security Administration, "SSN randomization"), and the
//!   two numbers voided after use in advertising, 078-05-1120 and 219-09-9999. The unseparated
//!   nine-digit form is not matched (too many other numbers share it).
//! - `uk_nino`: two letters, six digits, a suffix A-D, optionally spaced in pairs. Invalid
//!   (HMRC NIM39110): first letter D, F, I, Q, U or V; second letter D, F, I, O, Q, U or V; prefixes
//!   BG, GB, KN, NK, NT, TN, ZZ.
//! - `es_dni`: eight digits and a check letter `TRWAGMYFPDXBNJZSQVHLCKE[n mod 23]`; `es_nie`: X, Y
//!   or Z (read as 0, 1, 2), seven digits and the same check letter.
//! - `ca_sin`: `NNN-NNN-NNN` (hyphens or spaces); valid when the Luhn check passes and the first
//!   digit is not 0 or 8 (unassigned).

use super::{digits, isolated, luhn_valid};
use crate::pii::{Finding, PiiType, Validation};
use regex::Regex;
use std::sync::LazyLock;

#[allow(clippy::unwrap_used, reason = "a literal pattern, compiled by the tests")]
static SSN: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b(\d{3})([ \-])(\d{2})([ \-])(\d{4})\b").unwrap());
#[allow(clippy::unwrap_used, reason = "a literal pattern, compiled by the tests")]
static NINO: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b([A-Z])([A-Z]) ?(\d{2}) ?(\d{2}) ?(\d{2}) ?([A-D])\b").unwrap());
#[allow(clippy::unwrap_used, reason = "a literal pattern, compiled by the tests")]
static DNI: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b(\d{8})-?([A-Z])\b").unwrap());
#[allow(clippy::unwrap_used, reason = "a literal pattern, compiled by the tests")]
static NIE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b([XYZ])-?(\d{7})-?([A-Z])\b").unwrap());
#[allow(clippy::unwrap_used, reason = "a literal pattern, compiled by the tests")]
static SIN: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b(\d{3})([ \-])(\d{3})([ \-])(\d{3})\b").unwrap());

const DNI_LETTERS: &[u8; 23] = b"TRWAGMYFPDXBNJZSQVHLCKE";

/// Whether a US SSN's area, group and serial numbers are in assignable ranges.
pub fn ssn_valid(area: u32, group: u32, serial: u32) -> bool {
    let voided = (area, group, serial) == (78, 5, 1120) || (area, group, serial) == (219, 9, 9999);
    area != 0 && area != 666 && area < 900 && group != 0 && serial != 0 && !voided
}

/// Whether the two prefix letters of a UK National Insurance number are allowed.
pub fn nino_prefix_valid(first: char, second: char) -> bool {
    let prefix: String = [first, second].iter().collect();
    !"DFIQUV".contains(first)
        && !"DFIOQUV".contains(second)
        && !["BG", "GB", "KN", "NK", "NT", "TN", "ZZ"].contains(&prefix.as_str())
}

/// The Spanish DNI/NIE check letter of `number`.
pub fn dni_letter(number: u32) -> char {
    char::from(DNI_LETTERS[(number % 23) as usize])
}

fn validity(ok: bool) -> Validation {
    if ok {
        Validation::Valid
    } else {
        Validation::Invalid
    }
}

/// National-ID shapes in `text`.
pub fn find(text: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    let num = |s: &str| s.parse::<u32>().unwrap_or(0);
    for c in SSN.captures_iter(text) {
        let Some(m) = c.get(0) else { continue };
        if c[2] != c[4] || !isolated(text, m.start(), m.end()) {
            continue;
        }
        let ok = ssn_valid(num(&c[1]), num(&c[3]), num(&c[5]));
        out.push(Finding::new(text, m.start(), m.end(), PiiType::NationalId, "us_ssn", validity(ok)));
    }
    for c in NINO.captures_iter(text) {
        let Some(m) = c.get(0) else { continue };
        let (Some(a), Some(b)) = (c[1].chars().next(), c[2].chars().next()) else { continue };
        out.push(Finding::new(
            text,
            m.start(),
            m.end(),
            PiiType::NationalId,
            "uk_nino",
            validity(nino_prefix_valid(a, b)),
        ));
    }
    for c in DNI.captures_iter(text) {
        let Some(m) = c.get(0) else { continue };
        if !isolated(text, m.start(), m.end()) {
            continue;
        }
        let ok = c[2].starts_with(dni_letter(num(&c[1])));
        out.push(Finding::new(text, m.start(), m.end(), PiiType::NationalId, "es_dni", validity(ok)));
    }
    for c in NIE.captures_iter(text) {
        let Some(m) = c.get(0) else { continue };
        let lead = match &c[1] {
            "X" => 0,
            "Y" => 1,
            _ => 2,
        };
        let ok = c[3].starts_with(dni_letter(lead * 10_000_000 + num(&c[2])));
        out.push(Finding::new(text, m.start(), m.end(), PiiType::NationalId, "es_nie", validity(ok)));
    }
    for c in SIN.captures_iter(text) {
        let Some(m) = c.get(0) else { continue };
        if c[2] != c[4] || !isolated(text, m.start(), m.end()) {
            continue;
        }
        let d = digits(m.as_str());
        let ok = luhn_valid(&d) && d[0] != 0 && d[0] != 8;
        out.push(Finding::new(text, m.start(), m.end(), PiiType::NationalId, "ca_sin", validity(ok)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> Finding {
        let f = find(text);
        assert_eq!(f.len(), 1, "{text}: {f:?}");
        f.into_iter().next().unwrap()
    }

    #[test]
    fn ssn_ranges() {
        assert_eq!(one("SSN 536-22-1234.").validation, Validation::Valid);
        assert_eq!(one("536 22 1234").validation, Validation::Valid);
        for bad in
            ["000-12-3456", "666-12-3456", "900-12-3456", "999-12-3456", "536-00-1234", "536-22-0000", "078-05-1120"]
        {
            assert_eq!(one(bad).validation, Validation::Invalid, "{bad}");
        }
        // Mixed separators and longer digit runs are not SSN shapes.
        assert!(find("536-22 1234").is_empty());
        assert!(find("1536-22-1234").is_empty());
    }

    #[test]
    fn nino_prefixes() {
        let f = one("NI number AB 12 34 56 C");
        assert_eq!((f.detector.as_str(), f.validation), ("uk_nino", Validation::Valid));
        assert_eq!(one("QQ123456C").validation, Validation::Invalid); // Q first
        assert_eq!(one("AO123456C").validation, Validation::Invalid); // O second
        assert_eq!(one("GB123456A").validation, Validation::Invalid); // reserved prefix
        assert!(find("AB123456E").is_empty()); // suffix outside A-D
    }

    #[test]
    fn dni_and_nie_check_letters() {
        // 12345678 mod 23 = 14 (23 * 536768 = 12345664, remainder 14) -> letter 14 = 'Z'.
        assert_eq!(dni_letter(12_345_678), 'Z');
        assert_eq!(one("DNI 12345678Z").validation, Validation::Valid);
        assert_eq!(one("DNI 12345678-A").validation, Validation::Invalid);
        // X1234567: 01234567 mod 23 = 1234567 - 23 * 53676 = 1234567 - 1234548 = 19 -> 'L'.
        assert_eq!(one("NIE X1234567L").validation, Validation::Valid);
        assert_eq!(one("NIE X1234567M").validation, Validation::Invalid);
    }

    #[test]
    fn sin_luhn() {
        let f = one("SIN 130 692 544");
        // 130692544 from the right: kept 4,5,9,0,1 = 19; doubled 4,2,6,3 -> 8,4,12->3,6 = 21; 40 -> valid.
        assert_eq!((f.detector.as_str(), f.validation), ("ca_sin", Validation::Valid));
        // Last digit +1: 41 -> invalid.
        assert_eq!(one("SIN 130 692 545").validation, Validation::Invalid);
    }
}
