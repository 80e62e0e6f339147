//! RAGChecker's diagnostic metrics (RAGChecker §3.3) from claim-level entailment checks.
//!
//! The answer under test (RAGChecker's *response*) and the reference (its *ground-truth answer*)
//! are both broken into claims; each claim is checked for entailment against the other text and
//! against every retrieved passage. Four check tables result, and every metric is a count over
//! them:
//!
//! | table | rows × columns | a cell is true when |
//! |---|---|---|
//! | `answer_in_reference` | answer claims | the reference entails the claim (the claim is *correct*) |
//! | `reference_in_answer` | reference claims | the answer entails the claim |
//! | `reference_in_passages` | reference claims × passages | the passage entails the claim |
//! | `answer_in_passages` | answer claims × passages | the passage entails the claim |
//!
//! With `A` the answer's claims, `G` the reference's and a passage *relevant* when it entails at
//! least one claim of `G`:
//! - overall: precision = |correct A| / |A|, recall = |G entailed by the answer| / |G|, F1;
//! - retriever: claim recall = |G entailed by some passage| / |G|; context precision =
//!   |relevant passages| / |passages|;
//! - generator: context utilisation = |G in some passage and in the answer| / |G in some passage|;
//!   noise sensitivity (relevant) = |incorrect A entailed by a relevant passage| / |A|, noise
//!   sensitivity (irrelevant) = |incorrect A entailed by an irrelevant passage and by no relevant
//!   one| / |A|; hallucination = |incorrect A in no passage| / |A|; self-knowledge = |correct A in
//!   no passage| / |A|; faithfulness = |A in some passage| / |A|.
//!
//! Edge cases follow the paper's released computation where it defines a value (an answer without
//! claims has precision 0, a reference without claims recall 0, F1 is 0 unless both are
//! positive), and are left empty with a reason where it would print a 0 that means "not
//! measurable": the retriever and generator metrics of a record without passages, context
//! utilisation when no reference claim is in any passage.

use serde::{Deserialize, Serialize};

/// Entailment decisions of one answer's claims and its reference's claims (see the module docs).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClaimTables {
    /// Per answer claim: entailed by the reference.
    pub answer_in_reference: Vec<bool>,
    /// Per reference claim: entailed by the answer.
    pub reference_in_answer: Vec<bool>,
    /// Per reference claim, per passage: entailed by the passage (empty rows without passages).
    pub reference_in_passages: Vec<Vec<bool>>,
    /// Per answer claim, per passage: entailed by the passage.
    pub answer_in_passages: Vec<Vec<bool>>,
    /// Number of retrieved passages.
    pub passages: usize,
}

/// A metric's value, or why it has none.
pub type Value = Result<f64, &'static str>;

/// Why the retriever and generator metrics of a record without passages are empty.
pub const NO_PASSAGES: &str = "no retrieved passages";
/// Why context utilisation is empty when no reference claim is in any passage.
pub const NOTHING_RETRIEVED: &str = "no reference claim is in the retrieved passages";

/// RAGChecker's eleven metrics of one record.
#[derive(Debug, Clone, PartialEq)]
pub struct Diagnostics {
    /// Share of the answer's claims the reference entails (correctness).
    pub precision: f64,
    /// Share of the reference's claims the answer entails (completeness).
    pub recall: f64,
    /// Harmonic mean of precision and recall.
    pub f1: f64,
    /// Retriever: share of the reference's claims some passage entails.
    pub claim_recall: Value,
    /// Retriever: share of the passages that entail at least one reference claim.
    pub context_precision: Value,
    /// Generator: share of the retrieved reference claims that the answer also entails.
    pub context_utilization: Value,
    /// Generator: incorrect answer claims taken from relevant passages, over all answer claims.
    pub noise_sensitivity_relevant: Value,
    /// Generator: incorrect answer claims taken from irrelevant passages only.
    pub noise_sensitivity_irrelevant: Value,
    /// Generator: incorrect answer claims in no passage.
    pub hallucination: Value,
    /// Generator: correct answer claims in no passage.
    pub self_knowledge: Value,
    /// Generator: answer claims some passage entails.
    pub faithfulness: Value,
}

/// The names of [`Diagnostics`]' metrics, in field order, as score columns.
pub const METRICS: [&str; 11] = [
    "precision",
    "recall",
    "f1",
    "claim_recall",
    "context_precision",
    "context_utilization",
    "noise_sensitivity_relevant",
    "noise_sensitivity_irrelevant",
    "hallucination",
    "self_knowledge",
    "faithfulness",
];

