//! English stop words: the SMART list (Salton 1971) that RAKE (Rose et al. 2010) is usually run with.
//!
//! The list lives in `data/smart_stopwords.txt` (570 words, lower case, apostrophes ASCII) and is
//! compiled into the crate.
//!
//! Chinese stop words: the stopwords-iso `zh` list (MIT licence), 794 entries, in
//! `data/zh_stopwords.txt` (its header says where it comes from).

use std::collections::HashSet;
use std::sync::OnceLock;

const SMART_TXT: &str = include_str!("../data/smart_stopwords.txt");
const ZH_TXT: &str = include_str!("../data/zh_stopwords.txt");

/// The SMART English stop-word list, lower case.
pub fn smart() -> &'static HashSet<&'static str> {
    static SET: OnceLock<HashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| SMART_TXT.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).collect())
}

/// Whether `word` (already lower case) is a SMART stop word.
pub fn is_smart_stopword(word: &str) -> bool {
    smart().contains(word)
}

/// The stopwords-iso Chinese stop-word list.
pub fn zh() -> &'static HashSet<&'static str> {
    static SET: OnceLock<HashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| ZH_TXT.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).collect())
}

/// Whether `word` is on the stopwords-iso Chinese list.
pub fn is_zh_stopword(word: &str) -> bool {
    zh().contains(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zh_list_has_794_words() {
        assert_eq!(zh().len(), 794);
        for w in ["的", "了", "和", "一个", "我们", "。"] {
            assert!(is_zh_stopword(w), "{w}");
        }
        for w in ["关税", "利率", "股价"] {
            assert!(!is_zh_stopword(w), "{w}");
        }
    }

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
