//! Whether the rows a fusion model is applied to are distributed like the rows it was fitted on.
//! A fused score learned on one data set can rank another worse than its best single input when
//! the inputs move (CIU §3.3's bins and weights are fitted on one score distribution); this check
//! says so instead of failing silently.
//!
//! At fit time the model records, per input, its training range and equal-frequency bins (the
//! deciles of [`crate::bins`], ties merged, values binned as `numpy.digitize`) with the training
//! share of each bin. Applied to new rows, each input gets:
//!
//! * **outside**: the share of rows below the training minimum or above the training maximum,
//!   where every model extrapolates;
//! * **PSI**, the population stability index over the fitted bins (Siddiqi 2006, *Credit Risk
//!   Scorecards*, ch. 8; Yurdakul 2018): `sum_b (p_b - q_b) ln(p_b / q_b)` with `p` the new rows'
//!   shares and `q` the training shares; an empty bin counts as half a row on its side (its share
//!   is `0.5 / rows`), so the index stays finite. Each term is >= 0 whatever the floor.
//!
//! An input warns when either exceeds its limit. The limits are the configured thresholds
//! ([`ShiftSettings`]: PSI 0.25, the usual "significant shift" line of credit scoring, and 10% of
//! rows outside the range), raised where a sample of the training distribution itself would
//! exceed them by chance: for few rows, the PSI limit becomes the 95% point of its null
//! distribution, `chi2_{B-1}(1 - 0.05 / M) (1/n + 1/m)` (Yurdakul 2018, §3: PSI (1/n + 1/m)^-1 is
//! asymptotically chi-square with B - 1 degrees of freedom, B the bins with training rows; M the
//! inputs, so that the level holds for all inputs together), and the outside limit the smallest
//! share `k / n` with `P(X > k) <= 0.05 / M` for `X ~ Binomial(n, 2 / (m + 1))` (a new draw falls
//! outside the range of m earlier ones with probability 2 / (m + 1)); n rows checked, m trained on.

use crate::bins::{bin_one, Bins};
use crate::FusionError;
use serde::{Deserialize, Serialize};
use statrs::distribution::{Binomial, ChiSquared, ContinuousCDF, DiscreteCDF};
use std::fmt::Write as _;

/// Bins per input: deciles, the usual resolution of the population stability index.
pub const SHIFT_BINS: usize = 10;

/// The level at which a sample of the training distribution may warn, over all inputs together.
pub const NULL_LEVEL: f64 = 0.05;

/// The training distribution of every input of a model, recorded when it is fitted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ShiftReference {
    /// Training rows.
    pub rows: usize,
    /// Per input, in the model's input order.
    pub inputs: Vec<InputDistribution>,
}

/// One input's training distribution.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct InputDistribution {
    /// Smallest training value.
    pub min: f64,
    /// Largest training value.
    pub max: f64,
    /// Inner bin edges, ascending and distinct (equal-frequency, ties merged).
    pub edges: Vec<f64>,
    /// Share of the training rows in each bin (one more than the edges; sums to 1).
    pub shares: Vec<f64>,
}

/// When an input warns.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ShiftSettings {
    /// PSI above which an input warns (raised for small samples, see the module docs).
    pub psi: f64,
    /// Share of rows outside the training range above which an input warns (likewise raised).
    pub outside: f64,
}

impl Default for ShiftSettings {
    /// PSI 0.25, 10% of rows outside the training range.
    fn default() -> Self {
        ShiftSettings { psi: 0.25, outside: 0.10 }
    }
}

impl ShiftSettings {
    /// Refuses thresholds that are negative, not finite, or (outside) above 1.
    pub fn validate(&self) -> Result<(), FusionError> {
        if !(self.psi.is_finite() && self.psi >= 0.0) {
            return Err(FusionError::Params(format!("shift threshold must be a number >= 0, got {}", self.psi)));
        }
        if !(self.outside.is_finite() && (0.0..=1.0).contains(&self.outside)) {
            return Err(FusionError::Params(format!("outside threshold must be in [0, 1], got {}", self.outside)));
        }
        Ok(())
    }
}

/// The shift check of one application.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ShiftReport {
    /// Rows checked (those with every input value).
    pub rows: usize,
    /// Rows the model was fitted on.
    pub training_rows: usize,
    /// The thresholds asked for.
    pub settings: ShiftSettings,
    /// Per input.
    pub inputs: Vec<InputShift>,
    /// Whether any input warns.
    pub warned: bool,
}

