//! Tests of a difference between groups and the correction of many such tests, as weakness
//! analysis (HCAT §6.2) needs them: the Mann-Whitney U test (as scipy's `mannwhitneyu`) and the
//! Benjamini-Hochberg false discovery rate adjustment (as statsmodels' `multipletests(...,
//! method="fdr_bh")`).

use crate::correlation::normal_two_sided_p;
use crate::error::StatsError;
use crate::rank::rankdata_average;

/// How the Mann-Whitney p-value is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MwuMethod {
    /// Exact when either sample has at most 8 values and there are no ties, else asymptotic
    /// (scipy's `method="auto"`).
    #[default]
    Auto,
    /// The exact null distribution of U (no tie correction).
    Exact,
    /// The normal approximation with tie and continuity corrections.
    Asymptotic,
}

/// A two-sided Mann-Whitney U test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MannWhitney {
    /// `U1`, the statistic of the first sample (`R1 - n1 (n1 + 1) / 2`, average ranks for ties).
    pub u1: f64,
    /// Two-sided p-value.
    pub p_value: f64,
    /// `U1 / (n1 n2)`: the probability that a value of the first sample exceeds one of the
    /// second, ties counting half (the common-language effect size).
    pub effect: f64,
    /// Whether the exact distribution was used.
    pub exact: bool,
}

/// The two-sided Mann-Whitney U test of `x` against `y`, as scipy 1.17's
/// `mannwhitneyu(x, y, use_continuity=True, alternative="two-sided", method=...)`.
pub fn mann_whitney_u(x: &[f64], y: &[f64], method: MwuMethod) -> Result<MannWhitney, StatsError> {
    if x.is_empty() || y.is_empty() {
        return Err(StatsError::Empty);
    }
    let all: Vec<f64> = x.iter().chain(y).copied().collect();
    RankedSample::new(&all)?.mann_whitney(0..x.len(), method)
}

/// A sample ranked once (average ranks for ties), so that many groups of it can each be tested
/// against the rest of it without sorting again: weakness analysis tests every stratum of a
/// dimension against the other strata, which together are the whole sample. The test of a group
/// is the one [`mann_whitney_u`] gives for the group against the rest.
#[derive(Debug, Clone, PartialEq)]
pub struct RankedSample {
    ranks: Vec<f64>,
    /// `sum (t^3 - t)` over the groups of `t` equal values.
    tie_term: f64,
    ties: bool,
}

impl RankedSample {
    /// Ranks `values`.
    ///
    /// # Errors
    /// [`StatsError::NonFinite`] when a value is NaN or infinite.
    pub fn new(values: &[f64]) -> Result<Self, StatsError> {
        if values.iter().any(|v| !v.is_finite()) {
            return Err(StatsError::NonFinite);
        }
        let ranks = rankdata_average(values);
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        let (mut tie_term, mut ties, mut i) = (0.0, false, 0);
        while i < sorted.len() {
            let t = sorted[i..].iter().take_while(|&&w| w == sorted[i]).count();
            tie_term += (t as f64).powi(3) - t as f64;
            ties |= t > 1;
            i += t;
        }
        Ok(Self { ranks, tie_term, ties })
    }

    /// Values in the sample.
    pub fn len(&self) -> usize {
        self.ranks.len()
    }

    /// Whether the sample is empty.
    pub fn is_empty(&self) -> bool {
        self.ranks.is_empty()
    }

    /// The test of the values at the indices `group` (each once) against all the others.
    ///
    /// # Errors
    /// [`StatsError::Empty`] when the group or the rest is empty.
    pub fn mann_whitney(
        &self,
        group: impl IntoIterator<Item = usize>,
        method: MwuMethod,
    ) -> Result<MannWhitney, StatsError> {
        let (mut n1, mut r1) = (0usize, 0.0);
        for i in group {
            n1 += 1;
            r1 += self.ranks[i];
        }
        let n2 = self.ranks.len().saturating_sub(n1);
        if n1 == 0 || n2 == 0 {
            return Err(StatsError::Empty);
        }
        let (f1, f2) = (n1 as f64, n2 as f64);
        let u1 = r1 - f1 * (f1 + 1.0) / 2.0;
        let u = u1.max(f1 * f2 - u1);
        let exact = match method {
            MwuMethod::Exact => true,
            MwuMethod::Asymptotic => false,
            MwuMethod::Auto => !(self.ties || (n1 > 8 && n2 > 8)),
        };
        let exact_sf = if exact { exact_sf(n1, n2, u) } else { None };
        let p = match exact_sf {
            Some(sf) => (2.0 * sf).min(1.0),
            None => {
                let n = f1 + f2;
                let s = (f1 * f2 / 12.0 * ((n + 1.0) - self.tie_term / (n * (n - 1.0)))).sqrt();
                let z = (u - f1 * f2 / 2.0 - 0.5) / s;
                if z > 0.0 {
                    normal_two_sided_p(z)
                } else {
                    1.0
                }
            }
        };
        Ok(MannWhitney { u1, p_value: p, effect: u1 / (f1 * f2), exact: exact_sf.is_some() })
    }
}

