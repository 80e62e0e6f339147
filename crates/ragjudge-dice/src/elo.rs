//! Elo ratings as used by the DICE tournament (DICE §3.3; docs/papers.md):
//! `E_A = 1 / (1 + 10^((R_B - R_A)/400))`, `R_A' = R_A + K (S_A - E_A)`, with `S_A` the mean
//! of the per-question DICE scores and an upset bonus that amplifies K when the lower-rated
//! system wins.

use serde::{Deserialize, Serialize};

/// Elo parameters.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct EloConfig {
    /// Starting rating of every system (default 1000).
    pub initial: f64,
    /// K-factor (default 32).
    pub k: f64,
    /// Multiplier on K when the lower-rated system wins (`S > 0.5` for it); default 1.5,
    /// 1.0 turns it off. The paper states the amplification but not its size; 1.5 is ours.
    pub upset_factor: f64,
}

impl Default for EloConfig {
    fn default() -> Self {
        Self { initial: 1000.0, k: 32.0, upset_factor: 1.5 }
    }
}

/// Expected score of a player rated `r_a` against one rated `r_b`.
pub fn expected(r_a: f64, r_b: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf((r_b - r_a) / 400.0))
}

/// Result of one Elo update.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct EloUpdate {
    /// New rating of A.
    pub r_a: f64,
    /// New rating of B.
    pub r_b: f64,
    /// K actually used (amplified on an upset).
    pub k: f64,
    /// Whether the lower-rated side won.
    pub upset: bool,
}

impl EloConfig {
    /// Updates ratings `r_a`, `r_b` after A scored `s_a` in `[0, 1]` (B scored `1 - s_a`).
    ///
    /// The same K is applied to both sides, so the update is zero-sum:
    /// `r_a' - r_a = -(r_b' - r_b)`. Equal ratings never count as an upset.
    pub fn update(&self, r_a: f64, r_b: f64, s_a: f64) -> EloUpdate {
        let e_a = expected(r_a, r_b);
        let upset = (r_a < r_b && s_a > 0.5) || (r_b < r_a && s_a < 0.5);
        let k = if upset { self.k * self.upset_factor } else { self.k };
        let delta = k * (s_a - e_a);
        EloUpdate { r_a: r_a + delta, r_b: r_b - delta, k, upset }
    }
}
