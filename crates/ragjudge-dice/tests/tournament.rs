//! DICE scoring, Elo, Swiss pairing, Bradley-Terry and tournament tests. Expected values are
//! computed by hand in the comments.

use approx::assert_abs_diff_eq;
use ragjudge_dice::bradley_terry::{self, BtConfig, PairOutcome};
use ragjudge_dice::elo::{expected, EloConfig};
use ragjudge_dice::scoring::{
    score_logits, score_probs, swap_average, DiceScorer, Outcome, ScoreMode, ScoringError, Verdict,
};
use ragjudge_dice::swiss::{default_rounds, round_robin, round_robin_rounds, SwissPairer};
use ragjudge_dice::tournament::{self, Format, MatchResult, QuestionScore, RankBy, TournamentConfig};
use std::collections::HashSet;
use std::convert::Infallible;

// ---------- scoring ----------

#[test]
fn hard_win_for_a() {
    // margin = 0.7 - 0.2 = 0.5 >= 0.1 -> hard, A wins 1/0.
    let s = score_probs(0.7, 0.2, 0.1).unwrap();
    assert_eq!(s.mode, ScoreMode::Hard);
    assert_eq!(s.winner, Verdict::A);
    assert_eq!((s.s_a, s.s_b), (1.0, 0.0));
    assert_abs_diff_eq!(s.margin, 0.5, epsilon = 1e-12);
}

#[test]
fn hard_win_for_b() {
    let s = score_probs(0.1, 0.8, 0.1).unwrap();
    assert_eq!((s.s_a, s.s_b, s.winner), (0.0, 1.0, Verdict::B));
}

#[test]
fn tie_max_scores_half_each() {
    // Tie is max, margin = 0.6 - 0.2 = 0.4 -> hard 0.5 / 0.5.
    let s = score_probs(0.2, 0.2, 0.6).unwrap();
    assert_eq!(s.winner, Verdict::Tie);
    assert_eq!(s.mode, ScoreMode::Hard);
    assert_eq!((s.s_a, s.s_b), (0.5, 0.5));
}

#[test]
fn soft_below_threshold() {
    // margin = 0.45 - 0.40 = 0.05 < 0.1 -> soft.
    // s_A = 0.45 + 0.15 * 0.45 / 0.85 = 0.45 / 0.85 = 9/17; s_B = 0.40 / 0.85 = 8/17.
    let s = score_probs(0.45, 0.40, 0.15).unwrap();
    assert_eq!(s.mode, ScoreMode::Soft);
    assert_abs_diff_eq!(s.s_a, 9.0 / 17.0, epsilon = 1e-12);
    assert_abs_diff_eq!(s.s_b, 8.0 / 17.0, epsilon = 1e-12);
    assert_abs_diff_eq!(s.s_a + s.s_b, 1.0, epsilon = 1e-12);
}

#[test]
fn soft_just_below_threshold() {
    // margin = 0.5 - 0.41 = 0.09 < 0.1 -> soft; s_A = 0.5 + 0.09 * 0.5 / 0.91 = 0.5 / 0.91.
    let s = score_probs(0.5, 0.41, 0.09).unwrap();
    assert_eq!(s.mode, ScoreMode::Soft);
    assert_abs_diff_eq!(s.s_a, 0.5 / 0.91, epsilon = 1e-12);
}

#[test]
fn margin_exactly_tau_is_hard() {
    // 0.55 - 0.45 is 0.1 in decimal but 0.10000000000000009 or just under in binary; the
    // comparison has a 1e-12 tolerance so both count as reaching tau.
    let s = score_probs(0.55, 0.45, 0.0).unwrap();
    assert_eq!(s.mode, ScoreMode::Hard);
    assert_eq!((s.s_a, s.s_b), (1.0, 0.0));
    // Exact in binary: tau = 0.125, probabilities 0.5 / 0.375 / 0.125, margin 0.125.
    let s = DiceScorer::new(0.125).unwrap().score_probs(0.5, 0.375, 0.125).unwrap();
    assert_eq!(s.mode, ScoreMode::Hard);
    // Same with a margin 0.125 - 2^-20 below: soft, s_A = 0.5 / (0.5 + 0.375 + 2^-20).
    let d = 2f64.powi(-20);
    let s = DiceScorer::new(0.125).unwrap().score_probs(0.5, 0.375 + d, 0.125 - d).unwrap();
    assert_eq!(s.mode, ScoreMode::Soft);
    assert_abs_diff_eq!(s.s_a, 0.5 / (0.875 + d), epsilon = 1e-12);
}

