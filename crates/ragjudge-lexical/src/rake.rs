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
//! Chinese ([`rake_lang`] with [`Lang::Zh`]): words are jieba's ([`crate::segment`]), stop words
//! the stopwords-iso Chinese list plus SMART, punctuation tokens end a phrase.
//!
//! Tokenisation (shared with [`crate::ciu`]): a word is a maximal run of alphanumeric characters,
//! lower-cased, keeping an apostrophe (`'` or `’`, stored as `'`) that sits between two letters or
//! digits (`don't`); every CJK ideograph is a word of its own. A hyphen between two alphanumeric
//! characters separates words but does not end a phrase (`state-of-the-art`); whitespace separates
//! words; any other character (punctuation, symbols, a free-standing dash) is a phrase delimiter.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::lang::Lang;
use crate::segment::jieba_cut;
use crate::stopwords::{is_smart_stopword, is_zh_stopword};

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

/// [`rake`] for a language: English as [`rake`]; Chinese with jieba's words ([`lex_zh`]) and the
/// stopwords-iso Chinese list together with the SMART list (for English words inside Chinese text).
pub fn rake_lang(text: &str, opts: &RakeOptions, lang: Lang) -> Vec<Keyword> {
    match lang {
        Lang::En => rake(text, opts),
        Lang::Zh => rake_lexemes(lex_zh(text), opts, |w| is_zh_stopword(w) || is_smart_stopword(w)),
    }
}

/// [`rake`] with a caller-supplied stop-word predicate (called with lower-case words).
pub fn rake_with_stopwords(text: &str, opts: &RakeOptions, is_stopword: impl Fn(&str) -> bool) -> Vec<Keyword> {
    rake_lexemes(lex(text), opts, is_stopword)
}

fn rake_lexemes(lexemes: Vec<Lexeme>, opts: &RakeOptions, is_stopword: impl Fn(&str) -> bool) -> Vec<Keyword> {
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
    for lexeme in lexemes {
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

/// Chinese lexing: jieba's tokens ([`jieba_cut`]); a token with a letter, digit or ideograph is a
/// lower-case word, a whitespace token separates words without ending the phrase, any other token
/// (punctuation, symbols) is a phrase delimiter.
pub(crate) fn lex_zh(text: &str) -> Vec<Lexeme> {
    let mut out = Vec::new();
    for tok in jieba_cut(text) {
        if tok.chars().any(char::is_alphanumeric) {
            out.push(Lexeme::Word(tok.to_lowercase()));
        } else if !tok.chars().all(char::is_whitespace) && out.last() != Some(&Lexeme::Break) {
            out.push(Lexeme::Break);
        }
    }
    out
}

/// The lower-case words of `text` under the tokeniser described in the module docs (phrase
/// delimiters dropped). CIU uses it for utterances, history turns and grounding sentences.
pub fn words(text: &str) -> Vec<String> {
    only_words(lex(text))
}

/// [`words`] for a language: Chinese text is cut by jieba ([`lex_zh`]).
pub fn words_lang(text: &str, lang: Lang) -> Vec<String> {
    match lang {
        Lang::En => words(text),
        Lang::Zh => only_words(lex_zh(text)),
    }
}

fn only_words(lexemes: Vec<Lexeme>) -> Vec<String> {
    lexemes
        .into_iter()
        .filter_map(|l| match l {
            Lexeme::Word(w) => Some(w),
            Lexeme::Break => None,
        })
        .collect()
}

/// Joins words with single spaces, except where a word ending in a CJK ideograph meets one that
/// starts with one.
fn join_tokens(tokens: &[String]) -> String {
    let mut s = String::new();
    let cjk = |c: Option<char>| c.is_some_and(is_cjk_ideograph);
    for (i, t) in tokens.iter().enumerate() {
        if i > 0 && !(cjk(tokens[i - 1].chars().next_back()) && cjk(t.chars().next())) {
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

    /// Hand-computed on jieba 0.42.1's cut: 央行 下调 利率 ， 银行 股 上涨 。 利率 下调 利好 银行 股 。
    /// Candidates [央行 下调 利率] [银行 股 上涨] [利率 下调 利好 银行 股]. freq: 下调, 利率, 银行, 股
    /// 2, others 1; deg: 央行 3, 上涨 3, 利好 5, 下调 = 利率 = 银行 = 股 = 3 + 5 = 8. Word scores
    /// 央行 3, 上涨 3, 利好 5, the rest 4: phrases 4+4+5+4+4 = 21, 3+4+4 = 11, 4+4+3 = 11.
    #[cfg(feature = "zh")]
    #[test]
    fn chinese_hand_computed() {
        let k = rake_lang("央行下调利率，银行股上涨。利率下调利好银行股。", &RakeOptions::default(), Lang::Zh);
        let got: Vec<(&str, f64)> = k.iter().map(|k| (k.phrase.as_str(), k.score)).collect();
        assert_eq!(got, vec![("利率下调利好银行股", 21.0), ("央行下调利率", 11.0), ("银行股上涨", 11.0)]);
        assert_eq!(k[1].tokens, ["央行", "下调", "利率"]);
        // 的 is a stopwords-iso stop word: [美联储] [利率 决议] -> 1 and 2 + 2.
        let k = rake_lang("美联储的利率决议", &RakeOptions::default(), Lang::Zh);
        let got: Vec<(&str, f64)> = k.iter().map(|k| (k.phrase.as_str(), k.score)).collect();
        assert_eq!(got, vec![("利率决议", 4.0), ("美联储", 1.0)]);
        assert_eq!(words_lang("Fed 加息 0.25%", Lang::Zh), ["fed", "加息", "0.25%"]);
    }

    #[test]
    fn empty_text() {
        assert!(rake("", &RakeOptions::default()).is_empty());
        assert!(rake("the of and.", &RakeOptions::default()).is_empty());
    }
}
