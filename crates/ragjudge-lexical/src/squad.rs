//! Token F1 and exact match as in the official SQuAD v1.1 evaluation script
//! (`evaluate-v1.1.py`, Rajpurkar et al. 2016, "SQuAD: 100,000+ Questions for Machine
//! Comprehension of Text", section 5).
//!
//! `normalize_answer`: Python `lower()`, drop ASCII punctuation (`string.punctuation`), replace
//! the whole words `a`, `an`, `the` (regex `\b(a|an|the)\b`) by a space, collapse whitespace.
//! Word characters for `\b` are approximated by `char::is_alphanumeric() || '_'`; Python's `re`
//! differs only for combining marks that Unicode marks Alphabetic (e.g. Devanagari vowel signs)
//! next to an article.

use crate::bleu::{py_split, FxHashMap};

/// Python's `string.punctuation`.
const PUNCTUATION: &str = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// SQuAD v1.1 `normalize_answer`, returned as its whitespace-separated tokens.
pub fn normalize_tokens(s: &str) -> Vec<String> {
    let lowered = s.to_lowercase();
    let no_punct: String = lowered.chars().filter(|c| !PUNCTUATION.contains(*c)).collect();
    // Remove whole-word articles: a maximal run of word characters equal to an article.
    let mut out = String::with_capacity(no_punct.len());
    let mut run_start: Option<usize> = None;
    let flush = |out: &mut String, run: &str| {
        if matches!(run, "a" | "an" | "the") {
            out.push(' ');
        } else {
            out.push_str(run);
        }
    };
    for (i, c) in no_punct.char_indices() {
        if is_word_char(c) {
            run_start.get_or_insert(i);
        } else {
            if let Some(st) = run_start.take() {
                flush(&mut out, &no_punct[st..i]);
            }
            out.push(c);
        }
    }
    if let Some(st) = run_start {
        flush(&mut out, &no_punct[st..]);
    }
    py_split(&out).map(str::to_owned).collect()
}

/// SQuAD v1.1 `normalize_answer` (tokens joined by single spaces).
pub fn normalize_answer(s: &str) -> String {
    normalize_tokens(s).join(" ")
}

/// SQuAD v1.1 `f1_score`: bag-of-tokens F1 after normalisation; 0 when nothing is shared.
pub fn token_f1(prediction: &str, ground_truth: &str) -> f64 {
    let p = normalize_tokens(prediction);
    let g = normalize_tokens(ground_truth);
    let mut budget: FxHashMap<&str, u32> = FxHashMap::default();
    for t in &g {
        *budget.entry(t.as_str()).or_insert(0) += 1;
    }
    let mut num_same = 0u64;
    for t in &p {
        if let Some(b) = budget.get_mut(t.as_str()) {
            if *b > 0 {
                *b -= 1;
                num_same += 1;
            }
        }
    }
    if num_same == 0 {
        return 0.0;
    }
    let precision = 1.0 * num_same as f64 / p.len() as f64;
    let recall = 1.0 * num_same as f64 / g.len() as f64;
    (2.0 * precision * recall) / (precision + recall)
}

/// SQuAD v1.1 `exact_match_score`: 1.0 when the normalised strings are equal, else 0.0.
pub fn exact_match(prediction: &str, ground_truth: &str) -> f64 {
    if normalize_tokens(prediction) == normalize_tokens(ground_truth) {
        1.0
    } else {
        0.0
    }
}

/// `metric_max_over_ground_truths(f1_score, ...)`; 0.0 when there is no ground truth.
pub fn max_token_f1(prediction: &str, ground_truths: &[&str]) -> f64 {
    ground_truths.iter().map(|g| token_f1(prediction, g)).fold(0.0, f64::max)
}

/// `metric_max_over_ground_truths(exact_match_score, ...)`; 0.0 when there is no ground truth.
pub fn max_exact_match(prediction: &str, ground_truths: &[&str]) -> f64 {
    ground_truths.iter().map(|g| exact_match(prediction, g)).fold(0.0, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalisation() {
        assert_eq!(normalize_answer("The  Cat, an apple & A dog!"), "cat apple dog");
        assert_eq!(normalize_answer("theatre another"), "theatre another");
        assert_eq!(normalize_answer("the-end"), "theend");
    }

    /// Hand-computed: prediction "the big red car" -> [big, red, car], truth "a red car" ->
    /// [red, car]: 2 shared, P = 2/3, R = 1, F1 = 0.8.
    #[test]
    fn f1_and_em() {
        assert!((token_f1("the big red car", "a red car") - 0.8).abs() < 1e-15);
        assert_eq!(exact_match("The Red car.", "red  car"), 1.0);
        assert_eq!(exact_match("red car", "blue car"), 0.0);
        assert_eq!(token_f1("", ""), 0.0);
        assert_eq!(max_token_f1("red car", &["blue", "red car"]), 1.0);
        assert_eq!(max_exact_match("red car", &["blue", "Red car"]), 1.0);
    }
}