#[test]
fn logits_softmax_over_three() {
    // Equal logits -> 1/3 each, margin 0 -> soft, s_A = (1/3) / (2/3) = 0.5.
    let s = score_logits(0.0, 0.0, 0.0).unwrap();
    assert_eq!(s.mode, ScoreMode::Soft);
    assert_abs_diff_eq!(s.s_a, 0.5, epsilon = 1e-12);
    assert_abs_diff_eq!(s.p_tie, 1.0 / 3.0, epsilon = 1e-12);
    // Logits ln 0.6, ln 0.3, ln 0.1 -> probabilities 0.6 / 0.3 / 0.1; shift-invariant.
    let s = score_logits(0.6f64.ln() + 50.0, 0.3f64.ln() + 50.0, 0.1f64.ln() + 50.0).unwrap();
    assert_abs_diff_eq!(s.p_a, 0.6, epsilon = 1e-12);
    assert_abs_diff_eq!(s.p_b, 0.3, epsilon = 1e-12);
    assert_abs_diff_eq!(s.margin, 0.3, epsilon = 1e-12);
    assert_eq!(s.mode, ScoreMode::Hard);
    // Logits (1.0, 0.9, -5): p_A = e^1 / (e^1 + e^0.9 + e^-5) = 2.718282 / 5.183 = 0.524463,
    // p_B = 2.459603 / 5.183 = 0.474556, margin 0.0499 -> soft, s_A = p_A/(p_A+p_B)
    // = 1 / (1 + e^-0.1) = 0.524979.
    let s = score_logits(1.0, 0.9, -5.0).unwrap();
    assert_eq!(s.mode, ScoreMode::Soft);
    assert_abs_diff_eq!(s.s_a, 1.0 / (1.0 + (-0.1f64).exp()), epsilon = 1e-12);
}

#[test]
fn probabilities_are_renormalised() {
    // 0.35 / 0.2 / 0.05 sums to 0.6 -> 0.5833 / 0.3333 / 0.0833; margin 0.25 -> hard A.
    let s = score_probs(0.35, 0.2, 0.05).unwrap();
    assert_abs_diff_eq!(s.p_a, 0.35 / 0.6, epsilon = 1e-12);
    assert_eq!(s.s_a, 1.0);
}

#[test]
fn bad_inputs_are_errors() {
    assert_eq!(score_probs(0.0, 0.0, 0.0), Err(ScoringError::ZeroMass));
    assert!(matches!(score_probs(-0.1, 0.5, 0.6), Err(ScoringError::Negative(_))));
    assert!(matches!(score_logits(f64::NAN, 0.0, 0.0), Err(ScoringError::NonFinite(_))));
    assert!(DiceScorer::new(1.5).is_err());
}

#[test]
fn swap_averaging() {
    // (A, B): hard A, s_A = 1. (B, A): B-first probabilities 0.3 / 0.65 / 0.05 -> hard for the
    // second slot = original A. Average s_A = (1 + 1) / 2 = 1, consistent.
    let o = score_probs(0.7, 0.2, 0.1).unwrap();
    let w = score_probs(0.3, 0.65, 0.05).unwrap();
    let avg = swap_average(&o, &w);
    assert_eq!((avg.s_a, avg.s_b, avg.consistent), (1.0, 0.0, true));
    // Swapped order soft 0.45 / 0.40 / 0.15: first slot (original B) gets 9/17, second
    // (original A) 8/17. s_A = (1 + 8/17) / 2 = 25/34; winners A then original B -> inconsistent.
    let w = score_probs(0.45, 0.40, 0.15).unwrap();
    let avg = swap_average(&o, &w);
    assert_abs_diff_eq!(avg.s_a, 25.0 / 34.0, epsilon = 1e-12);
    assert_abs_diff_eq!(avg.s_b, 9.0 / 34.0, epsilon = 1e-12);
    assert!(!avg.consistent);
    // Tie in both orders is consistent.
    let t = score_probs(0.2, 0.2, 0.6).unwrap();
    assert!(swap_average(&t, &t).consistent);
}

