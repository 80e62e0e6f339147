//! The two-stage calibration of HCAT §5 as one fit/apply type: split labelled rows at random
//! into a fitting part (stage 1, §5.1: Platt, isotonic or ordinal), a conformal calibration part
//! (stage 2, §5.2: the split-conformal threshold) and a test part (coverage, set sizes, Brier
//! score, expected calibration error). The fitted result serialises to the calibrator file that
//! `ragjudge calibrate --save` writes and `--apply` reads ([`super::saved`]).

use super::metrics::{reliability_curve, CalibrationQuality, ReliabilityBin, DEFAULT_ECE_BINS};
use super::saved::FittedCalibration;
use super::split::split_rows;
use super::{CalibrationError, Calibrator, Method};
use crate::conformal::{BinarySet, ConformalError, ConformalScore, Coverage, SplitConformal};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Why a calibration could not be fitted or applied.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum PipelineError {
    /// `alpha` outside (0, 1).
    #[error("--alpha must be between 0 and 1, got {0}")]
    Alpha(f64),
    /// Split fractions out of range.
    #[error("--cal-fraction {cal} and --test-fraction {test} must lie in [0, 1) and sum to less than 1")]
    Fractions {
        /// Share held out for the conformal threshold.
        cal: f64,
        /// Share held out for testing.
        test: f64,
    },
    /// No score columns named.
    #[error("--score-col is needed: at least one score column")]
    NoScoreColumn,
    /// No labelled rows.
    #[error("no labelled rows to calibrate")]
    Empty,
    /// The labels take one value only.
    #[error("`{column}` has a single value ({value}) on the joined rows; nothing to calibrate")]
    SingleLevel {
        /// The label column.
        column: String,
        /// Its only value.
        value: f64,
    },
    /// Platt or isotonic with more than two label levels.
    #[error("{method} needs binary labels, but `{column}` has {levels} levels; use --binarize T or --method ordinal")]
    NotBinary {
        /// The method.
        method: &'static str,
        /// The label column.
        column: String,
        /// Its number of levels.
        levels: usize,
    },
    /// A split too small to fit or to calibrate.
    #[error("{rows} joined rows give {fit} fitting and {calibration} calibration rows; both must be non-empty")]
    SmallSplit {
        /// Rows in all.
        rows: usize,
        /// Fitting rows.
        fit: usize,
        /// Calibration rows.
        calibration: usize,
    },
    /// Stage 1 failed.
    #[error("fitting {method} on {rows} rows: {source}")]
    Fit {
        /// The method.
        method: &'static str,
        /// Fitting rows.
        rows: usize,
        /// Why.
        source: CalibrationError,
    },
    /// A calibrator could not be applied to a row.
    #[error(transparent)]
    Apply(#[from] CalibrationError),
    /// Stage 2 failed.
    #[error(transparent)]
    Conformal(#[from] ConformalError),
    /// A calibrator file whose parts do not fit together.
    #[error("score columns or labels do not match the parameters")]
    Inconsistent,
    /// A calibrator file whose parameters no fit could have produced (e.g. edited by hand).
    #[error("malformed parameters: {problem}")]
    Malformed {
        /// What is wrong.
        problem: &'static str,
    },
}

/// How to calibrate: method, conformal error rate, split and binarisation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CalibrationParams {
    /// Stage 1 method.
    pub method: Method,
    /// Conformal error rate: sets hold the true label with probability at least `1 - alpha`.
    pub alpha: f64,
    /// Share of rows held out to set the conformal threshold.
    pub cal_fraction: f64,
    /// Share of rows held out to measure coverage and calibration (may be 0).
    pub test_fraction: f64,
    /// Seed of the random split.
    pub seed: u64,
    /// Binarise the labels: 1 when label >= T, else 0.
    pub binarize: Option<f64>,
}

impl Default for CalibrationParams {
    fn default() -> Self {
        Self { method: Method::Platt, alpha: 0.1, cal_fraction: 0.25, test_fraction: 0.25, seed: 42, binarize: None }
    }
}

/// Checked [`CalibrationParams`], ready to [`fit`](ValidCalibrationParams::fit).
#[derive(Debug, Clone, PartialEq)]
pub struct ValidCalibrationParams(CalibrationParams);

impl CalibrationParams {
    /// Checks alpha and the split fractions.
    pub fn check(self) -> Result<ValidCalibrationParams, PipelineError> {
        if !(self.alpha > 0.0 && self.alpha < 1.0) {
            return Err(PipelineError::Alpha(self.alpha));
        }
        let (cal, test) = (self.cal_fraction, self.test_fraction);
        if !((0.0..1.0).contains(&cal) && (0.0..1.0).contains(&test) && cal + test < 1.0) {
            return Err(PipelineError::Fractions { cal, test });
        }
        Ok(ValidCalibrationParams(self))
    }
}

/// Labelled rows: one row of score columns and one label per row.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelledScores {
    /// Names of the score columns, in the order of each row.
    pub score_columns: Vec<String>,
    /// Name of the label column.
    pub label_column: String,
    /// Score rows.
    pub x: Vec<Vec<f64>>,
    /// Labels (before any binarisation).
    pub y: Vec<f64>,
}

