//! Proportional-odds ordinal logistic regression (HCAT §5.1, "Ordinal Regression"):
//! `P(Y <= j | s) = F(theta_j - s·beta)` with the logistic `F`, cut-points
//! `theta_0 < ... < theta_{k-2}` and no intercept, fitted by maximum likelihood as statsmodels'
//! `OrderedModel(distr="logit")`. Newton's method with step halving maximises the (concave)
//! log-likelihood; perfectly separated levels have no finite maximum and are reported.

use super::linalg::{cholesky_solve, expit};
use super::{check_rows, CalibrationError};
use serde::{Deserialize, Serialize};

/// A fitted cumulative-logit model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct OrdinalLogit {
    /// Slopes, one per score column (positive: higher scores, higher levels).
    pub beta: Vec<f64>,
    /// Increasing cut-points `theta_0..theta_{k-2}` between the `k` levels.
    pub cutpoints: Vec<f64>,
}

const MAX_ITER: usize = 300;

impl OrdinalLogit {
    /// Fits on score rows `x` and level indices `y` in `0..levels` (`levels >= 2`, each observed).
    pub fn fit(x: &[Vec<f64>], y: &[usize], levels: usize) -> Result<Self, CalibrationError> {
        let p = check_rows(x, y.len())?;
        if levels < 2 {
            return Err(CalibrationError::NoFit(format!("ordinal: needs at least 2 label levels, got {levels}")));
        }
        let mut counts = vec![0usize; levels];
        for &l in y {
            if l >= levels {
                return Err(CalibrationError::BadLabel { label: l, levels });
            }
            counts[l] += 1;
        }
        if let Some(missing) = counts.iter().position(|&c| c == 0) {
            return Err(CalibrationError::MissingLevel(missing));
        }
        // Start: beta = 0, cut-points at the logits of the cumulative level shares.
        let n = y.len() as f64;
        let mut params = vec![0.0; p + levels - 1];
        let mut cum = 0.0;
        for j in 0..levels - 1 {
            cum += counts[j] as f64 / n;
            params[p + j] = (cum / (1.0 - cum)).ln();
        }
        let mut cur = neg_log_lik(x, y, p, &params).ok_or_else(no_fit)?;
        for _ in 0..MAX_ITER {
            let (g, h) = gradient_hessian(x, y, p, &params);
            let step = cholesky_solve(&h, &g)
                .ok_or_else(|| CalibrationError::NoFit("ordinal: singular Hessian (do the scores vary?)".into()))?;
            let mut scale = 1.0;
            let (next, next_loss) = loop {
                let cand: Vec<f64> = params.iter().zip(&step).map(|(v, s)| v - scale * s).collect();
                let ordered = cand[p..].windows(2).all(|w| w[0] < w[1]);
                if let Some(l) = neg_log_lik(x, y, p, &cand).filter(|_| ordered) {
                    if l <= cur + 1e-12 * cur.abs() {
                        break (cand, l);
                    }
                }
                scale /= 2.0;
                if scale < 1e-10 {
                    break (params.clone(), cur);
                }
            };
            let moved = next.iter().zip(&params).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
            let size = next.iter().map(|v| v.abs()).fold(1.0, f64::max);
            params = next;
            cur = next_loss;
            if moved <= 1e-13 * size {
                if size > 1e6 {
                    break;
                }
                return Ok(OrdinalLogit { beta: params[..p].to_vec(), cutpoints: params[p..].to_vec() });
            }
        }
        Err(no_fit())
    }

    /// Probabilities of the levels `0..k` for one row of scores.
    pub fn predict_proba(&self, row: &[f64]) -> Vec<f64> {
        let xb: f64 = self.beta.iter().zip(row).map(|(b, s)| b * s).sum();
        let k = self.cutpoints.len() + 1;
        (0..k)
            .map(|l| {
                let a = if l + 1 < k { self.cutpoints[l] - xb } else { f64::INFINITY };
                let b = if l > 0 { self.cutpoints[l - 1] - xb } else { f64::NEG_INFINITY };
                interval_prob(a, b)
            })
            .collect()
    }
}

fn no_fit() -> CalibrationError {
    CalibrationError::NoFit(
        "ordinal: the likelihood has no finite maximum (are the levels perfectly separated by the scores?)".into(),
    )
}

/// `F(a) - F(b)` for `a > b`, computed on the tail where it does not cancel.
fn interval_prob(a: f64, b: f64) -> f64 {
    if b > 0.0 {
        expit(-b) - expit(-a)
    } else {
        expit(a) - expit(b)
    }
}

/// The bounds `(a, b)` of row `r` with level `l`: `a = theta_l - s·beta`, `b = theta_{l-1} - s·beta`.
fn bounds(r: &[f64], l: usize, p: usize, params: &[f64]) -> (f64, f64) {
    let xb: f64 = params[..p].iter().zip(r).map(|(b, s)| b * s).sum();
    let k = params.len() - p + 1;
    let a = if l + 1 < k { params[p + l] - xb } else { f64::INFINITY };
    let b = if l > 0 { params[p + l - 1] - xb } else { f64::NEG_INFINITY };
    (a, b)
}