#[test]
fn outcome_is_mean_of_question_scores() {
    // (1 + 0 + 0.5 + 9/17) / 4 = (1.5 + 0.529412) / 4 = 0.507353.
    let o = Outcome::from_scores(&[1.0, 0.0, 0.5, 9.0 / 17.0]).unwrap();
    assert_abs_diff_eq!(o.s_a, (1.5 + 9.0 / 17.0) / 4.0, epsilon = 1e-12);
    assert_eq!(o.n, 4);
    assert!(Outcome::from_scores(&[]).is_none());
}

// ---------- Elo ----------

#[test]
fn elo_equal_ratings_win() {
    // E_A = 0.5; R_A' = 1000 + 32 (1 - 0.5) = 1016, R_B' = 984. Equal ratings: no upset.
    let u = EloConfig::default().update(1000.0, 1000.0, 1.0);
    assert_abs_diff_eq!(u.r_a, 1016.0, epsilon = 1e-9);
    assert_abs_diff_eq!(u.r_b, 984.0, epsilon = 1e-9);
    assert!(!u.upset);
    // Fractional: S_A = 0.75 -> 1000 + 32 * 0.25 = 1008.
    let u = EloConfig::default().update(1000.0, 1000.0, 0.75);
    assert_abs_diff_eq!(u.r_a, 1008.0, epsilon = 1e-9);
}

#[test]
fn elo_upset_amplification() {
    // A 1000 vs B 1200: E_A = 1 / (1 + 10^0.5) = 1 / 4.16227766 = 0.2402530734.
    assert_abs_diff_eq!(expected(1000.0, 1200.0), 0.240_253_073_4, epsilon = 1e-10);
    // A wins (upset): K = 32 * 1.5 = 48; delta = 48 * 0.7597469266 = 36.467852477.
    let u = EloConfig::default().update(1000.0, 1200.0, 1.0);
    assert!(u.upset);
    assert_abs_diff_eq!(u.k, 48.0);
    assert_abs_diff_eq!(u.r_a, 1_036.467_852_477, epsilon = 1e-6);
    assert_abs_diff_eq!(u.r_b, 1_163.532_147_523, epsilon = 1e-6);
    // Zero-sum.
    assert_abs_diff_eq!(u.r_a - 1000.0, -(u.r_b - 1200.0), epsilon = 1e-9);
    // Factor 1.0 turns it off: delta = 32 * 0.7597469266 = 24.311901651.
    let off = EloConfig { upset_factor: 1.0, ..EloConfig::default() };
    let u = off.update(1000.0, 1200.0, 1.0);
    assert_abs_diff_eq!(u.r_a, 1_024.311_901_651, epsilon = 1e-6);
    // Favourite wins: no upset; delta = 32 * 0.2402530734 = 7.688098349.
    let u = EloConfig::default().update(1200.0, 1000.0, 1.0);
    assert!(!u.upset);
    assert_abs_diff_eq!(u.r_a, 1_207.688_098_349, epsilon = 1e-6);
    // Upset seen from the other side: B (lower) wins with S_A = 0.
    let u = EloConfig::default().update(1200.0, 1000.0, 0.0);
    assert!(u.upset);
    assert_abs_diff_eq!(u.r_b, 1_036.467_852_477, epsilon = 1e-6);
}

// ---------- Swiss ----------

#[test]
fn default_round_counts() {
    assert_eq!(default_rounds(8), 4); // ceil(log2 8) + 1
    assert_eq!(default_rounds(16), 5);
    assert_eq!(default_rounds(64), 7);
    assert_eq!(default_rounds(5), 4); // ceil(log2 5) = 3
    assert_eq!(default_rounds(4), 3); // capped at N - 1
    assert_eq!(default_rounds(2), 1);
    assert_eq!(default_rounds(1), 0);
}

