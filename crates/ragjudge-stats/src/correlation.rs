//! Pearson, Spearman and Kendall tau-b correlations with two-sided p-values and CIs.
//!
//! Coefficients and p-values follow scipy 1.x defaults (`scipy.stats.pearsonr`,
//! `spearmanr`, `kendalltau`); the reference tests compare against scipy 1.17.
//!
//! A coefficient is `None` when it is undefined: fewer than 3 pairs (scipy returns
//! ±1 with p = 1 for two pairs, which says nothing) or a constant input. Inputs with
//! different lengths or non-finite values are errors.

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, Normal, StudentsT};
use statrs::function::beta::beta_reg;
use statrs::function::gamma::gamma_ur;

use crate::bootstrap::bootstrap_ci_paired;
use crate::error::{check_level, check_pair, StatsError};
use crate::rank::{cmp_f64, rankdata_average};

/// Default confidence level for correlation CIs.
pub const DEFAULT_LEVEL: f64 = 0.95;

/// How a correlation's confidence interval was computed.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum CiMethod {
    /// Fisher z-transform with standard error `sqrt(1 / (n - 3))` (Pearson; as scipy's
    /// `pearsonr(...).confidence_interval()`).
    FisherZ,
    /// Fisher z-transform with the Fieller, Hartley & Pearson (1957) standard error:
    /// `sqrt(1.06 / (n - 3))` for Spearman, `sqrt(0.437 / (n - 4))` for Kendall.
    FisherZFieller,
    /// Paired percentile bootstrap.
    Bootstrap {
        /// Number of resamples.
        n_resamples: usize,
        /// Generator seed.
        seed: u64,
    },
}

/// Which correlation coefficient to compute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CorrelationKind {
    /// Pearson's product-moment r.
    Pearson,
    /// Spearman's rho: Pearson's r on average ranks.
    Spearman,
    /// Kendall's tau-b.
    KendallTauB,
}

impl CorrelationKind {
    /// Computes this correlation with an analytical CI at `level`.
    pub fn compute(self, x: &[f64], y: &[f64], level: f64) -> Result<Correlation, StatsError> {
        match self {
            Self::Pearson => pearson_with_level(x, y, level),
            Self::Spearman => spearman_with_level(x, y, level),
            Self::KendallTauB => kendall_tau_b_with_level(x, y, level),
        }
    }

    /// The coefficient alone, `None` where undefined (no p-value or CI work).
    pub fn coefficient(self, x: &[f64], y: &[f64]) -> Option<f64> {
        if x.len() != y.len() || x.len() < 3 {
            return None;
        }
        match self {
            Self::Pearson => pearson_r(x, y),
            Self::Spearman => pearson_r(&rankdata_average(x), &rankdata_average(y)),
            Self::KendallTauB => kendall_counts(x, y).tau(),
        }
    }
}

/// A correlation coefficient with its two-sided p-value and confidence interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Correlation {
    /// The coefficient in `[-1, 1]`; `None` when undefined.
    pub coefficient: Option<f64>,
    /// Two-sided p-value for the null hypothesis of no association.
    pub p_value: Option<f64>,
    /// Number of pairs.
    pub n: usize,
    /// Lower confidence bound; `None` when the coefficient is undefined or n is too
    /// small for the interval (n <= 3; n <= 4 for Kendall).
    pub ci_low: Option<f64>,
    /// Upper confidence bound.
    pub ci_high: Option<f64>,
    /// Confidence level of the interval.
    pub level: f64,
    /// How the interval was computed.
    pub ci_method: CiMethod,
}

impl Correlation {
    fn undefined(n: usize, level: f64, ci_method: CiMethod) -> Self {
        Self { coefficient: None, p_value: None, n, ci_low: None, ci_high: None, level, ci_method }
    }

    /// A defined coefficient with its p-value (capped at 1) and interval.
    fn defined(coef: f64, p: f64, n: usize, ci: Option<(f64, f64)>, level: f64, ci_method: CiMethod) -> Self {
        Self {
            coefficient: Some(coef),
            p_value: Some(p.min(1.0)),
            n,
            ci_low: ci.map(|c| c.0),
            ci_high: ci.map(|c| c.1),
            level,
            ci_method,
        }
    }
}

