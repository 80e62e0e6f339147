//! RAKE keyword extraction (Rose, Engel, Cramer, Cowley 2010, "Automatic keyword extraction from
//! individual documents", in *Text Mining: Applications and Theory*, ch. 1).
//!
//! Candidate keywords are maximal runs of words that contain no stop word and no phrase delimiter.
//! Every word gets `deg(w) / freq(w)`, where `freq(w)` counts the candidate occurrences that contain
//! `w` and `deg(w)` sums the word counts of those occurrences (so a word's co-occurrences include
//! itself, §1.2.2). A candidate's score is the sum of its words' scores.
//!
//! Stop words: the SMART list (see [`crate::stopwords`]), the list the RAKE reference implementation
//! ships with. Adjoining keywords (keywords with interior stop words, §1.2.4) are not produced.
//!
//! Tokenisation (shared with [`crate::ciu`]): a word is a maximal run of alphanumeric characters,
//! lower-cased, keeping an apostrophe (`'` or `’`, stored as `'`) that sits between two letters or
//! digits (`don't`); every CJK ideograph is a word of its own. A hyphen between two alphanumeric
//! characters separates words but does not end a phrase (`state-of-the-art`); whitespace separates
//! words; any other character (punctuation, symbols, a free-standing dash) is a phrase delimiter.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::stopwords::is_smart_stopword;

/// How many keywords [`rake`] returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum KeywordLimit {
    /// Every distinct candidate phrase.
    #[default]
    All,
    /// The `n` best phrases.
    Top(usize),
    /// The paper's choice (§1.2.3): the best `T` phrases, `T = ceil(distinct content words / 3)`.
    ThirdOfWords,
}

/// Options of [`rake`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RakeOptions {
    /// Candidates with more words than this are dropped before scoring (`None`: no limit, as in the
    /// paper). Default `None`.
    pub max_words: Option<usize>,
    /// Candidates whose phrase text (words joined by single spaces) has fewer characters than this
    /// are dropped before scoring. Default 1 (keep everything).
    pub min_chars: usize,
    /// How many of the ranked phrases to return. Default [`KeywordLimit::All`].
    pub limit: KeywordLimit,
}

impl Default for RakeOptions {
    fn default() -> Self {
        Self { max_words: None, min_chars: 1, limit: KeywordLimit::All }
    }
}

/// One extracted keyword phrase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Keyword {
    /// The phrase: its words joined by single spaces (no space between two CJK ideographs).
    pub phrase: String,
    /// The phrase's lower-case words.
    pub tokens: Vec<String>,
    /// Sum of the words' `deg(w) / freq(w)`.
    pub score: f64,
}

/// Extracts keyword phrases from `text` with the SMART stop-word list, best first (ties: first
/// occurrence first).
pub fn rake(text: &str, opts: &RakeOptions) -> Vec<Keyword> {
    rake_with_stopwords(text, opts, is_smart_stopword)
}

