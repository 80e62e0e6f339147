//! Logistic regression with an intercept and fractional targets (a tie counts one half), fitted
//! by Newton-Raphson on the ridge-penalised likelihood: the small stacker that combines judge
//! scores and metric differences from a few labelled pairs. With `ridge = 0` it is the maximum
//! likelihood fit of statsmodels' binomial GLM.

use crate::StatsError;

/// A fitted model: one weight per feature, then the intercept.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Logistic {
    /// Feature weights, then the intercept.
    pub coef: Vec<f64>,
}

fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

impl Logistic {
    /// `P(y = 1 | x)`.
    pub fn predict(&self, x: &[f64]) -> f64 {
        let d = self.coef.len() - 1;
        sigmoid(x.iter().zip(&self.coef[..d]).map(|(a, b)| a * b).sum::<f64>() + self.coef[d])
    }

    /// Fits rows `x` to targets `y` in [0, 1]; `ridge` penalises the feature weights (not the
    /// intercept). A ridge of 0 diverges on separable data: the stacker uses a small one.
    pub fn fit(x: &[Vec<f64>], y: &[f64], ridge: f64) -> Result<Logistic, StatsError> {
        if x.len() != y.len() {
            return Err(StatsError::LengthMismatch { left: x.len(), right: y.len() });
        }
        if x.is_empty() {
            return Err(StatsError::Empty);
        }
        let d = x[0].len();
        if x.iter().any(|r| r.len() != d) || !x.iter().flatten().chain(y).all(|v| v.is_finite()) {
            return Err(StatsError::NonFinite);
        }
        let k = d + 1;
        let mut beta = vec![0.0; k];
        for _ in 0..100 {
            let mut g: Vec<f64> = (0..k).map(|j| if j < d { -ridge * beta[j] } else { 0.0 }).collect();
            let mut h = vec![vec![0.0; k]; k];
            for (j, row) in h.iter_mut().enumerate().take(d) {
                row[j] = ridge;
            }
            for (row, &target) in x.iter().zip(y) {
                let z: f64 = row.iter().zip(&beta).map(|(a, b)| a * b).sum::<f64>() + beta[d];
                let p = sigmoid(z);
                let w = p * (1.0 - p);
                let xi: Vec<f64> = row.iter().copied().chain(std::iter::once(1.0)).collect();
                for (a, (ga, ha)) in g.iter_mut().zip(h.iter_mut()).enumerate() {
                    *ga += (target - p) * xi[a];
                    for (hab, xb) in ha.iter_mut().zip(&xi) {
                        *hab += w * xi[a] * xb;
                    }
                }
            }
            let step = solve(h, g).ok_or(StatsError::Undefined)?;
            let biggest = step.iter().fold(0.0f64, |m, s| m.max(s.abs()));
            for (b, s) in beta.iter_mut().zip(&step) {
                *b += s;
            }
            if biggest < 1e-12 {
                return Ok(Logistic { coef: beta });
            }
        }
        Err(StatsError::Undefined)
    }
}

/// Solves the small dense system `h x = g` by Gaussian elimination with partial pivoting;
/// `None` when it is singular.
pub fn solve(mut h: Vec<Vec<f64>>, mut g: Vec<f64>) -> Option<Vec<f64>> {
    let n = g.len();
    for col in 0..n {
        let piv = (col..n).max_by(|&a, &b| h[a][col].abs().total_cmp(&h[b][col].abs()))?;
        if h[piv][col].abs() < 1e-300 {
            return None;
        }
        h.swap(col, piv);
        g.swap(col, piv);
        let (upper, lower) = h.split_at_mut(col + 1);
        let pivot = &upper[col];
        for (off, row) in lower.iter_mut().enumerate() {
            let f = row[col] / pivot[col];
            for (x, p) in row[col..].iter_mut().zip(&pivot[col..]) {
                *x -= f * p;
            }
            g[col + 1 + off] -= f * g[col];
        }
    }
    let mut x = vec![0.0; n];
    for r in (0..n).rev() {
        let s: f64 = (r + 1..n).map(|c| h[r][c] * x[c]).sum();
        x[r] = (g[r] - s) / h[r][r];
    }
    Some(x)
}