#[test]
fn round_robin_covers_every_pair_once() {
    for n in [2usize, 5, 8] {
        let pairs = round_robin(n);
        assert_eq!(pairs.len(), n * (n - 1) / 2);
        let set: HashSet<_> = pairs.iter().copied().collect();
        assert_eq!(set.len(), pairs.len());
        for round in round_robin_rounds(n) {
            let mut seen = HashSet::new();
            for (a, b) in round {
                assert!(seen.insert(a) && seen.insert(b), "a system plays twice in a round");
            }
        }
    }
}

/// Plays a Swiss schedule with ratings `base[i]` plus per-round jitter, checking no repeats.
fn swiss_schedule(n: usize, rounds: usize) -> (Vec<(usize, usize)>, Vec<Option<usize>>) {
    let mut pairer = SwissPairer::new(n, Some(7));
    let mut ratings = vec![1000.0; n];
    let mut all = Vec::new();
    let mut byes = Vec::new();
    for r in 0..rounds {
        let round = pairer.next_round(&ratings);
        assert_eq!(round.pairs.len(), n / 2);
        assert_eq!(round.repeats, 0);
        byes.push(round.bye);
        for &(a, b) in &round.pairs {
            // The lower index is "stronger": it gains.
            let (w, l) = if a < b { (a, b) } else { (b, a) };
            ratings[w] += 10.0 + r as f64;
            ratings[l] -= 10.0 + r as f64;
            all.push((a.min(b), a.max(b)));
        }
    }
    (all, byes)
}

#[test]
fn swiss_eight_systems_sixteen_matches_no_repeats() {
    let (pairs, byes) = swiss_schedule(8, default_rounds(8));
    assert_eq!(pairs.len(), 16);
    assert_eq!(pairs.iter().collect::<HashSet<_>>().len(), 16);
    assert!(byes.iter().all(Option::is_none));
}

#[test]
fn swiss_odd_field_gets_distinct_byes() {
    let (pairs, byes) = swiss_schedule(7, default_rounds(7));
    // 4 rounds x 3 matches.
    assert_eq!(pairs.len(), 12);
    assert_eq!(pairs.iter().collect::<HashSet<_>>().len(), 12);
    let byes: Vec<usize> = byes.into_iter().map(Option::unwrap).collect();
    assert_eq!(byes.iter().collect::<HashSet<_>>().len(), 4);
    for (round, bye) in byes.iter().enumerate() {
        assert!(!pairs[round * 3..round * 3 + 3].iter().any(|&(a, b)| a == *bye || b == *bye));
    }
}

#[test]
fn swiss_bye_goes_to_lowest_rated_without_bye() {
    let mut p = SwissPairer::new(5, None);
    // Round 1, input order: (0,1), (2,3), bye 4.
    let r1 = p.next_round(&[1000.0; 5]);
    assert_eq!(r1.pairs, vec![(0, 1), (2, 3)]);
    assert_eq!(r1.bye, Some(4));
    // Ratings: 4 is lowest but already had a bye -> next lowest, 3.
    let ratings = [1016.0, 984.0, 1016.0, 970.0, 900.0];
    let r2 = p.next_round(&ratings);
    assert_eq!(r2.bye, Some(3));
    // Sorted: 0 (1016), 2 (1016), 1 (984), 4 (900). 0 vs 2 (nearest, unplayed), 1 vs 4.
    assert_eq!(r2.pairs, vec![(0, 2), (1, 4)]);
}

#[test]
fn swiss_backtracks_to_avoid_repeats() {
    let mut p = SwissPairer::new(4, None);
    // Round 1: (0,1), (2,3).
    p.next_round(&[1000.0; 4]);
    // Ratings make 0-1 nearest for 0, but they met; 0 takes 2 (next nearest), leaving 1-3.
    let r = p.next_round(&[1030.0, 1020.0, 1000.0, 900.0]);
    assert_eq!(r.pairs, vec![(0, 2), (1, 3)]);
    // Round 3: 0 has met 1 and 2 -> only 3 left; greedy nearest for 0 would be 1 (met).
    let r = p.next_round(&[1030.0, 1020.0, 1000.0, 900.0]);
    assert_eq!(r.pairs, vec![(0, 3), (1, 2)]);
    assert_eq!(r.repeats, 0);
    // Round 4: every pair has met; a pairing is still produced, with repeats counted.
    let r = p.next_round(&[1030.0, 1020.0, 1000.0, 900.0]);
    assert_eq!(r.pairs.len(), 2);
    assert_eq!(r.repeats, 2);
}

