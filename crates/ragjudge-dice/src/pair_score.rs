//! The DICE score of one judged pair (DICE §3.2): each presentation order scored hard or soft,
//! the swapped order mapped back to the original A/B, and the orders averaged.

use crate::judgement::{Category, PairJudgement};
use crate::scoring::{swap_average, DiceScorer, ScoringError};
use serde::{Deserialize, Serialize};

/// One question's outcome between two systems.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoredPair {
    /// Question id.
    pub id: String,
    /// DICE score of the first system (the second's is `1 - s_a`).
    pub s_a: f64,
    /// Whether both orders named the same winner (true with one order).
    pub consistent: bool,
    /// Category of the first system's answer in the first order judged, if parsable.
    pub category_a: Option<Category>,
    /// Category of the second system's answer in the first order judged, if parsable.
    pub category_b: Option<Category>,
}

/// Why a pair could not be scored.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PairScoreError {
    /// A verdict's probabilities could not be scored.
    #[error(transparent)]
    Scoring(#[from] ScoringError),
    /// Neither one nor two orders were judged.
    #[error("{0} orders judged")]
    Orders(usize),
}

/// Scores `j`: each order in presentation terms (the swapped order shows the second system
/// first), then the two orders averaged with the swapped one mapped back; a judgement without
/// orders (a pointwise protocol) is scored from its pair probabilities.
pub fn score_pair(scorer: &DiceScorer, j: &PairJudgement) -> Result<ScoredPair, PairScoreError> {
    let scored = j
        .orders
        .iter()
        .map(|o| {
            let p = if o.order.is_swapped() { o.final_probs().swapped() } else { o.final_probs() };
            scorer.score_probs(p.a, p.b, p.tie)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let (s_a, consistent) = match scored.as_slice() {
        // A pointwise protocol: no presentation order, the pair's probabilities are its verdict.
        [] if j.orders.is_empty() => (scorer.score_probs(j.probs.a, j.probs.b, j.probs.tie)?.s_a, true),
        [one] => (one.s_a, true),
        [ab, ba] => {
            let avg = swap_average(ab, ba);
            (avg.s_a, avg.consistent)
        }
        other => return Err(PairScoreError::Orders(other.len())),
    };
    let first = j.orders.first();
    Ok(ScoredPair {
        id: j.question_id.clone(),
        s_a,
        consistent,
        category_a: first.and_then(|o| o.category_a),
        category_b: first.and_then(|o| o.category_b),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{order, pair};

    #[test]
    fn a_clear_verdict_in_both_orders_scores_one() {
        let scorer = DiceScorer::new(0.1).unwrap();
        // ab: A 0.7, B 0.2, tie 0.1 -> margin 0.5 >= 0.1, hard: s_A = 1.
        // ba: the original B is shown first with 0.3, the original A second with 0.6 -> hard win
        // of the second shown, i.e. of the original A: s_A = 1. Mean 1, both orders name A.
        let mut first = order("ab", [0.7, 0.2, 0.1], None);
        first.category_a = Some(Category::FullyCorrect);
        let s = score_pair(&scorer, &pair(vec![first, order("ba", [0.3, 0.6, 0.1], None)])).unwrap();
        assert_eq!((s.s_a, s.consistent), (1.0, true));
        assert_eq!(s.id, "q");
        assert_eq!(s.category_a, Some(Category::FullyCorrect));
    }

    #[test]
    fn an_unclear_verdict_is_scored_softly() {
        let scorer = DiceScorer::new(0.1).unwrap();
        // One order, A 0.45, B 0.40, tie 0.15: margin 0.05 < 0.1, soft:
        // s_A = 0.45 + 0.15 * 0.45 / 0.85 = 0.529411764705882...
        let s = score_pair(&scorer, &pair(vec![order("ab", [0.45, 0.40, 0.15], None)])).unwrap();
        assert!((s.s_a - (0.45 + 0.15 * 0.45 / 0.85)).abs() < 1e-12, "{}", s.s_a);
        assert!(s.consistent);
    }

    #[test]
    fn orders_that_disagree_average_to_a_draw() {
        let scorer = DiceScorer::new(0.1).unwrap();
        // ab: A 0.7 -> s_A = 1. ba: the first shown (the original B) gets 0.7 -> s_A = 0.
        // Mean 0.5; the orders name different winners: inconsistent.
        let s =
            score_pair(&scorer, &pair(vec![order("ab", [0.7, 0.2, 0.1], None), order("ba", [0.7, 0.2, 0.1], None)]))
                .unwrap();
        assert_eq!((s.s_a, s.consistent), (0.5, false));
    }
}
