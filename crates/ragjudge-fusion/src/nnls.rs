//! Non-negative least squares, `argmin_x ||A x - b||` subject to `x >= 0`: the active-set
//! algorithm of Lawson and Hanson (*Solving Least Squares Problems*, 1974, ch. 23, algorithm NNLS),
//! run on the cross products `A^T A` and `A^T b` as Bro and de Jong's fast NNLS (J. Chemometrics
//! 11, 1997) does, which takes the same steps. The monotone fusion fit (`fuse fit --monotone`)
//! uses it so that no input's effect on the fused score can be negative.

use crate::FusionError;

/// The solution of `min ||A x - b||, x >= 0`, `a` given by rows (n rows of k values).
pub fn nnls(a: &[Vec<f64>], b: &[f64]) -> Result<Vec<f64>, FusionError> {
    let k = a.first().map(Vec::len).ok_or_else(|| FusionError::Data("nnls: no rows".into()))?;
    if a.len() != b.len() || a.iter().any(|r| r.len() != k) {
        return Err(FusionError::Data(format!(
            "nnls: {} rows of A (each of {k} values) for {} values of b",
            a.len(),
            b.len()
        )));
    }
    if a.iter().flatten().chain(b).any(|v| !v.is_finite()) {
        return Err(FusionError::Data("nnls: a value is not a finite number".into()));
    }
    let mut g = vec![vec![0.0; k]; k];
    let mut c = vec![0.0; k];
    for (row, &y) in a.iter().zip(b) {
        for i in 0..k {
            c[i] += row[i] * y;
            for j in 0..k {
                g[i][j] += row[i] * row[j];
            }
        }
    }
    // Lawson and Hanson's tolerance on the dual (as scipy's `nnls`): 10 eps ||A||_1 max(n, k).
    let norm1 = (0..k).map(|j| a.iter().map(|r| r[j].abs()).sum::<f64>()).fold(0.0, f64::max);
    let tol = 10.0 * f64::EPSILON * norm1 * a.len().max(k) as f64;
    let mut x = vec![0.0; k];
    let mut passive = vec![false; k];
    // Lawson and Hanson prove termination; the limit only guards against rounding cycles.
    for _ in 0..30 * k.max(1) {
        let w: Vec<f64> = (0..k).map(|i| c[i] - (0..k).map(|j| g[i][j] * x[j]).sum::<f64>()).collect();
        let next = (0..k).filter(|&j| !passive[j] && w[j] > tol).max_by(|&i, &j| w[i].total_cmp(&w[j]));
        let Some(j) = next else { return Ok(x) };
        passive[j] = true;
        loop {
            let s = solve_passive(&g, &c, &passive)?;
            if (0..k).filter(|&i| passive[i]).all(|i| s[i] > 0.0) {
                x = s;
                break;
            }
            // Step from x toward s as far as feasibility allows, and drop the columns that hit 0.
            let alpha = (0..k)
                .filter(|&i| passive[i] && s[i] <= 0.0)
                .map(|i| x[i] / (x[i] - s[i]))
                .fold(f64::INFINITY, f64::min);
            for i in 0..k {
                x[i] += alpha * (s[i] - x[i]);
                if passive[i] && x[i] <= tol.max(f64::MIN_POSITIVE) {
                    passive[i] = false;
                    x[i] = 0.0;
                }
            }
            if !passive.iter().any(|&p| p) {
                break;
            }
        }
    }
    Err(FusionError::Training("nnls: no convergence in the iteration limit".into()))
}

/// The least-squares solution on the passive columns (zero elsewhere), from the cross products,
/// by a Cholesky factorisation of the passive block of `A^T A`.
fn solve_passive(g: &[Vec<f64>], c: &[f64], passive: &[bool]) -> Result<Vec<f64>, FusionError> {
    let idx: Vec<usize> = (0..c.len()).filter(|&i| passive[i]).collect();
    let p = idx.len();
    let mut l = vec![vec![0.0; p]; p];
    for i in 0..p {
        for j in 0..=i {
            let sum: f64 = (0..j).map(|t| l[i][t] * l[j][t]).sum();
            let v = g[idx[i]][idx[j]] - sum;
            if i == j {
                if v <= 0.0 {
                    return Err(FusionError::Training(
                        "nnls: the chosen inputs are linearly dependent (repeated or constant inputs?)".into(),
                    ));
                }
                l[i][i] = v.sqrt();
            } else {
                l[i][j] = v / l[j][j];
            }
        }
    }
    let mut z = vec![0.0; p];
    for i in 0..p {
        z[i] = (c[idx[i]] - (0..i).map(|t| l[i][t] * z[t]).sum::<f64>()) / l[i][i];
    }
    let mut s_p = vec![0.0; p];
    for i in (0..p).rev() {
        s_p[i] = (z[i] - (i + 1..p).map(|t| l[t][i] * s_p[t]).sum::<f64>()) / l[i][i];
    }
    let mut s = vec![0.0; c.len()];
    for (t, &i) in idx.iter().enumerate() {
        s[i] = s_p[t];
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_solution_inside_the_orthant_is_ordinary_least_squares() {
        // By hand: A = I (2x2) stacked on nothing else, b = (1, 2): x = b.
        let x = nnls(&[vec![1.0, 0.0], vec![0.0, 1.0]], &[1.0, 2.0]).unwrap();
        assert_eq!(x, vec![1.0, 2.0]);
    }

    #[test]
    fn a_negative_least_squares_weight_is_clamped_and_the_rest_refitted() {
        // By hand: A = I, b = (1, -2): the second coordinate would be -2, so it is 0 and x = (1, 0).
        let x = nnls(&[vec![1.0, 0.0], vec![0.0, 1.0]], &[1.0, -2.0]).unwrap();
        assert_eq!(x, vec![1.0, 0.0]);
        // A column of zeros never enters: its weight stays 0.
        let x = nnls(&[vec![1.0, 0.0], vec![2.0, 0.0]], &[1.0, 2.0]).unwrap();
        assert!((x[0] - 1.0).abs() < 1e-12 && x[1] == 0.0, "{x:?}");
    }

    #[test]
    fn ragged_or_non_finite_input_is_refused() {
        assert!(nnls(&[vec![1.0], vec![1.0, 2.0]], &[1.0, 2.0]).is_err());
        assert!(nnls(&[vec![f64::NAN]], &[1.0]).unwrap_err().to_string().contains("not a finite number"));
        assert!(nnls(&[], &[]).is_err());
    }
}
