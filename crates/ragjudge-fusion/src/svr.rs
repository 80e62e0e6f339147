//! Epsilon-support vector regression, the model of the static baselines of the CIU paper (Choi et
//! al., *Combining Multiple Metrics for Evaluating Retrieval-Augmented Conversations*, §5.2 "Static
//! Combination with Feature Selection": an SVR over the selected metrics, its hyperparameters
//! found by grid search), fitted to match scikit-learn's `SVR`.
//!
//! The model is Vapnik's epsilon-SVR: f(x) = sum_i (a_i - a*_i) K(x_i, x) + b, with the dual
//! problem of Smola and Schölkopf, *A tutorial on support vector regression* (2004), §1.3. The
//! dual is solved by linfa-svm's SMO solver, a port of libsvm's `Solver`: maximal-violating-pair
//! selection with the second-order working-set selection WSS3 of Fan, Chen and Lin, *Working set
//! selection using second order information for training support vector machines*, JMLR 6 (2005),
//! §3, and libsvm's bias (the mean of y_i G_i over free variables, else the middle of the
//! feasible interval). Prediction is a plain loop over the support vectors.
//!
//! Kernels are scikit-learn's: linear x.y, RBF exp(-gamma |x - y|^2) and polynomial
//! (gamma x.y + coef0)^degree. `gamma = "scale"` is [`Kernel::RbfScale`], resolved at every fit
//! to 1 / (n_features * X.var()) of that fit's training rows, as scikit-learn does.
//!
//! Differences from scikit-learn (all measured against it in `tests/svr_sklearn.rs`):
//! - libsvm caches kernel values in single precision (its `Qfloat`); linfa-svm keeps them in f64.
//!   The two optima agree to about 1e-5 in the predictions when both are solved to `tol = 1e-8`.
//! - Shrinking is off (scikit-learn's default has it on): linfa-svm's shrinking indexes out of
//!   bounds on epsilon-SVR problems. Both stop at the same tolerance on the same KKT violation, so
//!   only the path differs; at the default `tol = 1e-3` cross-validated R^2 differ by about 1e-5.
//! - The whole n x n kernel matrix is held in memory (8 n^2 bytes); libsvm caches 200 MB of rows.
//! - The polynomial kernel is trained on rows scaled by sqrt(gamma) (linfa-svm's polynomial
//!   kernel has no gamma), which is the same kernel up to rounding.
//! - linfa-svm rejects a zero loss epsilon, so `epsilon = 0` reaches the solver as the smallest
//!   positive f64, which leaves the dual problem unchanged for targets above 1e-300 in magnitude.
//! - The solver stops after max(10^7, 200 n) iterations (scikit-learn: no limit by default).
//! - No sample weights, no sigmoid or precomputed kernels, no `gamma = "auto"`.
//! - Cross-validation needs at least two rows in every fold (scikit-learn scores such a fold NaN).

use std::panic::{catch_unwind, AssertUnwindSafe};

use linfa::prelude::*;
use linfa_svm::Svm;
use ndarray::{Array1, Array2};
use serde::{Deserialize, Serialize};

use crate::FusionError;
use ragjudge_models::Reason;

/// A kernel function, with scikit-learn's parameterisation.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub enum Kernel {
    /// K(x, y) = x . y
    Linear,
    /// K(x, y) = exp(-gamma |x - y|^2), gamma > 0.
    Rbf {
        /// The inverse squared length scale.
        gamma: f64,
    },
    /// The RBF kernel with scikit-learn's `gamma = "scale"`: gamma = [`gamma_scale`] of the
    /// training rows of each fit. A fitted [`Svr`] holds the resolved [`Kernel::Rbf`].
    RbfScale,
    /// K(x, y) = (gamma x . y + coef0)^degree, gamma > 0.
    Poly {
        /// The power.
        degree: u32,
        /// The scale of the inner product.
        gamma: f64,
        /// The constant added to the scaled inner product.
        coef0: f64,
    },
}

impl Kernel {
    /// This kernel with `RbfScale` resolved for the training rows `x`.
    fn resolve(self, x: &[Vec<f64>]) -> Kernel {
        match self {
            Kernel::RbfScale => Kernel::Rbf { gamma: gamma_scale(x) },
            other => other,
        }
    }

