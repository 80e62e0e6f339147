//! DICE stage II: probabilistic scoring of one {A, B, Tie} verdict (DICE §3.2;
//! the exact rule is in docs/papers.md).
//!
//! Softmax over the three verdict-token logits only; margin `ΔP = p_max - p_second`;
//! `ΔP >= tau` (default 0.1) gives a hard score (winner 1, loser 0; Tie 0.5/0.5), otherwise
//! a soft score where each side keeps its own probability plus its proportional share of
//! the tie probability: `s_A = p_A + p_T * p_A / (p_A + p_B)`.

use serde::{Deserialize, Serialize};

/// Default confidence threshold on the probability margin (DICE §3.2: grid-searched 0.1).
pub const DEFAULT_TAU: f64 = 0.1;

/// Absolute tolerance of the `margin >= tau` comparison, so that a margin that is 0.1 in
/// decimal (e.g. probabilities 0.55 / 0.45, whose binary difference is 0.10000000000000003
/// or 0.09999999999999998 depending on rounding) counts as reaching the threshold.
pub const MARGIN_TOLERANCE: f64 = 1e-12;

/// A verdict label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Verdict {
    /// The first answer (A) is better.
    A,
    /// The second answer (B) is better.
    B,
    /// Neither is better.
    Tie,
}

impl Verdict {
    /// The same verdict seen from the swapped order (A <-> B; Tie stays Tie).
    pub fn swapped(self) -> Self {
        match self {
            Self::A => Self::B,
            Self::B => Self::A,
            Self::Tie => Self::Tie,
        }
    }
}

/// Whether a score was decided hard (margin at or above tau) or soft.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ScoreMode {
    /// `margin >= tau`: winner 1, loser 0 (Tie 0.5/0.5).
    Hard,
    /// `margin < tau`: probabilities with the tie mass shared proportionally.
    Soft,
}

/// Errors from scoring inputs.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ScoringError {
    /// A logit or probability is NaN or infinite.
    #[error("non-finite verdict input: {0}")]
    NonFinite(f64),
    /// A probability is negative.
    #[error("negative probability: {0}")]
    Negative(f64),
    /// All three probabilities are zero.
    #[error("probabilities sum to zero")]
    ZeroMass,
    /// tau outside `[0, 1]`.
    #[error("tau must be in [0, 1], got {0}")]
    BadTau(f64),
}

/// The DICE score of one pairwise verdict.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PairScore {
    /// Score of answer A in `[0, 1]`.
    pub s_a: f64,
    /// Score of answer B; `s_a + s_b = 1`.
    pub s_b: f64,
    /// Normalised probability of verdict A.
    pub p_a: f64,
    /// Normalised probability of verdict B.
    pub p_b: f64,
    /// Normalised probability of Tie.
    pub p_tie: f64,
    /// `p_max - p_second`.
    pub margin: f64,
    /// Hard or soft.
    pub mode: ScoreMode,
    /// The most probable label (ties between labels broken A, then B, then Tie).
    pub winner: Verdict,
}

/// Scorer with a configurable margin threshold.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct DiceScorer {
    /// Margin threshold for hard scoring.
    pub tau: f64,
}

impl Default for DiceScorer {
    fn default() -> Self {
        Self { tau: DEFAULT_TAU }
    }
}

impl DiceScorer {
    /// A scorer with threshold `tau` in `[0, 1]`.
    pub fn new(tau: f64) -> Result<Self, ScoringError> {
        if !tau.is_finite() || !(0.0..=1.0).contains(&tau) {
            return Err(ScoringError::BadTau(tau));
        }
        Ok(Self { tau })
    }

    /// Scores from the three verdict-token logits (softmax over these three only).
    pub fn score_logits(&self, logit_a: f64, logit_b: f64, logit_tie: f64) -> Result<PairScore, ScoringError> {
        for l in [logit_a, logit_b, logit_tie] {
            if !l.is_finite() {
                return Err(ScoringError::NonFinite(l));
            }
        }
        let m = logit_a.max(logit_b).max(logit_tie);
        let (ea, eb, et) = ((logit_a - m).exp(), (logit_b - m).exp(), (logit_tie - m).exp());
        let z = ea + eb + et;
        Ok(self.score_normalised(ea / z, eb / z, et / z))
    }

