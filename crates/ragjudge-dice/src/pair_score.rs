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
/// first), then the two orders averaged with the swapped one mapped back.
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
