//! Transparent PII detectors: a regular expression finds a shape, then a documented check
//! (checksum, number ranges, a parser) decides [`Validation::Valid`] or [`Validation::Invalid`].
//!
//! | detector | shape | check |
//! |---|---|---|
//! | `email` | `local@domain.tld` | none (unchecked); `..` or an edge dot in the local part is invalid |
//! | `phone` | `+` and 8-15 digits; national shapes with separators or a leading trunk `0` | `phonenumber` (libphonenumber metadata) |
//! | `payment_card:<brand>` | 13-19 digits, optional space/hyphen separators | Luhn and an issuer prefix with its lengths |
//! | `iban` | country code, 2 check digits, 11-30 alphanumerics | mod-97 and per-country length/format (`iban_validate`) |
//! | `us_ssn`, `uk_nino`, `es_dni`, `es_nie`, `ca_sin` | see [`national_id`] | ranges, prefix rules, check letters, Luhn |
//! | `ipv4`, `ipv6` | dotted quad; hex groups with colons | `std::net` parsing |

pub mod email;
pub mod ip_address;
pub mod national_id;
pub mod payment_card;
pub mod phone;

pub mod iban;

use super::{Finding, PiiType};
use crate::error::SafetyError;

/// Which pattern detectors run, and how phone numbers without a country code are read.
#[derive(Debug, Clone)]
pub struct PatternDetectors {
    /// Region (CLDR code, e.g. `US`, `GB`) for numbers written without `+country`.
    pub phone_region: Option<phonenumber::country::Id>,
    /// Types to look for; empty means every type with a pattern detector.
    pub types: Vec<PiiType>,
}

impl Default for PatternDetectors {
    fn default() -> Self {
        Self { phone_region: Some(phonenumber::country::Id::US), types: Vec::new() }
    }
}

impl PatternDetectors {
    /// Parses a region code such as `US` or `gb`; `none` reads only international numbers.
    pub fn parse_region(code: &str) -> Result<Option<phonenumber::country::Id>, SafetyError> {
        if code.eq_ignore_ascii_case("none") {
            return Ok(None);
        }
        code.to_ascii_uppercase().parse::<phonenumber::country::Id>().map(Some).map_err(|_| {
            SafetyError::Settings(format!("unknown phone region `{code}` (use a two-letter country code or `none`)"))
        })
    }

    fn wants(&self, t: PiiType) -> bool {
        self.types.is_empty() || self.types.contains(&t)
    }

    /// Every finding of the enabled detectors, overlapping ones included (see
    /// [`super::merge::dedupe`]), in detector order.
    pub fn find_all(&self, text: &str) -> Vec<Finding> {
        let mut out = Vec::new();
        if self.wants(PiiType::Email) {
            out.extend(email::find(text));
        }
        if self.wants(PiiType::PaymentCard) {
            out.extend(payment_card::find(text));
        }
        if self.wants(PiiType::Iban) {
            out.extend(iban::find(text));
        }
        if self.wants(PiiType::NationalId) {
            out.extend(national_id::find(text));
        }
        if self.wants(PiiType::IpAddress) {
            out.extend(ip_address::find(text));
        }
        if self.wants(PiiType::Phone) {
            out.extend(phone::find(text, self.phone_region));
        }
        out
    }
}

/// Whether `text[start..end]` stands alone: not glued to a letter or digit, nor to a `.`/`-`/`,`
/// that continues a number (so `1234-5678-9` is not read inside `01234-5678-9`).
pub(crate) fn isolated(text: &str, start: usize, end: usize) -> bool {
    let mut before = text[..start].chars().rev();
    let ok_before = match before.next() {
        None => true,
        Some(c) if c.is_alphanumeric() || c == '_' => false,
        Some('.' | '-' | ',') => !before.next().is_some_and(|c| c.is_ascii_digit()),
        Some(_) => true,
    };
    let mut after = text[end..].chars();
    let ok_after = match after.next() {
        None => true,
        Some(c) if c.is_alphanumeric() || c == '_' => false,
        Some('.' | '-' | ',') => !after.next().is_some_and(|c| c.is_ascii_digit()),
        Some(_) => true,
    };
    ok_before && ok_after
}

/// The ASCII digits of `s`, in order.
pub(crate) fn digits(s: &str) -> Vec<u8> {
    s.bytes().filter(u8::is_ascii_digit).map(|b| b - b'0').collect()
}

/// Luhn (mod 10) check over digits, rightmost digit being the check digit (ISO/IEC 7812-1 annex B).
pub fn luhn_valid(digits: &[u8]) -> bool {
    if digits.is_empty() {
        return false;
    }
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &d)| {
            let d = u32::from(d);
            if i % 2 == 1 {
                let x = d * 2;
                if x > 9 {
                    x - 9
                } else {
                    x
                }
            } else {
                d
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn luhn_known_numbers() {
        // 79927398713 from the right: kept 3,7,9,7,9,7 = 42; doubled 1,8,3,2,9 -> 2,7,6,4,9 = 28;
        // 42 + 28 = 70, divisible by 10 -> valid. Last digit 0 instead: 67 -> invalid.
        assert!(luhn_valid(&digits("79927398713")));
        assert!(!luhn_valid(&digits("79927398710")));
        assert!(!luhn_valid(&[]));
    }

    #[test]
    fn isolation_rejects_glued_numbers() {
        let t = "x 123-45-6789 y";
        assert!(isolated(t, 2, 13));
        let t = "9123-45-6789";
        assert!(!isolated(t, 1, 12));
        let t = "1.123-45-6789";
        assert!(!isolated(t, 2, 13));
        let t = "end 123-45-6789.";
        assert!(isolated(t, 4, 15));
    }
}
