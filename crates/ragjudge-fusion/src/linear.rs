//! Ordinary least squares over the input metrics (the simplest static fusion, a weighted sum
//! with learned weights; the CIU paper's section 3.3 notes that plain sums and means of raw metric
//! values combine badly because the metrics live on different scales, which a fitted weight per
//! metric corrects), solved by `linfa-linear`, and the standardisation the SVR and linear models
//! apply to their inputs.

use crate::FusionError;
use linfa::prelude::*;
use linfa_linear::LinearRegression;
use ndarray::{Array1, Array2};
use ragjudge_models::Reason;
use serde::{Deserialize, Serialize};

/// `y = intercept + coef . x`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Linear {
    /// One weight per input.
    pub coef: Vec<f64>,
    /// The intercept.
    pub intercept: f64,
}

impl Linear {
    /// Least-squares fit with an intercept (as scikit-learn's `LinearRegression()`). Inputs that
    /// are (nearly) linear combinations of earlier ones are refused: their weights are not
    /// determined, and the normal equations would give huge, cancelling ones.
    pub fn fit(x: &[Vec<f64>], y: &[f64]) -> Result<Linear, FusionError> {
        let (xs, ys) = to_arrays(x, y)?;
        if let Some(j) = dependent_column(x) {
            return Err(FusionError::Data(format!(
                "input {} is a linear combination of the inputs before it (or constant): drop it",
                j + 1
            )));
        }
        let model = LinearRegression::new()
            .fit(&linfa::Dataset::new(xs, ys))
            .map_err(|e| FusionError::Training(Reason::caused("least squares", e)))?;
        let coef = model.params().to_vec();
        if coef.iter().any(|c| !c.is_finite()) || !model.intercept().is_finite() {
            return Err(FusionError::Training("least squares gave a non-finite weight (collinear inputs?)".into()));
        }
        Ok(Linear { coef, intercept: model.intercept() })
    }

    /// Least squares with an intercept and every weight >= 0, so that no input's effect on the
    /// prediction can be negative (inputs oriented so that higher is better): the label and the
    /// columns centred, the weights by non-negative least squares ([`crate::nnls`], Lawson and
    /// Hanson 1974, ch. 23), the intercept `mean(y) - coef . mean(x)`. Unlike [`Linear::fit`],
    /// repeated or constant inputs are accepted: a constant one keeps weight 0.
    pub fn fit_monotone(x: &[Vec<f64>], y: &[f64]) -> Result<Linear, FusionError> {
        let m = check_rows(x)?;
        if y.len() != x.len() || y.iter().any(|v| !v.is_finite()) {
            return Err(FusionError::Data(format!("{} rows but {} finite labels", x.len(), y.len())));
        }
        let n = x.len() as f64;
        let mean_x: Vec<f64> = (0..m).map(|j| x.iter().map(|r| r[j]).sum::<f64>() / n).collect();
        let mean_y = y.iter().sum::<f64>() / n;
        let centred: Vec<Vec<f64>> = x.iter().map(|r| r.iter().zip(&mean_x).map(|(v, m)| v - m).collect()).collect();
        let coef = crate::nnls::nnls(&centred, &y.iter().map(|v| v - mean_y).collect::<Vec<_>>())?;
        let intercept = mean_y - coef.iter().zip(&mean_x).map(|(c, m)| c * m).sum::<f64>();
        Ok(Linear { coef, intercept })
    }

    /// The prediction for one row.
    pub fn predict(&self, row: &[f64]) -> f64 {
        self.intercept + self.coef.iter().zip(row).map(|(c, v)| c * v).sum::<f64>()
    }
}

/// Per-column standardisation `(v - mean) / sd` with the training mean and population standard
/// deviation (as scikit-learn's `StandardScaler`; a constant column keeps sd 1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Scaler {
    /// Column means.
    pub mean: Vec<f64>,
    /// Column standard deviations (1 where a column is constant).
    pub sd: Vec<f64>,
}

