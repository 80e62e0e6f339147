//! Tournament driver (DICE §3.3): runs Swiss or round-robin matches through a caller-supplied
//! match function, updates Elo after each match (`S_A` = mean of per-question `s_A`), fits
//! Bradley-Terry on all per-question outcomes, and ranks by Elo (ties broken by BT) or by BT.

use serde::{Deserialize, Serialize};

use crate::bradley_terry::{self, BtConfig, PairOutcome};
use crate::elo::EloConfig;
use crate::swiss::{default_rounds, round_robin_rounds, SwissPairer};

/// Tournament format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Format {
    /// Swiss system with Elo pairing.
    Swiss,
    /// Every pair once (circle-method order).
    RoundRobin,
}

/// What the final ranking sorts by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum RankBy {
    /// Final Elo, ties broken by BT (the DICE paper's leaderboard).
    Elo,
    /// Bradley-Terry log-strength, ties broken by Elo. Order-independent, so it uses every
    /// Swiss result equally; with few Swiss rounds it separates systems with equal records
    /// that Elo leaves in pairing-order.
    BradleyTerry,
}

/// One question's DICE score within a match.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QuestionScore {
    /// Question id (shared by both systems).
    pub question: String,
    /// Score of the first system.
    pub s_a: f64,
    /// Score of the second system (normally `1 - s_a`).
    pub s_b: f64,
}

/// What a match function returns for systems (A, B).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MatchResult {
    /// Per-question scores over the questions both systems answered.
    pub scores: Vec<QuestionScore>,
    /// Judge calls the match used (e.g. 2 per question with swap averaging).
    pub judge_calls: usize,
}

impl MatchResult {
    /// `S_A`: mean of per-question `s_a`; 0.5 (a draw) for a match with no shared questions.
    pub fn s_a(&self) -> f64 {
        if self.scores.is_empty() {
            0.5
        } else {
            self.scores.iter().map(|q| q.s_a).sum::<f64>() / self.scores.len() as f64
        }
    }
}

/// Tournament settings.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TournamentConfig {
    /// Swiss or round robin.
    pub format: Format,
    /// Swiss rounds; `None` = [`default_rounds`].
    pub rounds: Option<usize>,
    /// Seed for the round-1 shuffle; `None` = input order.
    pub shuffle_seed: Option<u64>,
    /// Elo parameters.
    pub elo: EloConfig,
    /// Bradley-Terry parameters.
    pub bt: BtConfig,
    /// Ranking key (default Bradley-Terry: with ceil(log2 N) + 1 Swiss rounds, Elo ranks systems
    /// with equal records by pairing order; docs/tournament-study.md).
    pub rank_by: RankBy,
}

impl Default for TournamentConfig {
    fn default() -> Self {
        Self {
            format: Format::Swiss,
            rounds: None,
            shuffle_seed: None,
            elo: EloConfig::default(),
            bt: BtConfig::default(),
            rank_by: RankBy::BradleyTerry,
        }
    }
}

/// One played match.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PlayedMatch {
    /// Round, 0-based (Swiss round or circle-method round-robin round).
    pub round: usize,
    /// First system.
    pub a: String,
    /// Second system.
    pub b: String,
    /// `S_A`.
    pub s_a: f64,
    /// Elo of A after the match.
    pub elo_a: f64,
    /// Elo of B after the match.
    pub elo_b: f64,
}

/// A system's final standing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Standing {
    /// System name.
    pub system: String,
    /// 1-based rank.
    pub rank: usize,
    /// Final Elo.
    pub elo: f64,
    /// Bradley-Terry log-strength (mean 0).
    pub bt: f64,
    /// Lower bootstrap bound of `bt`.
    pub bt_ci_low: f64,
    /// Upper bootstrap bound of `bt`.
    pub bt_ci_high: f64,
    /// Matches won (`S > 0.5`).
    pub wins: usize,
    /// Matches drawn (`S == 0.5`).
    pub ties: usize,
    /// Matches lost.
    pub losses: usize,
    /// Matches played (byes excluded).
    pub matches: usize,
}