/// [`rake`] with a caller-supplied stop-word predicate (called with lower-case words).
pub fn rake_with_stopwords(text: &str, opts: &RakeOptions, is_stopword: impl Fn(&str) -> bool) -> Vec<Keyword> {
    // 1. Candidate occurrences, in text order.
    let mut candidates: Vec<Vec<String>> = Vec::new();
    let mut current: Vec<String> = Vec::new();
    let flush = |current: &mut Vec<String>, candidates: &mut Vec<Vec<String>>| {
        if current.is_empty() {
            return;
        }
        let phrase = std::mem::take(current);
        let too_long = opts.max_words.is_some_and(|m| phrase.len() > m);
        let too_short = join_tokens(&phrase).chars().count() < opts.min_chars;
        if !too_long && !too_short {
            candidates.push(phrase);
        }
    };
    for lexeme in lex(text) {
        match lexeme {
            Lexeme::Word(w) if !is_stopword(&w) => current.push(w),
            _ => flush(&mut current, &mut candidates),
        }
    }
    flush(&mut current, &mut candidates);

    // 2. Word scores deg(w) / freq(w) over all occurrences.
    let mut freq: HashMap<&str, f64> = HashMap::new();
    let mut degree: HashMap<&str, f64> = HashMap::new();
    for phrase in &candidates {
        for w in phrase {
            *freq.entry(w).or_default() += 1.0;
            *degree.entry(w).or_default() += phrase.len() as f64;
        }
    }
    let word_score = |w: &str| degree[w] / freq[w];

    // 3. Distinct phrases in order of first occurrence, scored and ranked.
    let mut seen: HashSet<&[String]> = HashSet::new();
    let mut keywords: Vec<Keyword> = Vec::new();
    for phrase in &candidates {
        if !seen.insert(phrase.as_slice()) {
            continue;
        }
        keywords.push(Keyword {
            phrase: join_tokens(phrase),
            tokens: phrase.clone(),
            score: phrase.iter().map(|w| word_score(w)).sum(),
        });
    }
    // Stable sort keeps first-occurrence order among equal scores.
    keywords.sort_by(|a, b| b.score.total_cmp(&a.score));
    let keep = match opts.limit {
        KeywordLimit::All => keywords.len(),
        KeywordLimit::Top(n) => n,
        KeywordLimit::ThirdOfWords => freq.len().div_ceil(3),
    };
    keywords.truncate(keep);
    keywords
}

/// One lexical unit of the shared tokeniser.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Lexeme {
    /// A lower-case word.
    Word(String),
    /// A phrase delimiter (punctuation or symbol).
    Break,
}

/// Whether `c` is a CJK ideograph (each one is a word of its own).
pub(crate) fn is_cjk_ideograph(c: char) -> bool {
    matches!(c as u32,
        0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF
        | 0x20000..=0x2A6DF | 0x2A700..=0x2EBEF | 0x2F800..=0x2FA1F | 0x30000..=0x3134F)
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() && !is_cjk_ideograph(c)
}

/// Splits `text` into lower-case words and phrase delimiters (rules in the module docs).
pub(crate) fn lex(text: &str) -> Vec<Lexeme> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut word = String::new();
    let end_word = |word: &mut String, out: &mut Vec<Lexeme>| {
        if !word.is_empty() {
            out.push(Lexeme::Word(std::mem::take(word)));
        }
    };
    for (i, &c) in chars.iter().enumerate() {
        let prev_word = i > 0 && is_word_char(chars[i - 1]);
        let next_word = chars.get(i + 1).is_some_and(|&n| is_word_char(n));
        if is_cjk_ideograph(c) {
            end_word(&mut word, &mut out);
            out.push(Lexeme::Word(c.to_string()));
        } else if is_word_char(c) {
            word.extend(c.to_lowercase());
        } else if matches!(c, '\'' | '\u{2019}') && !word.is_empty() && prev_word && next_word {
            word.push('\'');
        } else if c.is_whitespace() || (matches!(c, '-' | '\u{2010}' | '\u{2011}') && prev_word && next_word) {
            // A word separator that does not end the phrase.
            end_word(&mut word, &mut out);
        } else {
            end_word(&mut word, &mut out);
            if out.last() != Some(&Lexeme::Break) {
                out.push(Lexeme::Break);
            }
        }
    }
    end_word(&mut word, &mut out);
    out
}

/// The lower-case words of `text` under the tokeniser described in the module docs (phrase
/// delimiters dropped). CIU uses it for utterances, history turns and grounding sentences.
pub fn words(text: &str) -> Vec<String> {
    lex(text)
        .into_iter()
        .filter_map(|l| match l {
            Lexeme::Word(w) => Some(w),
            Lexeme::Break => None,
        })
        .collect()
}

