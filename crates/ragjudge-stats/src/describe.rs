//! Descriptive statistics: mean, variance, quantiles, and a streaming [`Summary`].
//!
//! Every function returns `None` for empty input, for input containing NaN or an infinity,
//! and where the statistic is undefined (for example a sample variance of one value); none
//! of them returns NaN.

use serde::{Deserialize, Serialize};

fn all_finite(xs: &[f64]) -> bool {
    !xs.is_empty() && xs.iter().all(|v| v.is_finite())
}

/// Arithmetic mean `sum(x) / n`.
pub fn mean(xs: &[f64]) -> Option<f64> {
    if !all_finite(xs) {
        return None;
    }
    finite_or_none(xs.iter().sum::<f64>() / xs.len() as f64)
}

fn finite_or_none(v: f64) -> Option<f64> {
    v.is_finite().then_some(v)
}

/// Variance `sum((x - mean)^2) / (n - ddof)`, computed in two passes (as `numpy.var`).
///
/// `ddof = 1` gives the unbiased sample variance, `ddof = 0` the population variance.
/// `None` when `n <= ddof`.
pub fn variance_ddof(xs: &[f64], ddof: usize) -> Option<f64> {
    if xs.len() <= ddof {
        return None;
    }
    let m = mean(xs)?;
    let ss: f64 = xs.iter().map(|v| (v - m) * (v - m)).sum();
    finite_or_none(ss / (xs.len() - ddof) as f64)
}

/// Sample variance with Bessel's correction (ddof = 1); `None` for fewer than 2 values.
pub fn variance(xs: &[f64]) -> Option<f64> {
    variance_ddof(xs, 1)
}

/// Population variance (ddof = 0).
pub fn population_variance(xs: &[f64]) -> Option<f64> {
    variance_ddof(xs, 0)
}

/// Sample standard deviation, `sqrt` of [`variance`] (ddof = 1).
pub fn std_dev(xs: &[f64]) -> Option<f64> {
    variance(xs).map(f64::sqrt)
}

/// Population standard deviation, `sqrt` of [`population_variance`] (ddof = 0).
pub fn population_std_dev(xs: &[f64]) -> Option<f64> {
    population_variance(xs).map(f64::sqrt)
}

/// Coefficient of variation `std(ddof = 1) / mean`, keeping the sign of the mean.
///
/// `None` when the mean is zero or there are fewer than 2 values. Note that
/// `scipy.stats.variation` defaults to ddof = 0.
pub fn coefficient_of_variation(xs: &[f64]) -> Option<f64> {
    let m = mean(xs)?;
    if m == 0.0 {
        return None;
    }
    finite_or_none(std_dev(xs)? / m)
}

/// Median: the 0.5 [`quantile`] (mean of the two middle values for even n).
pub fn median(xs: &[f64]) -> Option<f64> {
    quantile(xs, 0.5)
}

/// Quantile `q` in `[0, 1]` with numpy's default `method="linear"` (Hyndman & Fan type 7).
///
/// With sorted values `x[0..n]` and `h = (n - 1) q`, the result is
/// `x[floor(h)] + (h - floor(h)) (x[floor(h) + 1] - x[floor(h)])`.
/// `None` when `q` is outside `[0, 1]`.
pub fn quantile(xs: &[f64], q: f64) -> Option<f64> {
    if !all_finite(xs) {
        return None;
    }
    let sorted = sorted_copy(xs);
    quantile_sorted(&sorted, q)
}

/// Several quantiles of one input, sorting it once. `None` if any `q` is outside `[0, 1]`.
pub fn quantiles(xs: &[f64], qs: &[f64]) -> Option<Vec<f64>> {
    if !all_finite(xs) {
        return None;
    }
    let sorted = sorted_copy(xs);
    qs.iter().map(|&q| quantile_sorted(&sorted, q)).collect()
}

/// Interquartile range `quantile(0.75) - quantile(0.25)` (numpy linear method).
pub fn iqr(xs: &[f64]) -> Option<f64> {
    let q = quantiles(xs, &[0.25, 0.75])?;
    Some(q[1] - q[0])
}

fn sorted_copy(xs: &[f64]) -> Vec<f64> {
    let mut sorted = xs.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted
}