// ---------- Bradley-Terry ----------

fn outcome(q: &str, i: usize, j: usize, s_i: f64) -> PairOutcome {
    PairOutcome { question: q.to_string(), i, j, s_i, s_j: 1.0 - s_i }
}

#[test]
fn bt_two_players_three_of_four() {
    // MLE: p_A / (p_A + p_B) = 3/4 -> ratio 3; centred logs +-ln(3)/2.
    let data =
        vec![outcome("q1", 0, 1, 1.0), outcome("q2", 0, 1, 1.0), outcome("q3", 0, 1, 1.0), outcome("q4", 0, 1, 0.0)];
    let cfg = BtConfig { prior: 0.0, n_boot: 0, ..BtConfig::default() };
    let fit = bradley_terry::fit(2, &data, &cfg);
    assert!(fit.converged);
    assert_abs_diff_eq!(fit.bt[0] - fit.bt[1], 3f64.ln(), epsilon = 1e-8);
    assert_abs_diff_eq!(fit.bt[0] + fit.bt[1], 0.0, epsilon = 1e-12);
    // Fractional wins: two questions at 0.75 give the same ratio.
    let frac = vec![outcome("q1", 0, 1, 0.75), outcome("q2", 1, 0, 0.25)];
    let fit = bradley_terry::fit(2, &frac, &cfg);
    assert_abs_diff_eq!(fit.bt[0] - fit.bt[1], 3f64.ln(), epsilon = 1e-8);
}

#[test]
fn bt_three_players_known_solution() {
    // A-B 2:1, B-C 2:1, A-C 4:1 (5 games). Strengths 4 : 2 : 1 solve the likelihood equations:
    // A: W = 2 + 4 = 6 = 3 * 4/6 + 5 * 4/5 = 2 + 4. B: W = 1 + 2 = 3 = 3 * 2/6 + 3 * 2/3 = 1 + 2.
    let mut data = Vec::new();
    let mut q = 0;
    let mut add = |i: usize, j: usize, wi: usize, wj: usize| {
        for _ in 0..wi {
            q += 1;
            data.push(outcome(&format!("q{q}"), i, j, 1.0));
        }
        for _ in 0..wj {
            q += 1;
            data.push(outcome(&format!("q{q}"), i, j, 0.0));
        }
    };
    add(0, 1, 2, 1);
    add(1, 2, 2, 1);
    add(0, 2, 4, 1);
    let cfg = BtConfig { prior: 0.0, n_boot: 0, ..BtConfig::default() };
    let fit = bradley_terry::fit(3, &data, &cfg);
    assert_abs_diff_eq!(fit.bt[0] - fit.bt[1], 2f64.ln(), epsilon = 1e-7);
    assert_abs_diff_eq!(fit.bt[1] - fit.bt[2], 2f64.ln(), epsilon = 1e-7);
}

#[test]
fn bt_prior_keeps_never_winner_finite_and_ci_brackets() {
    let mut data = Vec::new();
    for k in 0..10 {
        data.push(outcome(&format!("q{k}"), 0, 1, if k < 7 { 1.0 } else { 0.0 }));
        data.push(outcome(&format!("q{k}"), 1, 2, 1.0)); // 2 never wins
        data.push(outcome(&format!("q{k}"), 0, 2, 1.0));
    }
    let fit = bradley_terry::fit(3, &data, &BtConfig { n_boot: 200, seed: 3, ..BtConfig::default() });
    assert!(fit.converged);
    assert!(fit.bt.iter().all(|b| b.is_finite()));
    assert!(fit.bt[0] > fit.bt[1] && fit.bt[1] > fit.bt[2]);
    for k in 0..3 {
        assert!(fit.ci_low[k] <= fit.bt[k] + 1e-9 && fit.bt[k] <= fit.ci_high[k] + 1e-9);
    }
    assert!(fit.ci_low[0] < fit.ci_high[0]);
    // Seeded: same CI on a rerun.
    let again = bradley_terry::fit(3, &data, &BtConfig { n_boot: 200, seed: 3, ..BtConfig::default() });
    assert_eq!(fit, again);
}