/// Joins words with single spaces, except between two CJK ideographs.
fn join_tokens(tokens: &[String]) -> String {
    let mut s = String::new();
    let single_cjk = |t: &str| {
        let mut it = t.chars();
        matches!((it.next(), it.next()), (Some(c), None) if is_cjk_ideograph(c))
    };
    for (i, t) in tokens.iter().enumerate() {
        if i > 0 && !(single_cjk(&tokens[i - 1]) && single_cjk(t)) {
            s.push(' ');
        }
        s.push_str(t);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(text: &str) -> Vec<String> {
        words(text)
    }

    #[test]
    fn tokeniser_rules() {
        assert_eq!(w("Don’t STOP-me now!"), ["don't", "stop", "me", "now"]);
        assert_eq!(w("'quoted' dogs' bone"), ["quoted", "dogs", "bone"]);
        assert_eq!(w("北京大学 in 2024"), ["北", "京", "大", "学", "in", "2024"]);
        assert_eq!(w("Ünïcode café"), ["ünïcode", "café"]);
        assert!(w("  ... ").is_empty());
    }

    #[test]
    fn delimiters() {
        use Lexeme::*;
        let l = lex("a-b, c - d");
        assert_eq!(l, vec![Word("a".into()), Word("b".into()), Break, Word("c".into()), Break, Word("d".into())]);
    }

    #[test]
    fn hand_computed_short_text() {
        // "Fast keyword extraction. Keyword scoring is fast."
        // SMART stop words: "is". Candidates: [fast keyword extraction], [keyword scoring], [fast].
        // freq: fast 2, keyword 2, extraction 1, scoring 1.
        // deg:  fast 3+1=4, keyword 3+2=5, extraction 3, scoring 2.
        // word scores: fast 2, keyword 2.5, extraction 3, scoring 2.
        // phrases: "fast keyword extraction" 2+2.5+3 = 7.5; "keyword scoring" 2.5+2 = 4.5; "fast" 2.
        let k = rake("Fast keyword extraction. Keyword scoring is fast.", &RakeOptions::default());
        let got: Vec<(&str, f64)> = k.iter().map(|k| (k.phrase.as_str(), k.score)).collect();
        assert_eq!(got, vec![("fast keyword extraction", 7.5), ("keyword scoring", 4.5), ("fast", 2.0)]);
    }

    #[test]
    fn options_filter_before_scoring() {
        // max_words 2 drops "fast keyword extraction": candidates [keyword scoring], [fast].
        // keyword 2/1 = 2, scoring 2, fast 1/1 = 1 -> "keyword scoring" 4, "fast" 1.
        let opts = RakeOptions { max_words: Some(2), ..Default::default() };
        let k = rake("Fast keyword extraction. Keyword scoring is fast.", &opts);
        assert_eq!(k.len(), 2);
        assert_eq!((k[0].phrase.as_str(), k[0].score), ("keyword scoring", 4.0));
        assert_eq!((k[1].phrase.as_str(), k[1].score), ("fast", 1.0));
        // min_chars 5 drops "fast" (4 chars).
        let opts = RakeOptions { min_chars: 5, ..Default::default() };
        let k = rake("Fast keyword extraction. Keyword scoring is fast.", &opts);
        assert!(k.iter().all(|k| k.phrase != "fast"));
        // Top(1)
        let opts = RakeOptions { limit: KeywordLimit::Top(1), ..Default::default() };
        assert_eq!(rake("Fast keyword extraction. Keyword scoring is fast.", &opts).len(), 1);
    }

    #[test]
    fn cjk_phrase_joins_without_spaces() {
        let k = rake("北京大学", &RakeOptions::default());
        assert_eq!(k[0].phrase, "北京大学");
        assert_eq!(k[0].tokens.len(), 4);
    }

    #[test]
    fn empty_text() {
        assert!(rake("", &RakeOptions::default()).is_empty());
        assert!(rake("the of and.", &RakeOptions::default()).is_empty());
    }
}
