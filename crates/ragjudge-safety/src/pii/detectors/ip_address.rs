//! IP addresses, parsed with `std::net`.
//!
//! IPv4: a dotted quad not inside a longer dotted number (`1.2.3.4.5` is a version string);
//! valid when `Ipv4Addr` parses it (octets 0-255, no leading zeros), else invalid. IPv6: a run of
//! hex groups and colons (optionally ending in a dotted quad); kept only when `Ipv6Addr` parses it
//! and it has at least three non-empty groups, an embedded dotted quad, or is `::1`, so times such as `10:30:00` and
//! `a::b` in code are not reported.

use crate::pii::{Finding, PiiType, Validation};
use regex::Regex;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::sync::LazyLock;

#[allow(clippy::unwrap_used, reason = "a literal pattern, compiled by the tests")]
static V4: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b").unwrap());
#[allow(clippy::unwrap_used, reason = "a literal pattern, compiled by the tests")]
static V6: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:[0-9a-f]{0,4}:){2,7}(?:\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}|[0-9a-f]{1,4})?").unwrap()
});

fn glued(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_ascii_hexdigit() || c == ':' || c == '.' || c.is_alphanumeric())
}

/// IP address shapes in `text`.
pub fn find(text: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    for m in V4.find_iter(text) {
        let before = text[..m.start()].chars().next_back();
        let mut after = text[m.end()..].chars();
        let dotted_on =
            before == Some('.') || (after.next() == Some('.') && after.next().is_some_and(|c| c.is_ascii_digit()));
        if dotted_on {
            continue;
        }
        let v = if m.as_str().parse::<Ipv4Addr>().is_ok() { Validation::Valid } else { Validation::Invalid };
        out.push(Finding::new(text, m.start(), m.end(), PiiType::IpAddress, "ipv4", v));
    }
    for m in V6.find_iter(text) {
        let s = m.as_str().trim_end_matches(':').trim_end_matches('.');
        let s = if m.as_str().ends_with("::") { m.as_str() } else { s };
        let end = m.start() + s.len();
        let mut after = text[end..].chars();
        let glued_after = match after.next() {
            Some('.') => after.next().is_some_and(|c| c.is_ascii_digit()),
            c => glued(c),
        };
        if glued(text[..m.start()].chars().next_back()) || glued_after {
            continue;
        }
        let groups = s.split(':').filter(|g| !g.is_empty()).count();
        if s.parse::<Ipv6Addr>().is_ok() && (groups >= 3 || s.contains('.') || s == "::1") {
            out.push(Finding::new(text, m.start(), end, PiiType::IpAddress, "ipv6", Validation::Valid));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv4_valid_and_invalid() {
        let f = find("Login from 203.0.113.7, not 256.1.1.1 nor 10.0.0.01.");
        assert_eq!(f.len(), 3);
        assert_eq!((f[0].text.as_str(), f[0].validation), ("203.0.113.7", Validation::Valid));
        assert_eq!((f[1].text.as_str(), f[1].validation), ("256.1.1.1", Validation::Invalid));
        assert_eq!((f[2].text.as_str(), f[2].validation), ("10.0.0.01", Validation::Invalid));
        assert!(find("version 1.2.3.4.5").is_empty());
    }

    #[test]
    fn ipv6_parsed() {
        let f = find("Host 2001:db8::8a2e:370:7334 and ::1; mapped ::ffff:192.0.2.128.");
        // The dotted quad inside the mapped address is also an IPv4 finding; dedupe keeps the longer.
        assert_eq!(f.iter().filter(|x| x.detector == "ipv4").count(), 1);
        let texts: Vec<&str> = f.iter().filter(|x| x.detector == "ipv6").map(|x| x.text.as_str()).collect();
        assert_eq!(texts, ["2001:db8::8a2e:370:7334", "::1", "::ffff:192.0.2.128"]);
        assert!(f.iter().all(|x| x.validation == Validation::Valid));
        // Times, scope operators and malformed groups are not addresses.
        let t = "at 10:30:00, std::fmt, a::b, 2001:db8:::1, 12345::1:2:3";
        assert!(find(t).is_empty(), "{:?}", find(t));
    }
}