/// [`quantile`] of values already sorted ascending and finite (numpy's `method="linear"`,
/// Hyndman & Fan type 7), without sorting a copy; `None` when empty or `q` is outside `[0, 1]`.
///
/// Interpolates as numpy's `_lerp` does: from the lower neighbour when the fraction is
/// below 0.5 and from the upper one otherwise, which keeps results monotone and exact at
/// the ends.
pub fn quantile_sorted(sorted: &[f64], q: f64) -> Option<f64> {
    if sorted.is_empty() || !(0.0..=1.0).contains(&q) {
        return None;
    }
    let n = sorted.len();
    let h = (n - 1) as f64 * q;
    let lo = (h.floor() as usize).min(n - 1);
    let hi = (lo + 1).min(n - 1);
    let t = h - lo as f64;
    let (a, b) = (sorted[lo], sorted[hi]);
    let d = b - a;
    let v = if t >= 0.5 { b - d * (1.0 - t) } else { a + d * t };
    finite_or_none(v)
}

/// Streaming count, mean, variance, minimum and maximum in O(1) memory.
///
/// Uses Welford's (1962) update `M2 += (x - mean_old)(x - mean_new)`; two summaries
/// merge with the pairwise formula of Chan, Golub & LeVeque (1979). Non-finite values are
/// not accumulated; they are counted in [`Summary::skipped`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    count: u64,
    mean: f64,
    m2: f64,
    min: f64,
    max: f64,
    skipped: u64,
}

impl Summary {
    /// An empty summary.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one value; NaN and infinities are skipped and counted.
    pub fn push(&mut self, x: f64) {
        if !x.is_finite() {
            self.skipped += 1;
            return;
        }
        if self.count == 0 {
            self.min = x;
            self.max = x;
        } else {
            self.min = self.min.min(x);
            self.max = self.max.max(x);
        }
        self.count += 1;
        let delta = x - self.mean;
        self.mean += delta / self.count as f64;
        self.m2 += delta * (x - self.mean);
    }

    /// Merges another summary into this one (Chan et al. 1979).
    pub fn merge(&mut self, other: &Summary) {
        self.skipped += other.skipped;
        if other.count == 0 {
            return;
        }
        if self.count == 0 {
            let skipped = self.skipped;
            *self = other.clone();
            self.skipped = skipped;
            return;
        }
        let (na, nb) = (self.count as f64, other.count as f64);
        let n = na + nb;
        let delta = other.mean - self.mean;
        self.mean += delta * nb / n;
        self.m2 += other.m2 + delta * delta * na * nb / n;
        self.count += other.count;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    /// Number of finite values added.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Number of non-finite values skipped.
    pub fn skipped(&self) -> u64 {
        self.skipped
    }

    /// Mean; `None` when empty.
    pub fn mean(&self) -> Option<f64> {
        (self.count > 0).then_some(self.mean)
    }

    /// Sample variance (ddof = 1); `None` for fewer than 2 values.
    pub fn variance(&self) -> Option<f64> {
        (self.count > 1).then(|| self.m2.max(0.0) / (self.count - 1) as f64)
    }

    /// Population variance (ddof = 0); `None` when empty.
    pub fn population_variance(&self) -> Option<f64> {
        (self.count > 0).then(|| self.m2.max(0.0) / self.count as f64)
    }

    /// Sample standard deviation (ddof = 1).
    pub fn std_dev(&self) -> Option<f64> {
        self.variance().map(f64::sqrt)
    }

    /// Smallest value; `None` when empty.
    pub fn min(&self) -> Option<f64> {
        (self.count > 0).then_some(self.min)
    }

    /// Largest value; `None` when empty.
    pub fn max(&self) -> Option<f64> {
        (self.count > 0).then_some(self.max)
    }
}

impl Extend<f64> for Summary {
    fn extend<I: IntoIterator<Item = f64>>(&mut self, iter: I) {
        for x in iter {
            self.push(x);
        }
    }
}

impl FromIterator<f64> for Summary {
    fn from_iter<I: IntoIterator<Item = f64>>(iter: I) -> Self {
        let mut s = Summary::new();
        s.extend(iter);
        s
    }
}

/// The correctly rounded sum of a stream of finite values, whatever their order.
///
/// Shewchuk's (1997) adaptive-precision partials, finished with the round-half-even
/// correction of Python's `math.fsum` (CPython `mathmodule.c`, `math_fsum`), whose results
/// it reproduces. Two sums of disjoint parts [`merge`](Self::merge) exactly, so a mean
/// computed as `sum / count` is the same bit for bit over any split or order of the values.
/// Non-finite values are not accumulated; the sum must not overflow.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ExactSum {
    partials: Vec<f64>,
}

