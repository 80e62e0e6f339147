//! UMBRELA passage grading (Upadhyay et al. 2024, arXiv:2406.06519; Open RAG Eval, "UMBRELA") and the
//! retrieval metrics over its grades (Open RAG Eval, "Traditional Retrieval Metrics").
//!
//! Each passage is graded 0-3 by the judge with Open RAG Eval's prompt. The formulas of
//! Precision@K, AP@K and MRR are those of [`ragjudge_lexical::retrieval`] (Open RAG Eval's: AP@K
//! divides by the relevant passages in the top K; K larger than the list is skipped), applied to
//! the judge's grades with relevance at grade >= 2.
//!
//! A grade that could not be parsed is *invalid*, not 0: a metric whose value depends on it is
//! `None` (Precision@K and AP@K when it lies in the top K; MRR when it lies before the first
//! relevant passage, or anywhere when none is relevant). The mean grade is over valid grades.

use crate::error::ParseError;
use crate::judging::{ask_all, CallOptions, Invalid, Request};
use crate::parse::parse_grade;
use crate::prompts;
use ragjudge_lexical::retrieval::{ap_at_k, mrr, precision_at_k, RetrievalOptions, ShortList};
use ragjudge_models::{Judge, Prompt};
use serde::{Deserialize, Serialize};

/// Grades `>=` this are relevant (Open RAG Eval: "relevance threshold >= 2").
pub const RELEVANT: u8 = 2;

/// Tokens allowed for a grade: the schema's `{"score": "2"}` or a bare digit, with room for a
/// model that reasons first.
const MAX_TOKENS: u32 = 256;

/// Which UMBRELA prompt a judge gets: Open RAG Eval sends the clearer one to GPT-OSS and Qwen.
pub fn prompt_for(judge_identity: &str) -> &'static str {
    let id = judge_identity.to_lowercase();
    if id.contains("gpt-oss") || id.contains("qwen") {
        prompts::UMBRELA_NEW
    } else {
        prompts::UMBRELA
    }
}

/// Grades every passage of `passages` for `query` in one batch; `None` for an invalid grade.
pub fn grade(
    judge: &dyn Judge,
    query: &str,
    passages: &[&str],
    opts: &CallOptions,
    invalid: &mut Vec<Invalid>,
) -> Vec<Option<u8>> {
    let template = prompt_for(&judge.identity());
    let requests: Vec<Request> = passages
        .iter()
        .map(|p| Request {
            prompt: Prompt::chat(prompts::SYSTEM, prompts::fill(template, &[("query", query), ("passage", p)])),
            max_tokens: MAX_TOKENS,
            schema: prompts::umbrela_schema(),
        })
        .collect();
    let answers = ask_all(judge, &requests, opts, |_, t| parse_grade(t).ok_or(ParseError::NoGrade));
    answers
        .iter()
        .enumerate()
        .map(|(i, a)| {
            invalid.extend(a.invalid("umbrela", format!("passage {}", i + 1)));
            a.value
        })
        .collect()
}

/// Precision@K and AP@K for one K.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AtK {
    /// The cut-off.
    pub k: usize,
    /// Precision@K.
    pub precision: Option<f64>,
    /// AP@K.
    pub ap: Option<f64>,
}

/// The retrieval metrics of one ranked list of UMBRELA grades.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UmbrelaScores {
    /// Grade per passage in rank order; `None` = invalid.
    pub grades: Vec<Option<u8>>,
    /// Mean of the valid grades (`retrieval_score_mean_umbrela_score`).
    pub mean: Option<f64>,
    /// One entry per K, in the order given.
    pub at_k: Vec<AtK>,
    /// Reciprocal rank of the first relevant passage.
    pub mrr: Option<f64>,
}

