//! Agreement among several annotators who each label some of the items: Krippendorff's alpha
//! at four levels of measurement, the mean of pairwise Cohen's kappas, and Fleiss' kappa.
//!
//! Reliability data are annotators x items, `None` where an annotator did not label an item
//! (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability", section A). Labels are
//! numbers: category codes for nominal data, ranks or scores otherwise.
//! [`ReliabilityData::from_triples`] builds the matrix from (annotator, item, value) triples,
//! as read from one label file per annotator.

use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Display;

use serde::{Deserialize, Serialize};

use crate::agreement::{cohen_kappa, Weights};
use crate::error::StatsError;
use crate::rank::cmp_f64;

/// Reliability data with the keys of its rows and columns.
#[derive(Debug, Clone, PartialEq)]
pub struct ReliabilityData<A, I> {
    /// Annotator keys in sorted order, one per row of `values`.
    pub annotators: Vec<A>,
    /// Item keys in sorted order, one per column of `values`.
    pub items: Vec<I>,
    /// `values[a][i]`: the label annotator `a` gave item `i`, `None` where there is none.
    pub values: Vec<Vec<Option<f64>>>,
}

impl<A: Ord + Display, I: Ord + Clone + Display> ReliabilityData<A, I> {
    /// Annotators x items matrix from (annotator, item, value) triples; an item appears once
    /// it has one label. Errors on a non-finite value or a second label for the same cell.
    pub fn from_triples(triples: impl IntoIterator<Item = (A, I, f64)>) -> Result<Self, StatsError> {
        let mut cells = BTreeMap::new();
        let mut items = BTreeSet::new();
        for (annotator, item, value) in triples {
            if !value.is_finite() {
                return Err(StatsError::NonFinite);
            }
            items.insert(item.clone());
            match cells.entry((annotator, item)) {
                Entry::Occupied(cell) => {
                    let (annotator, item) = cell.key();
                    return Err(StatsError::DuplicateRating {
                        annotator: annotator.to_string(),
                        item: item.to_string(),
                    });
                }
                Entry::Vacant(cell) => {
                    cell.insert(value);
                }
            }
        }
        let items: Vec<I> = items.into_iter().collect();
        let (mut annotators, mut values) = (Vec::<A>::new(), Vec::<Vec<Option<f64>>>::new());
        for ((annotator, item), value) in cells {
            if annotators.last() != Some(&annotator) {
                annotators.push(annotator);
                values.push(vec![None; items.len()]);
            }
            if let (Ok(column), Some(row)) = (items.binary_search(&item), values.last_mut()) {
                row[column] = Some(value);
            }
        }
        Ok(Self { annotators, items, values })
    }
}

/// Level of measurement of the labels, which fixes the difference function of
/// Krippendorff's alpha (Krippendorff 2011, section E).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MeasurementLevel {
    /// Categories: `delta(c, k) = 1` when `c != k`.
    Nominal,
    /// Ranks: `delta(c, k) = (sum_{g=c..k} n_g - (n_c + n_k) / 2)^2` over the values'
    /// pairable counts `n_g` in rank order.
    Ordinal,
    /// Scores: `delta(c, k) = (c - k)^2`.
    Interval,
    /// Scores with a true zero: `delta(c, k) = ((c - k) / (c + k))^2`, 0 when `c + k = 0`.
    Ratio,
}

impl MeasurementLevel {
    /// The four levels, from nominal to ratio.
    pub const ALL: [MeasurementLevel; 4] = [Self::Nominal, Self::Ordinal, Self::Interval, Self::Ratio];
}

