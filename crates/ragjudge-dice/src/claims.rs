//! Reference-based grading claim by claim, for judges too small to grade a whole answer: each
//! answer sentence is checked against the reference answer (is it supported?), each reference
//! sentence against the answer (is it covered?), and sentences that decline to answer are set
//! apart by Open RAG Eval's no-answer rule instead of being judged as claims.
//!
//! The answer's utility follows the truthfulness score of CRAG (Yang et al. 2024, §4, metrics): a
//! perfect answer scores 1, an acceptable one 0.5, a missing one ("I don't know") 0 and an
//! incorrect one -1, so that declining beats inventing. Read as an expectation over the judge's
//! probabilities, with precision `p` (mean support of the answer's claims) and recall `c` (mean
//! coverage of the reference's sentences):
//!
//! `utility = p (c + (1 - c) / 2) - (1 - p)`, and `0` for an answer without a claim.
//!
//! Two answers to one question compare by utility (`protocol::AnswerGrade`). Each answer is
//! graded once, whatever it is paired with.
//! Every check is one yes/no call (prompts `claims-en-v1`, which show the question with the
//! premise), the premise being the few sentences most like the claim (`meta::consistency`).
//! When the reference itself declines (the question has no answer in the collection: CRAG's
//! invalid questions, the negative rejection of RGB, Chen et al. 2024), declining is the right
//! answer: each declining sentence counts as supported, and declining covers the reference.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use ragjudge_core::text::split_sentences;
pub use ragjudge_lexical::citations::strip_citations;
use ragjudge_lexical::refusal::{lexical_no_answer, refusal_phrase};
use ragjudge_models::{Judge, LabelProbs, Message, ModelError, Prompt};
use serde::{Deserialize, Serialize};

use crate::prompts::{fill, section, sections};
use ragjudge_lexical::premise::select_premise;

/// Prompt version of the claim checks.
pub const CLAIMS_VERSION: &str = "claims-en-v1";
const CLAIMS_V1: &str = include_str!("../prompts/claims-en-v1.txt");

fn template() -> &'static [(String, String)] {
    static P: OnceLock<Vec<(String, String)>> = OnceLock::new();
    P.get_or_init(|| sections(CLAIMS_V1))
}

/// Which way a claim is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// An answer sentence against the reference answer.
    Support,
    /// A reference sentence against the answer.
    Coverage,
}

/// The prompt checking `claim` against `premise` sentences, for `query`.
pub fn claim_prompt(check: Check, query: &str, premise: &[&str], claim: &str) -> Prompt {
    let t = template();
    let get = |name: &str| section(t, CLAIMS_VERSION, name);
    let body = get(match check {
        Check::Support => "support",
        Check::Coverage => "coverage",
    });
    let user = fill(&body, &[("query", query.trim()), ("premise", &premise.join(" ")), ("claim", claim)]);
    Prompt {
        messages: vec![Message::new("system", get("system")), Message::new("user", user)],
        assistant_prefix: Some(get("prefix")),
    }
}

/// Source sentences shown as the premise of one check.
pub const DEFAULT_PREMISE_SENTENCES: usize = ragjudge_lexical::premise::DEFAULT_PREMISE_SENTENCES;

