//! English stop words: the SMART list (Salton 1971) that RAKE (Rose et al. 2010) is usually run with.
//!
//! The list lives in `data/smart_stopwords.txt` (570 words, lower case, apostrophes ASCII) and is
//! compiled into the crate.

use std::collections::HashSet;
use std::sync::OnceLock;

const SMART_TXT: &str = include_str!("../data/smart_stopwords.txt");

/// The SMART English stop-word list, lower case.
pub fn smart() -> &'static HashSet<&'static str> {
    static SET: OnceLock<HashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| SMART_TXT.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).collect())
}

/// Whether `word` (already lower case) is a SMART stop word.
pub fn is_smart_stopword(word: &str) -> bool {
    smart().contains(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_has_570_distinct_words() {
        assert_eq!(smart().len(), 570);
        for w in ["the", "of", "a", "corresponding", "don't", "would", "zero"] {
            assert!(is_smart_stopword(w), "{w}");
        }
        for w in ["linear", "types", "considered", "president"] {
            assert!(!is_smart_stopword(w), "{w}");
        }
    }
}