/// Tournament result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Leaderboard {
    /// Standings, best first.
    pub systems: Vec<Standing>,
    /// Sum of `judge_calls` over all matches.
    pub judge_calls: usize,
    /// Judge calls a round robin would need: `N (N - 1) / 2` times the mean calls per
    /// played match (equal to `judge_calls` for a round robin).
    pub round_robin_calls: usize,
    /// Matches in play order.
    pub matches: Vec<PlayedMatch>,
    /// Every per-question outcome the Bradley-Terry fit used (for refits such as
    /// [`crate::length_control`]).
    #[serde(default)]
    pub outcomes: Vec<PairOutcome>,
}

/// Runs a tournament among `systems`, calling `play(a, b)` once per match; the first error of
/// `play` stops the tournament and is returned.
pub fn run<F, E>(systems: &[String], cfg: &TournamentConfig, mut play: F) -> Result<Leaderboard, E>
where
    F: FnMut(&str, &str) -> Result<MatchResult, E>,
{
    let n = systems.len();
    let mut elo = vec![cfg.elo.initial; n];
    let mut wtl = vec![[0usize; 3]; n];
    let mut outcomes: Vec<PairOutcome> = Vec::new();
    let mut played = Vec::new();
    let mut judge_calls = 0usize;

    let mut play_one = |a: usize, b: usize, round: usize, elo: &mut Vec<f64>| -> Result<(), E> {
        let r = play(&systems[a], &systems[b])?;
        judge_calls += r.judge_calls;
        let s_a = r.s_a();
        for q in &r.scores {
            outcomes.push(PairOutcome { question: q.question.clone(), i: a, j: b, s_i: q.s_a, s_j: q.s_b });
        }
        let up = cfg.elo.update(elo[a], elo[b], s_a);
        elo[a] = up.r_a;
        elo[b] = up.r_b;
        let (ia, ib) = if s_a > 0.5 {
            (0, 2)
        } else if s_a < 0.5 {
            (2, 0)
        } else {
            (1, 1)
        };
        wtl[a][ia] += 1;
        wtl[b][ib] += 1;
        played.push(PlayedMatch {
            round,
            a: systems[a].clone(),
            b: systems[b].clone(),
            s_a,
            elo_a: up.r_a,
            elo_b: up.r_b,
        });
        Ok(())
    };

    match cfg.format {
        Format::RoundRobin => {
            for (round, pairs) in round_robin_rounds(n).into_iter().enumerate() {
                for (a, b) in pairs {
                    play_one(a, b, round, &mut elo)?;
                }
            }
        }
        Format::Swiss => {
            let rounds = cfg.rounds.unwrap_or_else(|| default_rounds(n));
            let mut pairer = SwissPairer::new(n, cfg.shuffle_seed);
            for round in 0..rounds {
                let r = pairer.next_round(&elo);
                for (a, b) in r.pairs {
                    play_one(a, b, round, &mut elo)?;
                }
            }
        }
    }

    let fit = bradley_terry::fit(n, &outcomes, &cfg.bt);
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&x, &y| {
        let by_elo = elo[y].total_cmp(&elo[x]);
        let by_bt = fit.bt[y].total_cmp(&fit.bt[x]);
        match cfg.rank_by {
            RankBy::Elo => by_elo.then(by_bt),
            RankBy::BradleyTerry => by_bt.then(by_elo),
        }
        .then(x.cmp(&y))
    });
    let standings = order
        .iter()
        .enumerate()
        .map(|(r, &i)| Standing {
            system: systems[i].clone(),
            rank: r + 1,
            elo: elo[i],
            bt: fit.bt[i],
            bt_ci_low: fit.ci_low[i],
            bt_ci_high: fit.ci_high[i],
            wins: wtl[i][0],
            ties: wtl[i][1],
            losses: wtl[i][2],
            matches: wtl[i].iter().sum(),
        })
        .collect();
    let n_matches = played.len();
    let rr_matches = n * n.saturating_sub(1) / 2;
    let round_robin_calls =
        if n_matches == 0 { 0 } else { (judge_calls as f64 * rr_matches as f64 / n_matches as f64).round() as usize };
    Ok(Leaderboard { systems: standings, judge_calls, round_robin_calls, matches: played, outcomes })
}