    /// K(a, b). `RbfScale` never reaches here: fitting resolves it and loading rejects it.
    fn eval(&self, a: &[f64], b: &[f64]) -> f64 {
        match *self {
            Kernel::Linear => dot(a, b),
            Kernel::Rbf { gamma } => {
                let squared: f64 = a.iter().zip(b).map(|(u, v)| (u - v) * (u - v)).sum();
                (-gamma * squared).exp()
            }
            Kernel::Poly { degree, gamma, coef0 } => powi(gamma * dot(a, b) + coef0, degree),
            Kernel::RbfScale => f64::NAN,
        }
    }

    fn validate(&self) -> Result<(), FusionError> {
        match *self {
            Kernel::Linear | Kernel::RbfScale => Ok(()),
            Kernel::Rbf { gamma } => check_gamma(gamma),
            Kernel::Poly { degree, gamma, coef0 } => {
                check_gamma(gamma)?;
                if !coef0.is_finite() {
                    return Err(FusionError::Params(format!("SVR coef0 must be finite, got {coef0}")));
                }
                if degree > 64 {
                    return Err(FusionError::Params(format!("SVR polynomial degree must be at most 64, got {degree}")));
                }
                Ok(())
            }
        }
    }
}

fn check_gamma(gamma: f64) -> Result<(), FusionError> {
    if gamma.is_finite() && gamma > 0.0 {
        Ok(())
    } else {
        Err(FusionError::Params(format!("SVR gamma must be positive and finite, got {gamma}")))
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(u, v)| u * v).sum()
}

/// base^times by repeated squaring, as libsvm's `powi`.
fn powi(base: f64, times: u32) -> f64 {
    let (mut result, mut power, mut t) = (1.0, base, times);
    while t > 0 {
        if t % 2 == 1 {
            result *= power;
        }
        power *= power;
        t /= 2;
    }
    result
}

/// The hyperparameters of an epsilon-SVR.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SvrParams {
    /// The penalty on errors beyond the epsilon tube (scikit-learn `C`), > 0.
    pub c: f64,
    /// The half-width of the tube inside which errors cost nothing, >= 0.
    pub epsilon: f64,
    /// The kernel.
    pub kernel: Kernel,
    /// The solver's stopping tolerance on the maximal KKT violation (scikit-learn `tol`), > 0.
    pub tol: f64,
}

impl Default for SvrParams {
    /// scikit-learn's `SVR()`: C = 1, epsilon = 0.1, RBF with gamma = "scale", tol = 1e-3.
    fn default() -> Self {
        SvrParams { c: 1.0, epsilon: 0.1, kernel: Kernel::RbfScale, tol: 1e-3 }
    }
}

impl SvrParams {
    fn validate(&self) -> Result<(), FusionError> {
        if !(self.c.is_finite() && self.c > 0.0) {
            return Err(FusionError::Params(format!("SVR C must be positive and finite, got {}", self.c)));
        }
        if !(self.epsilon.is_finite() && self.epsilon >= 0.0) {
            return Err(FusionError::Params(format!(
                "SVR epsilon must be non-negative and finite, got {}",
                self.epsilon
            )));
        }
        if !(self.tol.is_finite() && self.tol > 0.0) {
            return Err(FusionError::Params(format!("SVR tol must be positive and finite, got {}", self.tol)));
        }
        self.kernel.validate()
    }
}

/// A fitted epsilon-SVR: f(x) = sum_i dual_coef_i K(sv_i, x) + intercept.
///
/// Serialises to JSON with its support vectors; loading checks that the shapes agree.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(try_from = "SvrFile")]
pub struct Svr {
    kernel: Kernel,
    n_features: usize,
    support_vectors: Vec<Vec<f64>>,
    dual_coef: Vec<f64>,
    intercept: f64,
}

/// The serialised form of [`Svr`], checked before it becomes one.
#[derive(Deserialize, schemars::JsonSchema)]
struct SvrFile {
    kernel: Kernel,
    n_features: usize,
    support_vectors: Vec<Vec<f64>>,
    dual_coef: Vec<f64>,
    intercept: f64,
}

impl TryFrom<SvrFile> for Svr {
    type Error = FusionError;

