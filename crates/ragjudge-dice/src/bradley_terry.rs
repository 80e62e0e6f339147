//! Bradley-Terry strengths from per-question pairwise outcomes, fitted by maximum likelihood
//! (Newton-Raphson with a small prior; the MM algorithm of Hunter 2004, "MM algorithms for
//! generalized Bradley-Terry models", eq. 3, without one), with a question-level bootstrap CI.
//!
//! Model: `P(i beats j) = p_i / (p_i + p_j)`. Each question of a match is one comparison in
//! which `i` earns `s_i` wins and `j` earns `s_j = 1 - s_i` (fractional wins allowed).
//! Strengths are reported on the log scale, centred to mean 0 (`bt`).

use std::collections::HashMap;

use ragjudge_stats::quantile_sorted;
use rand::Rng;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// One per-question pairwise outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairOutcome {
    /// Question id (bootstrap resamples these).
    pub question: String,
    /// First system.
    pub i: usize,
    /// Second system.
    pub j: usize,
    /// Wins credited to `i`.
    pub s_i: f64,
    /// Wins credited to `j`.
    pub s_j: f64,
}

/// Bradley-Terry fitting options.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BtConfig {
    /// Prior: every system gets `prior` wins and `prior` losses against a fixed reference
    /// player of strength 1. This ridge keeps the MLE finite when a system never wins (or
    /// never loses) and anchors the scale; 0 disables it (then strengths may diverge).
    /// Default 0.01.
    pub prior: f64,
    /// Maximum Newton / MM iterations (default 10 000).
    pub max_iter: usize,
    /// Stop when no log-strength moves by more than this (default 1e-10).
    pub tol: f64,
    /// Bootstrap resamples of question ids (default 1000; 0 = no CI).
    pub n_boot: usize,
    /// Bootstrap seed (ChaCha8).
    pub seed: u64,
    /// CI level (default 0.95).
    pub level: f64,
}

impl Default for BtConfig {
    fn default() -> Self {
        Self { prior: 0.01, max_iter: 10_000, tol: 1e-10, n_boot: 1000, seed: 0, level: 0.95 }
    }
}

/// A fitted Bradley-Terry model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BtFit {
    /// Log-strengths, centred to mean 0.
    pub bt: Vec<f64>,
    /// Lower percentile-bootstrap bounds (`NaN`-free; equal to `bt` when `n_boot = 0`).
    pub ci_low: Vec<f64>,
    /// Upper bounds.
    pub ci_high: Vec<f64>,
    /// MM iterations of the point fit.
    pub iterations: usize,
    /// Whether the point fit met `tol`.
    pub converged: bool,
}

/// Aggregated sufficient statistics: total wins per system and comparisons per pair.
fn aggregate<'a>(n: usize, outcomes: impl Iterator<Item = &'a PairOutcome>) -> (Vec<f64>, Vec<(usize, usize, f64)>) {
    let mut wins = vec![0.0; n];
    let mut counts: HashMap<(usize, usize), f64> = HashMap::new();
    for o in outcomes {
        wins[o.i] += o.s_i;
        wins[o.j] += o.s_j;
        *counts.entry((o.i.min(o.j), o.i.max(o.j))).or_insert(0.0) += o.s_i + o.s_j;
    }
    let mut pairs: Vec<(usize, usize, f64)> = counts.into_iter().map(|((a, b), c)| (a, b, c)).collect();
    pairs.sort_by_key(|&(a, b, _)| (a, b));
    (wins, pairs)
}

/// Fits centred log-strengths: Newton's method when `prior > 0` (the prior makes the
/// log-likelihood strictly concave), the MM algorithm otherwise.
fn solve(n: usize, wins: &[f64], pairs: &[(usize, usize, f64)], cfg: &BtConfig) -> (Vec<f64>, usize, bool) {
    if cfg.prior > 0.0 {
        newton(n, wins, pairs, cfg)
    } else {
        mm(n, wins, pairs, cfg)
    }
}

pub(crate) fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Penalised log-likelihood in log-strengths `t` (reference player at `t = 0`).
fn loglik(t: &[f64], wins: &[f64], pairs: &[(usize, usize, f64)], a: f64) -> f64 {
    // sum_i (W_i + a) t_i - sum_ij n_ij ln(e^t_i + e^t_j) - 2a sum_i ln(1 + e^t_i)
    let ln_sum = |x: f64, y: f64| x.max(y) + (-(x - y).abs()).exp().ln_1p();
    let mut l: f64 = t.iter().zip(wins).map(|(ti, w)| (w + a) * ti - 2.0 * a * ln_sum(*ti, 0.0)).sum();
    for &(i, j, c) in pairs {
        l -= c * ln_sum(t[i], t[j]);
    }
    l
}