/// Fisher z interval `tanh(atanh(r) ± z_{(1+level)/2} * se)`; `None` when se is not
/// finite. For `|r| = 1` both bounds equal r.
fn fisher_ci(r: f64, se: f64, level: f64) -> Option<(f64, f64)> {
    if !se.is_finite() {
        return None;
    }
    let h = Normal::standard().inverse_cdf(0.5 + level / 2.0);
    let z = r.atanh();
    Some(((z - h * se).tanh(), (z + h * se).tanh()))
}

/// Two-sided standard normal p-value `2 (1 - Phi(|z|)) = erfc(|z| / sqrt 2)`, computed as
/// the regularised upper incomplete gamma `Q(1/2, z^2 / 2)`.
///
/// statrs' `erfc` (and so `Normal::sf`) is only accurate to about 1e-10 relative, while
/// its `gamma_ur` agrees with scipy's `ndtr` to about 1e-14.
pub(crate) fn normal_two_sided_p(z: f64) -> f64 {
    if z == 0.0 {
        1.0
    } else {
        gamma_ur(0.5, z * z / 2.0)
    }
}

/// Pearson's r as scipy computes it: centred vectors scaled by their largest absolute
/// value (against overflow), normalised, then dotted; clipped to `[-1, 1]`.
fn pearson_r(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len() as f64;
    if x.iter().all(|&v| v == x[0]) || y.iter().all(|&v| v == y[0]) {
        return None;
    }
    let mx = x.iter().sum::<f64>() / n;
    let my = y.iter().sum::<f64>() / n;
    let scale = |v: &[f64], m: f64| {
        let max = v.iter().fold(0.0f64, |a, &b| a.max((b - m).abs()));
        let norm = max * v.iter().map(|&b| ((b - m) / max).powi(2)).sum::<f64>().sqrt();
        (max, norm)
    };
    let (_, nx) = scale(x, mx);
    let (_, ny) = scale(y, my);
    let r: f64 = x.iter().zip(y).map(|(&a, &b)| ((a - mx) / nx) * ((b - my) / ny)).sum();
    r.is_finite().then(|| r.clamp(-1.0, 1.0))
}

/// Pearson's r with a 95% Fisher z interval. See [`pearson_with_level`].
pub fn pearson(x: &[f64], y: &[f64]) -> Result<Correlation, StatsError> {
    pearson_with_level(x, y, DEFAULT_LEVEL)
}

/// Pearson's r, its exact two-sided p-value, and a Fisher z CI at `level`.
///
/// Under the null of independent normal data, r follows a Beta(n/2 - 1, n/2 - 1)
/// distribution on `[-1, 1]`, so `p = 2 I_{(1 - |r|) / 2}(n/2 - 1, n/2 - 1)` (the same as
/// the t test with n - 2 degrees of freedom; scipy `pearsonr`). The CI is
/// `tanh(atanh(r) ± z_{(1+level)/2} / sqrt(n - 3))`, as scipy's `confidence_interval()`.
pub fn pearson_with_level(x: &[f64], y: &[f64], level: f64) -> Result<Correlation, StatsError> {
    check_level(level)?;
    check_pair(x, y)?;
    let n = x.len();
    if n < 3 {
        return Ok(Correlation::undefined(n, level, CiMethod::FisherZ));
    }
    let Some(r) = pearson_r(x, y) else {
        return Ok(Correlation::undefined(n, level, CiMethod::FisherZ));
    };
    let a = n as f64 / 2.0 - 1.0;
    let p = 2.0 * beta_reg(a, a, ((1.0 - r.abs()) / 2.0).max(0.0));
    let ci = (n > 3).then(|| fisher_ci(r, (1.0 / (n as f64 - 3.0)).sqrt(), level)).flatten();
    Ok(Correlation::defined(r, p, n, ci, level, CiMethod::FisherZ))
}

/// Spearman's rho with a 95% CI. See [`spearman_with_level`].
pub fn spearman(x: &[f64], y: &[f64]) -> Result<Correlation, StatsError> {
    spearman_with_level(x, y, DEFAULT_LEVEL)
}