    fn try_from(file: SvrFile) -> Result<Self, Self::Error> {
        let bad = |what: String| Err(FusionError::Model(format!("SVR model: {what}").into()));
        if file.kernel == Kernel::RbfScale {
            return bad("the kernel is RbfScale; a fitted model holds the resolved Rbf gamma".into());
        }
        if let Err(err) = file.kernel.validate() {
            return bad(err.to_string());
        }
        if file.n_features == 0 {
            return bad("n_features is 0".into());
        }
        if file.support_vectors.len() != file.dual_coef.len() {
            return bad(format!(
                "{} support vectors but {} dual coefficients",
                file.support_vectors.len(),
                file.dual_coef.len()
            ));
        }
        if let Some(i) = file.support_vectors.iter().position(|sv| sv.len() != file.n_features) {
            return bad(format!("support vector {i} does not have {} values", file.n_features));
        }
        let values = file.support_vectors.iter().flatten().chain(&file.dual_coef);
        if !file.intercept.is_finite() || values.clone().any(|v| !v.is_finite()) {
            return bad("a coefficient or support vector value is not finite".into());
        }
        Ok(Svr {
            kernel: file.kernel,
            n_features: file.n_features,
            support_vectors: file.support_vectors,
            dual_coef: file.dual_coef,
            intercept: file.intercept,
        })
    }
}

impl Svr {
    /// Fits an epsilon-SVR to rows `x` (all of one length, finite) and targets `y`.
    pub fn fit(x: &[Vec<f64>], y: &[f64], params: &SvrParams) -> Result<Svr, FusionError> {
        let n_features = check_xy(x, y)?;
        params.validate()?;
        let kernel = params.kernel.resolve(x);
        let (alpha, rho) = solve_dual(x, y, params, kernel)?;
        let (support_vectors, dual_coef) =
            alpha.iter().zip(x).filter(|(a, _)| **a != 0.0).map(|(a, row)| (row.clone(), *a)).unzip();
        Ok(Svr { kernel, n_features, support_vectors, dual_coef, intercept: -rho })
    }

    /// The prediction for one row of `n_features` values (NaN for a row of another length).
    pub fn predict(&self, row: &[f64]) -> f64 {
        if row.len() != self.n_features {
            return f64::NAN;
        }
        let mut sum = 0.0;
        for (sv, coef) in self.support_vectors.iter().zip(&self.dual_coef) {
            sum += coef * self.kernel.eval(sv, row);
        }
        sum + self.intercept
    }

    /// The predictions for many rows, in order.
    pub fn predict_many(&self, rows: &[Vec<f64>]) -> Vec<f64> {
        rows.iter().map(|row| self.predict(row)).collect()
    }

    /// Primal weights for the linear kernel (scikit-learn `coef_` = dual_coef_ @
    /// support_vectors_), None for other kernels.
    pub fn linear_coef(&self) -> Option<Vec<f64>> {
        if self.kernel != Kernel::Linear {
            return None;
        }
        let mut w = vec![0.0; self.n_features];
        for (sv, coef) in self.support_vectors.iter().zip(&self.dual_coef) {
            for (wj, xj) in w.iter_mut().zip(sv) {
                *wj += coef * xj;
            }
        }
        Some(w)
    }

    /// The intercept b (scikit-learn `intercept_[0]`, libsvm's -rho).
    pub fn intercept(&self) -> f64 {
        self.intercept
    }

    /// The kernel, with any `RbfScale` resolved to the gamma used.
    pub fn kernel(&self) -> Kernel {
        self.kernel
    }

    /// The number of values a row must have.
    pub fn n_features(&self) -> usize {
        self.n_features
    }

    /// The number of support vectors (training rows with a nonzero dual coefficient).
    pub fn n_support(&self) -> usize {
        self.dual_coef.len()
    }

    /// The dual coefficients a_i - a*_i of the support vectors (scikit-learn `dual_coef_`).
    pub fn dual_coef(&self) -> &[f64] {
        &self.dual_coef
    }

    /// The support vectors, in training-row order (scikit-learn `support_vectors_`).
    pub fn support_vectors(&self) -> &[Vec<f64>] {
        &self.support_vectors
    }
}

