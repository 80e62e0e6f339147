//! Length-controlled Bradley-Terry: the length term of AlpacaEval's length-controlled win rates
//! (Dubois et al. 2024, "Length-Controlled AlpacaEval", §3) and of Chatbot Arena's style control,
//! in the Bradley-Terry model of a tournament:
//!
//! `P(i beats j) = sigmoid(theta_i - theta_j + gamma * tanh((len_i - len_j) / s))`
//!
//! with `s` the standard deviation of the length differences. `gamma > 0` means the judge
//! favours longer answers; `theta` is each system's strength with that preference taken out
//! (what it would be between answers of equal length). Fitted by Newton-Raphson on the
//! fractional-outcome likelihood (the judge's soft scores), `theta_0 = 0`, then centred.

use crate::bradley_terry::{sigmoid, solve_spd, PairOutcome};
use serde::{Deserialize, Serialize};

/// A length-controlled fit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LcFit {
    /// Length-controlled log-strengths, centred to mean 0.
    pub bt: Vec<f64>,
    /// The length coefficient (per unit of `tanh(diff / scale)`).
    pub gamma: f64,
    /// The scale `s` of the length differences.
    pub scale: f64,
    /// Newton iterations.
    pub iterations: usize,
    /// Whether the steps fell below the tolerance.
    pub converged: bool,
}

/// Fits the model to `outcomes` of `n` systems, `len_diff[k]` the length of `i`'s answer minus
/// `j`'s in outcome `k` (characters); `prior` is a ridge on every parameter (0: maximum
/// likelihood; a small value keeps the fit finite when a system wins or loses everything).
pub fn fit_length_controlled(n: usize, outcomes: &[PairOutcome], len_diff: &[f64], prior: f64) -> LcFit {
    assert_eq!(outcomes.len(), len_diff.len(), "one length difference per outcome");
    let m = len_diff.len().max(1) as f64;
    let mean = len_diff.iter().sum::<f64>() / m;
    let sd = (len_diff.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / m).sqrt();
    let scale = if sd > 0.0 { sd } else { 1.0 };
    let d: Vec<f64> = len_diff.iter().map(|x| (x / scale).tanh()).collect();
    // Without any length difference gamma is not identified: hold it at 0.
    let gamma_ridge = if d.iter().all(|x| *x == 0.0) { 1.0 } else { 0.0 };
    // Parameters: theta_1 .. theta_{n-1}, then gamma (theta_0 = 0).
    let k = n.saturating_sub(1) + 1;
    let mut beta = vec![0.0; k];
    let design = |o: &PairOutcome, dk: f64| -> Vec<(usize, f64)> {
        let mut x = Vec::with_capacity(3);
        if o.i > 0 {
            x.push((o.i - 1, 1.0));
        }
        if o.j > 0 {
            x.push((o.j - 1, -1.0));
        }
        x.push((k - 1, dk));
        x
    };
    let (mut iterations, mut converged) = (0, false);
    while iterations < 200 {
        iterations += 1;
        let mut g: Vec<f64> = beta.iter().map(|b| -prior * b).collect();
        let mut h = vec![vec![0.0; k]; k];
        for (row, v) in h.iter_mut().enumerate() {
            v[row] = prior;
        }
        h[k - 1][k - 1] += gamma_ridge;
        for (o, &dk) in outcomes.iter().zip(&d) {
            let x = design(o, dk);
            let eta: f64 = x.iter().map(|&(c, v)| beta[c] * v).sum();
            let p = sigmoid(eta);
            let total = o.s_i + o.s_j;
            let w = total * p * (1.0 - p);
            for &(a, va) in &x {
                g[a] += (o.s_i - total * p) * va;
                for &(b, vb) in &x {
                    h[a][b] += w * va * vb;
                }
            }
        }
        let Some(step) = solve_spd(h, g) else { break };
        let biggest = step.iter().fold(0.0f64, |acc, s| acc.max(s.abs()));
        for (b, s) in beta.iter_mut().zip(&step) {
            *b += s;
        }
        if biggest < 1e-12 {
            converged = true;
            break;
        }
    }
    let mut theta = vec![0.0; n];
    theta[1..].copy_from_slice(&beta[..n.saturating_sub(1)]);
    let centre = theta.iter().sum::<f64>() / n.max(1) as f64;
    LcFit { bt: theta.iter().map(|t| t - centre).collect(), gamma: beta[k - 1], scale, iterations, converged }
}