/// Newton-Raphson with step halving on the penalised log-likelihood; the Hessian is negative
/// definite thanks to the prior, so each step solves a dense N x N system (N is small).
fn newton(n: usize, wins: &[f64], pairs: &[(usize, usize, f64)], cfg: &BtConfig) -> (Vec<f64>, usize, bool) {
    let a = cfg.prior;
    let mut t = vec![0.0; n];
    let mut cur = loglik(&t, wins, pairs, a);
    let mut iterations = 0;
    let mut converged = false;
    while iterations < cfg.max_iter {
        iterations += 1;
        // Gradient g and negative Hessian h.
        let mut g: Vec<f64> = (0..n).map(|i| wins[i] + a - 2.0 * a * sigmoid(t[i])).collect();
        let mut h = vec![vec![0.0; n]; n];
        for i in 0..n {
            let s = sigmoid(t[i]);
            h[i][i] = 2.0 * a * s * (1.0 - s);
        }
        for &(i, j, c) in pairs {
            let s = sigmoid(t[i] - t[j]);
            g[i] -= c * s;
            g[j] -= c * (1.0 - s);
            let v = c * s * (1.0 - s);
            h[i][i] += v;
            h[j][j] += v;
            h[i][j] -= v;
            h[j][i] -= v;
        }
        let Some(step) = solve_spd(h, g) else { break };
        let mut scale = 1.0;
        let mut moved = false;
        for _ in 0..60 {
            let cand: Vec<f64> = t.iter().zip(&step).map(|(x, d)| x + scale * d).collect();
            let l = loglik(&cand, wins, pairs, a);
            if l >= cur - 1e-12 * cur.abs().max(1.0) {
                t = cand;
                cur = l;
                moved = true;
                break;
            }
            scale *= 0.5;
        }
        let change = step.iter().fold(0.0f64, |m, d| m.max((scale * d).abs()));
        if !moved || change < cfg.tol {
            converged = moved || change < cfg.tol;
            break;
        }
    }
    let mean = t.iter().sum::<f64>() / n.max(1) as f64;
    (t.into_iter().map(|x| x - mean).collect(), iterations, converged)
}

/// Solves `h x = g` (`h` symmetric positive definite; `None` when singular).
pub(crate) fn solve_spd(h: Vec<Vec<f64>>, g: Vec<f64>) -> Option<Vec<f64>> {
    ragjudge_stats::logistic::solve(h, g)
}

/// MM iterations (Hunter 2004): `p_i <- W_i / sum_j n_ij / (p_i + p_j)`, rescaled to
/// geometric mean 1 each step. Returns centred log-strengths.
fn mm(n: usize, wins: &[f64], pairs: &[(usize, usize, f64)], cfg: &BtConfig) -> (Vec<f64>, usize, bool) {
    let mut p = vec![1.0; n];
    let mut iterations = 0;
    let mut converged = false;
    let mut denom = vec![0.0; n];
    while iterations < cfg.max_iter {
        iterations += 1;
        denom.iter_mut().for_each(|d| *d = 0.0);
        for &(i, j, c) in pairs {
            let t = c / (p[i] + p[j]);
            denom[i] += t;
            denom[j] += t;
        }
        let mut new: Vec<f64> =
            (0..n).map(|i| if denom[i] > 0.0 { (wins[i] / denom[i]).max(f64::MIN_POSITIVE) } else { p[i] }).collect();
        let g = new.iter().map(|x| x.ln()).sum::<f64>() / n as f64;
        new.iter_mut().for_each(|x| *x /= g.exp());
        let change = new.iter().zip(&p).map(|(x, y)| (x.ln() - y.ln()).abs()).fold(0.0, f64::max);
        p = new;
        if change < cfg.tol {
            converged = true;
            break;
        }
    }
    let logs: Vec<f64> = p.iter().map(|x| x.ln()).collect();
    let mean = logs.iter().sum::<f64>() / n.max(1) as f64;
    (logs.into_iter().map(|l| l - mean).collect(), iterations, converged)
}

/// Fits Bradley-Terry for `n` systems; the CI resamples question ids with replacement, each
/// drawn id bringing all its outcomes (every match that shared that question).
pub fn fit(n: usize, outcomes: &[PairOutcome], cfg: &BtConfig) -> BtFit {
    let (wins, pairs) = aggregate(n, outcomes.iter());
    let (bt, iterations, converged) = solve(n, &wins, &pairs, cfg);
    if cfg.n_boot == 0 || outcomes.is_empty() {
        return BtFit { ci_low: bt.clone(), ci_high: bt.clone(), bt, iterations, converged };
    }
    let mut by_q: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut ids: Vec<&str> = Vec::new();
    for (k, o) in outcomes.iter().enumerate() {
        by_q.entry(o.question.as_str())
            .or_insert_with(|| {
                ids.push(o.question.as_str());
                Vec::new()
            })
            .push(k);
    }
    let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
    let mut samples: Vec<Vec<f64>> = vec![Vec::with_capacity(cfg.n_boot); n];
    for _ in 0..cfg.n_boot {
        let drawn = (0..ids.len()).flat_map(|_| by_q[ids[rng.gen_range(0..ids.len())]].iter().map(|&k| &outcomes[k]));
        let (w, pr) = aggregate(n, drawn);
        let (b, _, _) = solve(n, &w, &pr, cfg);
        for (s, v) in samples.iter_mut().zip(b) {
            s.push(v);
        }
    }
    let alpha = (1.0 - cfg.level) / 2.0;
    let (mut ci_low, mut ci_high) = (Vec::with_capacity(n), Vec::with_capacity(n));
    // Percentile bounds by numpy's linear interpolation; the estimate where a bound is undefined.
    for (s, &estimate) in samples.iter_mut().zip(&bt) {
        s.sort_by(f64::total_cmp);
        ci_low.push(quantile_sorted(s, alpha).unwrap_or(estimate));
        ci_high.push(quantile_sorted(s, 1.0 - alpha).unwrap_or(estimate));
    }
    BtFit { bt, ci_low, ci_high, iterations, converged }
}