/// Spearman's rho (Pearson's r on average ranks), its two-sided p-value and a CI.
///
/// The p-value uses `t = rho sqrt((n - 2) / ((1 + rho)(1 - rho)))` against Student's t
/// with n - 2 degrees of freedom (scipy `spearmanr`). The CI is Fisher z with standard
/// error `sqrt(1.06 / (n - 3))` (Fieller, Hartley & Pearson 1957, Biometrika 44:470).
pub fn spearman_with_level(x: &[f64], y: &[f64], level: f64) -> Result<Correlation, StatsError> {
    check_level(level)?;
    check_pair(x, y)?;
    let n = x.len();
    let method = CiMethod::FisherZFieller;
    if n < 3 {
        return Ok(Correlation::undefined(n, level, method));
    }
    let Some(rho) = pearson_r(&rankdata_average(x), &rankdata_average(y)) else {
        return Ok(Correlation::undefined(n, level, method));
    };
    let dof = n as f64 - 2.0;
    let denom = (1.0 + rho) * (1.0 - rho);
    let p = if denom <= 0.0 {
        0.0
    } else {
        let t = rho * (dof / denom).sqrt();
        let dist = StudentsT::new(0.0, 1.0, dof).map_err(|_| StatsError::Undefined)?;
        2.0 * dist.sf(t.abs())
    };
    let ci = (n > 3).then(|| fisher_ci(rho, (1.06 / (n as f64 - 3.0)).sqrt(), level)).flatten();
    Ok(Correlation::defined(rho, p, n, ci, level, method))
}

/// Pair counts from Knight's (1966) O(n log n) algorithm.
#[derive(Debug, Clone, Copy)]
struct KendallCounts {
    n: u64,
    /// Discordant pairs.
    dis: u64,
    /// Pairs tied in x, in y, and in both.
    xtie: u64,
    ytie: u64,
    ntie: u64,
    /// Tie-group sums `t(t-1)(t-2)` and `t(t-1)(2t+5)` for x and y (variance terms).
    x0: f64,
    x1: f64,
    y0: f64,
    y1: f64,
}

impl KendallCounts {
    fn total(&self) -> u64 {
        self.n * (self.n - 1) / 2
    }

    /// Concordant minus discordant: `tot - xtie - ytie + ntie - 2 dis`.
    fn con_minus_dis(&self) -> f64 {
        (self.total() as i128 - self.xtie as i128 - self.ytie as i128 + self.ntie as i128 - 2 * self.dis as i128) as f64
    }

    /// Tau-b `(C - D) / sqrt((tot - xtie)(tot - ytie))`; `None` if either side is constant.
    fn tau(&self) -> Option<f64> {
        let tot = self.total();
        if self.n < 2 || self.xtie == tot || self.ytie == tot {
            return None;
        }
        let t = self.con_minus_dis() / ((tot - self.xtie) as f64).sqrt() / ((tot - self.ytie) as f64).sqrt();
        Some(t.clamp(-1.0, 1.0))
    }
}

/// Adds the tie statistics of one run of `t` equal values.
fn add_tie_group(t: u64, pairs: &mut u64, s0: &mut f64, s1: &mut f64) {
    if t > 1 {
        *pairs += t * (t - 1) / 2;
        let tf = t as f64;
        *s0 += tf * (tf - 1.0) * (tf - 2.0);
        *s1 += tf * (tf - 1.0) * (2.0 * tf + 5.0);
    }
}

/// Sorts `v` ascending and returns the number of strict inversions (i < j, v[i] > v[j]).
fn merge_sort_inversions(v: &mut [f64], buf: &mut [f64]) -> u64 {
    let n = v.len();
    if n < 2 {
        return 0;
    }
    let mid = n / 2;
    let mut inv = {
        let (left, right) = v.split_at_mut(mid);
        merge_sort_inversions(left, &mut buf[..mid]) + merge_sort_inversions(right, &mut buf[mid..])
    };
    let (mut i, mut j, mut k) = (0, mid, 0);
    while i < mid && j < n {
        if v[j] < v[i] {
            // v[j] is smaller than every remaining left element.
            inv += (mid - i) as u64;
            buf[k] = v[j];
            j += 1;
        } else {
            buf[k] = v[i];
            i += 1;
        }
        k += 1;
    }
    buf[k..k + mid - i].copy_from_slice(&v[i..mid]);
    k += mid - i;
    buf[k..k + n - j].copy_from_slice(&v[j..n]);
    v.copy_from_slice(&buf[..n]);
    inv
}

