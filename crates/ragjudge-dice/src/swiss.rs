//! Swiss-system pairing and round-robin schedules (DICE §3.3).
//!
//! Systems start at equal Elo; round 1 pairs them in input order (or in a seeded shuffle),
//! later rounds pair by nearest Elo without repeats. Each round plays `floor(N/2)` matches;
//! with odd N one system gets a bye (no match). Eight systems: 4 rounds x 4 matches = 16
//! comparisons against 28 for a round robin.

use std::collections::HashSet;

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// Search budget (recursive steps) for the no-repeat backtracking in one round before the
/// greedy fallback is used.
const BACKTRACK_BUDGET: usize = 200_000;

/// Default number of Swiss rounds: `ceil(log2 N) + 1`, capped at the number of rounds of a
/// round robin (`N - 1` for even N, `N` for odd N) so that small fields need no repeats.
/// 8 systems -> 4 rounds; 0 for fewer than 2 systems.
pub fn default_rounds(n: usize) -> usize {
    if n < 2 {
        return 0;
    }
    let log2_ceil = usize::BITS as usize - (n - 1).leading_zeros() as usize;
    let rr = if n.is_multiple_of(2) { n - 1 } else { n };
    (log2_ceil + 1).min(rr)
}

/// All `N (N - 1) / 2` pairs in round-robin order (circle method: each round every system
/// plays at most once), as `(i, j)` with `i < j`.
pub fn round_robin(n: usize) -> Vec<(usize, usize)> {
    round_robin_rounds(n).into_iter().flatten().collect()
}

/// Round-robin rounds by the circle method (Berger tables); with odd N a dummy slot gives
/// one bye per round.
pub fn round_robin_rounds(n: usize) -> Vec<Vec<(usize, usize)>> {
    if n < 2 {
        return Vec::new();
    }
    let m = if n.is_multiple_of(2) { n } else { n + 1 };
    let mut slots: Vec<usize> = (0..m).collect();
    let mut rounds = Vec::with_capacity(m - 1);
    for _ in 0..m - 1 {
        let mut round = Vec::with_capacity(m / 2);
        for k in 0..m / 2 {
            let (a, b) = (slots[k], slots[m - 1 - k]);
            if a < n && b < n {
                round.push((a.min(b), a.max(b)));
            }
        }
        rounds.push(round);
        // Keep slot 0 fixed, rotate the rest by one.
        let last = slots.pop().unwrap_or(0);
        slots.insert(1, last);
    }
    rounds
}

/// The pairings of one Swiss round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwissRound {
    /// Matches `(a, b)`; `a` is the higher-rated (or earlier) system.
    pub pairs: Vec<(usize, usize)>,
    /// The system with a bye this round (odd N only).
    pub bye: Option<usize>,
    /// Number of pairs that repeat an earlier match (0 unless no repeat-free pairing exists).
    pub repeats: usize,
}

/// Stateful Swiss pairer: remembers who played whom and who had a bye.
#[derive(Debug, Clone)]
pub struct SwissPairer {
    n: usize,
    played: HashSet<(usize, usize)>,
    had_bye: Vec<bool>,
    round: usize,
    first_order: Vec<usize>,
}

impl SwissPairer {
    /// A pairer for `n` systems; round 1 uses input order, or a ChaCha8 shuffle of it when
    /// `shuffle_seed` is given.
    pub fn new(n: usize, shuffle_seed: Option<u64>) -> Self {
        let mut first_order: Vec<usize> = (0..n).collect();
        if let Some(seed) = shuffle_seed {
            first_order.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
        }
        Self { n, played: HashSet::new(), had_bye: vec![false; n], round: 0, first_order }
    }

    /// Whether `a` and `b` have met.
    pub fn has_played(&self, a: usize, b: usize) -> bool {
        self.played.contains(&(a.min(b), a.max(b)))
    }

    /// Rounds paired so far.
    pub fn rounds_paired(&self) -> usize {
        self.round
    }

