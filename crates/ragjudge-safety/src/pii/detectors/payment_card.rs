//! Payment card numbers (PANs, ISO/IEC 7812): 13-19 digits, optionally grouped by spaces or
//! hyphens. Valid when the Luhn check passes and the number starts with the issuer prefix of a
//! major scheme at one of its lengths; any other shape match is [`Validation::Invalid`].

use super::{digits, isolated, luhn_valid};
use crate::pii::{Finding, PiiType, Validation};
use regex::Regex;
use std::sync::LazyLock;

#[allow(clippy::unwrap_used, reason = "a literal pattern, compiled by the tests")]
static CARD: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b\d(?:[ \-]?\d){12,18}\b").unwrap());

/// The card scheme of `digits` from its issuer identification number and length, if any.
///
/// Visa 4 (13, 16, 19); Mastercard 51-55, 2221-2720 (16); American Express 34, 37 (15);
/// Discover 6011, 644-649, 65 (16-19); JCB 3528-3589 (16-19); Diners Club 300-305, 36, 38-39
/// (14-19); UnionPay 62 (16-19).
pub fn brand(digits: &[u8]) -> Option<&'static str> {
    let n = digits.len();
    let prefix = |k: usize| digits.iter().take(k).fold(0u32, |acc, &d| acc * 10 + u32::from(d));
    let (p1, p2, p3, p4) = (prefix(1), prefix(2), prefix(3), prefix(4));
    if p1 == 4 && matches!(n, 13 | 16 | 19) {
        Some("visa")
    } else if ((51..=55).contains(&p2) || (2221..=2720).contains(&p4)) && n == 16 {
        Some("mastercard")
    } else if matches!(p2, 34 | 37) && n == 15 {
        Some("amex")
    } else if (p4 == 6011 || (644..=649).contains(&p3) || p2 == 65) && (16..=19).contains(&n) {
        Some("discover")
    } else if (3528..=3589).contains(&p4) && (16..=19).contains(&n) {
        Some("jcb")
    } else if ((300..=305).contains(&p3) || matches!(p2, 36 | 38 | 39)) && (14..=19).contains(&n) {
        Some("diners")
    } else if p2 == 62 && (16..=19).contains(&n) {
        Some("unionpay")
    } else {
        None
    }
}

/// Card-number shapes in `text`, validated by Luhn and issuer prefix.
pub fn find(text: &str) -> Vec<Finding> {
    CARD.find_iter(text)
        .filter(|m| isolated(text, m.start(), m.end()))
        .map(|m| {
            let d = digits(m.as_str());
            match brand(&d).filter(|_| luhn_valid(&d)) {
                Some(b) => Finding::new(
                    text,
                    m.start(),
                    m.end(),
                    PiiType::PaymentCard,
                    &format!("payment_card:{b}"),
                    Validation::Valid,
                ),
                None => {
                    Finding::new(text, m.start(), m.end(), PiiType::PaymentCard, "payment_card", Validation::Invalid)
                }
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_cards_of_several_schemes() {
        // Published test PANs of the schemes: Visa 4111 1111 1111 1111, Mastercard 5500 0000 0000 0004,
        // Amex 3782 822463 10005. Luhn of 4111111111111111 from the right: kept eight 1s = 8;
        // doubled seven 1s -> 14 and the leading 4 -> 8; 8 + 14 + 8 = 30 -> valid.
        let t = "Visa 4111 1111 1111 1111, MC 5500-0000-0000-0004, Amex 378282246310005.";
        let f = find(t);
        assert_eq!(f.len(), 3);
        assert!(f.iter().all(|x| x.validation == Validation::Valid));
        assert_eq!(f[0].detector, "payment_card:visa");
        assert_eq!(f[0].text, "4111 1111 1111 1111");
        assert_eq!(f[1].detector, "payment_card:mastercard");
        assert_eq!(f[2].detector, "payment_card:amex");
    }

    #[test]
    fn failed_luhn_or_unknown_prefix_is_invalid() {
        // Last digit changed: 30 - 1 + 2 = 31 -> Luhn fails.
        let f = find("card 4111 1111 1111 1112");
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].validation, Validation::Invalid);
        // 0000000000000000 passes Luhn (sum 0) but no scheme starts with 0.
        assert_eq!(find("0000000000000000")[0].validation, Validation::Invalid);
        // Too short, glued to letters, or part of a longer digit run: no shape match.
        assert!(find("411111111111").is_empty());
        assert!(find("x4111111111111111").is_empty());
        assert!(find("12345678901234567890123").is_empty());
    }
}
