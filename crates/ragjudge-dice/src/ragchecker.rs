//! The `ragchecker` protocol: each answer graded once against the reference answer by
//! RAGChecker's overall checks (Ru et al. 2024, §3.3: every claim of the answer checked against
//! the whole reference, every claim of the reference against the whole answer; the checks and
//! their prompt are `ragjudge_trec::answer::ragchecker`'s), combined with plain overlap with the
//! reference:
//!
//! `score = 0.3 P + 0.2 R + 0.5 ROUGE-L F`
//!
//! where `P` is the expected precision (mean P(the reference entails the claim) over the
//! answer's claims), `R` the expected recall (mean P(the answer entails the claim) over the
//! reference's claims), a check ruled out by the word rule counting 0, and ROUGE-L F is
//! `rouge-score`'s, without stemming. The weights were chosen on long-form RAG answers with
//! human preferences, leaving one domain out at a time (docs/ragchecker.md); they are fixed, not
//! fitted per run. Two answers compare by `0.5 + (score1 - score2) / 2`.
//!
//! Declining follows the `claims` protocol (CRAG's scale, [`crate::claims`]): sentences that
//! decline are set apart, not checked; when an answer has no claim left, or the reference
//! itself declines, the two answers compare by CRAG utility computed from `P` and `R`, so that
//! declining beats an answer the reference does not support and loses to one it does.

use std::sync::Arc;

use ragjudge_lexical::refusal::refusal_phrase;
use ragjudge_lexical::rouge::RougeScorer;
use ragjudge_models::{Judge, ModelError, Reason};
use ragjudge_trec::answer::entailment::EntailmentModel;
use ragjudge_trec::answer::ragchecker::{
    claims_of, CheckedClaim, ClaimSource, RagCheckerDetail, RagCheckerOptions, CHECK_VERSION,
};
use ragjudge_trec::answer::RagCheckerMetric;

use crate::claims::{distinct, reference_declines, ClaimCheck, Graded};

/// The protocol's version: the check prompt and the combination.
pub const VERSION: &str = "ragchecker-en-v1+mix-v1";

/// Weights of expected precision, expected recall and ROUGE-L F in the score.
pub const WEIGHTS: [f64; 3] = [0.3, 0.2, 0.5];

/// The score of an answer with expected precision `p`, expected recall `r` and ROUGE-L F
/// `overlap` against the reference (module docs).
pub fn mix(p: f64, r: f64, overlap: f64) -> f64 {
    WEIGHTS[0] * p + WEIGHTS[1] * r + WEIGHTS[2] * overlap
}

/// What one answer asks before any check: its claims, its declining sentences and the
/// reference's claims.
struct Prepared {
    claims: Vec<String>,
    declined: Vec<(String, String)>,
    facts: Vec<String>,
    reference_declines: bool,
}

impl Prepared {
    fn of(g: &Graded<'_>) -> Self {
        let (mut claims, mut declined) = (Vec::new(), Vec::new());
        for c in claims_of(g.answer) {
            match refusal_phrase(&c) {
                Some(phrase) => declined.push((c, phrase)),
                None => claims.push(c),
            }
        }
        Prepared {
            claims,
            declined,
            facts: claims_of(g.reference),
            reference_declines: reference_declines(g.reference),
        }
    }

    /// Whether the answer answers: it has a claim and the reference does not decline. Only then
    /// are the reference's claims checked against it (declining covers a declining reference)
    /// and is it scored.
    fn answers(&self) -> bool {
        !self.claims.is_empty() && !self.reference_declines
    }

    fn source<'a>(&self, g: &Graded<'a>) -> ClaimSource<'a> {
        ClaimSource {
            query: g.query,
            answer: g.answer,
            answer_claims: self.claims.clone(),
            reference: g.reference,
            reference_claims: if self.answers() { self.facts.clone() } else { Vec::new() },
            passages: Vec::new(),
        }
    }

    fn finish(self, d: &RagCheckerDetail, g: &Graded<'_>) -> ClaimCheck {
        let probs = |claims: &[CheckedClaim]| -> Vec<f64> { claims.iter().map(|c| c.other.unwrap_or(0.0)).collect() };
        let answers = self.answers();
        let mut check = ClaimCheck::of(
            self.claims,
            probs(&d.answer_claims),
            self.declined,
            self.facts,
            self.reference_declines,
            probs(&d.reference_claims),
        );
        check.skipped = d.skipped;
        let overlap = RougeScorer::new(false).score(g.reference, g.answer).rouge_l.fmeasure;
        check.overlap = Some(overlap);
        if answers {
            check.score = Some(mix(check.precision.unwrap_or(0.0), check.recall.unwrap_or(0.0), overlap));
        }
        check
    }
}

