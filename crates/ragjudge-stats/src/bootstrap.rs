//! Seeded percentile bootstrap and the streaming Poisson bootstrap of a mean.
//!
//! The classic bootstrap (Efron & Tibshirani 1993, ch. 13) draws `n` indices with
//! replacement per resample and reports the `(1 - level) / 2` and `(1 + level) / 2`
//! percentiles (numpy's linear method) of the resampled statistic. The Poisson bootstrap
//! (Oza & Russell 2001; Chamandy, Muralidharan, Najmi & Naidu 2012) replaces the
//! multinomial resample counts by independent Poisson(1) weights, so each value can be
//! folded into B replicates as it arrives, in O(B) memory whatever the number of values.
//!
//! All randomness comes from [`ChaCha8Rng`] seeded with a `u64`, so results are
//! reproducible across runs and platforms.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::describe::quantile_sorted;
use crate::error::{check_level, StatsError};

/// Default number of bootstrap replicates.
pub const DEFAULT_REPLICATES: usize = 1000;

/// A point estimate with a two-sided confidence interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Ci {
    /// The statistic on the full data.
    pub estimate: f64,
    /// Lower bound.
    pub low: f64,
    /// Upper bound.
    pub high: f64,
    /// Confidence level, e.g. 0.95.
    pub level: f64,
}

/// Percentile interval of replicate statistics; non-finite replicates are dropped.
fn percentile_ci(mut stats: Vec<f64>, estimate: f64, level: f64) -> Result<Ci, StatsError> {
    stats.retain(|v| v.is_finite());
    if stats.is_empty() {
        return Err(StatsError::Undefined);
    }
    stats.sort_by(f64::total_cmp);
    let alpha = (1.0 - level) / 2.0;
    let low = quantile_sorted(&stats, alpha).ok_or(StatsError::Undefined)?;
    let high = quantile_sorted(&stats, 1.0 - alpha).ok_or(StatsError::Undefined)?;
    Ok(Ci { estimate, low, high, level })
}

/// Percentile bootstrap CI of `statistic` over `values`.
///
/// Draws `n_resamples` resamples of size n with replacement from a [`ChaCha8Rng`]
/// seeded with `seed`. Resamples on which the statistic is not finite (NaN for a
/// constant resample, say) are left out of the percentiles.
///
/// # Errors
/// [`StatsError::Empty`], [`StatsError::InvalidLevel`], [`StatsError::ZeroResamples`],
/// and [`StatsError::Undefined`] when the statistic is not finite on `values` or on
/// every resample.
pub fn bootstrap_ci(
    values: &[f64],
    statistic: impl Fn(&[f64]) -> f64,
    n_resamples: usize,
    level: f64,
    seed: u64,
) -> Result<Ci, StatsError> {
    check_level(level)?;
    if values.is_empty() {
        return Err(StatsError::Empty);
    }
    if n_resamples == 0 {
        return Err(StatsError::ZeroResamples);
    }
    let estimate = statistic(values);
    if !estimate.is_finite() {
        return Err(StatsError::Undefined);
    }
    let n = values.len();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut buf = vec![0.0; n];
    let stats = (0..n_resamples)
        .map(|_| {
            for slot in buf.iter_mut() {
                *slot = values[rng.gen_range(0..n)];
            }
            statistic(&buf)
        })
        .collect();
    percentile_ci(stats, estimate, level)
}