/// Knight's algorithm: sort by (x, y), count x and joint ties, then count discordant
/// pairs as the inversions of y in that order with a merge sort, which also sorts y for
/// counting y ties. O(n log n).
fn kendall_counts(x: &[f64], y: &[f64]) -> KendallCounts {
    let n = x.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| cmp_f64(x[a], x[b]).then(cmp_f64(y[a], y[b])));
    let mut c = KendallCounts { n: n as u64, dis: 0, xtie: 0, ytie: 0, ntie: 0, x0: 0.0, x1: 0.0, y0: 0.0, y1: 0.0 };
    let (mut xrun, mut jrun) = (1u64, 1u64);
    let (mut jt, mut d0, mut d1) = (0u64, 0.0, 0.0);
    for w in order.windows(2) {
        let (a, b) = (w[0], w[1]);
        if x[a] == x[b] {
            xrun += 1;
            if y[a] == y[b] {
                jrun += 1;
            } else {
                add_tie_group(jrun, &mut jt, &mut d0, &mut d1);
                jrun = 1;
            }
        } else {
            add_tie_group(xrun, &mut c.xtie, &mut c.x0, &mut c.x1);
            add_tie_group(jrun, &mut jt, &mut d0, &mut d1);
            xrun = 1;
            jrun = 1;
        }
    }
    if n > 0 {
        add_tie_group(xrun, &mut c.xtie, &mut c.x0, &mut c.x1);
        add_tie_group(jrun, &mut jt, &mut d0, &mut d1);
    }
    c.ntie = jt;
    let mut ys: Vec<f64> = order.iter().map(|&i| y[i]).collect();
    let mut buf = vec![0.0; n];
    c.dis = merge_sort_inversions(&mut ys, &mut buf);
    let mut yrun = 1u64;
    for w in ys.windows(2) {
        if w[0] == w[1] {
            yrun += 1;
        } else {
            add_tie_group(yrun, &mut c.ytie, &mut c.y0, &mut c.y1);
            yrun = 1;
        }
    }
    if n > 0 {
        add_tie_group(yrun, &mut c.ytie, &mut c.y0, &mut c.y1);
    }
    c
}

/// Exact two-sided p-value of Kendall's tau without ties, from the distribution of the
/// number of concordant pairs `c` over all n! permutations (Kendall 1970, ch. 4), as in
/// scipy's `_kendall_p_exact`.
///
/// Counts of permutations with k inversions follow the recurrence
/// `N(n, k) = sum_{i=0}^{min(k, n-1)} N(n-1, k-i)`, computed by cumulative sums.
fn kendall_p_exact(n: u64, c: u64) -> f64 {
    let tot = n * (n - 1) / 2;
    let c = c.min(tot - c);
    let factorial = |m: u64| (1..=m).fold(1.0f64, |a, k| a * k as f64);
    let prob = if n <= 2 {
        1.0
    } else if c == 0 {
        if n < 171 {
            2.0 / factorial(n)
        } else {
            0.0
        }
    } else if c == 1 {
        if n < 172 {
            2.0 / factorial(n - 1)
        } else {
            0.0
        }
    } else if 4 * c == n * (n - 1) {
        1.0
    } else {
        let c = c as usize;
        let mut counts = vec![0.0f64; c + 1];
        counts[0] = 1.0;
        counts[1] = 1.0;
        let scaled = n >= 171;
        for j in 3..=n as usize {
            let mut acc = 0.0;
            for v in counts.iter_mut() {
                acc += *v;
                *v = if scaled { acc / j as f64 } else { acc };
            }
            if j <= c {
                for k in (j..=c).rev() {
                    counts[k] -= counts[k - j];
                }
            }
        }
        let s: f64 = counts.iter().sum();
        if scaled {
            s
        } else {
            2.0 * s / factorial(n)
        }
    };
    prob.clamp(0.0, 1.0)
}

/// Whether scipy's `method="auto"` picks the exact Kendall p-value: no ties and
/// `n <= 33` or `min(dis, tot - dis) <= 1`.
fn kendall_uses_exact(c: &KendallCounts) -> bool {
    c.xtie == 0 && c.ytie == 0 && (c.n <= 33 || c.dis.min(c.total() - c.dis) <= 1)
}

/// Kendall's tau-b with a 95% CI. See [`kendall_tau_b_with_level`].
pub fn kendall_tau_b(x: &[f64], y: &[f64]) -> Result<Correlation, StatsError> {
    kendall_tau_b_with_level(x, y, DEFAULT_LEVEL)
}