impl Diagnostics {
    /// The metrics of `t`.
    pub fn of(t: &ClaimTables) -> Diagnostics {
        let precision = share(t.answer_in_reference.iter().copied());
        let recall = share(t.reference_in_answer.iter().copied());
        let f1 = if precision > 0.0 && recall > 0.0 { 2.0 * precision * recall / (precision + recall) } else { 0.0 };
        let mut d = Diagnostics {
            precision,
            recall,
            f1,
            claim_recall: Err(NO_PASSAGES),
            context_precision: Err(NO_PASSAGES),
            context_utilization: Err(NO_PASSAGES),
            noise_sensitivity_relevant: Err(NO_PASSAGES),
            noise_sensitivity_irrelevant: Err(NO_PASSAGES),
            hallucination: Err(NO_PASSAGES),
            self_knowledge: Err(NO_PASSAGES),
            faithfulness: Err(NO_PASSAGES),
        };
        if t.passages == 0 {
            return d;
        }
        let any = |row: &Vec<bool>| row.iter().any(|&b| b);
        // Retriever.
        let retrieved: Vec<bool> = t.reference_in_passages.iter().map(any).collect();
        let relevant: Vec<bool> =
            (0..t.passages).map(|j| t.reference_in_passages.iter().any(|row| cell(row, j))).collect();
        d.claim_recall = Ok(share(retrieved.iter().copied()));
        d.context_precision = Ok(share(relevant.iter().copied()));
        let recalled = retrieved.iter().filter(|&&r| r).count();
        let used = retrieved.iter().zip(&t.reference_in_answer).filter(|(&r, &a)| r && a).count();
        d.context_utilization = if recalled == 0 { Err(NOTHING_RETRIEVED) } else { Ok(used as f64 / recalled as f64) };
        // Generator: each answer claim is correct or not, and found in relevant passages, in
        // irrelevant ones only, or in none.
        let claims = t.answer_in_reference.len();
        let (mut ns_rel, mut ns_irr, mut halluc, mut self_known, mut faithful) = (0, 0, 0, 0, 0);
        for (i, &correct) in t.answer_in_reference.iter().enumerate() {
            let row = t.answer_in_passages.get(i).map(Vec::as_slice).unwrap_or(&[]);
            let in_relevant = (0..t.passages).any(|j| relevant[j] && cell(row, j));
            let in_irrelevant = (0..t.passages).any(|j| !relevant[j] && cell(row, j));
            let in_any = in_relevant || in_irrelevant;
            faithful += usize::from(in_any);
            if correct {
                self_known += usize::from(!in_any);
            } else if in_relevant {
                ns_rel += 1;
            } else if in_irrelevant {
                ns_irr += 1;
            } else {
                halluc += 1;
            }
        }
        let over_claims = |n: usize| Ok(if claims == 0 { 0.0 } else { n as f64 / claims as f64 });
        d.noise_sensitivity_relevant = over_claims(ns_rel);
        d.noise_sensitivity_irrelevant = over_claims(ns_irr);
        d.hallucination = over_claims(halluc);
        d.self_knowledge = over_claims(self_known);
        d.faithfulness = over_claims(faithful);
        d
    }