/// [`bootstrap_ci`] of the mean, without a resample buffer: the same draws and the same sums
/// in the same order, so the same interval, in about half the time on large samples.
///
/// # Errors
/// As [`bootstrap_ci`].
pub fn bootstrap_mean_ci(values: &[f64], n_resamples: usize, level: f64, seed: u64) -> Result<Ci, StatsError> {
    check_level(level)?;
    if values.is_empty() {
        return Err(StatsError::Empty);
    }
    if n_resamples == 0 {
        return Err(StatsError::ZeroResamples);
    }
    let n = values.len();
    let estimate = values.iter().sum::<f64>() / n as f64;
    if !estimate.is_finite() {
        return Err(StatsError::Undefined);
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let stats = (0..n_resamples)
        .map(|_| {
            let mut sum = 0.0;
            for _ in 0..n {
                sum += values[rng.gen_range(0..n)];
            }
            sum / n as f64
        })
        .collect();
    percentile_ci(stats, estimate, level)
}

/// Paired percentile bootstrap CI of `statistic(x, y)`: pairs `(x[i], y[i])` are
/// resampled together, as needed for correlations.
///
/// # Errors
/// As [`bootstrap_ci`], plus [`StatsError::LengthMismatch`].
pub fn bootstrap_ci_paired(
    x: &[f64],
    y: &[f64],
    statistic: impl Fn(&[f64], &[f64]) -> f64,
    n_resamples: usize,
    level: f64,
    seed: u64,
) -> Result<Ci, StatsError> {
    check_level(level)?;
    if x.len() != y.len() {
        return Err(StatsError::LengthMismatch { left: x.len(), right: y.len() });
    }
    if x.is_empty() {
        return Err(StatsError::Empty);
    }
    if n_resamples == 0 {
        return Err(StatsError::ZeroResamples);
    }
    let estimate = statistic(x, y);
    if !estimate.is_finite() {
        return Err(StatsError::Undefined);
    }
    let n = x.len();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut bx, mut by) = (vec![0.0; n], vec![0.0; n]);
    let stats = (0..n_resamples)
        .map(|_| {
            for (sx, sy) in bx.iter_mut().zip(by.iter_mut()) {
                let i = rng.gen_range(0..n);
                *sx = x[i];
                *sy = y[i];
            }
            statistic(&bx, &by)
        })
        .collect();
    percentile_ci(stats, estimate, level)
}

/// Number of entries in the Poisson(1) inverse-CDF table; weights range over `0..=16`.
const TABLE_LEN: usize = 16;

/// Thresholds for inverse-CDF sampling of Poisson(1) from a uniform `u32`.
///
/// Entry `k` is `round(P(X <= k) * 2^32) - 1`, so the weight of `u` is the number of
/// entries strictly below `u`. The upper tail `P(X > k)` is summed directly (not as
/// `1 - cdf`) to keep it accurate; entries whose cumulative probability rounds to 1
/// become `u32::MAX`, which no `u` exceeds, so the neglected tail mass is below `2^-33`.
fn poisson1_table() -> [u32; TABLE_LEN] {
    const TWO32: f64 = 4_294_967_296.0;
    const TERMS: usize = 40;
    let mut pmf = [0.0f64; TERMS];
    pmf[0] = (-1.0f64).exp();
    for j in 1..TERMS {
        pmf[j] = pmf[j - 1] / j as f64;
    }
    let mut table = [u32::MAX; TABLE_LEN];
    for (k, slot) in table.iter_mut().enumerate() {
        let tail: f64 = pmf[k + 1..].iter().rev().sum();
        let scaled = TWO32 - (tail * TWO32).round();
        if scaled < TWO32 {
            *slot = (scaled as u64 - 1) as u32;
        }
    }
    table
}

/// A seeded source of Poisson(1) bootstrap weights, one per replicate.
///
/// Draw once per record and pass the same slice to several
/// [`PoissonBootstrapMean::push_weighted`] accumulators (one per metric) so that all
/// metrics of a record share its resampling weights, as a joint resample would.
///
/// Two ways to draw: [`draw`](Self::draw) takes the next weights of one sequential stream (they
/// depend on how many were drawn before), [`draw_keyed`](Self::draw_keyed) gives the weights of
/// an item with a stable key as a pure function of (seed, key, replicate), so the replicate sums
/// of disjoint parts of the data (shards) add up to those of the whole, in any order.
#[derive(Debug, Clone)]
pub struct PoissonWeights {
    seed: u64,
    rng: ChaCha8Rng,
    table: [u32; TABLE_LEN],
    uniforms: Vec<u32>,
    weights: Vec<u8>,
}

impl PoissonWeights {
    /// A weight source for `n_replicates` replicates, seeded with `seed`.
    ///
    /// # Panics
    /// If `n_replicates` is zero.
    pub fn new(n_replicates: usize, seed: u64) -> Self {
        assert!(n_replicates > 0, "n_replicates must be at least 1");
        Self {
            seed,
            rng: ChaCha8Rng::seed_from_u64(seed),
            table: poisson1_table(),
            uniforms: vec![0; n_replicates],
            weights: vec![0; n_replicates],
        }
    }

    /// Number of replicates (the length of each drawn slice).
    pub fn n_replicates(&self) -> usize {
        self.weights.len()
    }

    /// Draws one independent Poisson(1) weight per replicate, by inverse CDF from one
    /// uniform `u32` each.
    pub fn draw(&mut self) -> &[u8] {
        self.rng.fill(&mut self.uniforms[..]);
        self.weights_from_uniforms()
    }