/// Kendall's tau-b (Kendall 1945), its two-sided p-value and a CI; O(n log n).
///
/// p-value as scipy `kendalltau(method="auto")`: without ties and with n <= 33 (or at
/// most one discordant or concordant pair) the exact permutation distribution;
/// otherwise the normal approximation of C - D with the tie-corrected variance
/// `(n(n-1)(2n+5) - sum_x t(t-1)(2t+5) - sum_y u(u-1)(2u+5)) / 18
///  + 2 T_x T_y / (n(n-1)) + sum_x t(t-1)(t-2) sum_y u(u-1)(u-2) / (9 n(n-1)(n-2))`
/// (Kendall 1970, eq. 4.3; T_x, T_y the tied pair counts). The CI is Fisher z with
/// standard error `sqrt(0.437 / (n - 4))` (Fieller, Hartley & Pearson 1957).
pub fn kendall_tau_b_with_level(x: &[f64], y: &[f64], level: f64) -> Result<Correlation, StatsError> {
    check_level(level)?;
    check_pair(x, y)?;
    let n = x.len();
    let method = CiMethod::FisherZFieller;
    if n < 3 {
        return Ok(Correlation::undefined(n, level, method));
    }
    let counts = kendall_counts(x, y);
    let Some(tau) = counts.tau() else {
        return Ok(Correlation::undefined(n, level, method));
    };
    let p = if kendall_uses_exact(&counts) {
        kendall_p_exact(counts.n, counts.total() - counts.dis)
    } else {
        let nf = n as f64;
        let m = nf * (nf - 1.0);
        let var = (m * (2.0 * nf + 5.0) - counts.x1 - counts.y1) / 18.0
            + 2.0 * counts.xtie as f64 * counts.ytie as f64 / m
            + counts.x0 * counts.y0 / (9.0 * m * (nf - 2.0));
        let z = counts.con_minus_dis() / var.sqrt();
        normal_two_sided_p(z)
    };
    let ci = (n > 4).then(|| fisher_ci(tau, (0.437 / (n as f64 - 4.0)).sqrt(), level)).flatten();
    Ok(Correlation::defined(tau, p, n, ci, level, method))
}

