//! F1 and exact match for Chinese answers as in the official CMRC 2018 evaluation script
//! (`cmrc2018_evaluate.py`; Cui et al. 2019, "A Span-Extraction Dataset for Chinese Machine
//! Reading Comprehension", evaluation metrics).
//!
//! * `mixed_segmentation(text, rm_punc=True)`: Python `lower().strip()`; the script's punctuation
//!   list ([`is_cmrc_punct`]) is dropped; every character in U+4E00..=U+9FA5 is a token; the runs
//!   between them are cut by NLTK's `word_tokenize` ([`nltk_word_tokenize`]).
//! * F1: the *longest common substring* of the two token lists (`find_lcs`), `P = lcs / |pred|`,
//!   `R = lcs / |answer|`, `F1 = 2PR / (P + R)`, 0 when nothing is shared; the maximum over answers.
//! * EM: `remove_punctuation` (lower, strip, punctuation list dropped) of both sides are equal.
//!
//! The script's list holds `'……'`, a two-character string that no single character equals, so
//! `…` is kept; it holds `’` but not `‘`. Where SQuAD's normalisation ([`crate::squad`]) finds one
//! token in a Chinese sentence, this finds one per character.

use std::sync::OnceLock;

use regex::Regex;

use crate::bleu::{is_py_space, py_split};

/// Whether `c` is on the script's `sp_char` list (`'……'` can never match one character).
pub fn is_cmrc_punct(c: char) -> bool {
    matches!(
        c,
        '-' | ':'
            | '_'
            | '*'
            | '^'
            | '/'
            | '\\'
            | '~'
            | '`'
            | '+'
            | '='
            | '，'
            | '。'
            | '：'
            | '？'
            | '！'
            | '“'
            | '”'
            | '；'
            | '’'
            | '《'
            | '》'
            | '·'
            | '、'
            | '「'
            | '」'
            | '（'
            | '）'
            | '－'
            | '～'
            | '『'
            | '』'
    )
}

/// `re.search(r'[\u4e00-\u9fa5]', char)` of the script.
fn is_cmrc_chinese(c: char) -> bool {
    ('\u{4e00}'..='\u{9fa5}').contains(&c)
}

/// Python's `str.lower().strip()`.
fn lower_strip(s: &str) -> String {
    s.to_lowercase().trim_matches(is_py_space).to_owned()
}

/// `mixed_segmentation(in_str, rm_punc)` of the script.
pub fn mixed_segmentation(text: &str, rm_punc: bool) -> Vec<String> {
    let text = lower_strip(text);
    let mut out = Vec::new();
    let mut run = String::new();
    for c in text.chars() {
        if rm_punc && is_cmrc_punct(c) {
            continue;
        }
        if is_cmrc_chinese(c) || is_cmrc_punct(c) {
            if !run.is_empty() {
                out.extend(nltk_word_tokenize(&run));
                run.clear();
            }
            out.push(c.to_string());
        } else {
            run.push(c);
        }
    }
    if !run.is_empty() {
        out.extend(nltk_word_tokenize(&run));
    }
    out
}

/// `remove_punctuation(in_str)` of the script.
pub fn remove_punctuation(text: &str) -> String {
    lower_strip(text).chars().filter(|&c| !is_cmrc_punct(c)).collect()
}