    /// The weights of the item whose stable key is `key` (e.g. a hash of a record's id, system
    /// and run): uniforms from ChaCha8 keyed with (seed, key) at stream 0, position 0, then the
    /// same inverse CDF as [`draw`](Self::draw). The same (seed, key) always gives the same
    /// weights; the sequential stream is not touched.
    pub fn draw_keyed(&mut self, key: u64) -> &[u8] {
        let mut k = [0u8; 32];
        k[..8].copy_from_slice(&self.seed.to_le_bytes());
        k[8..16].copy_from_slice(&key.to_le_bytes());
        // Marks the key as a keyed draw, apart from any `seed_from_u64` expansion.
        k[16..24].copy_from_slice(b"poisson1");
        ChaCha8Rng::from_seed(k).fill(&mut self.uniforms[..]);
        self.weights_from_uniforms()
    }

    fn weights_from_uniforms(&mut self) -> &[u8] {
        let table = &self.table;
        for (w, &u) in self.weights.iter_mut().zip(&self.uniforms) {
            let mut k = 0u8;
            for &t in table {
                k += u8::from(u > t);
            }
            *w = k;
        }
        &self.weights
    }
}

/// Streaming Poisson-bootstrap confidence interval for a mean.
///
/// Keeps, per replicate `b`, the weighted sum `sum_i w_ib x_i` and total weight
/// `sum_i w_ib`, with `w_ib ~ Poisson(1)` independent (Chamandy et al. 2012, sec. 3);
/// replicate `b` estimates the mean as their ratio. Memory is O(B) whatever the number
/// of values.
///
/// Serialises as its replicate sums and totals (with the plain count and sum), so partial
/// accumulators of disjoint parts computed elsewhere can be sent, read back and
/// [merged](Self::merge); one read back draws unkeyed weights from seed 0.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(into = "BootstrapState", try_from = "BootstrapState")]
pub struct PoissonBootstrapMean {
    sums: Vec<f64>,
    totals: Vec<u64>,
    count: u64,
    sum: f64,
    weights: PoissonWeights,
}

/// What a [`PoissonBootstrapMean`] serialises as.
#[derive(Serialize, Deserialize)]
struct BootstrapState {
    sums: Vec<f64>,
    totals: Vec<u64>,
    count: u64,
    sum: f64,
}

impl From<PoissonBootstrapMean> for BootstrapState {
    fn from(b: PoissonBootstrapMean) -> Self {
        Self { sums: b.sums, totals: b.totals, count: b.count, sum: b.sum }
    }
}

impl TryFrom<BootstrapState> for PoissonBootstrapMean {
    type Error = String;

    fn try_from(s: BootstrapState) -> Result<Self, String> {
        if s.sums.is_empty() || s.sums.len() != s.totals.len() {
            return Err(format!(
                "{} replicate sums and {} totals: need as many, at least one",
                s.sums.len(),
                s.totals.len()
            ));
        }
        let weights = PoissonWeights::new(s.sums.len(), 0);
        Ok(Self { sums: s.sums, totals: s.totals, count: s.count, sum: s.sum, weights })
    }
}

impl PoissonBootstrapMean {
    /// An accumulator with `n_replicates` replicates whose [`push`](Self::push) draws
    /// weights from its own generator seeded with `seed`.
    ///
    /// # Panics
    /// If `n_replicates` is zero.
    pub fn new(n_replicates: usize, seed: u64) -> Self {
        Self {
            sums: vec![0.0; n_replicates],
            totals: vec![0; n_replicates],
            count: 0,
            sum: 0.0,
            weights: PoissonWeights::new(n_replicates, seed),
        }
    }

    /// An accumulator with [`DEFAULT_REPLICATES`] replicates.
    pub fn with_seed(seed: u64) -> Self {
        Self::new(DEFAULT_REPLICATES, seed)
    }

    /// Number of replicates.
    pub fn n_replicates(&self) -> usize {
        self.sums.len()
    }

    /// Adds `x` with freshly drawn weights. Non-finite values are ignored.
    pub fn push(&mut self, x: f64) {
        if !x.is_finite() {
            return;
        }
        let weights = self.weights.draw();
        Self::accumulate(&mut self.sums, &mut self.totals, x, weights);
        self.count += 1;
        self.sum += x;
    }