/// Krippendorff's alpha with the counts a report shows next to it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct KrippendorffAlpha {
    /// `1 - D_o / D_e`; `None` when undefined: no pairable item, or `D_e = 0` (a single
    /// value among the pairable ones, or, at ratio level, only `v` and `-v`).
    pub alpha: Option<f64>,
    /// The level of measurement used.
    pub level: MeasurementLevel,
    /// Observed disagreement `D_o = sum_ck o_ck delta_ck / n` (0 without pairable items).
    pub observed_disagreement: f64,
    /// Expected disagreement `D_e = sum_ck n_c n_k delta_ck / (n (n - 1))` (0 without
    /// pairable items).
    pub expected_disagreement: f64,
    /// Items labelled by at least two annotators; the others are left out.
    pub pairable_items: usize,
    /// `n`: the number of labels on pairable items.
    pub pairable_values: usize,
    /// Items in the data (columns).
    pub items: usize,
    /// Annotators in the data (rows).
    pub annotators: usize,
}

/// Krippendorff's alpha of `data` (annotators x items, `None` where missing) at `level`,
/// through the coincidence matrix (Krippendorff 2011, sections C-E; Hayes & Krippendorff
/// 2007), as `krippendorff.alpha(reliability_data=..., level_of_measurement=...)` of the
/// `krippendorff` package 0.8.1.
///
/// Each item labelled `m_u >= 2` times adds `n_uc (n_uk - [c = k]) / (m_u - 1)` to the
/// coincidence `o_ck`; items with fewer labels are not pairable and are left out. Then
/// `alpha = 1 - (n - 1) sum o_ck delta_ck / sum n_c n_k delta_ck` with `n_c = sum_k o_ck`.
/// Errors on rows of different lengths or a non-finite value; see
/// [`KrippendorffAlpha::alpha`] for when alpha is undefined. Time is quadratic in the number
/// of distinct values (continuous scores: one per label); memory grows with the labels only.
pub fn krippendorff_alpha(data: &[Vec<Option<f64>>], level: MeasurementLevel) -> Result<KrippendorffAlpha, StatsError> {
    let items = check_matrix(data)?;
    let co = Coincidences::new(data, items);
    let n = co.pairable_values as f64;
    let delta = Distance::new(level, &co.values, &co.counts);
    let observed: f64 = co.cells.iter().map(|(&(c, k), o)| o * delta.get(c, k)).sum();
    // The sum over c != k of n_c n_k delta_ck (delta_cc = 0 at every level), twice c < k.
    let mut expected = 0.0;
    for c in 0..co.values.len() {
        for k in c + 1..co.values.len() {
            expected += co.counts[c] * co.counts[k] * delta.get(c, k);
        }
    }
    let expected = if co.pairable_values > 1 { 2.0 * expected / (n - 1.0) } else { 0.0 };
    let alpha = (expected > 0.0).then(|| 1.0 - observed / expected).filter(|a| a.is_finite());
    let per_value = |sum: f64| if co.pairable_values > 0 { sum / n } else { 0.0 };
    Ok(KrippendorffAlpha {
        alpha,
        level,
        observed_disagreement: per_value(observed),
        expected_disagreement: per_value(expected),
        pairable_items: co.pairable_items,
        pairable_values: co.pairable_values,
        items,
        annotators: data.len(),
    })
}

/// Checks that every row has the same length and every value is finite; returns the length.
fn check_matrix(data: &[Vec<Option<f64>>]) -> Result<usize, StatsError> {
    let items = data.first().map_or(0, Vec::len);
    for row in data {
        if row.len() != items {
            return Err(StatsError::LengthMismatch { left: items, right: row.len() });
        }
        if row.iter().flatten().any(|v| !v.is_finite()) {
            return Err(StatsError::NonFinite);
        }
    }
    Ok(items)
}

/// The labels of item `j`.
fn column(data: &[Vec<Option<f64>>], j: usize) -> Vec<f64> {
    data.iter().filter_map(|row| row[j]).collect()
}

/// Sorted distinct values (`-0.0` equal to `0.0`, as numpy's `unique`).
fn distinct(values: impl IntoIterator<Item = f64>) -> Vec<f64> {
    let mut values: Vec<f64> = values.into_iter().collect();
    values.sort_by(|a, b| cmp_f64(*a, *b));
    values.dedup_by(|a, b| cmp_f64(*a, *b).is_eq());
    values
}