/// Conformal figures of one non-conformity score on the test split.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SetReport {
    /// The non-conformity score.
    pub score: ConformalScore,
    /// The threshold; `None` = infinite.
    pub q_hat: Option<f64>,
    /// Coverage and set sizes; `None` without a test split.
    pub test: Option<Coverage>,
    /// Binary labels only: counts of the sets `{0}`, `{1}`, `{0,1}` and empty on the test split.
    pub binary_sets: Option<BinarySetCounts>,
}

/// Counts of the binary prediction sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BinarySetCounts {
    /// `{0}`.
    pub zero: usize,
    /// `{1}`.
    pub one: usize,
    /// `{0,1}`.
    pub both: usize,
    /// The empty set.
    pub empty: usize,
}

/// What a fit measured.
#[derive(Debug, Clone, PartialEq)]
pub struct FitReport {
    /// Rows used (labelled rows with every score).
    pub rows: usize,
    /// Fitting rows.
    pub fit: usize,
    /// Conformal calibration rows.
    pub calibration: usize,
    /// Test rows.
    pub test: usize,
    /// Brier score and ECE on the test split (the calibration split when there is none).
    pub quality: Option<CalibrationQuality>,
    /// `"test"` or `"calibration"`: where `quality` was measured.
    pub quality_on: &'static str,
    /// The reliability diagram of the same split ([`DEFAULT_ECE_BINS`] bins, empty ones left out).
    pub reliability: Vec<ReliabilityBin>,
    /// Per non-conformity score.
    pub sets: Vec<SetReport>,
}

impl ValidCalibrationParams {
    /// The checked parameters.
    pub fn params(&self) -> &CalibrationParams {
        &self.0
    }

    /// Splits, fits stage 1 on the fitting part, sets the conformal threshold on the calibration
    /// part and measures the test part.
    pub fn fit(&self, data: &LabelledScores) -> Result<(FittedCalibration, FitReport), PipelineError> {
        let p = &self.0;
        if data.score_columns.is_empty() {
            return Err(PipelineError::NoScoreColumn);
        }
        if data.x.is_empty() {
            return Err(PipelineError::Empty);
        }
        let raw: Vec<f64> = match p.binarize {
            Some(t) => data.y.iter().map(|&v| f64::from(u8::from(v >= t))).collect(),
            None => data.y.clone(),
        };
        let mut levels = raw.clone();
        levels.sort_by(f64::total_cmp);
        levels.dedup();
        let column = data.label_column.clone();
        if levels.len() < 2 {
            return Err(PipelineError::SingleLevel { column, value: levels[0] });
        }
        if p.method != Method::Ordinal && levels.len() != 2 {
            return Err(PipelineError::NotBinary { method: p.method.name(), column, levels: levels.len() });
        }
        let y: Vec<usize> = raw.iter().map(|v| levels.iter().position(|l| l == v).unwrap_or(0)).collect();
        let split = split_rows(data.x.len(), p.cal_fraction, p.test_fraction, p.seed)
            .ok_or(PipelineError::Fractions { cal: p.cal_fraction, test: p.test_fraction })?;
        if split.fit.is_empty() || split.calibration.is_empty() {
            return Err(PipelineError::SmallSplit {
                rows: data.x.len(),
                fit: split.fit.len(),
                calibration: split.calibration.len(),
            });
        }
        let pick = |idx: &[usize]| -> (Vec<Vec<f64>>, Vec<usize>) {
            (idx.iter().map(|&i| data.x[i].clone()).collect(), idx.iter().map(|&i| y[i]).collect())
        };
        let (fx, fy) = pick(&split.fit);
        let calibrator = Calibrator::fit(p.method, &fx, &fy, levels.len()).map_err(|source| PipelineError::Fit {
            method: p.method.name(),
            rows: fx.len(),
            source,
        })?;
        let probs = |x: &[Vec<f64>]| -> Result<Vec<Vec<f64>>, CalibrationError> {
            x.iter().map(|r| calibrator.predict_proba(r)).collect()
        };
        let (cx, cy) = pick(&split.calibration);
        let (tx, ty) = pick(&split.test);
        let (pc, pt) = (probs(&cx)?, probs(&tx)?);
        let scores: &[ConformalScore] =
            if levels.len() == 2 { &[ConformalScore::Lac] } else { &[ConformalScore::Lac, ConformalScore::Aps] };
        let mut conformal = Vec::new();
        let mut sets = Vec::new();
        for &score in scores {
            let c = SplitConformal::calibrate(score, &pc, &cy, p.alpha)?;
            let test = Coverage::measure(&c, &pt, &ty);
            let binary_sets = (levels.len() == 2 && !pt.is_empty()).then(|| binary_set_counts(&c, &pt));
            sets.push(SetReport { score, q_hat: c.q_hat, test, binary_sets });
            conformal.push(c);
        }
        let (measured, measured_y, quality_on) =
            if pt.is_empty() { (&pc, &cy, "calibration") } else { (&pt, &ty, "test") };
        let quality = CalibrationQuality::of(measured, measured_y);
        let reliability = reliability_curve(measured, measured_y, DEFAULT_ECE_BINS).unwrap_or_default();
        let fitted = FittedCalibration {
            calibrator,
            score_columns: data.score_columns.clone(),
            label_column: data.label_column.clone(),
            binarize: p.binarize,
            labels: levels,
            on: Vec::new(),
            alpha: p.alpha,
            conformal,
        };
        let report = FitReport {
            rows: data.x.len(),
            fit: split.fit.len(),
            calibration: split.calibration.len(),
            test: split.test.len(),
            quality,
            quality_on,
            reliability,
            sets,
        };
        Ok((fitted, report))
    }
}