/// The retrieval metrics of `grades` at each K of `ks`. `pad_short_lists` counts the missing ranks
/// of a list shorter than K as non-relevant instead of leaving the @K metrics empty.
pub fn scores(grades: &[Option<u8>], ks: &[usize], pad_short_lists: bool) -> UmbrelaScores {
    let opts = RetrievalOptions {
        threshold: f64::from(RELEVANT),
        short_list: if pad_short_lists { ShortList::PadNonRelevant } else { ShortList::Undefined },
        ..RetrievalOptions::default()
    };
    let as_f64: Vec<Option<f64>> = grades.iter().map(|g| g.map(f64::from)).collect();
    let valid: Vec<f64> = as_f64.iter().flatten().copied().collect();
    let mean = (!valid.is_empty()).then(|| valid.iter().sum::<f64>() / valid.len() as f64);
    let all_valid_in = |n: usize| grades[..n.min(grades.len())].iter().all(Option::is_some);
    let at_k = ks
        .iter()
        .map(|&k| {
            let known = all_valid_in(k);
            AtK {
                k,
                precision: precision_at_k(&as_f64, k, &opts).filter(|_| known),
                ap: ap_at_k(&as_f64, k, &opts).filter(|_| known),
            }
        })
        .collect();
    let first_relevant = grades.iter().position(|g| g.is_some_and(|g| g >= RELEVANT));
    let rr_known = all_valid_in(first_relevant.map_or(grades.len(), |i| i + 1));
    UmbrelaScores { grades: grades.to_vec(), mean, at_k, mrr: mrr(&as_f64, &opts).filter(|_| rr_known) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Option<f64>, b: f64) {
        let a = a.expect("a value");
        assert!((a - b).abs() < 1e-12, "{a} != {b}");
    }

    #[test]
    fn precision_ap_and_mrr_by_hand() {
        // Grades 1, 3, 0, 2, 2 -> relevant (>= 2) at ranks 2, 4, 5.
        let s = scores(&[Some(1), Some(3), Some(0), Some(2), Some(2)], &[1, 3, 5], false);
        // P@1 = 0/1, P@3 = 1/3, P@5 = 3/5.
        close(s.at_k[0].precision, 0.0);
        close(s.at_k[1].precision, 1.0 / 3.0);
        close(s.at_k[2].precision, 0.6);
        // AP@1 = 0 (no relevant); AP@3 = (1/2) / 1 = 0.5;
        // AP@5 = (1/2 + 2/4 + 3/5) / 3 = 1.6 / 3.
        close(s.at_k[0].ap, 0.0);
        close(s.at_k[1].ap, 0.5);
        close(s.at_k[2].ap, 1.6 / 3.0);
        // MRR = 1/2; mean grade = 8/5.
        close(s.mrr, 0.5);
        close(s.mean, 1.6);
    }

    #[test]
    fn no_relevant_passage_gives_zeros() {
        let s = scores(&[Some(0), Some(1), Some(1)], &[1, 3], false);
        close(s.at_k[1].precision, 0.0);
        close(s.at_k[1].ap, 0.0);
        close(s.mrr, 0.0);
        close(s.mean, 2.0 / 3.0);
    }

    #[test]
    fn k_larger_than_the_list_is_skipped_or_padded() {
        let grades = [Some(3), Some(0)];
        let s = scores(&grades, &[5], false);
        assert_eq!(s.at_k[0].precision, None);
        assert_eq!(s.at_k[0].ap, None);
        // Padded: P@5 = 1/5; AP@5 = (1/1) / 1 = 1.
        let s = scores(&grades, &[5], true);
        close(s.at_k[0].precision, 0.2);
        close(s.at_k[0].ap, 1.0);
    }

    #[test]
    fn invalid_grades_make_dependent_metrics_unknown() {
        // Ranks: 3, invalid, 2.
        let s = scores(&[Some(3), None, Some(2)], &[1, 3], false);
        close(s.at_k[0].precision, 1.0);
        assert_eq!(s.at_k[1].precision, None);
        assert_eq!(s.at_k[1].ap, None);
        // The first passage is relevant: MRR = 1 whatever follows.
        close(s.mrr, 1.0);
        close(s.mean, 2.5);
        // An invalid grade before any relevant passage: MRR unknown.
        let s = scores(&[Some(0), None, Some(3)], &[1], false);
        close(s.at_k[0].precision, 0.0);
        assert_eq!(s.mrr, None);
        // Nothing valid: no mean.
        let s = scores(&[None], &[1], false);
        assert_eq!(s.mean, None);
        assert_eq!(s.mrr, None);
    }

    #[test]
    fn prompt_choice_follows_open_rag_eval() {
        assert_eq!(prompt_for("openai:http://x/v1:Qwen2.5-7B"), prompts::UMBRELA_NEW);
        assert_eq!(prompt_for("openai:http://x/v1:gpt-4o"), prompts::UMBRELA);
    }
}