impl ExactSum {
    /// An empty sum.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `x` exactly; non-finite values are ignored.
    pub fn push(&mut self, mut x: f64) {
        if !x.is_finite() {
            return;
        }
        let mut i = 0;
        for j in 0..self.partials.len() {
            let mut y = self.partials[j];
            if x.abs() < y.abs() {
                std::mem::swap(&mut x, &mut y);
            }
            let hi = x + y;
            let lo = y - (hi - x);
            if lo != 0.0 {
                self.partials[i] = lo;
                i += 1;
            }
            x = hi;
        }
        self.partials.truncate(i);
        self.partials.push(x);
    }

    /// Adds every partial of `other`: the result is exactly the sum of both streams.
    pub fn merge(&mut self, other: &ExactSum) {
        for &p in &other.partials {
            self.push(p);
        }
    }

    /// The exact sum rounded to the nearest `f64` (ties to even).
    pub fn value(&self) -> f64 {
        let p = &self.partials;
        let mut n = p.len();
        if n == 0 {
            return 0.0;
        }
        n -= 1;
        let mut hi = p[n];
        let mut lo = 0.0;
        while n > 0 {
            let x = hi;
            n -= 1;
            let y = p[n];
            hi = x + y;
            let yr = hi - x;
            lo = y - yr;
            if lo != 0.0 {
                break;
            }
        }
        // Round half to even: when the remaining partials push a tie the same way as `lo`.
        if n > 0 && ((lo < 0.0 && p[n - 1] < 0.0) || (lo > 0.0 && p[n - 1] > 0.0)) {
            let y = lo * 2.0;
            let x = hi + y;
            if y == x - hi {
                hi = x;
            }
        }
        hi
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_sum_matches_python_fsum() {
        // Cases and results from CPython's Lib/test/test_math.py (testFsum), checked with Python 3.11.7.
        let cases: [(&[f64], f64); 6] = [
            (&[], 0.0),
            (&[1e100, 1.0, -1e100, 1e-100, 1e50, -1.0, -1e50], 1e-100),
            (&[2.0f64.powi(53), -0.5, -2.0f64.powi(-54)], 2.0f64.powi(53) - 1.0),
            (&[2.0f64.powi(53), 1.0, 2.0f64.powi(-100)], 2.0f64.powi(53) + 2.0),
            (&[2.0f64.powi(53) + 10.0, 1.0, 2.0f64.powi(-100)], 2.0f64.powi(53) + 12.0),
            (&[2.0f64.powi(53) - 4.0, 0.5, 2.0f64.powi(-54)], 2.0f64.powi(53) - 3.0),
        ];
        for (xs, want) in cases {
            let mut s = ExactSum::new();
            xs.iter().for_each(|&x| s.push(x));
            assert_eq!(s.value(), want, "{xs:?}");
        }
        // math.fsum([0.1] * 10) == 1.0, where a plain loop gives 0.9999999999999999.
        let mut s = ExactSum::new();
        (0..10).for_each(|_| s.push(0.1));
        assert_eq!(s.value(), 1.0);
    }

    #[test]
    fn exact_sum_is_independent_of_order_and_split() {
        let xs: Vec<f64> = (0..1000).map(|i| ((i * 7919) % 1009) as f64 / 997.0 - 0.3).collect();
        let mut fwd = ExactSum::new();
        xs.iter().for_each(|&x| fwd.push(x));
        let (mut a, mut b) = (ExactSum::new(), ExactSum::new());
        for (i, &x) in xs.iter().enumerate().rev() {
            if i % 4 == 1 {
                a.push(x)
            } else {
                b.push(x)
            }
        }
        b.merge(&a);
        assert_eq!(fwd.value().to_bits(), b.value().to_bits());
    }
    use approx::assert_abs_diff_eq;

    #[test]
    fn hand_computed_small() {
        // [2, 4, 4, 4, 5, 5, 7, 9]: mean 5, SS = 32, population var 4, sample var 32/7.
        let xs = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0];
        assert_eq!(mean(&xs), Some(5.0));
        assert_eq!(population_variance(&xs), Some(4.0));
        assert_abs_diff_eq!(variance(&xs).unwrap(), 32.0 / 7.0, epsilon = 1e-15);
        assert_eq!(population_std_dev(&xs), Some(2.0));
        assert_eq!(median(&xs), Some(4.5));
        // h = 7 * 0.25 = 1.75 -> 4 + 0.75 * 0 = 4; h = 5.25 -> 5 + 0.25 * 2 = 5.5.
        assert_eq!(iqr(&xs), Some(1.5));
        assert_abs_diff_eq!(coefficient_of_variation(&xs).unwrap(), (32.0f64 / 7.0).sqrt() / 5.0, epsilon = 1e-15);
    }