/// One system's standing with and without the length term.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LcStanding {
    /// The system.
    pub system: String,
    /// Bradley-Terry log-strength without the length term.
    pub bt: f64,
    /// Length-controlled log-strength.
    pub bt_lc: f64,
    /// Rank by `bt` (1 = best).
    pub rank: usize,
    /// Rank by `bt_lc`.
    pub rank_lc: usize,
    /// Mean length of its answers in the judged outcomes (characters).
    pub mean_length: f64,
}

/// The leaderboard beside its length-controlled version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LengthControl {
    /// The fit.
    pub fit: LcFit,
    /// Per system, in `systems` order.
    pub systems: Vec<LcStanding>,
    /// Systems whose rank changes once length is controlled.
    pub length_dependent: Vec<String>,
    /// Outcomes left out because an answer's length was unknown.
    pub skipped: usize,
}

impl LengthControl {
    /// The length-controlled leaderboard beside the raw one, and the systems whose rank depends
    /// on answer length, as the command line prints them.
    pub fn render(&self) -> String {
        let mut out = format!(
            "length control (Bradley-Terry refitted on the same outcomes, with and without a length term): gamma {:+.3} ({} longer answers)\n",
            self.fit.gamma,
            if self.fit.gamma > 0.0 { "the judge favours" } else { "the judge does not favour" }
        );
        for s in &self.systems {
            out += &format!(
                "  {:<16} refit {:>7.3} (rank {}) -> length taken out {:>7.3} (rank {}); mean length {:.0}\n",
                s.system, s.bt, s.rank, s.bt_lc, s.rank_lc, s.mean_length
            );
        }
        if self.length_dependent.is_empty() {
            out += "  no rank depends on answer length\n";
        } else {
            out += &format!("  WARNING: the rank of {} depends on answer length\n", self.length_dependent.join(", "));
        }
        out
    }
}

/// Competition ranks ("1224"): strengths within 1e-6 of each other share a rank, so that
/// rounding noise never reads as a change of rank.
fn ranks(values: &[f64]) -> Vec<usize> {
    values.iter().map(|v| 1 + values.iter().filter(|w| **w > v + 1e-6).count()).collect()
}

/// Refits `outcomes` of `systems` with and without the length term; `length(system, question)`
/// is the length of that system's answer. Both fits use the same outcomes and `prior`.
pub fn length_control(
    systems: &[String],
    outcomes: &[PairOutcome],
    length: impl Fn(usize, &str) -> Option<f64>,
    prior: f64,
) -> LengthControl {
    let n = systems.len();
    let (mut kept, mut diffs) = (Vec::new(), Vec::new());
    let (mut total, mut count) = (vec![0.0; n], vec![0usize; n]);
    for o in outcomes {
        if let (Some(li), Some(lj)) = (length(o.i, &o.question), length(o.j, &o.question)) {
            kept.push(o.clone());
            diffs.push(li - lj);
            total[o.i] += li;
            total[o.j] += lj;
            count[o.i] += 1;
            count[o.j] += 1;
        }
    }
    let skipped = outcomes.len() - kept.len();
    let fit = fit_length_controlled(n, &kept, &diffs, prior);
    // The same model with the length column at zero: plain Bradley-Terry on the same outcomes.
    let raw = fit_length_controlled(n, &kept, &vec![0.0; kept.len()], prior);
    let (rank, rank_lc) = (ranks(&raw.bt), ranks(&fit.bt));
    let standings: Vec<LcStanding> = (0..n)
        .map(|i| LcStanding {
            system: systems[i].clone(),
            bt: raw.bt[i],
            bt_lc: fit.bt[i],
            rank: rank[i],
            rank_lc: rank_lc[i],
            mean_length: if count[i] > 0 { total[i] / count[i] as f64 } else { 0.0 },
        })
        .collect();
    let length_dependent = standings.iter().filter(|s| s.rank != s.rank_lc).map(|s| s.system.clone()).collect();
    LengthControl { fit, systems: standings, length_dependent, skipped }
}