    /// Adds `x` with caller-supplied weights, typically from a shared
    /// [`PoissonWeights::draw`]. Non-finite values are ignored.
    ///
    /// # Panics
    /// If `weights.len()` differs from [`n_replicates`](Self::n_replicates).
    pub fn push_weighted(&mut self, x: f64, weights: &[u8]) {
        assert_eq!(weights.len(), self.sums.len(), "weights must have one entry per replicate");
        if !x.is_finite() {
            return;
        }
        Self::accumulate(&mut self.sums, &mut self.totals, x, weights);
        self.count += 1;
        self.sum += x;
    }

    fn accumulate(sums: &mut [f64], totals: &mut [u64], x: f64, weights: &[u8]) {
        for ((s, t), &w) in sums.iter_mut().zip(totals.iter_mut()).zip(weights) {
            *s += f64::from(w) * x;
            *t += u64::from(w);
        }
    }

    /// Number of values added.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Plain mean of the values added; `None` when empty.
    pub fn mean(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum / self.count as f64)
    }

    /// Adds the replicate sums of `other` (same number of replicates), as if its values had
    /// been pushed here: exact up to floating-point summation order when both were fed keyed
    /// weights ([`PoissonWeights::draw_keyed`]) of disjoint items.
    ///
    /// # Panics
    /// If the numbers of replicates differ.
    pub fn merge(&mut self, other: &PoissonBootstrapMean) {
        assert_eq!(self.sums.len(), other.sums.len(), "replicate counts must match");
        for (a, b) in self.sums.iter_mut().zip(&other.sums) {
            *a += b;
        }
        for (a, b) in self.totals.iter_mut().zip(&other.totals) {
            *a += b;
        }
        self.count += other.count;
        self.sum += other.sum;
    }

    /// Percentile CI of the replicate means at `level`; replicates with zero total weight
    /// are skipped. `None` when empty, when `level` is outside (0, 1), or when every
    /// replicate has zero weight.
    pub fn ci(&self, level: f64) -> Option<Ci> {
        check_level(level).ok()?;
        let estimate = self.mean()?;
        let means: Vec<f64> =
            self.sums.iter().zip(&self.totals).filter(|(_, &t)| t > 0).map(|(&s, &t)| s / t as f64).collect();
        percentile_ci(means, estimate, level).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mean_bootstrap_is_the_generic_one() {
        let values: Vec<f64> = (0..257).map(|i| ((i * 37) % 101) as f64 / 7.0).collect();
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        for seed in [0, 9] {
            assert_eq!(
                bootstrap_mean_ci(&values, 300, 0.9, seed).unwrap(),
                bootstrap_ci(&values, mean, 300, 0.9, seed).unwrap()
            );
        }
    }
    use crate::describe;

    #[test]
    fn poisson_table_probabilities() {
        let t = poisson1_table();
        let two32 = 4_294_967_296.0;
        // P(X = 0) = e^-1 and P(X <= 1) = 2 e^-1, to within one part in 2^32.
        assert!(((t[0] as f64 + 1.0) / two32 - (-1.0f64).exp()).abs() < 1e-9);
        assert!(((t[1] as f64 + 1.0) / two32 - 2.0 * (-1.0f64).exp()).abs() < 1e-9);
        assert!(t.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(t[TABLE_LEN - 1], u32::MAX);
    }

    #[test]
    fn poisson_weights_have_unit_mean_and_variance() {
        let mut pw = PoissonWeights::new(1000, 7);
        let mut s = describe::Summary::new();
        for _ in 0..200 {
            for &w in pw.draw() {
                s.push(f64::from(w));
            }
        }
        // 200k draws: standard error of the mean is about 0.0022.
        assert!((s.mean().unwrap() - 1.0).abs() < 0.01);
        assert!((s.variance().unwrap() - 1.0).abs() < 0.02);
    }

    #[test]
    fn bootstrap_is_deterministic_and_covers_mean() {
        let xs: Vec<f64> = (0..100).map(|i| ((i * 7919) % 100) as f64 / 10.0).collect();
        let mean = |v: &[f64]| describe::mean(v).unwrap_or(f64::NAN);
        let a = bootstrap_ci(&xs, mean, 500, 0.95, 42).unwrap();
        let b = bootstrap_ci(&xs, mean, 500, 0.95, 42).unwrap();
        assert_eq!(a, b);
        assert!(a.low < a.estimate && a.estimate < a.high);
        let c = bootstrap_ci(&xs, mean, 500, 0.95, 43).unwrap();
        assert_ne!(a, c);
    }

    #[test]
    fn bootstrap_errors() {
        let mean = |v: &[f64]| describe::mean(v).unwrap_or(f64::NAN);
        assert_eq!(bootstrap_ci(&[], mean, 10, 0.95, 1), Err(StatsError::Empty));
        assert_eq!(bootstrap_ci(&[1.0], mean, 10, 1.0, 1), Err(StatsError::InvalidLevel(1.0)));
        assert_eq!(bootstrap_ci(&[1.0], mean, 0, 0.9, 1), Err(StatsError::ZeroResamples));
        let r = bootstrap_ci_paired(&[1.0], &[1.0, 2.0], |_, _| 0.0, 10, 0.9, 1);
        assert!(matches!(r, Err(StatsError::LengthMismatch { .. })));
    }

    #[test]
    fn keyed_weights_depend_on_seed_and_key_only() {
        let mut a = PoissonWeights::new(200, 5);
        let first = a.draw_keyed(42).to_vec();
        a.draw();
        a.draw_keyed(7);
        assert_eq!(a.draw_keyed(42), &first[..]);
        let mut b = PoissonWeights::new(200, 5);
        assert_eq!(b.draw_keyed(42), &first[..]);
        assert_ne!(b.draw_keyed(43), &first[..]);
        assert_ne!(PoissonWeights::new(200, 6).draw_keyed(42), &first[..]);
        // Keyed draws are Poisson(1) too: 1000 keys x 200 replicates.
        let mut s = describe::Summary::new();
        for key in 0..1000u64 {
            for &w in b.draw_keyed(key) {
                s.push(f64::from(w));
            }
        }
        assert!((s.mean().unwrap() - 1.0).abs() < 0.01);
        assert!((s.variance().unwrap() - 1.0).abs() < 0.03);
    }

    #[test]
    fn merged_keyed_accumulators_equal_one_pass() {
        // Values split into two parts, each fed keyed weights, merged: the same CI as one pass
        // over all values, whatever the order.
        let xs: Vec<f64> = (0..300).map(|i| ((i * 37) % 101) as f64 / 8.0).collect();
        let mut w = PoissonWeights::new(500, 3);
        let mut all = PoissonBootstrapMean::new(500, 0);
        for (k, &x) in xs.iter().enumerate() {
            all.push_weighted(x, w.draw_keyed(k as u64));
        }
        let (mut p1, mut p2) = (PoissonBootstrapMean::new(500, 0), PoissonBootstrapMean::new(500, 0));
        for (k, &x) in xs.iter().enumerate().rev() {
            let part = if k % 3 == 0 { &mut p1 } else { &mut p2 };
            part.push_weighted(x, w.draw_keyed(k as u64));
        }
        // The second part travels as JSON, as a partial summary does between processes.
        let p2: PoissonBootstrapMean = serde_json::from_str(&serde_json::to_string(&p2).unwrap()).unwrap();
        p1.merge(&p2);
        let (c1, c2) = (all.ci(0.95).unwrap(), p1.ci(0.95).unwrap());
        assert_eq!(p1.count(), 300);
        assert!((c1.low - c2.low).abs() < 1e-12 && (c1.high - c2.high).abs() < 1e-12, "{c1:?} {c2:?}");
    }

    #[test]
    fn a_malformed_serialised_accumulator_is_refused() {
        let bad = r#"{"sums":[1.0,2.0],"totals":[1],"count":1,"sum":1.0}"#;
        assert!(serde_json::from_str::<PoissonBootstrapMean>(bad).is_err());
        let empty = r#"{"sums":[],"totals":[],"count":0,"sum":0.0}"#;
        assert!(serde_json::from_str::<PoissonBootstrapMean>(empty).is_err());
    }

    #[test]
    fn poisson_mean_empty_and_shared_weights() {
        let m = PoissonBootstrapMean::new(100, 1);
        assert!(m.ci(0.95).is_none());

        // Two metrics fed from one weight draw per record see identical resamples:
        // for y = 2x + 1 every replicate mean of y is 2 * (replicate mean of x) + 1.
        let mut w = PoissonWeights::new(100, 9);
        let (mut mx, mut my) = (PoissonBootstrapMean::new(100, 0), PoissonBootstrapMean::new(100, 0));
        for i in 0..50 {
            let x = (i % 7) as f64;
            let weights = w.draw();
            mx.push_weighted(x, weights);
            my.push_weighted(2.0 * x + 1.0, weights);
        }
        let (cx, cy) = (mx.ci(0.9).unwrap(), my.ci(0.9).unwrap());
        assert!((cy.low - (2.0 * cx.low + 1.0)).abs() < 1e-12);
        assert!((cy.high - (2.0 * cx.high + 1.0)).abs() < 1e-12);
    }
}