fn neg_log_lik(x: &[Vec<f64>], y: &[usize], p: usize, params: &[f64]) -> Option<f64> {
    let mut nll = 0.0;
    for (r, &l) in x.iter().zip(y) {
        let (a, b) = bounds(r, l, p, params);
        let d = interval_prob(a, b);
        if d.is_nan() || d <= 0.0 {
            return None;
        }
        nll -= d.ln();
    }
    nll.is_finite().then_some(nll)
}

/// Gradient and Hessian of the negative log-likelihood. With `D = F(a) - F(b)` and the logistic
/// density `f = F (1 - F)`, `f' = f (1 - 2F)`, one row contributes `log D` with
/// `dl/da = f(a)/D`, `dl/db = -f(b)/D`, `d2l/da2 = f'(a)/D - (f(a)/D)^2`,
/// `d2l/db2 = -f'(b)/D - (f(b)/D)^2`, `d2l/dadb = f(a) f(b)/D^2`; `a` and `b` are linear in the
/// parameters (`da/dtheta_l = 1`, `da/dbeta = -s`).
#[allow(clippy::needless_range_loop)] // matrix index loops
fn gradient_hessian(x: &[Vec<f64>], y: &[usize], p: usize, params: &[f64]) -> (Vec<f64>, Vec<Vec<f64>>) {
    let m = params.len();
    let mut g = vec![0.0; m];
    let mut h = vec![vec![0.0; m]; m];
    let dens = |z: f64| -> (f64, f64) {
        if z.is_infinite() {
            return (0.0, 0.0);
        }
        let (fz, fm) = (expit(z), expit(-z));
        let f = fz * fm;
        (f, f * (fm - fz))
    };
    for (r, &l) in x.iter().zip(y) {
        let (a, b) = bounds(r, l, p, params);
        let d = interval_prob(a, b);
        let ((fa, dfa), (fb, dfb)) = (dens(a), dens(b));
        let (ga, gb) = (fa / d, -fb / d);
        let haa = dfa / d - ga * ga;
        let hbb = -dfb / d - gb * gb;
        let hab = -ga * gb;
        // Jacobians of a and b with respect to the parameters.
        let mut ja = vec![0.0; m];
        let mut jb = vec![0.0; m];
        for j in 0..p {
            ja[j] = -r[j];
            jb[j] = -r[j];
        }
        if a.is_finite() {
            ja[p + l] = 1.0;
        } else {
            ja.iter_mut().for_each(|v| *v = 0.0);
        }
        if b.is_finite() {
            jb[p + l - 1] = 1.0;
        } else {
            jb.iter_mut().for_each(|v| *v = 0.0);
        }
        for i in 0..m {
            g[i] -= ga * ja[i] + gb * jb[i];
            for j in 0..=i {
                let v = haa * ja[i] * ja[j] + hbb * jb[i] * jb[j] + hab * (ja[i] * jb[j] + jb[i] * ja[j]);
                h[i][j] -= v;
            }
        }
    }
    for i in 0..m {
        for j in 0..i {
            h[j][i] = h[i][j];
        }
    }
    (g, h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_slope_information_cutpoints_are_cumulative_logits() {
        // Scores that are identical within each level pattern carry no information when every
        // score value holds the same level mix: levels 0,1,1,2 at s = 0 and at s = 1. Then
        // beta = 0 and theta_j = logit(cumulative share): logit(1/4) = -ln 3, logit(3/4) = ln 3.
        let x: Vec<Vec<f64>> = [0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0].iter().map(|&v| vec![v]).collect();
        let y = [0, 1, 1, 2, 0, 1, 1, 2];
        let m = OrdinalLogit::fit(&x, &y, 3).unwrap();
        assert!(m.beta[0].abs() < 1e-10, "{m:?}");
        assert!((m.cutpoints[0] + 3f64.ln()).abs() < 1e-10 && (m.cutpoints[1] - 3f64.ln()).abs() < 1e-10);
        let pr = m.predict_proba(&[0.5]);
        assert!((pr[0] - 0.25).abs() < 1e-10 && (pr[1] - 0.5).abs() < 1e-10 && (pr[2] - 0.25).abs() < 1e-10);
    }

    #[test]
    fn separated_levels_are_an_error() {
        let x: Vec<Vec<f64>> = [0.0, 1.0, 2.0, 3.0].iter().map(|&v| vec![v]).collect();
        assert!(OrdinalLogit::fit(&x, &[0, 0, 1, 1], 2).is_err());
        assert_eq!(OrdinalLogit::fit(&x, &[0, 0, 2, 2], 3).unwrap_err(), CalibrationError::MissingLevel(1));
    }
}