    /// Pairs the next round from the current `ratings` (one per system) and records it.
    ///
    /// Round 1: consecutive systems of the start order (input order or seeded shuffle); the
    /// last one gets the bye for odd N. Later rounds: the bye goes to the lowest-rated system
    /// without a bye yet; then, from the top rating down, each system takes the nearest-rated
    /// opponent it has not played, backtracking when that leaves the rest unpairable. If no
    /// repeat-free pairing exists (or the search budget runs out), the top system greedily
    /// takes the nearest unplayed opponent if any, else the nearest one (a counted repeat).
    ///
    /// # Panics
    /// If `ratings.len()` differs from the number of systems.
    pub fn next_round(&mut self, ratings: &[f64]) -> SwissRound {
        assert_eq!(ratings.len(), self.n, "one rating per system");
        let round = if self.round == 0 {
            let mut order = self.first_order.clone();
            let bye = if order.len() % 2 == 1 { order.pop() } else { None };
            let pairs = order.chunks(2).map(|c| (c[0], c[1])).collect();
            SwissRound { pairs, bye, repeats: 0 }
        } else {
            // Highest rating first; equal ratings keep input order.
            let mut order: Vec<usize> = (0..self.n).collect();
            order.sort_by(|&a, &b| ratings[b].total_cmp(&ratings[a]).then(a.cmp(&b)));
            let bye = if order.len() % 2 == 1 {
                let pos = order.iter().rposition(|&s| !self.had_bye[s]).unwrap_or(order.len() - 1);
                Some(order.remove(pos))
            } else {
                None
            };
            let mut budget = BACKTRACK_BUDGET;
            let mut pairs = Vec::with_capacity(order.len() / 2);
            let pairs = if self.backtrack(&order, ratings, &mut pairs, &mut budget) {
                pairs
            } else {
                self.greedy(&order, ratings)
            };
            let repeats = pairs.iter().filter(|&&(a, b)| self.has_played(a, b)).count();
            SwissRound { pairs, bye, repeats }
        };
        for &(a, b) in &round.pairs {
            self.played.insert((a.min(b), a.max(b)));
        }
        if let Some(b) = round.bye {
            self.had_bye[b] = true;
        }
        self.round += 1;
        round
    }

    /// Candidates of `top` among `rest`, nearest rating first (ties: higher-placed first).
    fn candidates(rest: &[usize], top: usize, ratings: &[f64]) -> Vec<usize> {
        let mut idx: Vec<usize> = (0..rest.len()).collect();
        idx.sort_by(|&x, &y| {
            let dx = (ratings[rest[x]] - ratings[top]).abs();
            let dy = (ratings[rest[y]] - ratings[top]).abs();
            dx.total_cmp(&dy).then(x.cmp(&y))
        });
        idx
    }

    fn backtrack(
        &self,
        remaining: &[usize],
        ratings: &[f64],
        out: &mut Vec<(usize, usize)>,
        budget: &mut usize,
    ) -> bool {
        if remaining.is_empty() {
            return true;
        }
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        let top = remaining[0];
        let rest = &remaining[1..];
        for i in Self::candidates(rest, top, ratings) {
            let opp = rest[i];
            if self.has_played(top, opp) {
                continue;
            }
            let next: Vec<usize> = rest.iter().enumerate().filter(|&(k, _)| k != i).map(|(_, &s)| s).collect();
            out.push((top, opp));
            if self.backtrack(&next, ratings, out, budget) {
                return true;
            }
            out.pop();
            if *budget == 0 {
                return false;
            }
        }
        false
    }

    fn greedy(&self, order: &[usize], ratings: &[f64]) -> Vec<(usize, usize)> {
        let mut remaining = order.to_vec();
        let mut pairs = Vec::with_capacity(order.len() / 2);
        while remaining.len() >= 2 {
            let top = remaining.remove(0);
            let cands = Self::candidates(&remaining, top, ratings);
            let pick = cands.iter().copied().find(|&i| !self.has_played(top, remaining[i])).unwrap_or(cands[0]);
            pairs.push((top, remaining.remove(pick)));
        }
        pairs
    }
}
