//! The differences between two answers, word by word, for the page to highlight.

use serde::Serialize;
use similar::{ChangeTag, TextDiff};

/// A piece of an answer: text the other answer shares, or text only this answer has.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Span {
    /// The text, whitespace included.
    pub text: String,
    /// Whether the other answer lacks it.
    pub changed: bool,
}

impl Span {
    /// An unchanged span of `text`.
    pub fn same(text: &str) -> Self {
        Span { text: text.into(), changed: false }
    }
}

/// Below this share of common words (twice the shared words over the words of both), two answers are shown without highlights: marking nearly
/// every word helps no reader.
pub const MIN_COMMON_RATIO: f32 = 0.2;

/// The two answers cut into spans by a word diff (Myers' algorithm, as `similar` computes it):
/// words only `a` has are changed in the first list, words only `b` has in the second. Answers
/// that share fewer than [`MIN_COMMON_RATIO`] of their words come back whole, unchanged.
pub fn word_diff(a: &str, b: &str) -> (Vec<Span>, Vec<Span>) {
    let diff = TextDiff::from_words(a, b);
    let is_word = |t: &str| !t.trim().is_empty();
    let shared = diff.iter_all_changes().filter(|c| c.tag() == ChangeTag::Equal && is_word(c.value())).count();
    let words = a.split_whitespace().count() + b.split_whitespace().count();
    if words == 0 || (2 * shared) as f32 / (words as f32) < MIN_COMMON_RATIO {
        return (vec![Span::same(a)], vec![Span::same(b)]);
    }
    let (mut left, mut right) = (Vec::new(), Vec::new());
    for change in diff.iter_all_changes() {
        let text = change.value();
        match change.tag() {
            ChangeTag::Equal => {
                push(&mut left, text, false);
                push(&mut right, text, false);
            }
            ChangeTag::Delete => push_change(&mut left, text),
            ChangeTag::Insert => push_change(&mut right, text),
        }
    }
    (close_gaps(left), close_gaps(right))
}

/// Joins changed spans separated by whitespace alone, so a run of changed words reads as one.
fn close_gaps(spans: Vec<Span>) -> Vec<Span> {
    let mut out: Vec<Span> = Vec::with_capacity(spans.len());
    let mut iter = spans.into_iter().peekable();
    while let Some(span) = iter.next() {
        let gap = !span.changed && span.text.trim().is_empty();
        let between = gap && out.last().is_some_and(|s| s.changed) && iter.peek().is_some_and(|s| s.changed);
        match out.last_mut() {
            Some(last) if between || (span.changed && last.changed) => last.text.push_str(&span.text),
            _ => out.push(span),
        }
    }
    out
}

/// Appends a changed word; whitespace alone takes the state of the span before it, so that a
/// run of changed words is one span.
fn push_change(spans: &mut Vec<Span>, text: &str) {
    let changed = !text.trim().is_empty() || spans.last().is_some_and(|s| s.changed);
    push(spans, text, changed);
}

/// Appends `text`, merged into the last span when it has the same state.
fn push(spans: &mut Vec<Span>, text: &str, changed: bool) {
    match spans.last_mut() {
        Some(last) if last.changed == changed => last.text.push_str(text),
        _ => spans.push(Span { text: text.into(), changed }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn joined(spans: &[Span]) -> String {
        spans.iter().map(|s| s.text.as_str()).collect()
    }

    fn changed(spans: &[Span]) -> Vec<&str> {
        spans.iter().filter(|s| s.changed).map(|s| s.text.trim()).collect()
    }

    #[test]
    fn the_words_one_answer_lacks_are_marked_on_the_other() {
        let (a, b) = word_diff("The tower is 330 metres tall.", "The tower is 300 metres tall today.");
        assert_eq!(joined(&a), "The tower is 330 metres tall.");
        assert_eq!(joined(&b), "The tower is 300 metres tall today.");
        assert_eq!(changed(&a), ["330", "tall."]);
        assert_eq!(changed(&b), ["300", "tall today."]);
    }

    #[test]
    fn changed_words_apart_by_a_space_are_one_span() {
        let (_, b) = word_diff("Plants give water vapour.", "Plants give off a lot of water vapour.");
        assert_eq!(changed(&b), ["off a lot of"]);
    }

    #[test]
    fn unrelated_answers_are_not_highlighted() {
        let (a, b) = word_diff("Paris is the capital of France.", "Bananas grow on large herbs.");
        assert_eq!(a, [Span::same("Paris is the capital of France.")]);
        assert_eq!(b, [Span::same("Bananas grow on large herbs.")]);
    }
}