    /// The metrics as `(name, value)` in [`METRICS`] order.
    pub fn values(&self) -> [(&'static str, Value); 11] {
        let v = [
            Ok(self.precision),
            Ok(self.recall),
            Ok(self.f1),
            self.claim_recall,
            self.context_precision,
            self.context_utilization,
            self.noise_sensitivity_relevant,
            self.noise_sensitivity_irrelevant,
            self.hallucination,
            self.self_knowledge,
            self.faithfulness,
        ];
        std::array::from_fn(|i| (METRICS[i], v[i]))
    }
}

fn cell(row: &[bool], j: usize) -> bool {
    row.get(j).copied().unwrap_or(false)
}

/// Share of `true`s; 0 for none at all (the paper's computation).
fn share(it: impl Iterator<Item = bool>) -> f64 {
    let (mut yes, mut n) = (0usize, 0usize);
    for b in it {
        yes += usize::from(b);
        n += 1;
    }
    if n == 0 {
        0.0
    } else {
        yes as f64 / n as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: bool = true;
    const F: bool = false;

    /// Four answer claims a1..a4, three reference claims g1..g3, three passages p1..p3.
    ///
    /// - p1 entails g1 and g2; no reference claim is in p2 or p3, so p1 is the only relevant
    ///   passage and g3 is in none;
    /// - the answer entails g1 and g3 (not g2);
    /// - a1 is correct and in p1; a2 is incorrect and in p1 (relevant noise); a3 is incorrect and
    ///   only in p3 (irrelevant noise); a4 is correct and in no passage (self-knowledge).
    fn fixture() -> ClaimTables {
        ClaimTables {
            answer_in_reference: vec![T, F, F, T],
            reference_in_answer: vec![T, F, T],
            reference_in_passages: vec![vec![T, F, F], vec![T, F, F], vec![F, F, F]],
            answer_in_passages: vec![vec![T, F, F], vec![T, F, T], vec![F, F, T], vec![F, F, F]],
            passages: 3,
        }
    }

    #[test]
    fn every_metric_worked_by_hand() {
        let d = Diagnostics::of(&fixture());
        // precision: a1, a4 correct of 4 = 0.5; recall: g1, g3 of 3 = 2/3;
        // F1 = 2 * 0.5 * (2/3) / (0.5 + 2/3) = (2/3) / (7/6) = 4/7.
        assert_eq!(d.precision, 0.5);
        assert!((d.recall - 2.0 / 3.0).abs() < 1e-12);
        assert!((d.f1 - 4.0 / 7.0).abs() < 1e-12);
        // claim recall: g1, g2 in p1, g3 nowhere = 2/3; context precision: p1 of 3 = 1/3.
        assert!((d.claim_recall.unwrap() - 2.0 / 3.0).abs() < 1e-12);
        assert!((d.context_precision.unwrap() - 1.0 / 3.0).abs() < 1e-12);
        // context utilisation: of the retrieved g1, g2 the answer has g1 = 1/2.
        assert_eq!(d.context_utilization, Ok(0.5));
        // a2 incorrect and in relevant p1 (also in irrelevant p3: counted as relevant only);
        // a3 incorrect and only in irrelevant p3; no incorrect claim outside the passages;
        // a4 correct outside the passages; a1, a2, a3 in some passage.
        assert_eq!(d.noise_sensitivity_relevant, Ok(0.25));
        assert_eq!(d.noise_sensitivity_irrelevant, Ok(0.25));
        assert_eq!(d.hallucination, Ok(0.0));
        assert_eq!(d.self_knowledge, Ok(0.25));
        assert_eq!(d.faithfulness, Ok(0.75));
    }

    #[test]
    fn an_incorrect_claim_in_no_passage_is_a_hallucination() {
        let mut t = fixture();
        t.answer_in_passages[2] = vec![F, F, F];
        let d = Diagnostics::of(&t);
        assert_eq!(d.noise_sensitivity_irrelevant, Ok(0.0));
        assert_eq!(d.hallucination, Ok(0.25));
        assert_eq!(d.faithfulness, Ok(0.5));
    }

    #[test]
    fn without_passages_only_the_overall_metrics_have_values() {
        let t = ClaimTables {
            answer_in_reference: vec![T, T, F],
            reference_in_answer: vec![T, F],
            passages: 0,
            ..ClaimTables::default()
        };
        let d = Diagnostics::of(&t);
        assert!((d.precision - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(d.recall, 0.5);
        // 2 * (2/3) * (1/2) / (2/3 + 1/2) = (2/3) / (7/6) = 4/7.
        assert!((d.f1 - 4.0 / 7.0).abs() < 1e-12);
        for (name, v) in &d.values()[3..] {
            assert_eq!(*v, Err(NO_PASSAGES), "{name}");
        }
    }

    #[test]
    fn no_claims_scores_zero_as_the_paper_computes_it() {
        let t = ClaimTables { reference_in_answer: vec![F, F], ..ClaimTables::default() };
        let d = Diagnostics::of(&t);
        assert_eq!((d.precision, d.recall, d.f1), (0.0, 0.0, 0.0));
    }

    #[test]
    fn utilisation_needs_a_retrieved_reference_claim() {
        let t = ClaimTables {
            answer_in_reference: vec![T],
            reference_in_answer: vec![T],
            reference_in_passages: vec![vec![F, F]],
            answer_in_passages: vec![vec![F, T]],
            passages: 2,
        };
        let d = Diagnostics::of(&t);
        assert_eq!(d.claim_recall, Ok(0.0));
        assert_eq!(d.context_precision, Ok(0.0));
        assert_eq!(d.context_utilization, Err(NOTHING_RETRIEVED));
        // The correct claim is in p2, an irrelevant passage: faithful, not self-knowledge.
        assert_eq!((d.self_knowledge, d.faithfulness), (Ok(0.0), Ok(1.0)));
    }
}
