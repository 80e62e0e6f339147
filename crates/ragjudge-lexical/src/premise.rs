//! The premise of a claim: the few sentences of a text most like it, so that an entailment
//! check reads a short premise rather than the whole text. Shared by the hallucination and
//! entailment metrics, the `claims` protocol and the contradiction probes.

use crate::rouge::RougeScorer;

/// Source sentences shown as a claim's premise by default.
pub const DEFAULT_PREMISE_SENTENCES: usize = 3;

/// The `k` sentences of `sentences` most like `claim` (ROUGE-2 recall of the claim, then
/// ROUGE-1 recall, then position), in their original order: the premise of a claim, as SummaC's
/// sentence-level premises (Laban et al. 2022) and the NLI metrics of Honovich et al. (2022)
/// select them.
pub fn select_premise<'a>(claim: &str, sentences: &[&'a str], k: usize) -> Vec<&'a str> {
    let scorer = RougeScorer::new(true);
    let mut scored: Vec<(usize, f64, f64)> = sentences
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let r = scorer.score(claim, s);
            (i, r.rouge2.recall, r.rouge1.recall)
        })
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.2.total_cmp(&a.2)).then(a.0.cmp(&b.0)));
    let mut keep: Vec<usize> = scored.iter().take(k).map(|s| s.0).collect();
    keep.sort_unstable();
    keep.into_iter().map(|i| sentences[i]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_premise_is_the_most_overlapping_sentences_in_document_order() {
        let source = ["The cat sat on the mat.", "Dogs bark at night.", "The mat was red.", "It rained."];
        let p = select_premise("The cat sat on a red mat.", &source, 2);
        assert_eq!(p, vec!["The cat sat on the mat.", "The mat was red."]);
        assert_eq!(select_premise("x", &source, 10).len(), 4);
    }
}
