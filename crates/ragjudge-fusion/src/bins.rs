//! Equal-frequency binning of metric scores, the input step of MoE-Concat and MoE-CIU
//! (CIU §3.3: "we categorize metric scores to one of N bins based on each score distribution";
//! the paper uses N = 5).
//!
//! The paper does not say how the bins are drawn from "each score distribution". ragjudge uses
//! equal-frequency bins fitted on the training rows, one set per metric:
//!
//! * the inner edges of metric m are the sample quantiles at 1/N, 2/N, ..., (N-1)/N of that
//!   metric's training column, computed as `numpy.quantile(column, k / N)` with numpy's default
//!   `method="linear"`: with the column sorted as v_0 <= ... <= v_{n-1}, the quantile q sits at
//!   the virtual index h = (n - 1) q and is v_lo + (h - lo)(v_{lo+1} - v_lo) with lo = floor(h)
//!   (numpy's two-sided lerp is reproduced bit for bit);
//! * equal edges are merged. A metric with many ties (BLEU is often 0 for most records) then gets
//!   fewer than N bins: with edges `[0, 0, 0.1, 0.3]` it keeps `[0, 0.1, 0.3]` and has 4 bins.
//!   [`Bins::n_bins`] stays the requested N (the embedding table keeps N rows per metric; rows no
//!   record reaches are never trained), [`Bins::bins_of`] gives a metric's own count;
//! * a value is binned as `numpy.digitize(value, inner_edges, right=False)`: its bin is the number
//!   of inner edges `<=` the value, so a value equal to an edge goes to the upper bin, values below
//!   the first edge go to bin 0 and values at or above the last edge go to the last bin, however far
//!   out of the training range they lie. As in numpy, NaN goes to the last bin.
//!
//! A consequence of the `<=` rule with merged ties: when a column's minimum equals its first edge
//! (e.g. a BLEU column whose first 40% are zeros), no training value falls in bin 0.

use serde::{Deserialize, Serialize};

use crate::FusionError;

/// Fitted equal-frequency bins: for each metric, its ascending, distinct inner edges.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(try_from = "BinsData", into = "BinsData")]
pub struct Bins {
    n_bins: usize,
    edges: Vec<Vec<f64>>,
}

/// The serialised form of [`Bins`], checked on load.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
struct BinsData {
    n_bins: usize,
    edges: Vec<Vec<f64>>,
}

impl From<Bins> for BinsData {
    fn from(b: Bins) -> Self {
        BinsData { n_bins: b.n_bins, edges: b.edges }
    }
}

impl TryFrom<BinsData> for Bins {
    type Error = FusionError;

    fn try_from(d: BinsData) -> Result<Self, Self::Error> {
        if d.n_bins < 2 {
            return Err(FusionError::Model(format!("bins: n_bins is {}, expected at least 2", d.n_bins).into()));
        }
        if d.edges.is_empty() {
            return Err(FusionError::Model("bins: no metrics".into()));
        }
        for (m, e) in d.edges.iter().enumerate() {
            if e.is_empty() || e.len() > d.n_bins - 1 {
                return Err(FusionError::Model(
                    format!("bins: metric {m} has {} inner edges, expected 1 to {}", e.len(), d.n_bins - 1).into(),
                ));
            }
            if e.iter().any(|v| !v.is_finite()) || e.windows(2).any(|w| w[0] >= w[1]) {
                return Err(FusionError::Model(
                    format!("bins: the edges of metric {m} are not finite and strictly ascending").into(),
                ));
            }
        }
        Ok(Bins { n_bins: d.n_bins, edges: d.edges })
    }
}

impl Bins {
    /// Fits equal-frequency bins per column from the training rows (`x[record][metric]`): inner
    /// edges at the quantiles 1/N, ..., (N-1)/N (`numpy.quantile`, linear interpolation). Equal
    /// edges (ties, e.g. many BLEU zeros) are merged, so a column may get fewer than N bins; see
    /// the module docs.
    ///
    /// # Errors
    /// [`FusionError::Params`] when `n_bins < 2`; [`FusionError::Data`] when `x` is empty, its rows
    /// are empty or of different lengths, or a value is NaN or infinite.
    pub fn fit(x: &[Vec<f64>], n_bins: usize) -> Result<Bins, FusionError> {
        if n_bins < 2 {
            return Err(FusionError::Params(format!("bins: n_bins is {n_bins}, expected at least 2")));
        }
        let Some(first) = x.first() else {
            return Err(FusionError::Data("bins: no rows to fit on".into()));
        };
        let m = first.len();
        if m == 0 {
            return Err(FusionError::Data("bins: rows have no metric values".into()));
        }
        for (i, row) in x.iter().enumerate() {
            if row.len() != m {
                return Err(FusionError::Data(format!("bins: row {i} has {} values, row 0 has {m}", row.len())));
            }
            if let Some(j) = row.iter().position(|v| !v.is_finite()) {
                return Err(FusionError::Data(format!("bins: row {i}, metric {j} is {}", row[j])));
            }
        }
        let edges = (0..m)
            .map(|j| {
                let mut col: Vec<f64> = x.iter().map(|row| row[j]).collect();
                col.sort_by(f64::total_cmp);
                let mut e: Vec<f64> = Vec::with_capacity(n_bins - 1);
                for k in 1..n_bins {
                    // Non-empty and finite (checked above), so every quantile exists.
                    let q = ragjudge_stats::quantile_sorted(&col, k as f64 / n_bins as f64);
                    if let Some(q) = q.filter(|&q| e.last().is_none_or(|&last| q > last)) {
                        e.push(q);
                    }
                }
                e
            })
            .collect();
        Ok(Bins { n_bins, edges })
    }

    /// The bin index of each value of `row`, as `numpy.digitize(value, inner_edges, right=False)`:
    /// the number of the metric's inner edges `<=` the value (a value equal to an edge goes up).
    /// Values out of the training range go to the first or last bin; NaN goes to the last bin.
    ///
    /// # Panics
    /// When `row.len() != self.n_metrics()`.
    pub fn bin(&self, row: &[f64]) -> Vec<usize> {
        assert_eq!(
            row.len(),
            self.edges.len(),
            "Bins::bin: the row has {} values, the bins were fitted on {} metrics",
            row.len(),
            self.edges.len()
        );
        row.iter().zip(&self.edges).map(|(&v, e)| bin_one(v, e)).collect()
    }

    /// The requested number of bins N (the most any metric has).
    pub fn n_bins(&self) -> usize {
        self.n_bins
    }

    /// The number of metrics M.
    pub fn n_metrics(&self) -> usize {
        self.edges.len()
    }

    /// The ascending, distinct inner edges of `metric`.
    ///
    /// # Panics
    /// When `metric >= self.n_metrics()`.
    pub fn edges(&self, metric: usize) -> &[f64] {
        &self.edges[metric]
    }

    /// The number of bins `metric` actually has: its inner edges plus one (N, or fewer after ties
    /// were merged).
    ///
    /// # Panics
    /// When `metric >= self.n_metrics()`.
    pub fn bins_of(&self, metric: usize) -> usize {
        self.edges[metric].len() + 1
    }
}

/// `numpy.digitize(v, edges, right=False)` for ascending `edges`.
pub(crate) fn bin_one(v: f64, edges: &[f64]) -> usize {
    if v.is_nan() {
        return edges.len();
    }
    edges.partition_point(|&e| e <= v)
}