/// Position of `v` in the sorted distinct `values` (it is always there).
fn code(values: &[f64], v: f64) -> usize {
    values.binary_search_by(|w| cmp_f64(*w, v)).unwrap_or_else(|i| i)
}

/// `(code, count)` of the labels of one item, codes ascending.
fn tally(values: &[f64], labels: &[f64]) -> Vec<(usize, f64)> {
    let mut codes: Vec<usize> = labels.iter().map(|&v| code(values, v)).collect();
    codes.sort_unstable();
    let mut out: Vec<(usize, f64)> = Vec::new();
    for c in codes {
        match out.last_mut() {
            Some((last, count)) if *last == c => *count += 1.0,
            _ => out.push((c, 1.0)),
        }
    }
    out
}

/// The coincidence matrix of the pairable items, stored by its nonzero cells so that its size
/// follows the labels rather than the square of the number of distinct values.
struct Coincidences {
    /// Distinct values on pairable items, ascending.
    values: Vec<f64>,
    /// `n_c`: labels with value `values[c]` on pairable items (the column sums of `o`).
    counts: Vec<f64>,
    /// `o_ck` for the nonzero cells.
    cells: BTreeMap<(usize, usize), f64>,
    pairable_items: usize,
    pairable_values: usize,
}

impl Coincidences {
    fn new(data: &[Vec<Option<f64>>], items: usize) -> Self {
        let units: Vec<Vec<f64>> = (0..items).map(|j| column(data, j)).filter(|u| u.len() >= 2).collect();
        let values = distinct(units.iter().flatten().copied());
        let mut counts = vec![0.0; values.len()];
        let mut cells = BTreeMap::new();
        for unit in &units {
            let pairs_per_label = unit.len() as f64 - 1.0;
            let tallied = tally(&values, unit);
            for &(c, n_c) in &tallied {
                counts[c] += n_c;
                for &(k, n_k) in &tallied {
                    let pairs = if c == k { n_c * (n_k - 1.0) } else { n_c * n_k };
                    if pairs > 0.0 {
                        *cells.entry((c, k)).or_insert(0.0) += pairs / pairs_per_label;
                    }
                }
            }
        }
        let pairable_values = units.iter().map(Vec::len).sum();
        Self { values, counts, cells, pairable_items: units.len(), pairable_values }
    }
}

/// The difference function `delta_ck` of a level over coded values.
struct Distance<'a> {
    level: MeasurementLevel,
    values: &'a [f64],
    counts: &'a [f64],
    /// `prefix[c]`: the sum of `counts[..c]`, for ordinal ranges.
    prefix: Vec<f64>,
}

impl<'a> Distance<'a> {
    fn new(level: MeasurementLevel, values: &'a [f64], counts: &'a [f64]) -> Self {
        let prefix = std::iter::once(0.0)
            .chain(counts.iter().scan(0.0, |sum, n| {
                *sum += n;
                Some(*sum)
            }))
            .collect();
        Self { level, values, counts, prefix }
    }

    fn get(&self, c: usize, k: usize) -> f64 {
        let (lo, hi) = (c.min(k), c.max(k));
        match self.level {
            MeasurementLevel::Nominal => f64::from(u8::from(c != k)),
            MeasurementLevel::Ordinal => {
                let d = self.prefix[hi + 1] - self.prefix[lo] - (self.counts[lo] + self.counts[hi]) / 2.0;
                d * d
            }
            MeasurementLevel::Interval => (self.values[c] - self.values[k]).powi(2),
            MeasurementLevel::Ratio => {
                let sum = self.values[c] + self.values[k];
                if sum == 0.0 {
                    0.0
                } else {
                    ((self.values[c] - self.values[k]) / sum).powi(2)
                }
            }
        }
    }
}

