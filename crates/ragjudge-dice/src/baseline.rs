//! DICE's baseline mode (DICE §3.3): the system under test plays high, medium and low quality
//! baselines, and is placed by Elo among them.

use serde::Serialize;

/// The baseline tiers, best first.
pub const TIERS: [&str; 3] = ["high", "medium", "low"];

/// Where an Elo rating falls among the tiers' ratings (given best tier first).
pub fn placement(target: f64, tiers: &[f64]) -> &'static str {
    match tiers.iter().take_while(|&&t| t > target).count() {
        0 => "above high",
        1 => "between high and medium",
        2 => "between medium and low",
        _ => "below low",
    }
}

/// Whether the judge ordered the tiers as they are meant (each at least as strong as the next).
pub fn tiers_in_order(tiers: &[f64]) -> bool {
    tiers.windows(2).all(|w| w[0] >= w[1])
}

/// The target's record against one tier, over questions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct TierRecord {
    /// Questions the target won.
    pub wins: usize,
    /// Questions drawn.
    pub ties: usize,
    /// Questions the target lost.
    pub losses: usize,
}

impl TierRecord {
    /// Adds one question with the target's DICE score `s`.
    pub fn add(&mut self, s: f64) {
        if s > 0.5 {
            self.wins += 1;
        } else if s < 0.5 {
            self.losses += 1;
        } else {
            self.ties += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placement_counts_the_tiers_above_the_target() {
        let tiers = [1100.0, 1000.0, 900.0];
        assert_eq!(placement(1150.0, &tiers), "above high");
        assert_eq!(placement(1050.0, &tiers), "between high and medium");
        // Equal to the medium tier: not below it, so still between high and medium.
        assert_eq!(placement(1000.0, &tiers), "between high and medium");
        assert_eq!(placement(950.0, &tiers), "between medium and low");
        assert_eq!(placement(800.0, &tiers), "below low");
        assert!(tiers_in_order(&tiers));
        assert!(!tiers_in_order(&[1000.0, 1100.0, 900.0]));
    }

    #[test]
    fn a_record_counts_wins_ties_and_losses() {
        let mut r = TierRecord::default();
        for s in [1.0, 0.5, 0.2, 0.75] {
            r.add(s);
        }
        assert_eq!(r, TierRecord { wins: 2, ties: 1, losses: 1 });
    }
}