/// A correlation whose CI is a paired percentile bootstrap instead of Fisher z.
///
/// Coefficient and p-value are those of [`CorrelationKind::compute`]; the interval comes
/// from [`bootstrap_ci_paired`] with `n_resamples` resamples seeded by `seed`.
/// Resamples on which the coefficient is undefined (constant) are skipped; if every one
/// is, the bounds are `None`.
pub fn bootstrap_correlation_ci(
    kind: CorrelationKind,
    x: &[f64],
    y: &[f64],
    n_resamples: usize,
    level: f64,
    seed: u64,
) -> Result<Correlation, StatsError> {
    let mut out = kind.compute(x, y, level)?;
    out.ci_method = CiMethod::Bootstrap { n_resamples, seed };
    out.ci_low = None;
    out.ci_high = None;
    if out.coefficient.is_none() {
        return Ok(out);
    }
    let stat = |a: &[f64], b: &[f64]| kind.coefficient(a, b).unwrap_or(f64::NAN);
    match bootstrap_ci_paired(x, y, stat, n_resamples, level, seed) {
        Ok(ci) => {
            out.ci_low = Some(ci.low);
            out.ci_high = Some(ci.high);
            Ok(out)
        }
        Err(StatsError::Undefined) => Ok(out),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_abs_diff_eq;

    #[test]
    fn kendall_by_hand() {
        // x = 1..4, y = [1, 3, 2, 4]: 5 concordant, 1 discordant -> tau = 4/6.
        let r = kendall_tau_b(&[1.0, 2.0, 3.0, 4.0], &[1.0, 3.0, 2.0, 4.0]).unwrap();
        assert_abs_diff_eq!(r.coefficient.unwrap(), 4.0 / 6.0, epsilon = 1e-15);
        // Exact: permutations of 4 with <= 1 inversion: 1 + 3 = 4 of 24, two-sided 8/24.
        assert_abs_diff_eq!(r.p_value.unwrap(), 8.0 / 24.0, epsilon = 1e-15);
        assert!(r.ci_low.is_none(), "n = 4 is too small for the Kendall CI");
    }

    #[test]
    fn exact_distribution_sums_to_one() {
        // For n = 6 the two-sided p at the centre (4c = n(n-1) is impossible: 30/4)
        // c = 7 -> p = 2 * P(C <= 7) > 1 is clipped to 1.
        assert_eq!(kendall_p_exact(6, 7), 1.0);
        // n = 3: inversions 0,1,1,2,2,3 -> P(C <= 0) = 1/6, two-sided 1/3.
        assert_abs_diff_eq!(kendall_p_exact(3, 0), 1.0 / 3.0, epsilon = 1e-15);
        assert_abs_diff_eq!(kendall_p_exact(3, 1), 1.0, epsilon = 1e-15);
    }

    #[test]
    fn signed_zeros_are_ties() {
        // -0.0 == 0.0: one x tie; by hand C = 2, D = 0 of 3 pairs, tau-b = 2 / sqrt(2 * 3).
        let r = kendall_tau_b(&[-0.0, 0.0, 1.0], &[1.0, 2.0, 3.0]).unwrap();
        assert_abs_diff_eq!(r.coefficient.unwrap(), 2.0 / 6.0f64.sqrt(), epsilon = 1e-15);
        let r = kendall_tau_b(&[0.0, -0.0, 1.0], &[1.0, 2.0, 3.0]).unwrap();
        assert_abs_diff_eq!(r.coefficient.unwrap(), 2.0 / 6.0f64.sqrt(), epsilon = 1e-15);
    }

    #[test]
    fn normal_p_value() {
        // scipy.special.ndtr(-1.959963984540054) * 2 = 0.05; ndtr(-3) * 2 = 0.0026997960632601866.
        assert_abs_diff_eq!(normal_two_sided_p(1.959963984540054), 0.05, epsilon = 1e-15);
        assert_abs_diff_eq!(normal_two_sided_p(-3.0), 0.0026997960632601866, epsilon = 1e-17);
        assert_eq!(normal_two_sided_p(0.0), 1.0);
    }

    #[test]
    fn inversions_match_quadratic_count() {
        let v: Vec<f64> = (0..200).map(|i| ((i * 7919) % 53) as f64).collect();
        let brute =
            (0..v.len()).flat_map(|i| (i + 1..v.len()).map(move |j| (i, j))).filter(|&(i, j)| v[i] > v[j]).count()
                as u64;
        let mut s = v.clone();
        let mut buf = vec![0.0; s.len()];
        assert_eq!(merge_sort_inversions(&mut s, &mut buf), brute);
        assert!(s.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn undefined_and_errors() {
        let c = pearson(&[1.0, 1.0, 1.0], &[1.0, 2.0, 3.0]).unwrap();
        assert_eq!(c.coefficient, None);
        assert_eq!(c.p_value, None);
        assert_eq!(spearman(&[1.0, 2.0], &[2.0, 1.0]).unwrap().coefficient, None);
        assert_eq!(kendall_tau_b(&[1.0, 2.0, 3.0], &[5.0, 5.0, 5.0]).unwrap().coefficient, None);
        assert!(matches!(pearson(&[1.0], &[1.0, 2.0]), Err(StatsError::LengthMismatch { .. })));
        assert_eq!(pearson(&[1.0, f64::NAN, 2.0], &[1.0, 2.0, 3.0]), Err(StatsError::NonFinite));
        assert_eq!(pearson_with_level(&[1.0, 2.0, 3.0], &[1.0, 2.0, 3.0], 0.0), Err(StatsError::InvalidLevel(0.0)));
    }

    #[test]
    fn kendall_large_n_is_fast() {
        let n = 100_000;
        let x: Vec<f64> = (0..n).map(|i| ((i * 7919) % 10007) as f64).collect();
        let y: Vec<f64> = (0..n).map(|i| (((i * 104_729) % 9973) as f64) + x[i] * 0.5).collect();
        let t = std::time::Instant::now();
        let r = kendall_tau_b(&x, &y).unwrap();
        assert!(r.coefficient.is_some() && r.p_value.is_some());
        assert!(t.elapsed().as_secs_f64() < 5.0);
    }

    #[test]
    fn bootstrap_ci_brackets_estimate() {
        let x: Vec<f64> = (0..80).map(|i| i as f64).collect();
        let y: Vec<f64> = x.iter().map(|v| v + ((v * 37.0) % 11.0) * 3.0).collect();
        for kind in [CorrelationKind::Pearson, CorrelationKind::Spearman, CorrelationKind::KendallTauB] {
            let a = bootstrap_correlation_ci(kind, &x, &y, 300, 0.95, 5).unwrap();
            let b = bootstrap_correlation_ci(kind, &x, &y, 300, 0.95, 5).unwrap();
            assert_eq!(a, b);
            let r = a.coefficient.unwrap();
            assert!(a.ci_low.unwrap() < r && r < a.ci_high.unwrap(), "{kind:?}");
            assert_eq!(a.ci_method, CiMethod::Bootstrap { n_resamples: 300, seed: 5 });
        }
    }
}