/// Cohen's kappa of one pair of annotators on the items both labelled.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PairKappa {
    /// Row of the first annotator.
    pub first: usize,
    /// Row of the second annotator (`second > first`).
    pub second: usize,
    /// Items labelled by both.
    pub items: usize,
    /// Cohen's kappa on those items; `None` when undefined (no common item, or one label).
    pub kappa: Option<f64>,
}

/// Cohen's kappa of every pair of annotators and their mean.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PairwiseKappa {
    /// Unweighted mean of the defined pairwise kappas (Light 1971); `None` when none is defined.
    pub mean: Option<f64>,
    /// Every pair `(first, second)` with `first < second`, in row order.
    pub pairs: Vec<PairKappa>,
}

/// Cohen's kappa ([`cohen_kappa`], as scikit-learn) of every pair of annotators of `data`
/// (annotators x items) on the items both labelled, and their mean (Light 1971).
///
/// Each pair's label set is the sorted union of its own labels, so weighted kappa's
/// distances are positions in that set, as `cohen_kappa_score` on the pair's values.
/// Errors on rows of different lengths or a non-finite value.
pub fn pairwise_cohen_kappa(data: &[Vec<Option<f64>>], weights: Weights) -> Result<PairwiseKappa, StatsError> {
    let items = check_matrix(data)?;
    let values = distinct(data.iter().flatten().flatten().copied());
    let mut pairs = Vec::new();
    for (first, a) in data.iter().enumerate() {
        for (second, b) in data.iter().enumerate().skip(first + 1) {
            let (codes_a, codes_b): (Vec<usize>, Vec<usize>) =
                (0..items).filter_map(|j| Some((code(&values, a[j]?), code(&values, b[j]?)))).unzip();
            let kappa = cohen_kappa(&codes_a, &codes_b, weights)?;
            pairs.push(PairKappa { first, second, items: codes_a.len(), kappa });
        }
    }
    let defined: Vec<f64> = pairs.iter().filter_map(|p| p.kappa).collect();
    let mean = (!defined.is_empty()).then(|| defined.iter().sum::<f64>() / defined.len() as f64);
    Ok(PairwiseKappa { mean, pairs })
}

