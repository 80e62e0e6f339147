//! Citation support (Open RAG Eval, "Citation Metric"; Open RAG Eval 0.3.0 `CitationMetric`).
//!
//! The answer is split into parts at its `[n]` citation blocks as Open RAG Eval's results loader
//! does (`RAGResultsLoader._parse_generated_answer`): each part is the text before a block, cited
//! by the block's numbers; a trailing text of more than one character is a part without
//! citations. `[n]` cites `contexts[n-1]`; a citation of a passage that does not exist (or is
//! empty) is skipped, as Open RAG Eval skips it.
//!
//! The judge rates each (part, cited passage) pair full (1), partial (0.5) or no support (0).
//! With per-citation averages over the parts citing that passage and per-part averages over its
//! citations (0 for a part without citations):
//! * weighted precision = sum of citation averages / number of cited passages (0 when none);
//! * weighted recall = sum of part averages / number of parts (0 when none);
//! * F1 = 2PR / (P + R), 0 when P + R = 0.
//!
//! The zeros are Open RAG Eval's, so an answer that cites nothing scores 0. A judgement that
//! stays unparseable after the retries makes all three `None` (Open RAG Eval drops it silently).

use crate::judging::{ask_all, CallOptions, Invalid, Request};
use crate::parse::parse_single_label;
use crate::prompts;
use ragjudge_lexical::citations::{split_answer, AnswerPart};
use ragjudge_models::{Judge, Prompt};
use serde::{Deserialize, Serialize};

/// Support labels, with scores 1, 0.5 and 0.
pub const SUPPORT: [&str; 3] = ["full_support", "partial_support", "no_support"];

/// Score of a support label.
pub fn support_score(label: &str) -> Option<f64> {
    match label {
        "full_support" => Some(1.0),
        "partial_support" => Some(0.5),
        "no_support" => Some(0.0),
        _ => None,
    }
}

/// Weighted precision, recall and F1 of citation support.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct CitationScores {
    /// Weighted precision.
    pub precision: Option<f64>,
    /// Weighted recall.
    pub recall: Option<f64>,
    /// F1.
    pub f1: Option<f64>,
}

/// Scores from each part's judgements: `parts[i]` lists (cited passage number, support score) of
/// part `i`, with `None` for a skipped citation (no such passage). Module docs give the formulas.
/// Returns the scores, the per-citation averages (first-citation order) and the per-part
/// averages (`None` for a part whose citations were all skipped: it is left out, as in Open RAG Eval).
pub fn citation_scores(parts: &[Vec<(usize, Option<f64>)>]) -> (CitationScores, Vec<(usize, f64)>, Vec<Option<f64>>) {
    let mut per_citation: Vec<(usize, f64, usize)> = Vec::new();
    let mut per_part = Vec::with_capacity(parts.len());
    for cites in parts {
        let scored: Vec<f64> = cites.iter().filter_map(|c| c.1).collect();
        per_part.push(if cites.is_empty() {
            Some(0.0)
        } else if scored.is_empty() {
            None
        } else {
            Some(scored.iter().sum::<f64>() / scored.len() as f64)
        });
        for &(n, s) in cites {
            let Some(s) = s else { continue };
            match per_citation.iter_mut().find(|c| c.0 == n) {
                Some(c) => {
                    c.1 += s;
                    c.2 += 1;
                }
                None => per_citation.push((n, s, 1)),
            }
        }
    }
    let citation_avgs: Vec<(usize, f64)> = per_citation.iter().map(|&(n, sum, k)| (n, sum / k as f64)).collect();
    let mean = |v: &[f64]| if v.is_empty() { 0.0 } else { v.iter().sum::<f64>() / v.len() as f64 };
    let precision = mean(&citation_avgs.iter().map(|c| c.1).collect::<Vec<_>>());
    let recall = mean(&per_part.iter().flatten().copied().collect::<Vec<_>>());
    let f1 = if precision + recall == 0.0 { 0.0 } else { 2.0 * precision * recall / (precision + recall) };
    (CitationScores { precision: Some(precision), recall: Some(recall), f1: Some(f1) }, citation_avgs, per_part)
}

/// One (part, citation) judgement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Judgement {
    /// Part index, 1-based.
    pub part: usize,
    /// Cited passage number `n` of `[n]`.
    pub citation: usize,
    /// The judge's label; `None` when skipped (no such passage) or invalid.
    pub support: Option<String>,
    /// Why there is no label, if there is none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Everything the citation metric found for one record.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CitationEval {
    /// The answer's parts.
    pub parts: Vec<AnswerPart>,
    /// One entry per (part, citation).
    pub judgements: Vec<Judgement>,
    /// Average score per cited passage number (Open RAG Eval's `citation_score_[n]`).
    pub citation_averages: Vec<(usize, f64)>,
    /// Average score per part (`part_score_i`); `None` for a part left out.
    pub part_averages: Vec<Option<f64>>,
    /// The scores; all `None` when a judgement is invalid.
    pub scores: CitationScores,
}

const MAX_TOKENS: u32 = 64;

