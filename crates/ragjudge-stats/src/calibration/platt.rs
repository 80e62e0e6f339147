//! Platt scaling (HCAT §5.1, "Logistic Model"): `P(y = 1 | s) = 1 / (1 + exp(a·s + b))`,
//! fitted as scikit-learn's `_sigmoid_calibration` (Platt 1999, section 2.2): the 0/1 labels are
//! replaced by the smoothed targets `t+ = (N+ + 1) / (N+ + 2)` and `t- = 1 / (N- + 2)`, and the
//! cross-entropy against those targets is minimised. scikit-learn stops L-BFGS at a gradient of
//! 1e-6; here Newton's method runs to convergence on the same (convex) objective, so parameters
//! agree to about 1e-5. Several score columns give a logistic model with one slope per column.

use super::linalg::{cholesky_solve, expit, softplus};
use super::{check_rows, CalibrationError};
use serde::{Deserialize, Serialize};

/// A fitted Platt scaler, in scikit-learn's sign convention.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PlattScaler {
    /// Slopes `a`, one per score column (a negative slope means higher scores, higher probability).
    pub a: Vec<f64>,
    /// Intercept `b`.
    pub b: f64,
}

const MAX_ITER: usize = 200;

impl PlattScaler {
    /// Fits on score rows `x` and binary labels `y` (`true` = positive).
    #[allow(clippy::needless_range_loop)] // matrix index loops
    pub fn fit(x: &[Vec<f64>], y: &[bool]) -> Result<Self, CalibrationError> {
        let p = check_rows(x, y.len())?;
        let n_pos = y.iter().filter(|&&b| b).count() as f64;
        let n_neg = y.len() as f64 - n_pos;
        let (t_pos, t_neg) = ((n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0));
        let t: Vec<f64> = y.iter().map(|&b| if b { t_pos } else { t_neg }).collect();
        // Parameters w = (w_1..w_p, c) of z = w·s + c = -(a·s + b); start as scikit-learn does.
        let mut w = vec![0.0; p + 1];
        w[p] = ((n_pos + 1.0) / (n_neg + 1.0)).ln();
        let loss = |w: &[f64]| -> f64 { x.iter().zip(&t).map(|(r, &ti)| softplus(z_of(w, r)) - ti * z_of(w, r)).sum() };
        let mut cur = loss(&w);
        for _ in 0..MAX_ITER {
            let mut g = vec![0.0; p + 1];
            let mut h = vec![vec![0.0; p + 1]; p + 1];
            for (r, &ti) in x.iter().zip(&t) {
                let pi = expit(z_of(&w, r));
                let wi = pi * (1.0 - pi);
                for j in 0..=p {
                    let xj = if j < p { r[j] } else { 1.0 };
                    g[j] += (pi - ti) * xj;
                    for k in 0..=j {
                        let xk = if k < p { r[k] } else { 1.0 };
                        h[j][k] += wi * xj * xk;
                    }
                }
            }
            for j in 0..=p {
                for k in 0..j {
                    h[k][j] = h[j][k];
                }
            }
            let step = cholesky_solve(&h, &g)
                .ok_or_else(|| CalibrationError::NoFit("platt: the scores do not vary (singular Hessian)".into()))?;
            // Backtracking: halve the Newton step until the loss does not increase.
            let mut scale = 1.0;
            let (next, next_loss) = loop {
                let cand: Vec<f64> = w.iter().zip(&step).map(|(wi, si)| wi - scale * si).collect();
                let l = loss(&cand);
                if l.is_finite() && l <= cur + 1e-12 * cur.abs() {
                    break (cand, l);
                }
                scale /= 2.0;
                if scale < 1e-10 {
                    break (w.clone(), cur);
                }
            };
            let moved = next.iter().zip(&w).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
            let size = next.iter().map(|v| v.abs()).fold(1.0, f64::max);
            w = next;
            cur = next_loss;
            if moved <= 1e-13 * size {
                return Ok(Self::from_w(&w));
            }
        }
        Err(CalibrationError::NoFit("platt: Newton's method did not converge".into()))
    }

    fn from_w(w: &[f64]) -> Self {
        let p = w.len() - 1;
        PlattScaler { a: w[..p].iter().map(|v| -v).collect(), b: -w[p] }
    }

    /// `P(y = 1 | s)` for one row of scores (the row must have one value per slope).
    pub fn predict(&self, row: &[f64]) -> f64 {
        let lin: f64 = self.a.iter().zip(row).map(|(a, s)| a * s).sum::<f64>() + self.b;
        expit(-lin)
    }
}

fn z_of(w: &[f64], r: &[f64]) -> f64 {
    let p = r.len();
    w[..p].iter().zip(r).map(|(a, b)| a * b).sum::<f64>() + w[p]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_points_reach_the_smoothed_targets() {
        // One negative at s = 0 and one positive at s = 1: N+ = N- = 1, so the targets are
        // t- = 1/3 and t+ = 2/3, which two parameters fit exactly: expit(-b) = 1/3 gives
        // b = ln 2, and expit(-(a + b)) = 2/3 gives a + b = -ln 2, so a = -2 ln 2.
        let m = PlattScaler::fit(&[vec![0.0], vec![1.0]], &[false, true]).unwrap();
        let ln2 = std::f64::consts::LN_2;
        assert!((m.b - ln2).abs() < 1e-10, "{m:?}");
        assert!((m.a[0] + 2.0 * ln2).abs() < 1e-10, "{m:?}");
        assert!((m.predict(&[1.0]) - 2.0 / 3.0).abs() < 1e-10);
    }

    #[test]
    fn constant_scores_are_an_error() {
        let err = PlattScaler::fit(&[vec![1.0], vec![1.0], vec![1.0]], &[false, true, true]).unwrap_err();
        assert!(matches!(err, CalibrationError::NoFit(_)));
    }
}