/// One input's shift.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InputShift {
    /// The input column.
    pub input: String,
    /// Share of rows outside the training range.
    pub outside: f64,
    /// The outside share above which it warns (the threshold or, for few rows, the null's).
    pub outside_limit: f64,
    /// Population stability index over the fitted bins.
    pub psi: f64,
    /// The PSI above which it warns (the threshold or, for few rows, the null's).
    pub psi_limit: f64,
    /// Whether it warns.
    pub warn: bool,
}

impl ShiftReference {
    /// Records the range and the training share of each of `bins` equal-frequency bins of every
    /// column of `x` (rows of finite values; [`SHIFT_BINS`] in a model).
    pub fn fit(x: &[Vec<f64>], bins: usize) -> Result<ShiftReference, FusionError> {
        let fitted = Bins::fit(x, bins)?;
        let n = x.len() as f64;
        let inputs = (0..fitted.n_metrics())
            .map(|j| {
                let edges = fitted.edges(j).to_vec();
                let mut counts = vec![0usize; edges.len() + 1];
                for row in x {
                    counts[bin_one(row[j], &edges)] += 1;
                }
                let shares = counts.iter().map(|&c| c as f64 / n).collect();
                let col = x.iter().map(|r| r[j]);
                let min = col.clone().fold(f64::INFINITY, f64::min);
                let max = col.fold(f64::NEG_INFINITY, f64::max);
                InputDistribution { min, max, edges, shares }
            })
            .collect();
        Ok(ShiftReference { rows: x.len(), inputs })
    }

    /// Checks that the reference fits `n_inputs` inputs and that its numbers are usable.
    pub fn validate(&self, n_inputs: usize) -> Result<(), String> {
        if self.inputs.len() != n_inputs {
            return Err(format!(
                "the shift reference describes {} inputs, the model has {n_inputs}",
                self.inputs.len()
            ));
        }
        for (j, d) in self.inputs.iter().enumerate() {
            let ordered = d.edges.windows(2).all(|w| w[0] < w[1]);
            let finite = d.edges.iter().chain([&d.min, &d.max]).all(|v| v.is_finite());
            if !(ordered && finite && d.min <= d.max && d.shares.len() == d.edges.len() + 1) {
                return Err(format!("the shift reference of input {} is malformed", j + 1));
            }
        }
        Ok(())
    }

    /// Counts of new rows, to be filled one row at a time ([`ShiftTally::add`]).
    pub fn tally(&self) -> ShiftTally {
        ShiftTally {
            rows: 0,
            bins: self.inputs.iter().map(|d| vec![0; d.shares.len()]).collect(),
            outside: vec![0; self.inputs.len()],
        }
    }

    /// [`ShiftTally::report`] of `rows` (each with a value per input, in order).
    pub fn check(&self, names: &[String], rows: &[Vec<f64>], settings: &ShiftSettings) -> ShiftReport {
        let mut tally = self.tally();
        for r in rows {
            tally.add(self, r);
        }
        tally.report(self, names, settings)
    }
}

/// Per input, how many new rows fell in each fitted bin and outside the training range.
#[derive(Debug, Clone, PartialEq)]
pub struct ShiftTally {
    rows: usize,
    bins: Vec<Vec<usize>>,
    outside: Vec<usize>,
}

impl ShiftTally {
    /// Counts one row (a value per input, in the reference's order; extra values are ignored).
    pub fn add(&mut self, reference: &ShiftReference, row: &[f64]) {
        self.rows += 1;
        for (j, (d, &v)) in reference.inputs.iter().zip(row).enumerate() {
            self.bins[j][bin_one(v, &d.edges)] += 1;
            if !(d.min..=d.max).contains(&v) {
                self.outside[j] += 1;
            }
        }
    }

    /// Rows counted.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Each input's outside share and PSI against `reference`, and whether it warns (module docs).
    pub fn report(&self, reference: &ShiftReference, names: &[String], settings: &ShiftSettings) -> ShiftReport {
        let (n, m) = (self.rows, reference.rows);
        let level = NULL_LEVEL / reference.inputs.len().max(1) as f64;
        let outside_null = outside_null_limit(n, m, level);
        let inputs: Vec<InputShift> = reference
            .inputs
            .iter()
            .enumerate()
            .map(|(j, d)| {
                let outside = share(self.outside[j], n);
                let psi = psi(&self.bins[j], n, &d.shares, m);
                let occupied = d.shares.iter().filter(|&&q| q > 0.0).count();
                let psi_limit = settings.psi.max(psi_null_limit(occupied, n, m, level));
                let outside_limit = settings.outside.max(outside_null);
                let warn = n > 0 && (psi > psi_limit || outside > outside_limit);
                let input = names.get(j).cloned().unwrap_or_else(|| format!("input {}", j + 1));
                InputShift { input, outside, outside_limit, psi, psi_limit, warn }
            })
            .collect();
        let warned = inputs.iter().any(|i| i.warn);
        ShiftReport { rows: n, training_rows: m, settings: *settings, inputs, warned }
    }
}