/// Length of the longest common contiguous run of tokens (`find_lcs`).
pub fn longest_common_substring(a: &[String], b: &[String]) -> usize {
    let mut prev = vec![0usize; b.len() + 1];
    let mut cur = vec![0usize; b.len() + 1];
    let mut best = 0;
    for x in a {
        for (j, y) in b.iter().enumerate() {
            cur[j + 1] = if x == y { prev[j] + 1 } else { 0 };
            best = best.max(cur[j + 1]);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    best
}

/// The script's F1 of one prediction against one answer.
pub fn cmrc_f1(prediction: &str, answer: &str) -> f64 {
    let a = mixed_segmentation(answer, true);
    let p = mixed_segmentation(prediction, true);
    let lcs = longest_common_substring(&a, &p);
    if lcs == 0 {
        return 0.0;
    }
    let precision = 1.0 * lcs as f64 / p.len() as f64;
    let recall = 1.0 * lcs as f64 / a.len() as f64;
    (2.0 * precision * recall) / (precision + recall)
}

/// The script's exact match of one prediction against one answer (1.0 or 0.0).
pub fn cmrc_em(prediction: &str, answer: &str) -> f64 {
    if remove_punctuation(answer) == remove_punctuation(prediction) {
        1.0
    } else {
        0.0
    }
}

/// `calc_f1_score(answers, prediction)`: the best F1 over answers; 0.0 when there is none.
pub fn max_cmrc_f1(prediction: &str, answers: &[&str]) -> f64 {
    answers.iter().map(|a| cmrc_f1(prediction, a)).fold(0.0, f64::max)
}

/// `calc_em_score(answers, prediction)`; 0.0 when there is no answer.
pub fn max_cmrc_em(prediction: &str, answers: &[&str]) -> f64 {
    answers.iter().map(|a| cmrc_em(prediction, a)).fold(0.0, f64::max)
}

/// One substitution step of NLTK's tokenizer.
struct Rule(Regex, &'static str);

fn rules(list: &[(&str, &'static str)]) -> Vec<Rule> {
    // The patterns are constants, checked by the tests.
    list.iter().filter_map(|(p, r)| Regex::new(p).ok().map(|re| Rule(re, r))).collect()
}

struct Nltk {
    starting: Vec<Rule>,
    punctuation: Vec<Rule>,
    ending: Vec<Rule>,
    contractions: Vec<Rule>,
}

fn nltk() -> &'static Nltk {
    static N: OnceLock<Nltk> = OnceLock::new();
    N.get_or_init(|| Nltk {
        starting: rules(&[
            (r"([«“‘„]|[`]+)", " ${1} "),
            (r#"^""#, "``"),
            (r"(``)", " ${1} "),
            (r#"([ \(\[{<])("|'{2})"#, "${1} `` "),
        ]),
        punctuation: rules(&[
            (r#"([^\.])(\.)([\]\)}>"'»”’ ]*)\s*$"#, "${1} ${2} ${3} "),
            (r"([:,])([^\d])", " ${1} ${2}"),
            (r"([:,])$", " ${1} "),
            (r"\.{2,}", " ${0} "),
            (r"[;@#$%&]", " ${0} "),
            (r"[\u{2012}-\u{2015}]", " ${0} "),
            (r#"([^\.])(\.)([\]\)}>"']*)\s*$"#, "${1} ${2}${3} "),
            (r"[?!]", " ${0} "),
            (r"([^'])' ", "${1} ' "),
            (r"[*]", " ${0} "),
            (r"[\]\[\(\)\{\}<>]", " ${0} "),
            (r"--", " -- "),
        ]),
        ending: rules(&[
            (r"([»”’])", " ${1} "),
            (r"''", " '' "),
            (r#"""#, " '' "),
            (r"\s+", " "),
            (r"([^' ])('[sS]|'[mM]|'[dD]|') ", "${1} ${2} "),
            (r"([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ", "${1} ${2} "),
        ]),
        contractions: rules(&[
            (r"(?i)\b(can)(not)\b", " ${1} ${2} "),
            (r"(?i)\b(d)('ye)\b", " ${1} ${2} "),
            (r"(?i)\b(gim)(me)\b", " ${1} ${2} "),
            (r"(?i)\b(gon)(na)\b", " ${1} ${2} "),
            (r"(?i)\b(got)(ta)\b", " ${1} ${2} "),
            (r"(?i)\b(lem)(me)\b", " ${1} ${2} "),
            (r"(?i)\b(more)('n)\b", " ${1} ${2} "),
            // `(?=\s)` in NLTK: the space is captured and put back.
            (r"(?i)\b(wan)(na)(\s)", " ${1} ${2} ${3}"),
            (r"(?i) ('t)(is)\b", " ${1} ${2} "),
            (r"(?i) ('t)(was)\b", " ${1} ${2} "),
        ]),
    })
}

fn apply(rules: &[Rule], mut text: String) -> String {
    for Rule(re, rep) in rules {
        if re.is_match(&text) {
            text = re.replace_all(&text, *rep).into_owned();
        }
    }
    text
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// NLTK's `(?i)(?<!\w)(\')(?!(?:re|ve|ll|m|t|s|d|n)\b)(?=\w)` -> `"\1 "`: an opening apostrophe
/// before a word that is not a contraction suffix gets a space after it.
fn split_opening_apostrophes(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        out.push(c);
        if c != '\'' || (i > 0 && is_word(chars[i - 1])) || !chars.get(i + 1).is_some_and(|&n| is_word(n)) {
            continue;
        }
        let rest: String = chars[i + 1..].iter().take(3).flat_map(|c| c.to_lowercase()).collect();
        let suffix = ["re", "ve", "ll", "m", "t", "s", "d", "n"]
            .iter()
            .any(|s| rest.starts_with(s) && !chars.get(i + 1 + s.chars().count()).is_some_and(|&n| is_word(n)));
        if !suffix {
            out.push(' ');
        }
    }
    out
}

/// NLTK 3.10's `word_tokenize(text, preserve_line=True)` (`NLTKWordTokenizer.tokenize`, the
/// improved Penn Treebank tokenizer), used for the non-Chinese runs of [`mixed_segmentation`].
///
/// The script calls `word_tokenize(text)`, which first splits sentences with the Punkt model; for
/// the short runs between Chinese characters that is the whole run, and this function does not
/// split sentences. `\w`, `\s` and `\d` follow Rust's Unicode classes, which differ from Python's
/// only for a few marks and the separators U+001C..U+001F.
pub fn nltk_word_tokenize(text: &str) -> Vec<String> {
    let n = nltk();
    let text = apply(&n.starting, text.to_owned());
    let text = split_opening_apostrophes(&text);
    let text = apply(&n.punctuation, text);
    let text = apply(&n.ending, format!(" {text} "));
    let text = apply(&n.contractions, text);
    py_split(&text).map(str::to_owned).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_nltk_patterns_compile() {
        let n = nltk();
        assert_eq!((n.starting.len(), n.punctuation.len(), n.ending.len(), n.contractions.len()), (4, 12, 6, 10));
    }

    /// Expected tokens from NLTK 3.10.4 `word_tokenize(s, preserve_line=True)`.
    #[test]
    fn nltk_tokens() {
        let t = |s: &str| nltk_word_tokenize(s);
        assert_eq!(
            t("Good muffins cost $3.88 (roughly 3,36 euros)"),
            ["Good", "muffins", "cost", "$", "3.88", "(", "roughly", "3,36", "euros", ")"]
        );
        assert_eq!(t("don't know (yet)."), ["do", "n't", "know", "(", "yet", ")", "."]);
        assert_eq!(t("'quoted' they're"), ["'", "quoted", "'", "they", "'re"]);
        assert_eq!(t("cannot gonna"), ["can", "not", "gon", "na"]);
        assert_eq!(t("50% u.s. a, b"), ["50", "%", "u.s.", "a", ",", "b"]);
    }

    /// Hand-computed with the script's rules.
    #[test]
    fn f1_em_by_hand() {
        // "上涨1.25%" -> [上, 涨, 1.25, %]; "1.25%" -> [1.25, %]: LCS 2, P = 2/2, R = 2/4.
        assert_eq!(mixed_segmentation("上涨1.25%", true), ["上", "涨", "1.25", "%"]);
        let f = cmrc_f1("1.25%", "上涨1.25%");
        assert!((f - 2.0 * 0.5 / 1.5).abs() < 1e-15);
        // Longest common *substring*: [a, b, c] vs [a, x, b, c] shares "b c" (2), not 3.
        assert_eq!(cmrc_f1("甲乙丙", "甲丁乙丙"), 2.0 * (2.0 / 3.0) * 0.5 / (2.0 / 3.0 + 0.5));
        assert_eq!(cmrc_em("《证券法》", "证券法"), 1.0);
        assert_eq!(cmrc_em("证券法……", "证券法"), 0.0);
        assert_eq!(max_cmrc_f1("甲", &[]), 0.0);
        assert_eq!(max_cmrc_em("A股", &["x", "a股"]), 1.0);
    }
}