    /// Scores from probabilities (e.g. HTTP logprobs exponentiated); they are renormalised
    /// over the three labels, so partial mass (other tokens) is fine.
    pub fn score_probs(&self, p_a: f64, p_b: f64, p_tie: f64) -> Result<PairScore, ScoringError> {
        for p in [p_a, p_b, p_tie] {
            if !p.is_finite() {
                return Err(ScoringError::NonFinite(p));
            }
            if p < 0.0 {
                return Err(ScoringError::Negative(p));
            }
        }
        let z = p_a + p_b + p_tie;
        if z <= 0.0 {
            return Err(ScoringError::ZeroMass);
        }
        Ok(self.score_normalised(p_a / z, p_b / z, p_tie / z))
    }

    fn score_normalised(&self, p_a: f64, p_b: f64, p_tie: f64) -> PairScore {
        // Winner: first maximum in the order A, B, Tie.
        let mut sorted = [p_a, p_b, p_tie];
        sorted.sort_by(|x, y| y.total_cmp(x));
        let margin = sorted[0] - sorted[1];
        let winner = if p_a >= p_b && p_a >= p_tie {
            Verdict::A
        } else if p_b >= p_tie {
            Verdict::B
        } else {
            Verdict::Tie
        };
        let hard = margin >= self.tau - MARGIN_TOLERANCE;
        let (s_a, s_b, mode) = if hard {
            match winner {
                Verdict::A => (1.0, 0.0, ScoreMode::Hard),
                Verdict::B => (0.0, 1.0, ScoreMode::Hard),
                Verdict::Tie => (0.5, 0.5, ScoreMode::Hard),
            }
        } else {
            let ab = p_a + p_b;
            if ab <= 0.0 {
                // All mass on Tie: an even split. Unreachable in practice (that margin is 1 >= tau,
                // so it scores hard), kept so the division is always defined.
                (0.5, 0.5, ScoreMode::Soft)
            } else {
                (p_a + p_tie * p_a / ab, p_b + p_tie * p_b / ab, ScoreMode::Soft)
            }
        };
        PairScore { s_a, s_b, p_a, p_b, p_tie, margin, mode, winner }
    }
}

/// Scores logits with the default threshold 0.1.
pub fn score_logits(logit_a: f64, logit_b: f64, logit_tie: f64) -> Result<PairScore, ScoringError> {
    DiceScorer::default().score_logits(logit_a, logit_b, logit_tie)
}

/// Scores probabilities with the default threshold 0.1.
pub fn score_probs(p_a: f64, p_b: f64, p_tie: f64) -> Result<PairScore, ScoringError> {
    DiceScorer::default().score_probs(p_a, p_b, p_tie)
}

/// One question judged in both presentation orders, averaged to cancel position bias.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SwapAveraged {
    /// Mean score of the original A over both orders.
    pub s_a: f64,
    /// Mean score of the original B; `s_a + s_b = 1`.
    pub s_b: f64,
    /// Whether both orders named the same winner (the swapped verdict mapped back).
    pub consistent: bool,
}

/// Averages the score of (A, B) with the score of the swapped order (B, A): in `swapped`
/// the original A was presented second, so its score there is `swapped.s_b`.
pub fn swap_average(original: &PairScore, swapped: &PairScore) -> SwapAveraged {
    SwapAveraged {
        s_a: 0.5 * (original.s_a + swapped.s_b),
        s_b: 0.5 * (original.s_b + swapped.s_a),
        consistent: original.winner == swapped.winner.swapped(),
    }
}

/// Outcome of a match over shared questions (DICE: `S_A` = mean over questions of `s_A`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// Mean score of A.
    pub s_a: f64,
    /// Mean score of B (`1 - s_a`).
    pub s_b: f64,
    /// Number of questions.
    pub n: usize,
}

impl Outcome {
    /// Mean of per-question A scores; `None` for no questions.
    pub fn from_scores(s_a: &[f64]) -> Option<Self> {
        if s_a.is_empty() {
            return None;
        }
        let m = s_a.iter().sum::<f64>() / s_a.len() as f64;
        Some(Self { s_a: m, s_b: 1.0 - m, n: s_a.len() })
    }
}