/// Judges the citations of `answer` against `contexts` (passage texts in rank order).
pub fn evaluate(
    judge: &dyn Judge,
    answer: &str,
    contexts: &[&str],
    call: &CallOptions,
    invalid: &mut Vec<Invalid>,
) -> CitationEval {
    let parts = split_answer(answer);
    // Distinct (part, passage) pairs are asked once.
    let mut asked: Vec<(usize, usize)> = Vec::new();
    let mut requests = Vec::new();
    for (pi, part) in parts.iter().enumerate() {
        for &n in &part.citations {
            let exists = n >= 1 && contexts.get(n - 1).is_some_and(|c| !c.is_empty());
            if exists && !asked.contains(&(pi, n)) {
                asked.push((pi, n));
                let text =
                    prompts::fill(prompts::CITATION, &[("statement", &part.text), ("citation", contexts[n - 1])]);
                requests.push(Request {
                    prompt: Prompt::chat(prompts::SYSTEM, text),
                    max_tokens: MAX_TOKENS,
                    schema: prompts::citation_schema(),
                });
            }
        }
    }
    let answers = ask_all(judge, &requests, call, |_, t| parse_single_label(t, "support", &SUPPORT));
    let mut any_invalid = false;
    let mut judgements = Vec::new();
    let mut scored: Vec<Vec<(usize, Option<f64>)>> = Vec::with_capacity(parts.len());
    for (pi, part) in parts.iter().enumerate() {
        let mut cites = Vec::with_capacity(part.citations.len());
        for &n in &part.citations {
            let (support, note) = match asked.iter().position(|&a| a == (pi, n)) {
                None => (None, Some("no such passage: skipped".to_string())),
                Some(ai) => {
                    let a = &answers[ai];
                    if let Some(inv) = a.invalid("citation", format!("part {} [{n}]", pi + 1)) {
                        if !invalid.iter().any(|i| i.item == inv.item && i.step == inv.step) {
                            invalid.push(inv);
                        }
                        any_invalid = true;
                        (None, Some("invalid".to_string()))
                    } else {
                        (a.value.clone(), None)
                    }
                }
            };
            cites.push((n, support.as_deref().and_then(support_score)));
            judgements.push(Judgement { part: pi + 1, citation: n, support, note });
        }
        scored.push(cites);
    }
    let (scores, citation_averages, part_averages) = citation_scores(&scored);
    let scores = if any_invalid { CitationScores::default() } else { scores };
    CitationEval { parts, judgements, citation_averages, part_averages, scores }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judging::fake::FakeJudge;

    fn close(a: Option<f64>, b: f64) {
        let a = a.expect("a value");
        assert!((a - b).abs() < 1e-12, "{a} != {b}");
    }

    #[test]
    fn precision_recall_f1_by_hand() {
        // Part 1 cites [1] full (1) and [2] partial (0.5); part 2 cites [1] none (0); part 3 no citation.
        let parts = vec![vec![(1, Some(1.0)), (2, Some(0.5))], vec![(1, Some(0.0))], vec![]];
        let (s, cites, per_part) = citation_scores(&parts);
        // Citation averages: [1] = (1 + 0)/2 = 0.5, [2] = 0.5 -> P = 0.5.
        assert_eq!(cites, vec![(1, 0.5), (2, 0.5)]);
        close(s.precision, 0.5);
        // Part averages: 0.75, 0, 0 -> R = 0.25.
        assert_eq!(per_part, vec![Some(0.75), Some(0.0), Some(0.0)]);
        close(s.recall, 0.25);
        // F1 = 2 * 0.5 * 0.25 / 0.75 = 1/3.
        close(s.f1, 1.0 / 3.0);
    }

    #[test]
    fn no_citations_and_skipped_citations() {
        let (s, _, _) = citation_scores(&[vec![]]);
        close(s.precision, 0.0);
        close(s.recall, 0.0);
        close(s.f1, 0.0);
        // A part whose only citation was skipped is left out of recall: R = 1/1, P = 1.
        let (s, _, per_part) = citation_scores(&[vec![(9, None)], vec![(1, Some(1.0))]]);
        assert_eq!(per_part, vec![None, Some(1.0)]);
        close(s.recall, 1.0);
        close(s.f1, 1.0);
        let (s, _, _) = citation_scores(&[]);
        close(s.f1, 0.0);
    }

    #[test]
    fn judged_end_to_end_with_an_invalid_label() {
        let judge = FakeJudge::new(|u, _| {
            if u.contains("Citation: alpha") {
                "{\"support\": \"full_support\"}".into()
            } else if u.contains("Citation: beta") {
                "Partial Support".into()
            } else {
                "maybe".into()
            }
        });
        let contexts = ["alpha", "beta", "gamma"];
        let mut invalid = Vec::new();
        let e = evaluate(&judge, "A [1][2]. B [5].", &contexts, &CallOptions::default(), &mut invalid);
        // [5] does not exist: skipped without a call. Part 1: (1 + 0.5) / 2; part 2 left out.
        close(e.scores.precision, 0.75);
        close(e.scores.recall, 0.75);
        assert_eq!(judge.count(), 2);
        assert!(invalid.is_empty());
        let e = evaluate(&judge, "A [3].", &contexts, &CallOptions::default(), &mut invalid);
        assert_eq!(e.scores, CitationScores::default());
        assert_eq!(invalid.len(), 1);
        assert_eq!(invalid[0].item, "part 1 [3]");
        assert_eq!(invalid[0].raw, "maybe");
    }
}