/// An answer graded against its reference, with the evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClaimCheck {
    /// The answer's sentences judged as claims (citation markers removed).
    pub claims: Vec<String>,
    /// P(supported by the reference) per claim.
    pub support: Vec<f64>,
    /// The answer's sentences that decline to answer (not judged), with the phrase found.
    pub declined: Vec<(String, String)>,
    /// The reference's sentences.
    pub reference: Vec<String>,
    /// Whether the reference itself declines (the collection has no answer): declining
    /// sentences are then right (support 1) and they alone cover the reference.
    pub reference_declines: bool,
    /// P(stated by the answer) per reference sentence (empty for an answer without a claim, or
    /// when the reference declines).
    pub coverage: Vec<f64>,
    /// Mean support (`None` without a claim).
    pub precision: Option<f64>,
    /// Mean coverage (`None` without a claim); when the reference declines, 1 for an answer that
    /// declines and 0 for one that does not.
    pub recall: Option<f64>,
    /// CRAG-style utility in `[-1, 1]` (module docs).
    pub utility: f64,
    /// Checks decided "no" without a call (the `ragchecker` protocol's word rule; their
    /// probability above is 0).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub skipped: usize,
    /// ROUGE-L F of the answer against the reference (`ragchecker` protocol).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overlap: Option<f64>,
    /// The combined score two answers that both answer are compared by (`ragchecker`
    /// protocol, `crate::ragchecker::mix`); `None` when the answer has no claim or the
    /// reference declines, where utilities are compared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl ClaimCheck {
    /// The grade of an answer from its checks: `support` of each claim, `coverage` of each
    /// reference sentence (empty when not checked), with the declining sentences set apart.
    pub fn of(
        claims: Vec<String>,
        support: Vec<f64>,
        declined: Vec<(String, String)>,
        reference: Vec<String>,
        reference_declines: bool,
        coverage: Vec<f64>,
    ) -> Self {
        let (precision, recall) = if reference_declines {
            // Declining is the reference's own answer: each declining sentence is right.
            let judged: Vec<f64> = support.iter().copied().chain(declined.iter().map(|_| 1.0)).collect();
            (mean(&judged), (!judged.is_empty()).then_some(if declined.is_empty() { 0.0 } else { 1.0 }))
        } else {
            (mean(&support), mean(&coverage))
        };
        ClaimCheck {
            claims,
            support,
            declined,
            reference,
            reference_declines,
            coverage,
            precision,
            recall,
            utility: utility(precision, recall),
            skipped: 0,
            overlap: None,
            score: None,
        }
    }
}

/// The utility of an answer with precision `p` and recall `c` (module docs); `0` without claims.
pub fn utility(precision: Option<f64>, recall: Option<f64>) -> f64 {
    match (precision, recall) {
        (Some(p), Some(c)) => p * (c + (1.0 - c) / 2.0) - (1.0 - p),
        (Some(p), None) => p / 2.0 - (1.0 - p),
        _ => 0.0,
    }
}

/// An answer split into claims (citation markers removed) and declining sentences.
pub fn split_claims(answer: &str) -> (Vec<String>, Vec<(String, String)>) {
    let (mut claims, mut declined) = (Vec::new(), Vec::new());
    let text = strip_citations(answer);
    for s in split_sentences(&text) {
        let s = s.trim();
        if s.chars().filter(|c| c.is_alphanumeric()).count() < 2 {
            continue;
        }
        match refusal_phrase(s) {
            Some(phrase) => declined.push((s.to_string(), phrase)),
            None => claims.push(s.to_string()),
        }
    }
    (claims, declined)
}

/// Whether a reference answer declines: Open RAG Eval's no-answer rule, or a first clause that
/// declines ("The corpus does not contain this information: it describes X, but not Y", where
/// the rule reads the "but" as taking the refusal back).
pub fn reference_declines(reference: &str) -> bool {
    let first = split_sentences(reference).first().map_or("", |s| s.split([':', ';']).next().unwrap_or(s));
    lexical_no_answer(reference).is_some() || refusal_phrase(first).is_some()
}

fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// The distinct items, in first-seen order, and for each item the index of its distinct copy.
pub(crate) fn distinct<T: Clone + Eq + std::hash::Hash>(items: &[T]) -> (Vec<T>, Vec<usize>) {
    let mut index: HashMap<&T, usize> = HashMap::new();
    let mut unique: Vec<T> = Vec::new();
    let slots = items
        .iter()
        .map(|r| {
            *index.entry(r).or_insert_with(|| {
                unique.push(r.clone());
                unique.len() - 1
            })
        })
        .collect();
    (unique, slots)
}

