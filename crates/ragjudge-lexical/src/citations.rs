//! An answer split into its cited parts at its `[n]` citation blocks, as Open RAG Eval's results
//! loader does (`RAGResultsLoader._parse_generated_answer`): each part is the text before a
//! block, cited by the block's numbers; a trailing text of more than one character is a part
//! without citations. Shared by the TREC citation metric and the `claims` protocol.

use regex::Regex;
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

/// One part of an answer and the passages it cites.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnswerPart {
    /// The part's text, without citation markers.
    pub text: String,
    /// Cited passage numbers `n` of `[n]`, in order (1-based).
    pub citations: Vec<usize>,
}

#[allow(clippy::expect_used, reason = "literal patterns, compiled by the tests")]
fn regexes() -> &'static [Regex; 4] {
    static RE: OnceLock<[Regex; 4]> = OnceLock::new();
    RE.get_or_init(|| {
        [
            Regex::new(r"\[\d+(?:,\s*\d+)+\]").expect("valid regex"),
            Regex::new(r"\]\s*,\s*\[").expect("valid regex"),
            Regex::new(r"(?:\[\d+\])+").expect("valid regex"),
            Regex::new(r"\d+").expect("valid regex"),
        ]
    })
}

/// Splits an answer into cited parts, as Open RAG Eval's `_parse_generated_answer`: `[1, 2]` is
/// read as `[1][2]`, `[1], [2]` as `[1][2]`.
pub fn split_answer(answer: &str) -> Vec<AnswerPart> {
    let [multi, comma, block, number] = regexes();
    let expanded = multi.replace_all(answer, |c: &regex::Captures<'_>| {
        number.find_iter(&c[0]).map(|m| format!("[{}]", m.as_str())).collect::<String>()
    });
    let text = comma.replace_all(&expanded, "][");
    let blocks: Vec<regex::Match<'_>> = block.find_iter(&text).collect();
    if blocks.is_empty() {
        return vec![AnswerPart { text: text.into_owned(), citations: Vec::new() }];
    }
    let numbers = |s: &str| -> Vec<usize> { number.find_iter(s).filter_map(|m| m.as_str().parse().ok()).collect() };
    let mut parts = Vec::new();
    let mut start = 0;
    for b in &blocks {
        let part = text[start..b.start()].trim();
        if !part.is_empty() {
            parts.push(AnswerPart { text: part.to_string(), citations: numbers(b.as_str()) });
        }
        start = b.end();
    }
    let last = text[start..].trim();
    if last.chars().count() > 1 {
        parts.push(AnswerPart { text: last.to_string(), citations: Vec::new() });
    }
    parts
}

/// `text` without citation markers (`[1]`, `[1, 2]`, `[1][2]`), as Open RAG Eval reads them.
pub fn strip_citations(text: &str) -> String {
    let parts: Vec<String> = split_answer(text).into_iter().map(|p| p.text).collect();
    let mut out = String::new();
    for p in parts {
        let glue = !out.is_empty() && !p.starts_with(|c: char| ".,;:!?)".contains(c));
        if glue {
            out.push(' ');
        }
        out.push_str(&p);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(text: &str, citations: &[usize]) -> AnswerPart {
        AnswerPart { text: text.into(), citations: citations.to_vec() }
    }

    #[test]
    fn splits_like_open_rag_eval() {
        assert_eq!(
            split_answer("Water evaporates [1, 2]. Plants transpire [3], [1]. The end."),
            vec![part("Water evaporates", &[1, 2]), part(". Plants transpire", &[3, 1]), part(". The end.", &[])]
        );
        assert_eq!(split_answer("No citations here."), vec![part("No citations here.", &[])]);
        // A one-character tail is dropped; an empty text before a block is skipped.
        assert_eq!(split_answer("[2] First[1]."), vec![part("First", &[1])]);
    }

    #[test]
    fn stripping_markers_keeps_sentences_whole() {
        // A marker inside a sentence does not cut it; punctuation after a marker is glued back.
        assert_eq!(
            strip_citations("It happens in the membranes [1] of the chloroplasts [1, 2]. It is green [3]."),
            "It happens in the membranes of the chloroplasts. It is green"
        );
        assert_eq!(strip_citations("No markers."), "No markers.");
    }
}
