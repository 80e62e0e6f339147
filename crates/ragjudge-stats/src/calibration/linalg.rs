//! Small dense linear algebra for the Newton steps of the calibration fits (a handful of
//! parameters, so a hand-rolled Cholesky factorisation is enough).

/// Solves `h x = g` for a symmetric positive-definite `h` (row-major, `p x p`) by Cholesky
/// factorisation; `None` when `h` is not numerically positive definite.
#[allow(clippy::needless_range_loop)] // index loops mirror the textbook algorithm
pub(crate) fn cholesky_solve(h: &[Vec<f64>], g: &[f64]) -> Option<Vec<f64>> {
    let p = g.len();
    let mut l = vec![vec![0.0; p]; p];
    for i in 0..p {
        for j in 0..=i {
            let mut s = h[i][j];
            for k in 0..j {
                s -= l[i][k] * l[j][k];
            }
            if i == j {
                if s.is_nan() || s <= 1e-14 * h[i][i].abs().max(f64::MIN_POSITIVE) || !s.is_finite() {
                    return None;
                }
                l[i][i] = s.sqrt();
            } else {
                l[i][j] = s / l[j][j];
            }
        }
    }
    // Forward substitution l z = g, then back substitution l' x = z.
    let mut z = vec![0.0; p];
    for i in 0..p {
        let s: f64 = (0..i).map(|k| l[i][k] * z[k]).sum();
        z[i] = (g[i] - s) / l[i][i];
    }
    let mut x = vec![0.0; p];
    for i in (0..p).rev() {
        let s: f64 = (i + 1..p).map(|k| l[k][i] * x[k]).sum();
        x[i] = (z[i] - s) / l[i][i];
    }
    x.iter().all(|v| v.is_finite()).then_some(x)
}

/// The logistic function `1 / (1 + exp(-z))`, without overflow for large `|z|`.
pub(crate) fn expit(z: f64) -> f64 {
    if z >= 0.0 {
        1.0 / (1.0 + (-z).exp())
    } else {
        let e = z.exp();
        e / (1.0 + e)
    }
}

/// `log(1 + exp(z))`, without overflow for large `z`.
pub(crate) fn softplus(z: f64) -> f64 {
    if z > 0.0 {
        z + (-z).exp().ln_1p()
    } else {
        z.exp().ln_1p()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_a_two_by_two_system() {
        // [4 2; 2 3] x = [2; 1]  ->  det = 8, x = [(2*3 - 2*1)/8, (4*1 - 2*2)/8] = [0.5, 0].
        let x = cholesky_solve(&[vec![4.0, 2.0], vec![2.0, 3.0]], &[2.0, 1.0]).unwrap();
        assert!((x[0] - 0.5).abs() < 1e-15 && x[1].abs() < 1e-15);
        assert!(cholesky_solve(&[vec![1.0, 1.0], vec![1.0, 1.0]], &[1.0, 1.0]).is_none());
    }

    #[test]
    fn logistic_helpers_are_stable() {
        assert_eq!(expit(0.0), 0.5);
        assert!(expit(-800.0) >= 0.0 && expit(800.0) == 1.0);
        // softplus(0) = ln 2; softplus(1000) = 1000 (exp would overflow).
        assert!((softplus(0.0) - std::f64::consts::LN_2).abs() < 1e-15);
        assert_eq!(softplus(1000.0), 1000.0);
    }
}