// ---------- tournament ----------

/// Eight systems in a scrambled input order; the true strength is the number in the name.
fn scripted_systems() -> Vec<String> {
    [5, 2, 7, 0, 3, 6, 1, 4].iter().map(|s| format!("sys{s}")).collect()
}

fn strength(name: &str) -> u32 {
    name.trim_start_matches("sys").parse().unwrap()
}

/// The stronger system wins every one of 5 questions; 2 judge calls per question (swap).
fn scripted(a: &str, b: &str) -> MatchResult {
    let s_a = if strength(a) > strength(b) { 1.0 } else { 0.0 };
    fixed(s_a)
}

/// The stronger system always wins, by a margin that grows with the strength gap:
/// `s_A = 0.5 + 0.05 (q_A - q_B)` on every question (gap 7 -> 0.85).
fn graded(a: &str, b: &str) -> MatchResult {
    fixed(0.5 + 0.05 * (strength(a) as f64 - strength(b) as f64))
}

fn fixed(s_a: f64) -> MatchResult {
    MatchResult {
        scores: (0..5).map(|q| QuestionScore { question: format!("q{q}"), s_a, s_b: 1.0 - s_a }).collect(),
        judge_calls: 10,
    }
}

fn check_recovers_order(
    format: Format,
    rank_by: RankBy,
    judge: fn(&str, &str) -> MatchResult,
) -> tournament::Leaderboard {
    let systems = scripted_systems();
    let cfg = TournamentConfig {
        format,
        rank_by,
        bt: BtConfig { n_boot: 100, ..BtConfig::default() },
        ..TournamentConfig::default()
    };
    let lb = tournament::run(&systems, &cfg, infallible(judge)).unwrap();
    let names: Vec<&str> = lb.systems.iter().map(|s| s.system.as_str()).collect();
    assert_eq!(names, ["sys7", "sys6", "sys5", "sys4", "sys3", "sys2", "sys1", "sys0"], "{format:?}");
    let total: f64 = lb.systems.iter().map(|s| s.elo).sum();
    assert_abs_diff_eq!(total, 8000.0, epsilon = 1e-6); // zero-sum updates
    for (k, s) in lb.systems.iter().enumerate() {
        assert_eq!(s.rank, k + 1);
        assert_eq!(s.wins + s.ties + s.losses, s.matches);
    }
    lb
}

#[test]
fn swiss_bt_ranking_recovers_strength_order() {
    // Hard 1/0 outcomes, 4 Swiss rounds. Round 1 in input order: 5-2, 7-0, 3-6, 1-4; the
    // transitive results chain every system to its neighbours, and BT orders all 8 exactly.
    let lb = check_recovers_order(Format::Swiss, RankBy::BradleyTerry, scripted);
    assert_eq!(lb.matches.len(), 16);
    assert_eq!(lb.judge_calls, 160);
    assert_eq!(lb.round_robin_calls, 280);
    assert!(lb.systems.iter().all(|s| s.matches == 4));
}

#[test]
fn round_robin_recovers_strength_order() {
    let lb = check_recovers_order(Format::RoundRobin, RankBy::Elo, scripted);
    assert_eq!(lb.matches.len(), 28);
    assert_eq!(lb.judge_calls, 280);
    assert_eq!(lb.round_robin_calls, 280);
    // Strongest won all 7, weakest lost all 7.
    assert_eq!((lb.systems[0].wins, lb.systems[7].losses), (7, 7));
    // BT follows the same order.
    assert!(lb.systems.windows(2).all(|w| w[0].bt > w[1].bt));
}

#[test]
fn leaderboard_serialises() {
    let lb = tournament::run(
        &scripted_systems()[..3],
        &TournamentConfig { bt: BtConfig { n_boot: 0, ..BtConfig::default() }, ..TournamentConfig::default() },
        infallible(scripted),
    )
    .unwrap();
    let json = serde_json::to_string(&lb).unwrap();
    let back: tournament::Leaderboard = serde_json::from_str(&json).unwrap();
    assert_eq!(back, lb);
    // Three systems: default 3 Swiss rounds, one match each, one bye each.
    assert_eq!(lb.matches.len(), 3);
}