/// Solves the epsilon-SVR dual with linfa-svm; returns (a_i - a*_i per row, rho).
fn solve_dual(x: &[Vec<f64>], y: &[f64], params: &SvrParams, kernel: Kernel) -> Result<(Vec<f64>, f64), FusionError> {
    // linfa-svm's polynomial kernel is (x.y + c)^d: fold gamma into the rows.
    let scale = match kernel {
        Kernel::Poly { gamma, .. } => gamma.sqrt(),
        _ => 1.0,
    };
    let records = Array2::from_shape_fn((x.len(), x[0].len()), |(i, j)| x[i][j] * scale);
    let dataset = Dataset::new(records, Array1::from(y.to_vec()));
    // linfa-svm rejects a zero loss epsilon; the smallest positive f64 is the same problem.
    let loss_epsilon = params.epsilon.max(f64::MIN_POSITIVE);
    let base = Svm::<f64, f64>::params().c_svr(params.c, Some(loss_epsilon)).eps(params.tol).shrinking(false);
    let svm_params = match kernel {
        Kernel::Linear => base.linear_kernel(),
        Kernel::Rbf { gamma } => base.gaussian_kernel(1.0 / gamma),
        Kernel::Poly { degree, coef0, .. } => base.polynomial_kernel(coef0, f64::from(degree)),
        Kernel::RbfScale => return Err(FusionError::Params("SVR kernel RbfScale was not resolved".into())),
    };
    let fitted = catch_unwind(AssertUnwindSafe(|| svm_params.fit(&dataset)))
        .map_err(|_| FusionError::Training("the SVR solver stopped on an internal error".into()))?
        .map_err(|err| FusionError::Training(Reason::caused("SVR solver", err)))?;
    if !fitted.rho.is_finite() || fitted.alpha.iter().any(|a| !a.is_finite()) {
        return Err(FusionError::Training("the SVR solver produced non-finite coefficients".into()));
    }
    Ok((fitted.alpha.clone(), fitted.rho))
}

/// Checks rows and targets: non-empty, equal lengths, rows of one nonzero length, all finite.
/// Returns the number of features.
pub(crate) fn check_xy(x: &[Vec<f64>], y: &[f64]) -> Result<usize, FusionError> {
    if x.is_empty() {
        return Err(FusionError::Data("no rows to fit".into()));
    }
    if x.len() != y.len() {
        return Err(FusionError::Data(format!("{} rows but {} targets", x.len(), y.len())));
    }
    let n_features = x[0].len();
    if n_features == 0 {
        return Err(FusionError::Data("rows have no features".into()));
    }
    for (i, row) in x.iter().enumerate() {
        if row.len() != n_features {
            return Err(FusionError::Data(format!("row {i} has {} values, row 0 has {n_features}", row.len())));
        }
        if let Some(j) = row.iter().position(|v| !v.is_finite()) {
            return Err(FusionError::Data(format!("row {i}, column {j} is not finite ({})", row[j])));
        }
    }
    if let Some(i) = y.iter().position(|v| !v.is_finite()) {
        return Err(FusionError::Data(format!("target {i} is not finite ({})", y[i])));
    }
    Ok(n_features)
}

/// scikit-learn's `gamma = "scale"`: 1 / (n_features * X.var()), the variance over all entries
/// (population variance); 1.0 when that variance is 0 or `x` is empty.
pub fn gamma_scale(x: &[Vec<f64>]) -> f64 {
    let n_features = x.first().map_or(0, Vec::len);
    let count = (x.len() * n_features) as f64;
    if count == 0.0 {
        return 1.0;
    }
    let mean = x.iter().flatten().sum::<f64>() / count;
    let variance = x.iter().flatten().map(|v| (v - mean) * (v - mean)).sum::<f64>() / count;
    if variance == 0.0 {
        1.0
    } else {
        1.0 / (n_features as f64 * variance)
    }
}

/// The candidates of [`grid_search`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SvrGrid {
    /// Values of C.
    pub c: Vec<f64>,
    /// Values of epsilon.
    pub epsilon: Vec<f64>,
    /// Kernels (each with its own gamma).
    pub kernels: Vec<Kernel>,
    /// The solver tolerance of every fit (scikit-learn's default 1e-3).
    pub tol: f64,
}

impl Default for SvrGrid {
    /// C in {0.1, 1, 10}, epsilon in {0.01, 0.1, 0.5}, linear and RBF with gamma in
    /// {"scale", 0.1, 1, 10}; tol = 1e-3.
    fn default() -> Self {
        SvrGrid {
            c: vec![0.1, 1.0, 10.0],
            epsilon: vec![0.01, 0.1, 0.5],
            kernels: vec![
                Kernel::Linear,
                Kernel::RbfScale,
                Kernel::Rbf { gamma: 0.1 },
                Kernel::Rbf { gamma: 1.0 },
                Kernel::Rbf { gamma: 10.0 },
            ],
            tol: 1e-3,
        }
    }
}

impl SvrGrid {
    /// Every candidate in scikit-learn's `ParameterGrid` order for a list of one dict per kernel:
    /// kernels outermost, then C, then epsilon.
    pub fn candidates(&self) -> Vec<SvrParams> {
        let mut out = Vec::with_capacity(self.kernels.len() * self.c.len() * self.epsilon.len());
        for &kernel in &self.kernels {
            for &c in &self.c {
                for &epsilon in &self.epsilon {
                    out.push(SvrParams { c, epsilon, kernel, tol: self.tol });
                }
            }
        }
        out
    }
}

