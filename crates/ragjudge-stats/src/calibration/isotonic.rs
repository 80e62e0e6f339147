//! Isotonic regression (HCAT §5.1, "Isotonic Regression"): the non-decreasing
//! step function closest in squared error to the labels, as scikit-learn's
//! `IsotonicRegression(increasing=True, out_of_bounds="clip")`: rows are sorted by score,
//! rows with equal scores (closer than 1e-15, numpy's float64 resolution) are merged into one
//! point with their mean label and summed weight, the pool-adjacent-violators algorithm fits
//! the merged points, and predictions interpolate linearly between the fitted points, clipped
//! to the fitted score range.

use super::CalibrationError;
use serde::{Deserialize, Serialize};

/// A fitted isotonic regression: the points that define its piecewise-linear interpolant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct IsotonicCalibrator {
    /// Increasing scores of the fitted points.
    pub x_thresholds: Vec<f64>,
    /// Fitted (non-decreasing) values at `x_thresholds`.
    pub y_thresholds: Vec<f64>,
}

/// numpy's `finfo(float64).resolution`, the merge tolerance of scikit-learn's `_make_unique`.
const RESOLUTION: f64 = 1e-15;

impl IsotonicCalibrator {
    /// Fits on scores `x` and targets `y` (for calibration, 0/1 labels), with unit weights.
    pub fn fit(x: &[f64], y: &[f64]) -> Result<Self, CalibrationError> {
        if x.is_empty() {
            return Err(CalibrationError::Empty);
        }
        if x.len() != y.len() {
            return Err(CalibrationError::LengthMismatch { scores: x.len(), labels: y.len() });
        }
        if !x.iter().chain(y).all(|v| v.is_finite()) {
            return Err(CalibrationError::NonFinite);
        }
        // Sort by score, then by target (numpy `lexsort((y, X))`).
        let mut order: Vec<usize> = (0..x.len()).collect();
        order.sort_by(|&i, &j| x[i].total_cmp(&x[j]).then(y[i].total_cmp(&y[j])));
        // Merge tied scores (`_make_unique`).
        let (mut ux, mut uy, mut uw) = (Vec::new(), Vec::new(), Vec::new());
        let (mut cx, mut sy, mut sw) = (x[order[0]], 0.0, 0.0);
        for &i in &order {
            if x[i] - cx >= RESOLUTION {
                ux.push(cx);
                uy.push(sy / sw);
                uw.push(sw);
                (cx, sy, sw) = (x[i], 0.0, 0.0);
            }
            sy += y[i];
            sw += 1.0;
        }
        ux.push(cx);
        uy.push(sy / sw);
        uw.push(sw);
        let fitted = pava(&uy, &uw);
        // Drop interior points whose value equals both neighbours (no effect on the interpolant).
        let n = fitted.len();
        let keep: Vec<usize> = (0..n)
            .filter(|&i| i == 0 || i + 1 == n || fitted[i] != fitted[i - 1] || fitted[i] != fitted[i + 1])
            .collect();
        Ok(IsotonicCalibrator {
            x_thresholds: keep.iter().map(|&i| ux[i]).collect(),
            y_thresholds: keep.iter().map(|&i| fitted[i]).collect(),
        })
    }

    /// The fitted value at score `s`: clipped to the fitted range, then linearly interpolated.
    pub fn predict(&self, s: f64) -> f64 {
        let (xs, ys) = (&self.x_thresholds, &self.y_thresholds);
        if xs.len() == 1 {
            return ys[0];
        }
        let s = s.clamp(xs[0], xs[xs.len() - 1]);
        // scipy `interp1d`: hi = searchsorted(xs, s) clipped to 1..len-1, lo = hi - 1.
        let hi = xs.partition_point(|&v| v < s).clamp(1, xs.len() - 1);
        let lo = hi - 1;
        if s == xs[hi] {
            // Exactly at a fitted point: its value, not the interpolation rounded off by an ulp.
            return ys[hi];
        }
        let slope = (ys[hi] - ys[lo]) / (xs[hi] - xs[lo]);
        slope * (s - xs[lo]) + ys[lo]
    }
}

/// Weighted pool-adjacent-violators: the non-decreasing sequence closest to `y` in weighted
/// squared error.
fn pava(y: &[f64], w: &[f64]) -> Vec<f64> {
    // Blocks of (mean, weight, count), merged while the last two violate monotonicity.
    let mut blocks: Vec<(f64, f64, usize)> = Vec::with_capacity(y.len());
    for (&yi, &wi) in y.iter().zip(w) {
        blocks.push((yi, wi, 1));
        while let [.., (m1, w1, c1), (m2, w2, c2)] = blocks[..] {
            if m1 >= m2 {
                blocks.truncate(blocks.len() - 2);
                let wt = w1 + w2;
                blocks.push(((m1 * w1 + m2 * w2) / wt, wt, c1 + c2));
            } else {
                break;
            }
        }
    }
    blocks.iter().flat_map(|&(m, _, c)| std::iter::repeat_n(m, c)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pools_violators_and_interpolates() {
        // Labels 0, 1, 0, 1 at scores 1..4: points 2 and 3 violate, pooled to (1 + 0)/2 = 0.5,
        // giving 0, 0.5, 0.5, 1; point 3 equals its left neighbour only, so all four are kept.
        let m = IsotonicCalibrator::fit(&[1.0, 2.0, 3.0, 4.0], &[0.0, 1.0, 0.0, 1.0]).unwrap();
        assert_eq!(m.y_thresholds, vec![0.0, 0.5, 0.5, 1.0]);
        assert_eq!(m.predict(1.5), 0.25); // halfway between 0 and 0.5
        assert_eq!(m.predict(3.5), 0.75);
        assert_eq!(m.predict(-10.0), 0.0); // clipped
        assert_eq!(m.predict(10.0), 1.0);
    }

    #[test]
    fn merges_tied_scores() {
        // Scores 1, 1, 2 with labels 1, 0, 1: the tie averages to 0.5 with weight 2.
        let m = IsotonicCalibrator::fit(&[1.0, 1.0, 2.0], &[1.0, 0.0, 1.0]).unwrap();
        assert_eq!(m.x_thresholds, vec![1.0, 2.0]);
        assert_eq!(m.y_thresholds, vec![0.5, 1.0]);
    }
}
