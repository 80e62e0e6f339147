//! Stage 1 of the double calibration of HCAT §5.1: map machine scores to
//! probabilities of human labels.
//!
//! - [`platt`]: Platt scaling (logistic model) for binary labels, as scikit-learn's
//!   `CalibratedClassifierCV(method="sigmoid")`.
//! - [`isotonic`]: isotonic regression for binary labels, as scikit-learn's `IsotonicRegression`.
//! - [`ordinal`]: proportional-odds (cumulative logit) regression for ranked labels, as
//!   statsmodels' `OrderedModel(distr="logit")`.
//! - [`metrics`]: Brier score and expected calibration error.
//! - [`split`]: seeded fit / calibration / test splits.
//! - [`pipeline`]: both stages as one fit: split, fit, conformal threshold, test figures.
//! - [`saved`]: the fitted calibration as a file (artifact `calibrator`), applied to new scores.
//! - [`report`]: the fit report (artifact `calibration-report`).
//! - [`job`]: fit, calibrator and report as one call, shared by the command line and Python.
//!
//! Labels are level indices `0..k` (for binary labels `1` is the positive class); scores are
//! rows of one or more machine-score columns.

pub mod isotonic;
pub mod job;
mod linalg;
pub mod metrics;
pub mod ordinal;
pub mod pipeline;
pub mod platt;
pub mod report;
pub mod saved;
pub mod split;

pub use isotonic::IsotonicCalibrator;
pub use job::Calibration;
pub use ordinal::OrdinalLogit;
pub use pipeline::{CalibrationParams, FitReport, LabelledScores, PipelineError, ValidCalibrationParams};
pub use platt::PlattScaler;
pub use report::CalibrationReport;
pub use saved::{Calibrated, CalibratorFileError, FittedCalibration};

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Why a calibrator could not be fitted or applied.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum CalibrationError {
    /// No rows to fit on.
    #[error("no rows to fit on")]
    Empty,
    /// Scores and labels have different lengths.
    #[error("{scores} score rows but {labels} labels")]
    LengthMismatch {
        /// Number of score rows.
        scores: usize,
        /// Number of labels.
        labels: usize,
    },
    /// A score row has the wrong number of columns.
    #[error("expected {expected} score column(s), got {got}")]
    FeatureCount {
        /// Columns the calibrator was fitted on (or the first row has).
        expected: usize,
        /// Columns in the offending row.
        got: usize,
    },
    /// A score is NaN or infinite.
    #[error("a score is not a finite number")]
    NonFinite,
    /// A label is outside `0..levels`.
    #[error("label index {label} is outside 0..{levels}")]
    BadLabel {
        /// The offending label index.
        label: usize,
        /// Number of levels.
        levels: usize,
    },
    /// The method needs labels with exactly two levels.
    #[error("{0} needs binary labels (two levels), got {1} levels")]
    NotBinary(&'static str, usize),
    /// A level has no observations, so its probability cannot be estimated.
    #[error("label level {0} has no rows in the fitting data")]
    MissingLevel(usize),
    /// The method takes one score column only.
    #[error("{0} takes exactly one score column, got {1}")]
    OneColumnOnly(&'static str, usize),
    /// The likelihood has no finite maximum or the Hessian is singular.
    #[error("{0}")]
    NoFit(String),
}

/// Which calibration method to fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// Platt scaling (logistic model on the scores).
    Platt,
    /// Isotonic regression (one score column).
    Isotonic,
    /// Proportional-odds ordinal logistic regression.
    Ordinal,
}

impl Method {
    /// The method named `name` (`platt`, `isotonic` or `ordinal`, any case).
    pub fn from_name(name: &str) -> Option<Method> {
        [Method::Platt, Method::Isotonic, Method::Ordinal].into_iter().find(|m| m.name().eq_ignore_ascii_case(name))
    }

    /// The method's name as written in files and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Method::Platt => "platt",
            Method::Isotonic => "isotonic",
            Method::Ordinal => "ordinal",
        }
    }
}

/// A fitted calibrator: maps one row of scores to probabilities over the label levels. As JSON:
/// `{"method": "platt", "parameters": {"a": [..], "b": ..}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "method", content = "parameters", rename_all = "lowercase")]
pub enum Calibrator {
    /// Platt scaling.
    Platt(PlattScaler),
    /// Isotonic regression.
    Isotonic(IsotonicCalibrator),
    /// Ordinal logistic regression.
    Ordinal(OrdinalLogit),
}