impl Scaler {
    /// The means and standard deviations of the columns of `x`.
    pub fn fit(x: &[Vec<f64>]) -> Result<Scaler, FusionError> {
        let m = check_rows(x)?;
        let n = x.len() as f64;
        let mean: Vec<f64> = (0..m).map(|j| x.iter().map(|r| r[j]).sum::<f64>() / n).collect();
        let sd = (0..m)
            .map(|j| {
                let var = x.iter().map(|r| (r[j] - mean[j]).powi(2)).sum::<f64>() / n;
                if var > 0.0 {
                    var.sqrt()
                } else {
                    1.0
                }
            })
            .collect();
        Ok(Scaler { mean, sd })
    }

    /// One row, standardised.
    pub fn transform(&self, row: &[f64]) -> Vec<f64> {
        row.iter().zip(self.mean.iter().zip(&self.sd)).map(|(v, (m, s))| (v - m) / s).collect()
    }

    /// Every row, standardised.
    pub fn transform_all(&self, x: &[Vec<f64>]) -> Vec<Vec<f64>> {
        x.iter().map(|r| self.transform(r)).collect()
    }
}

/// The first column of `x` that is, after centring, within a relative 1e-9 of the span of the
/// columns before it (modified Gram-Schmidt); a constant column counts too.
pub(crate) fn dependent_column(x: &[Vec<f64>]) -> Option<usize> {
    let m = x.first()?.len();
    let n = x.len() as f64;
    let mut basis: Vec<Vec<f64>> = Vec::with_capacity(m);
    for j in 0..m {
        let mean = x.iter().map(|r| r[j]).sum::<f64>() / n;
        let mut v: Vec<f64> = x.iter().map(|r| r[j] - mean).collect();
        let scale = v.iter().map(|a| a * a).sum::<f64>().sqrt().max(x.iter().map(|r| r[j].abs()).fold(0.0, f64::max));
        for b in &basis {
            let dot: f64 = v.iter().zip(b).map(|(a, c)| a * c).sum();
            v.iter_mut().zip(b).for_each(|(a, c)| *a -= dot * c);
        }
        let norm = v.iter().map(|a| a * a).sum::<f64>().sqrt();
        if norm <= 1e-9 * scale || norm == 0.0 {
            return Some(j);
        }
        basis.push(v.into_iter().map(|a| a / norm).collect());
    }
    None
}

/// The number of columns of `x`, after checking that it has rows, that they are equally long
/// and that every value is finite.
pub(crate) fn check_rows(x: &[Vec<f64>]) -> Result<usize, FusionError> {
    let m = x.first().map(Vec::len).ok_or_else(|| FusionError::Data("no rows".into()))?;
    if m == 0 {
        return Err(FusionError::Data("rows have no columns".into()));
    }
    for (i, r) in x.iter().enumerate() {
        if r.len() != m {
            return Err(FusionError::Data(format!("row {i} has {} values, the first has {m}", r.len())));
        }
        if let Some(j) = r.iter().position(|v| !v.is_finite()) {
            return Err(FusionError::Data(format!("row {i}, column {j}: not a finite number")));
        }
    }
    Ok(m)
}

