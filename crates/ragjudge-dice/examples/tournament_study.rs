//! Simulation study: how well do Swiss (Elo / BT ranking) and round robin recover a known
//! order of systems, and at what judge cost?
//!
//! Systems have latent quality `q_i ~ N(0, 1)`. On each question the judge sees
//! `d = q_A - q_B + e`, `e ~ N(0, sigma^2)` (question and judge noise), and reports
//! `P(A) = 0.8 logistic(d)`, `P(B) = 0.8 (1 - logistic(d))`, `P(Tie) = 0.2`, scored by the
//! DICE rule (tau = 0.1). One judge call per question. Kendall tau-b is taken between the true
//! qualities and the final Elo and BT scores.
//!
//! Usage: `tournament_study [seeds] [questions] [sigma]` (defaults 200, 20, 1.0).

use ragjudge_dice::bradley_terry::BtConfig;
use ragjudge_dice::scoring::DiceScorer;
use ragjudge_dice::tournament::{self, Format, MatchResult, QuestionScore, TournamentConfig};
use ragjudge_stats::correlation::kendall_tau_b;
use rand::Rng;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn normal(rng: &mut ChaCha8Rng) -> f64 {
    // Box-Muller.
    let u1: f64 = rng.gen_range(f64::MIN_POSITIVE..1.0);
    let u2: f64 = rng.gen();
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

fn mean_sd(x: &[f64]) -> (f64, f64) {
    let m = x.iter().sum::<f64>() / x.len() as f64;
    let v = x.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (x.len() as f64 - 1.0).max(1.0);
    (m, v.sqrt())
}

struct Cell {
    tau_elo: Vec<f64>,
    tau_bt: Vec<f64>,
    exact_elo: usize,
    exact_bt: usize,
    calls: Vec<f64>,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let seeds: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(200);
    let questions: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(20);
    let sigma: f64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1.0);
    let scorer = DiceScorer::default();
    println!("seeds = {seeds}, questions per match = {questions}, judge noise sigma = {sigma}\n");
    println!("| N | format | matches | judge calls | tau-b Elo (mean ± sd) | exact order Elo | tau-b BT (mean ± sd) | exact order BT |");
    println!("|---|---|---|---|---|---|---|---|");
    for n in [8usize, 16, 32, 64] {
        for format in [Format::Swiss, Format::RoundRobin] {
            let mut cell = Cell { tau_elo: vec![], tau_bt: vec![], exact_elo: 0, exact_bt: 0, calls: vec![] };
            let mut matches = 0;
            for seed in 0..seeds {
                let mut rng = ChaCha8Rng::seed_from_u64(seed * 1000 + n as u64);
                let q: Vec<f64> = (0..n).map(|_| normal(&mut rng)).collect();
                let names: Vec<String> = (0..n).map(|i| format!("s{i}")).collect();
                let idx = |s: &str| s[1..].parse::<usize>().unwrap();
                let cfg = TournamentConfig {
                    format,
                    shuffle_seed: Some(seed),
                    bt: BtConfig { n_boot: 0, ..BtConfig::default() },
                    ..TournamentConfig::default()
                };
                let lb = tournament::run(&names, &cfg, |a, b| {
                    let d0 = q[idx(a)] - q[idx(b)];
                    let scores = (0..questions)
                        .map(|k| {
                            let w = 1.0 / (1.0 + (-(d0 + sigma * normal(&mut rng))).exp());
                            let s = scorer.score_probs(0.8 * w, 0.8 * (1.0 - w), 0.2).unwrap();
                            QuestionScore { question: format!("q{k}"), s_a: s.s_a, s_b: s.s_b }
                        })
                        .collect();
                    Ok::<_, std::convert::Infallible>(MatchResult { scores, judge_calls: questions })
                })
                .unwrap_or_else(|never| match never {});
                matches = lb.matches.len();
                let mut truth = vec![0.0; n];
                let mut elo = vec![0.0; n];
                let mut bt = vec![0.0; n];
                for s in &lb.systems {
                    let i = idx(&s.system);
                    truth[i] = q[i];
                    elo[i] = s.elo;
                    bt[i] = s.bt;
                }
                let te = kendall_tau_b(&truth, &elo).ok().and_then(|c| c.coefficient).unwrap_or(0.0);
                let tb = kendall_tau_b(&truth, &bt).ok().and_then(|c| c.coefficient).unwrap_or(0.0);
                cell.exact_elo += usize::from(te >= 1.0 - 1e-12);
                cell.exact_bt += usize::from(tb >= 1.0 - 1e-12);
                cell.tau_elo.push(te);
                cell.tau_bt.push(tb);
                cell.calls.push(lb.judge_calls as f64);
            }
            let (me, se) = mean_sd(&cell.tau_elo);
            let (mb, sb) = mean_sd(&cell.tau_bt);
            let (mc, _) = mean_sd(&cell.calls);
            println!(
                "| {n} | {format:?} | {matches} | {mc:.0} | {me:.3} ± {se:.3} | {:.1}% | {mb:.3} ± {sb:.3} | {:.1}% |",
                100.0 * cell.exact_elo as f64 / seeds as f64,
                100.0 * cell.exact_bt as f64 / seeds as f64
            );
        }
    }
}
