//! The calibrator file of `ragjudge calibrate --save` (artifact kind `calibrator`): a fitted
//! two-stage calibration (HCAT §5) that reads back and applies to new scores, giving level
//! probabilities and conformal prediction sets.

use super::pipeline::PipelineError;
use super::Calibrator;
use crate::conformal::SplitConformal;
use ragjudge_artifacts::{read_artifact, read_artifact_value, Artifact, ArtifactError, Document};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why a calibrator file could not be read or an output of a calibration not written.
#[derive(Debug, Error)]
pub enum CalibratorFileError {
    /// Not JSON, not a calibrator, or of a newer schema.
    #[error("{}: not a calibrator file", path.display())]
    NotCalibrator {
        /// The file (or the name of a calibrator given as text).
        path: PathBuf,
        /// Why.
        #[source]
        source: ArtifactError,
    },
    /// A calibrator whose parts do not fit together.
    #[error("{}: not a calibrator file", path.display())]
    Inconsistent {
        /// The file.
        path: PathBuf,
        /// What does not fit.
        #[source]
        source: PipelineError,
    },
    /// An output that could not be written.
    #[error(transparent)]
    Write(#[from] ArtifactError),
}

/// A fitted two-stage calibration; as JSON, the calibrator file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FittedCalibration {
    /// Method and fitted parameters.
    #[serde(flatten)]
    pub calibrator: Calibrator,
    /// Score columns, in the order of the parameters.
    pub score_columns: Vec<String>,
    /// Label column it was fitted on.
    pub label_column: String,
    /// Binarisation threshold applied to the labels, if any.
    pub binarize: Option<f64>,
    /// Label value of each level, in level order.
    pub labels: Vec<f64>,
    /// Join keys of the data it was fitted on, copied to the output of an application.
    pub on: Vec<String>,
    /// Conformal error rate.
    pub alpha: f64,
    /// One conformal predictor per non-conformity score (LAC; APS too for more than two levels).
    pub conformal: Vec<SplitConformal>,
}

/// Probabilities and prediction sets for one row of scores.
#[derive(Debug, Clone, PartialEq)]
pub struct Calibrated {
    /// Probability of each label level.
    pub probs: Vec<f64>,
    /// One prediction set (level indices) per conformal predictor.
    pub sets: Vec<Vec<usize>>,
}

impl Artifact for FittedCalibration {
    const KIND: &'static str = "calibrator";
    const SCHEMA_VERSION: u32 = 1;

    /// Before artifacts were versioned: a method, its score columns and conformal predictors.
    fn is_legacy(value: &Value) -> bool {
        ["method", "score_columns", "conformal"].iter().all(|k| value.get(k).is_some())
    }
}

impl FittedCalibration {
    /// Reads and checks the calibrator file `path` (also one written before artifacts were
    /// versioned).
    pub fn read(path: &Path) -> Result<Document<FittedCalibration>, CalibratorFileError> {
        let doc =
            read_artifact(path).map_err(|source| CalibratorFileError::NotCalibrator { path: path.into(), source })?;
        Self::checked(path, doc)
    }

    /// [`FittedCalibration::read`] on the JSON text of a calibrator file, called `name` in errors.
    pub fn from_json(name: &str, text: &str) -> Result<Document<FittedCalibration>, CalibratorFileError> {
        let path = Path::new(name);
        let not = |source| CalibratorFileError::NotCalibrator { path: path.into(), source };
        let value: Value = serde_json::from_str(text.strip_prefix('\u{feff}').unwrap_or(text))
            .map_err(|source| not(ArtifactError::Json { path: path.into(), source }))?;
        let doc = read_artifact_value(path, value).map_err(not)?;
        Self::checked(path, doc)
    }

    fn checked(path: &Path, doc: Document<Self>) -> Result<Document<Self>, CalibratorFileError> {
        doc.body.check().map_err(|source| CalibratorFileError::Inconsistent { path: path.into(), source })?;
        Ok(doc)
    }

    /// Checks that a calibrator read from a file is whole: as many score columns and labels as
    /// its parameters take, and parameters that can be applied.
    pub fn check(&self) -> Result<(), PipelineError> {
        if self.score_columns.len() != self.calibrator.n_features() || self.labels.len() != self.calibrator.levels() {
            return Err(PipelineError::Inconsistent);
        }
        self.calibrator.check().map_err(|problem| PipelineError::Malformed { problem })
    }