fn to_arrays(x: &[Vec<f64>], y: &[f64]) -> Result<(Array2<f64>, Array1<f64>), FusionError> {
    let m = check_rows(x)?;
    if y.len() != x.len() {
        return Err(FusionError::Data(format!("{} rows but {} labels", x.len(), y.len())));
    }
    if y.iter().any(|v| !v.is_finite()) {
        return Err(FusionError::Data("a label is not a finite number".into()));
    }
    let flat: Vec<f64> = x.iter().flatten().copied().collect();
    let xs = Array2::from_shape_vec((x.len(), m), flat).map_err(|e| FusionError::Data(e.to_string()))?;
    Ok((xs, Array1::from(y.to_vec())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_or_combined_input_is_refused_and_independent_ones_are_not() {
        let base = [(0.1, 0.7), (0.4, 0.2), (0.9, 0.5), (0.3, 0.3), (0.6, 0.9)];
        let y = vec![1.0, 2.0, 3.0, 4.0, 5.0];
        let twice: Vec<Vec<f64>> = base.iter().map(|&(a, _)| vec![a, a]).collect();
        let e = Linear::fit(&twice, &y).unwrap_err().to_string();
        assert!(e.contains("input 2 is a linear combination"), "{e}");
        // c = 2a - b + 1: dependent after centring.
        let combined: Vec<Vec<f64>> = base.iter().map(|&(a, b)| vec![a, b, 2.0 * a - b + 1.0]).collect();
        assert_eq!(dependent_column(&combined), Some(2));
        let constant: Vec<Vec<f64>> = base.iter().map(|&(a, _)| vec![a, 3.0]).collect();
        assert_eq!(dependent_column(&constant), Some(1));
        let independent: Vec<Vec<f64>> = base.iter().map(|&(a, b)| vec![a, b]).collect();
        assert_eq!(dependent_column(&independent), None);
        assert!(Linear::fit(&independent, &y).is_ok());
    }

    #[test]
    fn least_squares_recovers_an_exact_plane() {
        // y = 1 + 2a - 3b on five points: the residuals are zero, so OLS returns (2, -3) and 1.
        let x = vec![vec![0.0, 0.0], vec![1.0, 0.0], vec![0.0, 1.0], vec![1.0, 1.0], vec![2.0, 0.5]];
        let y: Vec<f64> = x.iter().map(|r| 1.0 + 2.0 * r[0] - 3.0 * r[1]).collect();
        let m = Linear::fit(&x, &y).unwrap();
        assert!((m.coef[0] - 2.0).abs() < 1e-9 && (m.coef[1] + 3.0).abs() < 1e-9, "{m:?}");
        assert!((m.intercept - 1.0).abs() < 1e-9);
        assert!((m.predict(&[3.0, 1.0]) - 4.0).abs() < 1e-9);
    }

    #[test]
    fn least_squares_on_noisy_points_matches_the_normal_equations() {
        // One input: slope = cov(x, y) / var(x) = 2.0 / 2.0... by hand: x = 1..4, y = 2,3,5,6:
        // mean x 2.5, mean y 4; sum dx*dy = (-1.5)(-2) + (-0.5)(-1) + (0.5)(1) + (1.5)(2) = 7;
        // sum dx^2 = 5; slope 1.4; intercept 4 - 1.4 * 2.5 = 0.5.
        let x = vec![vec![1.0], vec![2.0], vec![3.0], vec![4.0]];
        let m = Linear::fit(&x, &[2.0, 3.0, 5.0, 6.0]).unwrap();
        assert!((m.coef[0] - 1.4).abs() < 1e-9 && (m.intercept - 0.5).abs() < 1e-9, "{m:?}");
    }

    #[test]
    fn scaler_uses_population_sd_and_keeps_constant_columns() {
        // Column 0: 1, 3 -> mean 2, population sd 1. Column 1 constant -> sd 1.
        let s = Scaler::fit(&[vec![1.0, 5.0], vec![3.0, 5.0]]).unwrap();
        assert_eq!(s.mean, vec![2.0, 5.0]);
        assert_eq!(s.sd, vec![1.0, 1.0]);
        assert_eq!(s.transform(&[4.0, 5.0]), vec![2.0, 0.0]);
        assert!(Scaler::fit(&[vec![1.0], vec![f64::NAN]]).unwrap_err().to_string().contains("row 1, column 0"));
        assert!(Linear::fit(&[vec![1.0], vec![2.0]], &[1.0]).unwrap_err().to_string().contains("2 rows but 1 labels"));
    }
}