/// Fleiss' (1971) kappa of `data` (annotators x items), as statsmodels'
/// `fleiss_kappa(aggregate_raters(data.T)[0], method="fleiss")`.
///
/// `kappa = (P - P_e) / (1 - P_e)` with `P` the mean over items of
/// `(sum_j n_ij^2 - m) / (m (m - 1))` and `P_e = sum_j p_j^2`, `p_j` the share of category j.
/// Every item needs the same number `m` of labels (any annotators); errors otherwise, on rows
/// of different lengths or a non-finite value. `None` when undefined: no item, `m < 2`, or a
/// single category.
pub fn fleiss_kappa(data: &[Vec<Option<f64>>]) -> Result<Option<f64>, StatsError> {
    let items = check_matrix(data)?;
    let columns: Vec<Vec<f64>> = (0..items).map(|j| column(data, j)).collect();
    let m = columns.first().map_or(0, Vec::len);
    if let Some(item) = columns.iter().position(|c| c.len() != m) {
        return Err(StatsError::UnequalRatings { item, expected: m, found: columns[item].len() });
    }
    if items == 0 || m < 2 {
        return Ok(None);
    }
    let values = distinct(columns.iter().flatten().copied());
    let mut shares = vec![0.0; values.len()];
    let mut agreement = 0.0;
    let m = m as f64;
    for labels in &columns {
        let tallied = tally(&values, labels);
        for &(c, n) in &tallied {
            shares[c] += n;
        }
        agreement += (tallied.iter().map(|(_, n)| n * n).sum::<f64>() - m) / (m * (m - 1.0));
    }
    let total = items as f64 * m;
    let chance: f64 = shares.iter().map(|s| (s / total).powi(2)).sum();
    let kappa = (agreement / items as f64 - chance) / (1.0 - chance);
    Ok((chance < 1.0 && kappa.is_finite()).then_some(kappa))
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_abs_diff_eq;

    /// Three annotators, five items, values 1..3 (rows annotators, `-` missing):
    ///
    /// ```text
    ///        u1 u2 u3 u4 u5
    ///   A     1  1  2  3  -
    ///   B     1  2  2  -  -
    ///   C     1  -  3  3  2
    /// ```
    fn hand() -> Vec<Vec<Option<f64>>> {
        vec![
            vec![Some(1.0), Some(1.0), Some(2.0), Some(3.0), None],
            vec![Some(1.0), Some(2.0), Some(2.0), None, None],
            vec![Some(1.0), None, Some(3.0), Some(3.0), Some(2.0)],
        ]
    }

    /// Coincidences, each pairable unit adding its ordered pairs of labels divided by
    /// `m_u - 1` (u5 has one label and is left out):
    ///   u1 {1,1,1}, m=3: 3*2 pairs (1,1) / 2 -> o11 += 3
    ///   u2 {1,2},   m=2: o12 += 1, o21 += 1
    ///   u3 {2,2,3}, m=3: 2*1 pairs (2,2) / 2 -> o22 += 1; 2*1 pairs (2,3) / 2 -> o23 += 1, o32 += 1
    ///   u4 {3,3},   m=2: o33 += 2
    /// o = [[3,1,0],[1,1,1],[0,1,2]]; n_1 = 4, n_2 = 3, n_3 = 3, n = 10.
    /// alpha = 1 - (n - 1) sum o_ck delta_ck / sum n_c n_k delta_ck:
    ///   nominal:  sum o delta = 4;  sum n n delta = 2 (12 + 12 + 9) = 66; 1 - 9*4/66 = 5/11.
    ///   interval: delta12 = 1, delta23 = 1, delta13 = 4; sum o delta = 4;
    ///             sum n n delta = 2 (12 + 9 + 12*4) = 138; 1 - 36/138 = 17/23.
    ///   ordinal:  delta12 = (4 + 3 - 3.5)^2 = 12.25, delta23 = (3 + 3 - 3)^2 = 9,
    ///             delta13 = (4 + 3 + 3 - 3.5)^2 = 42.25; sum o delta = 2*12.25 + 2*9 = 42.5;
    ///             sum n n delta = 2 (12*12.25 + 9*9 + 12*42.25) = 1470; 1 - 9*42.5/1470 = 145/196.
    ///   ratio:    delta12 = (1/3)^2, delta23 = (1/5)^2, delta13 = (2/4)^2;
    ///             sum o delta = 2/9 + 2/25 = 68/225; sum n n delta = 2 (12/9 + 9/25 + 12/4) = 704/75;
    ///             1 - 9 (68/225) / (704/75) = 125/176.
    #[test]
    fn alpha_by_hand() {
        let data = hand();
        let co = Coincidences::new(&data, 5);
        assert_eq!(co.values, vec![1.0, 2.0, 3.0]);
        assert_eq!(co.counts, vec![4.0, 3.0, 3.0]);
        let dense: Vec<Vec<f64>> =
            (0..3).map(|c| (0..3).map(|k| co.cells.get(&(c, k)).copied().unwrap_or(0.0)).collect()).collect();
        assert_eq!(dense, vec![vec![3.0, 1.0, 0.0], vec![1.0, 1.0, 1.0], vec![0.0, 1.0, 2.0]]);
        for (level, want) in [
            (MeasurementLevel::Nominal, 5.0 / 11.0),
            (MeasurementLevel::Interval, 17.0 / 23.0),
            (MeasurementLevel::Ordinal, 145.0 / 196.0),
            (MeasurementLevel::Ratio, 125.0 / 176.0),
        ] {
            let a = krippendorff_alpha(&data, level).unwrap();
            assert_abs_diff_eq!(a.alpha.unwrap(), want, epsilon = 1e-12);
            assert_eq!((a.pairable_items, a.pairable_values, a.items, a.annotators), (4, 10, 5, 3));
        }
        let nominal = krippendorff_alpha(&data, MeasurementLevel::Nominal).unwrap();
        // D_o = 4 / 10, D_e = 66 / (10 * 9).
        assert_abs_diff_eq!(nominal.observed_disagreement, 0.4, epsilon = 1e-15);
        assert_abs_diff_eq!(nominal.expected_disagreement, 66.0 / 90.0, epsilon = 1e-15);
    }

    #[test]
    fn alpha_ignores_order_of_annotators_and_items() {
        let data = hand();
        let mut shuffled: Vec<Vec<Option<f64>>> =
            data.iter().rev().map(|row| [3, 0, 4, 2, 1].iter().map(|&j| row[j]).collect()).collect();
        shuffled.swap(0, 1);
        for level in MeasurementLevel::ALL {
            assert_abs_diff_eq!(
                krippendorff_alpha(&shuffled, level).unwrap().alpha.unwrap(),
                krippendorff_alpha(&data, level).unwrap().alpha.unwrap(),
                epsilon = 1e-14
            );
        }
    }

    #[test]
    fn undefined_alpha_is_none() {
        let no_pairs = vec![vec![Some(1.0), None], vec![None, Some(2.0)]];
        let a = krippendorff_alpha(&no_pairs, MeasurementLevel::Nominal).unwrap();
        assert_eq!((a.alpha, a.pairable_items, a.pairable_values), (None, 0, 0));
        assert_eq!((a.observed_disagreement, a.expected_disagreement), (0.0, 0.0));
        let same = vec![vec![Some(2.0), Some(2.0)], vec![Some(2.0), Some(2.0)]];
        assert_eq!(krippendorff_alpha(&same, MeasurementLevel::Interval).unwrap().alpha, None);
        let opposite = vec![vec![Some(-1.0), Some(1.0)], vec![Some(1.0), Some(1.0)]];
        assert_eq!(krippendorff_alpha(&opposite, MeasurementLevel::Ratio).unwrap().alpha, None);
        assert!(krippendorff_alpha(&opposite, MeasurementLevel::Nominal).unwrap().alpha.is_some());
        assert_eq!(krippendorff_alpha(&[], MeasurementLevel::Ordinal).unwrap().alpha, None);
    }

    #[test]
    fn invalid_data_is_an_error() {
        let ragged = vec![vec![Some(1.0), Some(2.0)], vec![Some(1.0)]];
        assert_eq!(
            krippendorff_alpha(&ragged, MeasurementLevel::Nominal),
            Err(StatsError::LengthMismatch { left: 2, right: 1 })
        );
        let nan = vec![vec![Some(1.0), Some(f64::NAN)], vec![Some(1.0), Some(2.0)]];
        assert_eq!(krippendorff_alpha(&nan, MeasurementLevel::Nominal), Err(StatsError::NonFinite));
        assert_eq!(pairwise_cohen_kappa(&nan, Weights::None), Err(StatsError::NonFinite));
        assert_eq!(fleiss_kappa(&ragged), Err(StatsError::LengthMismatch { left: 2, right: 1 }));
    }

    /// Pairs on the items both labelled (see `hand`):
    ///   A-B on u1..u3: (1,1) (1,2) (2,2); p_o = 2/3, p_e = (2*1 + 1*2)/9 = 4/9; kappa = 2/5.
    ///   A-C on u1,u3,u4: (1,1) (2,3) (3,3); p_o = 2/3, p_e = (1*1 + 1*0 + 1*2)/9 = 1/3; kappa = 1/2.
    ///   B-C on u1,u3: (1,1) (2,3); p_o = 1/2, p_e = (1*1 + 1*0 + 0*1)/4 = 1/4; kappa = 1/3.
    /// Mean (2/5 + 1/2 + 1/3) / 3 = 37/90.
    #[test]
    fn pairwise_kappa_by_hand() {
        let k = pairwise_cohen_kappa(&hand(), Weights::None).unwrap();
        let got: Vec<(usize, usize, usize)> = k.pairs.iter().map(|p| (p.first, p.second, p.items)).collect();
        assert_eq!(got, vec![(0, 1, 3), (0, 2, 3), (1, 2, 2)]);
        for (p, want) in k.pairs.iter().zip([0.4, 0.5, 1.0 / 3.0]) {
            assert_abs_diff_eq!(p.kappa.unwrap(), want, epsilon = 1e-15);
        }
        assert_abs_diff_eq!(k.mean.unwrap(), 37.0 / 90.0, epsilon = 1e-15);
        let apart = vec![vec![Some(1.0), None], vec![None, Some(1.0)]];
        let k = pairwise_cohen_kappa(&apart, Weights::None).unwrap();
        assert_eq!((k.mean, k.pairs[0].items, k.pairs[0].kappa), (None, 0, None));
    }

    /// Items {1,1,2}, {1,2,2}, {2,2,2}, m = 3: P_i = (5-3)/6, (5-3)/6, (9-3)/6 -> P = 5/9;
    /// p_1 = 3/9, p_2 = 6/9, P_e = 1/9 + 4/9 = 5/9; kappa = (5/9 - 5/9) / (4/9) = 0.
    /// Items {1,1,1}, {2,2,2}, {1,1,2}: P = (1 + 1 + 1/3) / 3 = 7/9; p_1 = 5/9, p_2 = 4/9,
    /// P_e = 41/81; kappa = (63/81 - 41/81) / (40/81) = 11/20.
    #[test]
    fn fleiss_by_hand() {
        let f = |x: [[f64; 3]; 3]| -> Vec<Vec<Option<f64>>> {
            (0..3).map(|a| (0..3).map(|j| Some(x[j][a])).collect()).collect()
        };
        let zero = fleiss_kappa(&f([[1.0, 1.0, 2.0], [1.0, 2.0, 2.0], [2.0, 2.0, 2.0]])).unwrap().unwrap();
        assert_abs_diff_eq!(zero, 0.0, epsilon = 1e-15);
        let k = fleiss_kappa(&f([[1.0, 1.0, 1.0], [2.0, 2.0, 2.0], [1.0, 1.0, 2.0]])).unwrap().unwrap();
        assert_abs_diff_eq!(k, 11.0 / 20.0, epsilon = 1e-15);
        assert_eq!(fleiss_kappa(&f([[3.0; 3]; 3])).unwrap(), None);
        assert_eq!(fleiss_kappa(&hand()), Err(StatsError::UnequalRatings { item: 1, expected: 3, found: 2 }));
        // Different annotators per item are fine when every item has the same count.
        let rotated =
            vec![vec![Some(1.0), None, Some(2.0)], vec![Some(1.0), Some(2.0), None], vec![None, Some(2.0), Some(2.0)]];
        assert!(fleiss_kappa(&rotated).unwrap().is_some());
    }

    #[test]
    fn from_triples_builds_the_matrix() {
        let triples =
            vec![("bob", "q2", 3.0), ("ann", "q1", 1.0), ("bob", "q1", 2.0), ("cat", "q3", 1.0), ("ann", "q3", 2.0)];
        let data = ReliabilityData::from_triples(triples).unwrap();
        assert_eq!(data.annotators, vec!["ann", "bob", "cat"]);
        assert_eq!(data.items, vec!["q1", "q2", "q3"]);
        assert_eq!(
            data.values,
            vec![vec![Some(1.0), None, Some(2.0)], vec![Some(2.0), Some(3.0), None], vec![None, None, Some(1.0)],]
        );
        let duplicate = ReliabilityData::from_triples(vec![("ann", 7, 1.0), ("ann", 7, 1.0)]);
        assert_eq!(duplicate, Err(StatsError::DuplicateRating { annotator: "ann".into(), item: "7".into() }));
        assert_eq!(ReliabilityData::from_triples(vec![(1, 1, f64::INFINITY)]), Err(StatsError::NonFinite));
    }
}