    /// Probabilities and prediction sets for one row of scores (in [`FittedCalibration::score_columns`] order).
    pub fn apply(&self, row: &[f64]) -> Result<Calibrated, PipelineError> {
        let probs = self.calibrator.predict_proba(row)?;
        let sets = self.conformal.iter().map(|c| c.predict_set(&probs)).collect();
        Ok(Calibrated { probs, sets })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calibration::pipeline::tests::separated;
    use crate::calibration::{CalibrationError, CalibrationParams, IsotonicCalibrator};

    #[test]
    fn the_saved_file_round_trips_and_is_checked() {
        let params = CalibrationParams { binarize: Some(3.0), ..Default::default() };
        let (mut fitted, _) = params.check().unwrap().fit(&separated()).unwrap();
        fitted.on = vec!["id".into()];
        let text = serde_json::to_string(&fitted).unwrap();
        let back: FittedCalibration = serde_json::from_str(&text).unwrap();
        assert_eq!(back, fitted);
        back.check().unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        for key in
            ["method", "parameters", "score_columns", "label_column", "binarize", "labels", "on", "alpha", "conformal"]
        {
            assert!(v.get(key).is_some(), "{key} missing from {text}");
        }
        let mut broken = back;
        broken.labels.push(2.0);
        assert_eq!(broken.check(), Err(PipelineError::Inconsistent));
    }

    #[test]
    fn a_calibrator_file_with_unordered_isotonic_thresholds_is_refused() {
        // Found by fuzzing: applying it panicked in `clamp` (min > max).
        let text = r#"{"method":"isotonic","parameters":{"x_thresholds":[5.0,0.3,0.4,0.9],"y_thresholds":[0.0,0.0,1.0,1.0]},
            "score_columns":["s"],"label_column":"rating","binarize":3.0,"labels":[0.0,1.0],"on":["id"],"alpha":0.2,
            "conformal":[{"score":"lac","alpha":0.2,"n":10,"q_hat":0.5}]}"#;
        let saved: FittedCalibration = serde_json::from_str(text).unwrap();
        let e = saved.check().unwrap_err();
        assert_eq!(e, PipelineError::Malformed { problem: "isotonic: x_thresholds must increase" });
        assert_eq!(e.to_string(), "malformed parameters: isotonic: x_thresholds must increase");
        let mut empty = saved.clone();
        empty.calibrator = Calibrator::Isotonic(IsotonicCalibrator { x_thresholds: vec![], y_thresholds: vec![] });
        assert_eq!(empty.check(), Err(PipelineError::Malformed { problem: "isotonic: no thresholds" }));
        let mut short = saved;
        short.calibrator =
            Calibrator::Isotonic(IsotonicCalibrator { x_thresholds: vec![0.0, 1.0], y_thresholds: vec![0.0] });
        assert!(matches!(short.check(), Err(PipelineError::Malformed { .. })));
    }

    #[test]
    fn a_loaded_calibrator_applies_as_the_fitted_one() {
        let params = CalibrationParams { binarize: Some(3.0), ..Default::default() };
        let (fitted, _) = params.check().unwrap().fit(&separated()).unwrap();
        let back: FittedCalibration = serde_json::from_str(&serde_json::to_string_pretty(&fitted).unwrap()).unwrap();
        for s in [0.0, 0.25, 0.5, 0.75, 1.0] {
            assert_eq!(back.apply(&[s]).unwrap(), fitted.apply(&[s]).unwrap());
        }
        assert!(matches!(back.apply(&[0.1, 0.2]), Err(PipelineError::Apply(CalibrationError::FeatureCount { .. }))));
    }

    #[test]
    fn a_calibrator_file_in_the_saved_layout_loads_and_applies() {
        // Written by hand in the layout of `calibrate --save`.
        let text = r#"{
  "method": "isotonic",
  "parameters": {
    "x_thresholds": [0.0, 2.0],
    "y_thresholds": [0.0, 1.0]
  },
  "score_columns": ["s"],
  "label_column": "rating",
  "binarize": 3.0,
  "labels": [0.0, 1.0],
  "on": ["id", "system"],
  "alpha": 0.2,
  "conformal": [
    {
      "score": "lac",
      "alpha": 0.2,
      "n": 5,
      "q_hat": 0.5
    }
  ]
}
"#;
        let saved: FittedCalibration = serde_json::from_str(text).unwrap();
        saved.check().unwrap();
        assert_eq!(saved.on, ["id", "system"]);
        // By hand: P(1) interpolates 0 at 0 to 1 at 2; a level is in the LAC set when 1 - P(level) <= 0.5.
        let c = saved.apply(&[0.5]).unwrap();
        assert_eq!(c, Calibrated { probs: vec![0.75, 0.25], sets: vec![vec![0]] });
        assert_eq!(saved.apply(&[1.0]).unwrap().sets, [vec![0, 1]]);
        assert_eq!(saved.apply(&[2.5]).unwrap(), Calibrated { probs: vec![0.0, 1.0], sets: vec![vec![1]] });
        // Written back, it is the same JSON.
        let again: serde_json::Value = serde_json::to_value(&saved).unwrap();
        assert_eq!(again, serde_json::from_str::<serde_json::Value>(text).unwrap());
    }
}
