//! Statistics for ragjudge: correlations with p-values, agreement, bootstrap CIs, descriptive statistics.
//!
//! - [`describe`]: mean, variance, quantiles (numpy conventions) and a streaming
//!   [`Summary`].
//! - [`rank`]: average ranks with ties (scipy `rankdata`).
//! - [`correlation`]: Pearson, Spearman and Kendall tau-b with scipy-compatible p-values
//!   and Fisher z or bootstrap CIs.
//! - [`agreement`]: accuracy, confusion matrix and Cohen's kappa (scikit-learn).
//! - [`reliability`]: agreement among several annotators with missing labels: Krippendorff's
//!   alpha (the `krippendorff` package), mean pairwise Cohen's kappa, Fleiss' kappa.
//! - [`bootstrap`]: seeded percentile bootstrap and the streaming Poisson bootstrap.
//! - [`calibration`]: Platt, isotonic and ordinal calibration of scores to human labels.
//! - [`conformal`]: split conformal prediction sets (LAC, APS) with coverage.
//! - [`hypothesis`]: the Mann-Whitney U test and the Benjamini-Hochberg adjustment.
//! - [`proportion`]: the Wilson interval of a proportion (statsmodels).
//! - [`ppi`]: prediction-powered inference of a mean (ppi_py).
//! - [`logistic`]: logistic regression with fractional targets (statsmodels GLM).
#![deny(missing_docs)]
// Library code returns errors instead of panicking (tests may unwrap: clippy.toml).
#![deny(clippy::unwrap_used, clippy::expect_used)]

pub mod agreement;
pub mod bootstrap;
pub mod calibration;
pub mod conformal;
pub mod correlation;
pub mod describe;
mod error;
pub mod hypothesis;
pub mod logistic;
pub mod ppi;
pub mod proportion;
pub mod rank;
pub mod reliability;

pub use agreement::{accuracy, cohen_kappa, confusion_matrix, kappa_from_confusion, unique_labels, Weights};
pub use bootstrap::{bootstrap_ci, bootstrap_ci_paired, Ci, PoissonBootstrapMean, PoissonWeights, DEFAULT_REPLICATES};
pub use correlation::{
    bootstrap_correlation_ci, kendall_tau_b, kendall_tau_b_with_level, pearson, pearson_with_level, spearman,
    spearman_with_level, CiMethod, Correlation, CorrelationKind, DEFAULT_LEVEL,
};
pub use describe::{
    coefficient_of_variation, iqr, mean, median, population_std_dev, population_variance, quantile, quantile_sorted,
    quantiles, std_dev, variance, variance_ddof, ExactSum, Summary,
};
pub use error::StatsError;
pub use proportion::wilson;
pub use rank::{cmp_f64, rankdata_average};
pub use reliability::{
    fleiss_kappa, krippendorff_alpha, pairwise_cohen_kappa, KrippendorffAlpha, MeasurementLevel, PairKappa,
    PairwiseKappa, ReliabilityData,
};