fn share(count: usize, n: usize) -> f64 {
    if n == 0 {
        0.0
    } else {
        count as f64 / n as f64
    }
}

/// The population stability index of the counts of `n` new rows against the training shares of
/// `m` rows, an empty bin counting as half a row on its side.
fn psi(counts: &[usize], n: usize, train: &[f64], m: usize) -> f64 {
    if n == 0 || m == 0 {
        return 0.0;
    }
    counts
        .iter()
        .zip(train)
        .map(|(&c, &q)| {
            let p = (c as f64).max(0.5) / n as f64;
            let q = q.max(0.5 / m as f64);
            (p - q) * (p / q).ln()
        })
        .sum()
}

/// The PSI a sample of `n` rows of the training distribution (`m` rows over `occupied` bins)
/// exceeds with probability `level`: `chi2_{B-1}(1 - level) (1/n + 1/m)`.
fn psi_null_limit(occupied: usize, n: usize, m: usize, level: f64) -> f64 {
    if n == 0 || m == 0 {
        return f64::INFINITY;
    }
    let df = occupied.saturating_sub(1).max(1) as f64;
    let q = ChiSquared::new(df).map(|c| c.inverse_cdf(1.0 - level)).unwrap_or(f64::INFINITY);
    q * (1.0 / n as f64 + 1.0 / m as f64)
}

/// The smallest share `k / n` that `n` rows of the training distribution exceed with probability
/// at most `level`, each row falling outside the range of `m` training rows with probability
/// `2 / (m + 1)`.
fn outside_null_limit(n: usize, m: usize, level: f64) -> f64 {
    if n == 0 {
        return 1.0;
    }
    let p = (2.0 / (m as f64 + 1.0)).min(1.0);
    let Ok(b) = Binomial::new(p, n as u64) else { return 1.0 };
    let k = (0..=n as u64).find(|&k| b.sf(k) <= level).unwrap_or(n as u64);
    k as f64 / n as f64
}