/// Sends each distinct request once (answers repeat across the pairs of a tournament) and hands
/// every request its reply, in order.
pub fn label_probs_unique(
    judge: &Arc<dyn Judge>,
    requests: Vec<(Prompt, Vec<String>)>,
) -> Vec<Result<LabelProbs, ModelError>> {
    let (unique, slots) = distinct(&requests);
    let replies = judge.label_probs_many(&unique);
    slots.into_iter().map(|i| replies[i].clone()).collect()
}

/// An answer to grade: the question, the answer and the reference answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Graded<'a> {
    /// The question.
    pub query: &'a str,
    /// The answer graded.
    pub answer: &'a str,
    /// The reference answer.
    pub reference: &'a str,
}

/// Grades every answer against its reference, `k` sentences per premise, in one batch of
/// distinct calls; one answer's failure does not stop the others.
pub fn check_answers(judge: &Arc<dyn Judge>, answers: &[Graded<'_>], k: usize) -> Vec<Result<ClaimCheck, ModelError>> {
    let labels = vec!["Yes".to_string(), "No".to_string()];
    let mut requests = Vec::new();
    let mut plans = Vec::new();
    for g in answers {
        let (claims, declined) = split_claims(g.answer);
        let reference_declines = reference_declines(g.reference);
        let reference = strip_citations(g.reference);
        let facts: Vec<String> = split_sentences(&reference).into_iter().map(|s| s.trim().to_string()).collect();
        let fact_refs: Vec<&str> = facts.iter().map(String::as_str).collect();
        let claim_refs: Vec<&str> = claims.iter().map(String::as_str).collect();
        // Support of each claim; coverage of each reference sentence, unless the reference
        // declines (its point, "no answer", is covered by declining) or nothing was claimed.
        let mut n = 0;
        if !claims.is_empty() || reference_declines {
            for c in &claims {
                requests.push((
                    claim_prompt(Check::Support, g.query, &select_premise(c, &fact_refs, k), c),
                    labels.clone(),
                ));
                n += 1;
            }
        }
        if !claims.is_empty() && !reference_declines {
            for f in &facts {
                let p = claim_prompt(Check::Coverage, g.query, &select_premise(f, &claim_refs, k), f);
                requests.push((p, labels.clone()));
                n += 1;
            }
        }
        plans.push((claims, declined, facts, reference_declines, n));
    }
    let mut replies = label_probs_unique(judge, requests).into_iter();
    plans
        .into_iter()
        .map(|(claims, declined, facts, reference_declines, n)| {
            let probs: Vec<Result<f64, ModelError>> =
                replies.by_ref().take(n).map(|r| r.map(|lp| lp.probs[0])).collect();
            let probs = probs.into_iter().collect::<Result<Vec<f64>, _>>()?;
            let (support, coverage) = probs.split_at(probs.len().min(claims.len()));
            Ok(ClaimCheck::of(claims, support.to_vec(), declined, facts, reference_declines, coverage.to_vec()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::ScriptedYes;

    #[test]
    fn utility_follows_the_crag_scale() {
        // Fully supported and complete: perfect, 1. Supported, covering nothing: acceptable, 0.5.
        assert_eq!(utility(Some(1.0), Some(1.0)), 1.0);
        assert_eq!(utility(Some(1.0), Some(0.0)), 0.5);
        // Unsupported: incorrect, -1. No claim: missing, 0.
        assert_eq!(utility(Some(0.0), Some(1.0)), -1.0);
        assert_eq!(utility(None, None), 0.0);
        // p = 0.8, c = 0.5: 0.8 * 0.75 - 0.2 = 0.4.
        assert!((utility(Some(0.8), Some(0.5)) - 0.4).abs() < 1e-12);
    }

    #[test]
    fn refusals_and_citation_markers_are_not_claims() {
        let answer = "RuBisCO fixes carbon dioxide [2]. The documents do not say how it gets into the leaf.";
        let (claims, declined) = split_claims(answer);
        assert_eq!(claims, vec!["RuBisCO fixes carbon dioxide."]);
        assert_eq!(declined.len(), 1);
        assert_eq!(declined[0].1, "documents do not say");
        let (claims, declined) = split_claims("I don't have enough information to answer that.");
        assert!(claims.is_empty() && declined.len() == 1);
        // A marker inside a sentence does not cut it.
        let (claims, _) = split_claims("It happens in the thylakoid membranes [1] of the chloroplasts [1, 2].");
        assert_eq!(claims, vec!["It happens in the thylakoid membranes of the chloroplasts"]);
    }

    #[test]
    fn an_answer_is_graded_once_per_distinct_check_and_a_decline_costs_nothing() {
        let judge = ScriptedYes::new(&[("Paris", 0.9), ("Lyon", 0.1)]);
        let dyn_judge: Arc<dyn Judge> = judge.clone();
        let reference = "The capital is Paris.";
        let g = |answer| Graded { query: "Which city is the capital?", answer, reference };
        let answers = [
            g("The capital is Paris [1]."),
            g("The capital is Lyon."),
            g("The capital is Paris [1]."),
            g("I do not know."),
        ];
        let out: Vec<ClaimCheck> = check_answers(&dyn_judge, &answers, 3).into_iter().map(Result::unwrap).collect();
        // Two distinct answers with claims, each one support and one coverage check.
        assert_eq!(judge.calls(), 4);
        // Support shows the question and the reference; coverage the question and the answer.
        let p = claim_prompt(Check::Support, "Which city?", &["The capital is Paris."], "It is Lyon.");
        let user = &p.messages[1].content;
        assert!(user.contains("Question:\nWhich city?") && user.contains("(trusted):\nThe capital is Paris."));
        assert!(user.contains("another answer to the question:\nIt is Lyon."));
        let p = claim_prompt(Check::Coverage, "Which city?", &["It is Lyon."], "The capital is Paris.");
        assert!(p.messages[1]
            .content
            .contains("An answer to the question:\nIt is Lyon.\n\nFact:\nThe capital is Paris."));
        // Paris: p = c = 0.9: 0.9 * 0.95 - 0.1 = 0.755. Lyon: p = 0.1, c = P(premise Lyon, claim
        // Paris) = 0.9 by the script: 0.1 * 0.95 - 0.9 = -0.805.
        assert!((out[0].utility - 0.755).abs() < 1e-12, "{}", out[0].utility);
        assert!((out[1].utility + 0.805).abs() < 1e-12, "{}", out[1].utility);
        assert_eq!(out[0], out[2]);
        assert_eq!((out[3].utility, out[3].precision), (0.0, None));
    }

    #[test]
    fn when_the_reference_declines_declining_is_the_right_answer() {
        let judge = ScriptedYes::new(&[("1455", 0.8), ("florins", 0.1)]);
        let dyn_judge: Arc<dyn Judge> = judge.clone();
        let reference = "The corpus does not contain this information: it gives the year, but not the price.";
        assert!(reference_declines(reference) && !reference_declines("It cost 30 florins, but not in 1455."));
        let g = |answer| Graded { query: "What did a copy cost?", answer, reference };
        let answers = [
            g("I don't have enough information to answer that."),
            g("The documents do not say what it cost. It was completed around 1455 [1]."),
            g("A copy sold for 2,000 florins."),
        ];
        let out: Vec<ClaimCheck> = check_answers(&dyn_judge, &answers, 3).into_iter().map(Result::unwrap).collect();
        // Only the two claims are judged; no coverage check.
        assert_eq!(judge.calls(), 2);
        assert!(out.iter().all(|c| c.reference_declines && c.coverage.is_empty()));
        // Declining alone: p = 1, c = 1: perfect.
        assert_eq!((out[0].precision, out[0].recall, out[0].utility), (Some(1.0), Some(1.0), 1.0));
        // Declining plus a claim at 0.8: p = 0.9, c = 1: 0.9 - 0.1 = 0.8.
        assert!((out[1].utility - 0.8).abs() < 1e-12, "{}", out[1].utility);
        // An invented answer: p = 0.1, c = 0: 0.05 - 0.9 = -0.85.
        assert!((out[2].utility + 0.85).abs() < 1e-12, "{}", out[2].utility);
    }
}