/// `GridSearchCV(SVR(), grid, cv=KFold(folds), scoring=None, refit=True)`: the model refitted on
/// all rows with the best candidate, that candidate, and its mean cross-validated R^2. Ties go to
/// the first candidate in [`SvrGrid::candidates`] order, as scikit-learn's `rank_test_score`.
pub fn grid_search(
    x: &[Vec<f64>],
    y: &[f64],
    grid: &SvrGrid,
    folds: usize,
) -> Result<(Svr, SvrParams, f64), FusionError> {
    let mut best: Option<(SvrParams, f64)> = None;
    for params in grid.candidates() {
        let score = cross_val_r2(x, y, &params, folds)?;
        if best.is_none_or(|(_, best_score)| score > best_score) {
            best = Some((params, score));
        }
    }
    let (params, score) = best.ok_or_else(|| FusionError::Params("the SVR grid has no candidates".into()))?;
    let model = Svr::fit(x, y, &params)?;
    Ok((model, params, score))
}

/// The mean R^2 over the test folds of unshuffled `KFold(folds)` (scikit-learn
/// `cross_val_score(SVR(...), x, y, cv=folds).mean()` for a regressor).
pub fn cross_val_r2(x: &[Vec<f64>], y: &[f64], params: &SvrParams, folds: usize) -> Result<f64, FusionError> {
    check_xy(x, y)?;
    params.validate()?;
    let mut total = 0.0;
    for (start, end) in kfold_test_ranges(x.len(), folds)? {
        let train_x: Vec<Vec<f64>> = x[..start].iter().chain(&x[end..]).cloned().collect();
        let train_y: Vec<f64> = y[..start].iter().chain(&y[end..]).copied().collect();
        let model = Svr::fit(&train_x, &train_y, params)?;
        total += r2_score(&y[start..end], &model.predict_many(&x[start..end]));
    }
    Ok(total / folds as f64)
}

/// The test rows [start, end) of each fold of scikit-learn's unshuffled `KFold`: the first
/// n % folds folds have n / folds + 1 rows, the others n / folds.
fn kfold_test_ranges(n: usize, folds: usize) -> Result<Vec<(usize, usize)>, FusionError> {
    if folds < 2 {
        return Err(FusionError::Params(format!("cross-validation needs at least 2 folds, got {folds}")));
    }
    if n / folds < 2 {
        return Err(FusionError::Data(format!(
            "{folds}-fold cross-validation needs at least {} rows (2 per fold), got {n}",
            2 * folds
        )));
    }
    let mut ranges = Vec::with_capacity(folds);
    let mut start = 0;
    for fold in 0..folds {
        let size = n / folds + usize::from(fold < n % folds);
        ranges.push((start, start + size));
        start += size;
    }
    Ok(ranges)
}

/// scikit-learn `r2_score`: 1 - SS_res / SS_tot; for constant truth 1.0 if the fit is exact,
/// else 0.0.
fn r2_score(truth: &[f64], predicted: &[f64]) -> f64 {
    let mean = truth.iter().sum::<f64>() / truth.len() as f64;
    let residual: f64 = truth.iter().zip(predicted).map(|(t, p)| (t - p) * (t - p)).sum();
    let total: f64 = truth.iter().map(|t| (t - mean) * (t - mean)).sum();
    if total != 0.0 {
        1.0 - residual / total
    } else if residual == 0.0 {
        1.0
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kfold_sizes_follow_scikit_learn() {
        assert_eq!(kfold_test_ranges(12, 5).unwrap(), vec![(0, 3), (3, 6), (6, 8), (8, 10), (10, 12)]);
        assert!(kfold_test_ranges(9, 5).is_err());
        assert!(kfold_test_ranges(20, 1).is_err());
    }

    #[test]
    fn powi_matches_powf() {
        assert_eq!(powi(1.5, 0), 1.0);
        assert!((powi(-1.3, 5) - (-1.3f64).powi(5)).abs() < 1e-12);
    }

    #[test]
    fn r2_of_constant_truth() {
        assert_eq!(r2_score(&[2.0, 2.0], &[2.0, 2.0]), 1.0);
        assert_eq!(r2_score(&[2.0, 2.0], &[2.0, 2.5]), 0.0);
    }
}
