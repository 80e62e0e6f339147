//! Prediction-powered inference of a mean (Angelopoulos et al. 2023, "Prediction-powered
//! inference", Science 382; with the power tuning of PPI++, Angelopoulos, Duchi and Zrnic 2023,
//! arXiv:2311.01453), as the reference package `ppi_py` computes it (`ppi_mean_ci`,
//! `ppi_mean_pointestimate`).
//!
//! `n` items carry a human label `Y` and the judge's prediction `Ŷ`; `N` more items carry only
//! `Ŷ`. The estimate `λ mean(Ŷ_unlabelled) + mean(Y - λ Ŷ)` is unbiased for the mean of `Y`
//! whatever the judge's bias, and its normal interval is valid; with an informative judge it is
//! narrower than the interval of the `n` labels alone. `λ = 1` is plain PPI, `λ = 0` the
//! classical estimate; by default `λ` minimises the variance,
//! `cov(Y, Ŷ) / ((1 + n / N) var(Ŷ ∪ Ŷ_unlabelled))` clipped to `[0, 1]`.

use crate::describe::{mean, population_variance, variance};
use crate::error::{check_level, check_pair};
use crate::StatsError;
use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, Normal};

/// A mean with its two-sided normal interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MeanCi {
    /// The point estimate.
    pub estimate: f64,
    /// Lower end.
    pub low: f64,
    /// Upper end.
    pub high: f64,
}

/// A prediction-powered estimate beside the labels-only one.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PpiMean {
    /// The prediction-powered estimate and interval.
    pub ppi: MeanCi,
    /// The classical estimate and interval of the human labels alone.
    pub classical: MeanCi,
    /// The `λ` used.
    pub lambda: f64,
    /// Labelled items.
    pub n: usize,
    /// Unlabelled items.
    pub unlabelled: usize,
}

fn z(alpha: f64) -> f64 {
    Normal::standard().inverse_cdf(1.0 - alpha / 2.0)
}

fn interval(estimate: f64, se: f64, alpha: f64) -> MeanCi {
    let h = z(alpha) * se;
    MeanCi { estimate, low: estimate - h, high: estimate + h }
}

/// The classical mean of `y` with its normal interval at level `1 - alpha` (`ppi_py`'s
/// `classical_mean_ci`: population standard deviation over `sqrt(n)`).
pub fn classical_mean(y: &[f64], alpha: f64) -> Result<MeanCi, StatsError> {
    if y.is_empty() {
        return Err(StatsError::Empty);
    }
    let se = (population_variance(y).unwrap_or(0.0) / y.len() as f64).sqrt();
    Ok(interval(mean(y).unwrap_or(f64::NAN), se, alpha))
}

/// The variance-minimising `λ` of PPI++ for a mean, clipped to `[0, 1]`.
pub fn tuned_lambda(y: &[f64], yhat: &[f64], yhat_unlabelled: &[f64]) -> f64 {
    let (n, big_n) = (y.len() as f64, yhat_unlabelled.len() as f64);
    let (my, mh) = (mean(y).unwrap_or(0.0), mean(yhat).unwrap_or(0.0));
    let cov = y.iter().zip(yhat).map(|(a, b)| (a - my) * (b - mh)).sum::<f64>() / n;
    let all: Vec<f64> = yhat.iter().chain(yhat_unlabelled).copied().collect();
    let var = variance(&all).unwrap_or(0.0);
    if var <= 0.0 {
        return 0.0;
    }
    (cov / ((1.0 + n / big_n) * var)).clamp(0.0, 1.0)
}

/// The prediction-powered mean at level `1 - alpha` with `lambda` (`None`: tuned). Fewer than
/// two labelled or no unlabelled items is [`StatsError::Empty`].
pub fn ppi_mean(
    y: &[f64],
    yhat: &[f64],
    yhat_unlabelled: &[f64],
    alpha: f64,
    lambda: Option<f64>,
) -> Result<PpiMean, StatsError> {
    check_pair(y, yhat)?;
    check_level(1.0 - alpha)?;
    if y.len() < 2 || yhat_unlabelled.is_empty() {
        return Err(StatsError::Empty);
    }
    if !yhat_unlabelled.iter().all(|v| v.is_finite()) {
        return Err(StatsError::NonFinite);
    }
    let lambda = lambda.unwrap_or_else(|| tuned_lambda(y, yhat, yhat_unlabelled));
    let imputed: Vec<f64> = yhat_unlabelled.iter().map(|v| lambda * v).collect();
    let rectifier: Vec<f64> = y.iter().zip(yhat).map(|(a, b)| a - lambda * b).collect();
    let estimate = mean(&imputed).unwrap_or(0.0) + mean(&rectifier).unwrap_or(0.0);
    let se2 = population_variance(&imputed).unwrap_or(0.0) / imputed.len() as f64
        + population_variance(&rectifier).unwrap_or(0.0) / rectifier.len() as f64;
    Ok(PpiMean {
        ppi: interval(estimate, se2.sqrt(), alpha),
        classical: classical_mean(y, alpha)?,
        lambda,
        n: y.len(),
        unlabelled: yhat_unlabelled.len(),
    })
}