impl ShiftReport {
    /// One line per input that warns and a closing line, or one line saying none does.
    pub fn render(&self, what: &str) -> String {
        let mut out = String::new();
        let warned: Vec<&InputShift> = self.inputs.iter().filter(|i| i.warn).collect();
        for i in &warned {
            let _ = writeln!(
                out,
                "warning: {what}: input `{}` moved: {:.1}% of {} rows outside its training range (limit {:.1}%), \
                 PSI {:.3} over its training deciles (limit {:.3})",
                i.input,
                100.0 * i.outside,
                self.rows,
                100.0 * i.outside_limit,
                i.psi,
                i.psi_limit
            );
        }
        if warned.is_empty() {
            let top = self.inputs.iter().max_by(|a, b| a.psi.total_cmp(&b.psi));
            let _ = writeln!(
                out,
                "shift check: {} rows, no input beyond its limits{}",
                self.rows,
                top.map(|t| format!(" (largest PSI {:.3}, `{}`)", t.psi, t.input)).unwrap_or_default()
            );
        } else {
            let _ = writeln!(
                out,
                "warning: {what}: {} of {} inputs are distributed unlike the {} rows the model was fitted on; \
                 its fused scores may rank these rows worse than a single input",
                warned.len(),
                self.inputs.len(),
                self.training_rows
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> Vec<String> {
        vec!["a".into()]
    }

    #[test]
    fn the_reference_records_range_edges_and_training_shares() {
        // By hand: x = 0, 1, 2, 3 in 2 bins: the median (numpy linear) is 1.5; 0 and 1 below, 2 and 3 above.
        let x: Vec<Vec<f64>> = (0..4).map(|i| vec![f64::from(i)]).collect();
        let r = ShiftReference::fit(&x, 2).unwrap();
        assert_eq!(r.rows, 4);
        assert_eq!(r.inputs[0], InputDistribution { min: 0.0, max: 3.0, edges: vec![1.5], shares: vec![0.5, 0.5] });
        assert!(r.validate(1).is_ok());
        assert!(r.validate(2).unwrap_err().contains("describes 1 inputs"));
    }

    #[test]
    fn psi_and_outside_share_by_hand_with_the_small_sample_limits() {
        let x: Vec<Vec<f64>> = (0..4).map(|i| vec![f64::from(i)]).collect();
        let r = ShiftReference::fit(&x, 2).unwrap();
        // Four new rows, all in the upper bin, two above the maximum 3.
        let rows = vec![vec![2.0], vec![2.5], vec![5.0], vec![4.0]];
        let s = r.check(&names(), &rows, &ShiftSettings::default());
        let a = &s.inputs[0];
        // By hand: p = (0.5 / 4, 1) (the empty bin counts as half a row), q = (0.5, 0.5):
        // (0.125 - 0.5) ln(0.25) + (1 - 0.5) ln 2 = 0.519860 + 0.346574 = 0.866434.
        assert!((a.psi - 0.866_434).abs() < 1e-6, "{a:?}");
        assert_eq!(a.outside, 0.5);
        // PSI limit: scipy.stats.chi2.ppf(0.95, 1) = 3.841459 times (1/4 + 1/4) = 1.920729.
        assert!((a.psi_limit - 1.920_729).abs() < 1e-5, "{a:?}");
        // Outside limit: X ~ Binomial(4, 2/5): P(X > 2) = 0.1792, P(X > 3) = 0.0256 <= 0.05 -> 3/4.
        assert_eq!(a.outside_limit, 0.75);
        assert!(!a.warn && !s.warned);
        assert!(s.render("m.json").starts_with("shift check: 4 rows, no input beyond its limits (largest PSI 0.866"));
    }

    #[test]
    fn a_larger_sample_in_one_bin_warns() {
        let x: Vec<Vec<f64>> = (0..4).map(|i| vec![f64::from(i)]).collect();
        let r = ShiftReference::fit(&x, 2).unwrap();
        let rows: Vec<Vec<f64>> = (0..40).map(|i| vec![if i % 2 == 0 { 2.5 } else { 5.0 }]).collect();
        let s = r.check(&names(), &rows, &ShiftSettings::default());
        let a = &s.inputs[0];
        // By hand: p = (0.5 / 40, 1): (0.0125 - 0.5) ln(0.025) + 0.5 ln 2 = 1.798329 + 0.346574 = 2.144903;
        // limit 3.841459 (1/40 + 1/4) = 1.056401.
        assert!((a.psi - 2.144_903).abs() < 1e-6, "{a:?}");
        assert!((a.psi_limit - 1.056_401).abs() < 1e-5, "{a:?}");
        // Outside 20 / 40; scipy.stats.binom(40, 0.4).sf: 0.0744 at k = 20, 0.0392 at k = 21 -> limit 21/40.
        assert_eq!((a.outside, a.outside_limit), (0.5, 0.525));
        assert!(a.warn && s.warned);
        let text = s.render("m.json");
        assert_eq!(
            text,
            "warning: m.json: input `a` moved: 50.0% of 40 rows outside its training range (limit 52.5%), \
             PSI 2.145 over its training deciles (limit 1.056)\n\
             warning: m.json: 1 of 1 inputs are distributed unlike the 4 rows the model was fitted on; \
             its fused scores may rank these rows worse than a single input\n"
        );
    }

    #[test]
    fn a_constant_training_input_warns_through_its_range_only() {
        // Trained on 50 zeros: one bin holds every row, so any new value >= 0 leaves PSI at 0,
        // but a value above 0 lies outside the range.
        let x: Vec<Vec<f64>> = vec![vec![0.0]; 50];
        let r = ShiftReference::fit(&x, SHIFT_BINS).unwrap();
        assert_eq!((r.inputs[0].edges.as_slice(), r.inputs[0].shares.as_slice()), (&[0.0][..], &[0.0, 1.0][..]));
        let rows: Vec<Vec<f64>> = (0..30).map(|i| vec![f64::from(i) / 30.0]).collect();
        let s = r.check(&names(), &rows, &ShiftSettings::default());
        // By hand: counts (0, 30) against (0, 1): the empty bins' floors 0.5/30 and 0.5/50 give
        // (1/60 - 1/100) ln(100/60) = 0.003405; 29 of 30 rows above 0.
        assert!((s.inputs[0].psi - 0.003_405).abs() < 1e-6, "{s:?}");
        assert!((s.inputs[0].outside - 29.0 / 30.0).abs() < 1e-12);
        assert!(s.warned);
    }

    #[test]
    fn bad_thresholds_are_refused() {
        assert!(ShiftSettings { psi: -1.0, outside: 0.1 }.validate().unwrap_err().to_string().contains(">= 0"));
        assert!(ShiftSettings { psi: 0.2, outside: 1.5 }.validate().unwrap_err().to_string().contains("[0, 1]"));
        assert!(ShiftSettings::default().validate().is_ok());
    }
}