    #[test]
    fn quantile_of_sorted_values_by_hand() {
        // numpy linear: h = (n - 1) q; x[floor h] + frac(h) (x[floor h + 1] - x[floor h]).
        let s = [1.0, 2.0, 3.0, 4.0];
        // h = 0.75 -> 1 + 0.75 = 1.75; h = 1.5 -> 2.5; h = 2.25 -> 3.25.
        assert_eq!(quantile_sorted(&s, 0.25), Some(1.75));
        assert_eq!(quantile_sorted(&s, 0.5), Some(2.5));
        assert_eq!(quantile_sorted(&s, 0.75), Some(3.25));
        // [10, 20, 30], q 0.95: h = 1.9 -> 20 + 0.9 * 10 = 29; the ends are the extremes.
        assert_abs_diff_eq!(quantile_sorted(&[10.0, 20.0, 30.0], 0.95).unwrap(), 29.0, epsilon = 1e-12);
        assert_eq!(quantile_sorted(&[10.0, 20.0, 30.0], 0.0), Some(10.0));
        assert_eq!(quantile_sorted(&[10.0, 20.0, 30.0], 1.0), Some(30.0));
        assert_eq!(quantile_sorted(&[7.0], 0.3), Some(7.0));
        assert_eq!(quantile_sorted(&[], 0.5), None);
        assert_eq!(quantile_sorted(&s, -0.1), None);
    }

    #[test]
    fn undefined_cases_are_none() {
        assert_eq!(mean(&[]), None);
        assert_eq!(variance(&[1.0]), None);
        assert_eq!(population_variance(&[1.0]), Some(0.0));
        assert_eq!(coefficient_of_variation(&[-1.0, 1.0]), None);
        assert_eq!(quantile(&[1.0, 2.0], 1.5), None);
        assert_eq!(quantile(&[1.0, f64::NAN], 0.5), None);
        assert_eq!(mean(&[f64::INFINITY, 1.0]), None);
        assert_eq!(median(&[]), None);
        assert_eq!(quantiles(&[1.0], &[0.1, -0.1]), None);
    }

    #[test]
    fn summary_matches_two_pass_and_merges() {
        let xs: Vec<f64> = (0..1000).map(|i| 1e6 + ((i * 37) % 101) as f64 * 0.01).collect();
        let s: Summary = xs.iter().copied().collect();
        assert_eq!(s.count(), 1000);
        assert_abs_diff_eq!(s.mean().unwrap(), mean(&xs).unwrap(), epsilon = 1e-8);
        assert_abs_diff_eq!(s.variance().unwrap(), variance(&xs).unwrap(), epsilon = 1e-9);
        assert_eq!(s.min(), Some(1e6));
        assert_eq!(s.max(), Some(1e6 + 1.0));

        let mut a: Summary = xs[..300].iter().copied().collect();
        let b: Summary = xs[300..].iter().copied().collect();
        a.merge(&b);
        assert_eq!(a.count(), 1000);
        assert_abs_diff_eq!(a.mean().unwrap(), s.mean().unwrap(), epsilon = 1e-8);
        assert_abs_diff_eq!(a.variance().unwrap(), s.variance().unwrap(), epsilon = 1e-9);
        assert_eq!(a.min(), s.min());
        assert_eq!(a.max(), s.max());
    }

    #[test]
    fn summary_skips_non_finite() {
        let mut s = Summary::new();
        assert_eq!(s.mean(), None);
        s.extend([1.0, f64::NAN, 3.0, f64::NEG_INFINITY]);
        assert_eq!(s.count(), 2);
        assert_eq!(s.skipped(), 2);
        assert_eq!(s.mean(), Some(2.0));
        assert_eq!(s.variance(), Some(2.0));
        assert_eq!(s.population_variance(), Some(1.0));
    }
}