/// `P(U >= u)` under the null for samples of sizes `n1` and `n2`, from the exact counts: the
/// number of arrangements with statistic `k` is the number of partitions of `k` that fit in an
/// `m x n` box, the coefficient of `q^k` in the Gaussian binomial `[m + n choose m]_q`. `None`
/// when the counts overflow 128 bits (very large samples; use the normal approximation).
fn exact_sf(n1: usize, n2: usize, u: f64) -> Option<f64> {
    let (m, n) = (n1.min(n2), n1.max(n2));
    let max = m.checked_mul(n)?;
    // prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i), coefficients up to q^max.
    let mut c = vec![0u128; max + 1];
    c[0] = 1;
    for i in 1..=m {
        // Divide by (1 - q^i): running sums with stride i (a series with non-negative terms).
        for k in i..=max {
            c[k] = c[k].checked_add(c[k - i])?;
        }
        // Multiply by (1 - q^(n+i)), high powers first so each term uses the series' own value.
        // The result is the Gaussian binomial [n + i choose i]_q: no term goes below zero.
        for k in (n + i..=max).rev() {
            c[k] = c[k].checked_sub(c[k - n - i])?;
        }
    }
    let total: u128 = c.iter().try_fold(0u128, |a, &b| a.checked_add(b))?;
    let from = u.ceil().max(0.0) as usize;
    let tail: u128 = c.iter().skip(from).sum();
    Some(tail as f64 / total as f64)
}

/// Benjamini-Hochberg adjusted p-values, in the order given: `min over k >= rank of
/// (m / k) p_(k)`, capped at 1 (statsmodels' `multipletests(p, method="fdr_bh")[1]`).
pub fn benjamini_hochberg(p_values: &[f64]) -> Result<Vec<f64>, StatsError> {
    if p_values.iter().any(|p| !(p.is_finite() && (0.0..=1.0).contains(p))) {
        return Err(StatsError::NonFinite);
    }
    let m = p_values.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p_values[a].total_cmp(&p_values[b]));
    let mut adjusted = vec![0.0; m];
    let mut running = 1.0f64;
    for (rank, &i) in order.iter().enumerate().rev() {
        running = running.min(p_values[i] * m as f64 / (rank + 1) as f64);
        adjusted[i] = running.min(1.0);
    }
    Ok(adjusted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_distribution_by_hand() {
        // Sizes 2 and 2: the 6 arrangements give U = 0, 1, 2, 2, 3, 4, so P(U >= 3) = 2/6 and
        // P(U >= 4) = 1/6.
        assert_eq!(exact_sf(2, 2, 3.0), Some(2.0 / 6.0));
        assert_eq!(exact_sf(2, 2, 4.0), Some(1.0 / 6.0));
        assert_eq!(exact_sf(2, 2, 0.0), Some(1.0));
        // x = (3, 4) above y = (1, 2): U1 = 4, two-sided p = 2 * 1/6.
        let r = mann_whitney_u(&[3.0, 4.0], &[1.0, 2.0], MwuMethod::Auto).unwrap();
        assert_eq!((r.u1, r.exact, r.effect), (4.0, true, 1.0));
        assert!((r.p_value - 1.0 / 3.0).abs() < 1e-15);
    }

    #[test]
    fn bh_by_hand() {
        // m = 4, sorted 0.01, 0.02, 0.03, 0.5: 4 x 0.01 / 1 = 0.04, 4 x 0.02 / 2 = 0.04,
        // 4 x 0.03 / 3 = 0.04, 4 x 0.5 / 4 = 0.5; the running minimum from the top keeps them.
        let adj = benjamini_hochberg(&[0.5, 0.03, 0.01, 0.02]).unwrap();
        let want = [0.5, 0.04, 0.04, 0.04];
        for (a, w) in adj.iter().zip(want) {
            assert!((a - w).abs() < 1e-15, "{adj:?}");
        }
        assert!(benjamini_hochberg(&[f64::NAN]).is_err());
        assert_eq!(benjamini_hochberg(&[]).unwrap(), Vec::<f64>::new());
    }
}