fn binary_set_counts(c: &SplitConformal, probs: &[Vec<f64>]) -> BinarySetCounts {
    let mut n = BinarySetCounts { zero: 0, one: 0, both: 0, empty: 0 };
    for p in probs {
        match BinarySet::of(&c.predict_set(p)) {
            BinarySet::Zero => n.zero += 1,
            BinarySet::One => n.one += 1,
            BinarySet::Both => n.both += 1,
            BinarySet::Empty => n.empty += 1,
        }
    }
    n
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::calibration::saved::Calibrated;

    /// 20 rows: ids 0-9 score 0.25 with labels 1 or 2, ids 10-19 score 0.75 with labels 4 or 5.
    pub(in crate::calibration) fn separated() -> LabelledScores {
        let x = (0..20).map(|i| vec![if i < 10 { 0.25 } else { 0.75 }]).collect();
        let y = (0..20).map(|i| if i < 10 { f64::from(1 + i % 2) } else { f64::from(4 + i % 2) }).collect();
        LabelledScores { score_columns: vec!["s".into()], label_column: "rating".into(), x, y }
    }

    #[test]
    fn isotonic_on_separated_scores_is_exact_and_covers() {
        let params =
            CalibrationParams { method: Method::Isotonic, alpha: 0.2, binarize: Some(3.0), ..Default::default() };
        let (fitted, report) = params.check().unwrap().fit(&separated()).unwrap();
        // By hand: round(20 * 0.25) = 5 calibration rows, 5 test rows, 10 fitting rows.
        assert_eq!((report.rows, report.fit, report.calibration, report.test), (20, 10, 5, 5));
        assert_eq!(fitted.labels, [0.0, 1.0]);
        // The fitting rows are perfectly separated, so isotonic gives P(1) = 0 at 0.25 and 1 at 0.75,
        // every test row is predicted with certainty and its LAC set is its own label.
        assert_eq!(fitted.apply(&[0.25]).unwrap(), Calibrated { probs: vec![1.0, 0.0], sets: vec![vec![0]] });
        assert_eq!(fitted.apply(&[0.75]).unwrap(), Calibrated { probs: vec![0.0, 1.0], sets: vec![vec![1]] });
        let test = report.sets[0].test.as_ref().unwrap();
        assert_eq!((test.coverage, test.mean_size), (1.0, 1.0));
        let b = report.sets[0].binary_sets.unwrap();
        assert_eq!(b.zero + b.one, 5);
        assert_eq!((b.both, b.empty), (0, 0));
        assert_eq!(report.quality.unwrap().brier, 0.0);
    }

    #[test]
    fn bad_parameters_and_labels_are_refused_with_their_reason() {
        let e = CalibrationParams { alpha: 1.5, ..Default::default() }.check().unwrap_err();
        assert_eq!(e.to_string(), "--alpha must be between 0 and 1, got 1.5");
        let e = CalibrationParams { cal_fraction: 0.6, test_fraction: 0.5, ..Default::default() }.check().unwrap_err();
        assert!(matches!(e, PipelineError::Fractions { .. }));
        let e = CalibrationParams::default().check().unwrap().fit(&separated()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "platt needs binary labels, but `rating` has 4 levels; use --binarize T or --method ordinal"
        );
        let mut one = separated();
        one.y = vec![3.0; 20];
        let e = CalibrationParams::default().check().unwrap().fit(&one).unwrap_err();
        assert_eq!(e.to_string(), "`rating` has a single value (3) on the joined rows; nothing to calibrate");
    }

    #[test]
    fn an_infinite_threshold_gives_every_test_row_both_labels() {
        let params =
            CalibrationParams { method: Method::Isotonic, alpha: 0.1, binarize: Some(3.0), ..Default::default() };
        let (fitted, report) = params.check().unwrap().fit(&separated()).unwrap();
        // By hand: 5 calibration rows and alpha 0.1 ask for the ceil(6 * 0.9) = 6th smallest of five
        // scores: the threshold is infinite, so each of the 5 test sets is {0, 1}, whatever the split.
        assert_eq!(fitted.conformal.len(), 1);
        assert_eq!(report.sets[0].q_hat, None);
        assert_eq!(report.sets[0].binary_sets, Some(BinarySetCounts { zero: 0, one: 0, both: 5, empty: 0 }));
        let test = report.sets[0].test.as_ref().unwrap();
        assert_eq!((test.coverage, test.mean_size, test.size_counts.as_slice()), (1.0, 2.0, &[0, 0, 5][..]));
        assert_eq!(report.quality_on, "test");
    }

    #[test]
    fn ordinal_labels_get_lac_and_aps_sets_and_no_binary_counts() {
        // 30 rows, labels 1, 2, 3 in turn against increasing scores (no separation, so the fit is finite).
        let x = (0..30).map(|i| vec![f64::from(i) / 30.0]).collect();
        let y = (0..30).map(|i| f64::from(1 + i % 3)).collect();
        let data = LabelledScores { score_columns: vec!["s".into()], label_column: "r".into(), x, y };
        let params = CalibrationParams { method: Method::Ordinal, test_fraction: 0.0, ..Default::default() };
        let (fitted, report) = params.check().unwrap().fit(&data).unwrap();
        // By hand: round(30 * 0.25) = round(7.5) = 8 calibration rows, no test rows, 22 fitting rows.
        assert_eq!((report.rows, report.fit, report.calibration, report.test), (30, 22, 8, 0));
        assert_eq!(fitted.labels, [1.0, 2.0, 3.0]);
        let scores: Vec<ConformalScore> = fitted.conformal.iter().map(|c| c.score).collect();
        assert_eq!(scores, [ConformalScore::Lac, ConformalScore::Aps]);
        // Without a test split there is no coverage, and quality is measured on the calibration rows.
        assert!(report.sets.iter().all(|s| s.test.is_none() && s.binary_sets.is_none()));
        assert_eq!(report.quality_on, "calibration");
        // 8 calibration rows, alpha 0.1: ceil(9 * 0.9) = 9 > 8, so both thresholds are infinite and
        // every set holds the three levels.
        let c = fitted.apply(&[0.5]).unwrap();
        assert_eq!(c.sets, [vec![0, 1, 2], vec![0, 1, 2]]);
        assert!((c.probs.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn splits_too_small_and_missing_columns_are_refused() {
        let two = LabelledScores {
            score_columns: vec!["s".into()],
            label_column: "l".into(),
            x: vec![vec![0.1], vec![0.9]],
            y: vec![0.0, 1.0],
        };
        let e = CalibrationParams::default().check().unwrap().fit(&two).unwrap_err();
        // By hand: round(2 * 0.25) = 1 calibration row, 1 test row, none left to fit.
        assert_eq!(e.to_string(), "2 joined rows give 0 fitting and 1 calibration rows; both must be non-empty");
        let none = LabelledScores { score_columns: vec![], ..two.clone() };
        let e = CalibrationParams::default().check().unwrap().fit(&none).unwrap_err();
        assert_eq!(e, PipelineError::NoScoreColumn);
        let empty = LabelledScores { x: vec![], y: vec![], ..two };
        let e = CalibrationParams::default().check().unwrap().fit(&empty).unwrap_err();
        assert_eq!(e, PipelineError::Empty);
    }
}