impl Calibrator {
    /// Fits `method` on score rows `x` and label indices `y` in `0..levels`.
    pub fn fit(method: Method, x: &[Vec<f64>], y: &[usize], levels: usize) -> Result<Self, CalibrationError> {
        match method {
            Method::Platt => PlattScaler::fit(x, &binary(y, levels, "platt")?).map(Calibrator::Platt),
            Method::Isotonic => {
                let y = binary(y, levels, "isotonic")?;
                check_rows(x, y.len())?;
                if x[0].len() != 1 {
                    return Err(CalibrationError::OneColumnOnly("isotonic", x[0].len()));
                }
                let col: Vec<f64> = x.iter().map(|r| r[0]).collect();
                let t: Vec<f64> = y.iter().map(|&b| f64::from(u8::from(b))).collect();
                IsotonicCalibrator::fit(&col, &t).map(Calibrator::Isotonic)
            }
            Method::Ordinal => OrdinalLogit::fit(x, y, levels).map(Calibrator::Ordinal),
        }
    }

    /// The fitted method.
    pub fn method(&self) -> Method {
        match self {
            Calibrator::Platt(_) => Method::Platt,
            Calibrator::Isotonic(_) => Method::Isotonic,
            Calibrator::Ordinal(_) => Method::Ordinal,
        }
    }

    /// Number of label levels the probabilities cover.
    pub fn levels(&self) -> usize {
        match self {
            Calibrator::Platt(_) | Calibrator::Isotonic(_) => 2,
            Calibrator::Ordinal(m) => m.cutpoints.len() + 1,
        }
    }

    /// Number of score columns expected.
    pub fn n_features(&self) -> usize {
        match self {
            Calibrator::Platt(m) => m.a.len(),
            Calibrator::Isotonic(_) => 1,
            Calibrator::Ordinal(m) => m.beta.len(),
        }
    }

    /// Checks parameters read from a file: what [`Calibrator::predict_proba`] relies on (isotonic
    /// thresholds increasing and paired with values, ordinal cut-points in order, finite numbers).
    pub fn check(&self) -> Result<(), &'static str> {
        let finite = |v: &[f64]| v.iter().all(|x| x.is_finite());
        let increasing = |v: &[f64]| v.windows(2).all(|w| w[0] < w[1]);
        match self {
            Calibrator::Platt(m) if !finite(&m.a) || !m.b.is_finite() => Err("platt: a weight is not a finite number"),
            Calibrator::Isotonic(m) if m.x_thresholds.is_empty() => Err("isotonic: no thresholds"),
            Calibrator::Isotonic(m) if m.x_thresholds.len() != m.y_thresholds.len() => {
                Err("isotonic: as many x_thresholds as y_thresholds are needed")
            }
            Calibrator::Isotonic(m) if !finite(&m.x_thresholds) || !finite(&m.y_thresholds) => {
                Err("isotonic: a threshold is not a finite number")
            }
            Calibrator::Isotonic(m) if !increasing(&m.x_thresholds) => Err("isotonic: x_thresholds must increase"),
            Calibrator::Ordinal(m) if !finite(&m.beta) || !finite(&m.cutpoints) => {
                Err("ordinal: a coefficient is not a finite number")
            }
            Calibrator::Ordinal(m) if !m.cutpoints.windows(2).all(|w| w[0] <= w[1]) => {
                Err("ordinal: cutpoints must not decrease")
            }
            _ => Ok(()),
        }
    }

    /// Probabilities of each label level (summing to 1) for one row of scores.
    pub fn predict_proba(&self, row: &[f64]) -> Result<Vec<f64>, CalibrationError> {
        if row.len() != self.n_features() {
            return Err(CalibrationError::FeatureCount { expected: self.n_features(), got: row.len() });
        }
        if !row.iter().all(|v| v.is_finite()) {
            return Err(CalibrationError::NonFinite);
        }
        Ok(match self {
            Calibrator::Platt(m) => {
                let p = m.predict(row);
                vec![1.0 - p, p]
            }
            Calibrator::Isotonic(m) => {
                let p = m.predict(row[0]).clamp(0.0, 1.0);
                vec![1.0 - p, p]
            }
            Calibrator::Ordinal(m) => m.predict_proba(row),
        })
    }
}

/// Checks that `x` has `n` non-empty, equally long, finite rows.
pub(crate) fn check_rows(x: &[Vec<f64>], n: usize) -> Result<usize, CalibrationError> {
    if x.is_empty() {
        return Err(CalibrationError::Empty);
    }
    if x.len() != n {
        return Err(CalibrationError::LengthMismatch { scores: x.len(), labels: n });
    }
    let p = x[0].len();
    if p == 0 {
        return Err(CalibrationError::FeatureCount { expected: 1, got: 0 });
    }
    for r in x {
        if r.len() != p {
            return Err(CalibrationError::FeatureCount { expected: p, got: r.len() });
        }
        if !r.iter().all(|v| v.is_finite()) {
            return Err(CalibrationError::NonFinite);
        }
    }
    Ok(p)
}

/// Label indices of a two-level problem as booleans (`1` is the positive class).
fn binary(y: &[usize], levels: usize, method: &'static str) -> Result<Vec<bool>, CalibrationError> {
    if levels != 2 {
        return Err(CalibrationError::NotBinary(method, levels));
    }
    y.iter().map(|&l| if l < 2 { Ok(l == 1) } else { Err(CalibrationError::BadLabel { label: l, levels }) }).collect()
}
