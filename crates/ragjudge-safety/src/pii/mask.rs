//! Masking of matched PII for output: findings are evidence, and must not leak the PII again.

/// Replaces every letter and digit of `text` with `*` except the last four (fewer for short texts:
/// at most half of them), keeping separators, so `4111 1111 1111 1111` becomes
/// `**** **** **** 1111`.
pub fn mask(text: &str) -> String {
    let alnum = text.chars().filter(|c| c.is_alphanumeric()).count();
    let keep = (alnum / 2).min(4);
    let mut seen = 0usize;
    text.chars()
        .map(|c| {
            if !c.is_alphanumeric() {
                return c;
            }
            seen += 1;
            if seen > alnum - keep {
                c
            } else {
                '*'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::mask;

    #[test]
    fn keeps_last_four_and_separators() {
        assert_eq!(mask("4111 1111 1111 1111"), "**** **** **** 1111");
        assert_eq!(mask("a.b@x.io"), "*.*@*.io");
        assert_eq!(mask("DE89 3704"), "**** 3704"); // 8 alnum -> keep 4
        assert_eq!(mask("-"), "-"); // 5 alnum (a b x i o) -> keep 5/2 = 2: "io"
    }
}