/// Grades every answer against its reference (module docs), all checks in one batch, each
/// distinct answer once; one answer's failure does not stop the others.
pub fn grade_answers(judge: &Arc<dyn Judge>, answers: &[Graded<'_>]) -> Vec<Result<ClaimCheck, ModelError>> {
    let (unique, slots) = distinct(answers);
    let prepared: Vec<Prepared> = unique.iter().map(Prepared::of).collect();
    let sources = prepared.iter().zip(&unique).map(|(p, g)| p.source(g)).collect();
    let metric = RagCheckerMetric::new(EntailmentModel::Judge(judge.clone()), RagCheckerOptions::default());
    let graded: Vec<Result<ClaimCheck, ModelError>> = prepared
        .into_iter()
        .zip(metric.check_sources(sources))
        .zip(&unique)
        .map(|((p, d), g)| {
            let d = d.map_err(|e| ModelError::Inference(Reason::caused(format!("{CHECK_VERSION} check"), e)))?;
            Ok(p.finish(&d, g))
        })
        .collect();
    slots.into_iter().map(|i| graded[i].clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::ScriptedYes;

    #[test]
    fn a_pair_worked_by_hand() {
        // P(Yes) by the claim's words: "Paris" 0.9, "Lyon" 0.2.
        let judge = ScriptedYes::new(&[("Paris", 0.9), ("Lyon", 0.2)]);
        let dyn_judge: Arc<dyn Judge> = judge.clone();
        let reference = "Paris is the capital.";
        let g = |answer| Graded { query: "Which city is the capital?", answer, reference };
        let answers = [g("Paris is the capital [1]."), g("Lyon is the capital."), g("Paris is the capital [1].")];
        let out: Vec<ClaimCheck> = grade_answers(&dyn_judge, &answers).into_iter().map(Result::unwrap).collect();
        // Two distinct answers, one claim each against the reference and the reference's claim
        // against each: four calls (the repeated answer is graded once).
        assert_eq!(judge.calls(), 4);
        assert_eq!(out[0], out[2]);
        // Paris: the claim "Paris is the capital" (0.9); the reference's claim is "Paris is the
        // capital" too ("Paris" first in the script: 0.9). ROUGE-L F of "paris is the capital 1"
        // against "paris is the capital": LCS 4, P 4/5, R 4/4, F 8/9.
        let paris = &out[0];
        assert_eq!((paris.precision, paris.recall), (Some(0.9), Some(0.9)));
        assert!((paris.overlap.unwrap() - 8.0 / 9.0).abs() < 1e-12);
        assert!((paris.score.unwrap() - (0.3 * 0.9 + 0.2 * 0.9 + 0.5 * 8.0 / 9.0)).abs() < 1e-12);
        // Lyon: its claim 0.2; the reference's claim against it 0.9; ROUGE-L: LCS "is the
        // capital" 3 of 4 both ways, F 3/4.
        let lyon = &out[1];
        assert_eq!((lyon.precision, lyon.recall), (Some(0.2), Some(0.9)));
        assert!((lyon.score.unwrap() - (0.06 + 0.18 + 0.375)).abs() < 1e-12);
    }

    #[test]
    fn declining_sets_the_answer_apart_and_a_hopeless_check_costs_nothing() {
        let judge = ScriptedYes::new(&[("Paris", 0.9)]);
        let dyn_judge: Arc<dyn Judge> = judge.clone();
        let g = |answer, reference| Graded { query: "Which city?", answer, reference };
        let answers = [
            g("I do not know.", "Paris is the capital."),
            // Shares no word with the reference: decided "no" without a call, both ways.
            g("Bananas grow on trees.", "Paris is the capital."),
            g("The documents do not say.", "The corpus does not contain this information."),
        ];
        let out: Vec<ClaimCheck> = grade_answers(&dyn_judge, &answers).into_iter().map(Result::unwrap).collect();
        assert_eq!(judge.calls(), 0);
        // No claim: CRAG's missing answer, no score.
        assert_eq!((out[0].utility, out[0].score, out[0].declined.len()), (0.0, None, 1));
        // p = 0, c = 0: -1; its score still combines (0, 0, ROUGE-L 0).
        assert_eq!((out[1].utility, out[1].skipped, out[1].score), (-1.0, 2, Some(0.0)));
        // The reference declines and so does the answer: right, utility 1, no score.
        assert!(out[2].reference_declines);
        assert_eq!((out[2].utility, out[2].score), (1.0, None));
    }
}