#[test]
fn draws_count_as_ties() {
    let systems: Vec<String> = vec!["a".into(), "b".into()];
    let lb = tournament::run(
        &systems,
        &TournamentConfig { bt: BtConfig { n_boot: 0, ..BtConfig::default() }, ..TournamentConfig::default() },
        infallible(|_, _| MatchResult {
            scores: vec![QuestionScore { question: "q".into(), s_a: 0.5, s_b: 0.5 }],
            judge_calls: 1,
        }),
    )
    .unwrap();
    assert!(lb.systems.iter().all(|s| s.ties == 1 && s.elo == 1000.0));
}

#[test]
fn swiss_elo_ranking_is_exact_only_at_the_ends() {
    // Same hard judge, ranked by Elo: 4 rounds leave four systems at 2-2 whose Elo depends
    // on pairing order (sys4 ends at 1001.47 above sys5 at 1000.00), so only the 4-0, 3-1,
    // 1-3 and 0-4 places are exact. Elo still agrees with match records.
    let systems = scripted_systems();
    let cfg = TournamentConfig {
        bt: BtConfig { n_boot: 0, ..BtConfig::default() },
        rank_by: RankBy::Elo,
        ..TournamentConfig::default()
    };
    let lb = tournament::run(&systems, &cfg, infallible(scripted)).unwrap();
    let names: Vec<&str> = lb.systems.iter().map(|s| s.system.as_str()).collect();
    assert_eq!(&names[..2], ["sys7", "sys6"]);
    assert_eq!(&names[6..], ["sys1", "sys0"]);
    assert!(lb.systems.windows(2).all(|w| w[0].wins >= w[1].wins));
    assert_eq!(lb.matches.len(), 16);
}

#[test]
fn swiss_elo_with_graded_margins_keeps_the_top_and_bottom() {
    // Graded margins, Elo ranking: strongest first and weakest last.
    let cfg = TournamentConfig {
        bt: BtConfig { n_boot: 0, ..BtConfig::default() },
        rank_by: RankBy::Elo,
        ..TournamentConfig::default()
    };
    let lb = tournament::run(&scripted_systems(), &cfg, infallible(graded)).unwrap();
    assert_eq!(lb.systems[0].system, "sys7");
    assert_eq!(lb.systems[7].system, "sys0");
}

#[test]
fn default_swiss_ranking_recovers_the_scripted_order() {
    // The default ranking (Bradley-Terry over every per-question outcome) after the default
    // 4 Swiss rounds puts the 8 scripted systems in their exact strength order.
    let cfg = TournamentConfig { bt: BtConfig { n_boot: 0, ..BtConfig::default() }, ..TournamentConfig::default() };
    assert_eq!(cfg.rank_by, RankBy::BradleyTerry);
    let lb = tournament::run(&scripted_systems(), &cfg, infallible(scripted)).unwrap();
    let names: Vec<&str> = lb.systems.iter().map(|s| s.system.as_str()).collect();
    assert_eq!(names, ["sys7", "sys6", "sys5", "sys4", "sys3", "sys2", "sys1", "sys0"]);
    assert_eq!(lb.matches.len(), 16);
}

/// A match function that cannot fail, for the fallible tournament driver.
fn infallible(
    mut f: impl FnMut(&str, &str) -> MatchResult,
) -> impl FnMut(&str, &str) -> Result<MatchResult, Infallible> {
    move |a, b| Ok(f(a, b))
}

#[test]
fn a_failing_match_stops_the_tournament_with_its_error() {
    let systems: Vec<String> = (0..4).map(|i| format!("sys{i}")).collect();
    let mut calls = 0;
    let cfg = TournamentConfig { format: Format::RoundRobin, ..TournamentConfig::default() };
    let err = tournament::run(&systems, &cfg, |_, _| {
        calls += 1;
        if calls == 3 {
            Err("judge down")
        } else {
            Ok(MatchResult::default())
        }
    })
    .unwrap_err();
    assert_eq!(err, "judge down");
    assert_eq!(calls, 3);
}
