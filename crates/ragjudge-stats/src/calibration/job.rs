//! A calibration as one library call (HCAT §5), shared by the command line and the Python
//! package: labelled scores -> the fitted calibrator (artifact `calibrator`) and its fit report
//! (artifact `calibration-report`), each with its provenance.

use super::pipeline::{LabelledScores, PipelineError, ValidCalibrationParams};
use super::report::CalibrationReport;
use super::saved::{CalibratorFileError, FittedCalibration};
use ragjudge_artifacts::{to_json_bytes, Artifact, ArtifactError, Document, OutputSet, Provenance};
use serde_json::Value;
use std::path::Path;

/// The two artifacts of one calibration.
#[derive(Debug, Clone)]
pub struct Calibration {
    /// The fitted calibrator. Its provenance holds the version and the settings only, so the
    /// same data and settings give the same file whichever face fitted it.
    pub model: Document<FittedCalibration>,
    /// The fit report, with the caller's provenance (command line, inputs) and the settings.
    pub report: Document<CalibrationReport>,
}

impl ValidCalibrationParams {
    /// Fits `data` (joined on the key columns `on`, out of `rows` rows of the score file) and
    /// gives the calibrator and its report; `provenance` is the caller's, the settings are added.
    pub fn calibrate(
        &self,
        data: &LabelledScores,
        on: Vec<String>,
        rows: usize,
        mut provenance: Provenance,
    ) -> Result<Calibration, PipelineError> {
        let (mut fitted, measured) = self.fit(data)?;
        fitted.on = on;
        let settings = serde_json::to_value(self.params()).unwrap_or(Value::Null);
        let report = CalibrationReport::new(&fitted, measured, rows, self.params().seed);
        provenance.settings = settings.clone();
        let model_provenance = Provenance { settings, ..Provenance::version_only() };
        Ok(Calibration { model: document(model_provenance, fitted), report: document(provenance, report) })
    }
}

fn document<T: Artifact>(provenance: Provenance, body: T) -> Document<T> {
    Document { kind: T::KIND.to_string(), schema_version: T::SCHEMA_VERSION, provenance, body }
}

/// `doc` as the bytes of its file; `path` names it in errors.
fn bytes<T: Artifact>(path: &Path, doc: &Document<T>) -> Result<Vec<u8>, ArtifactError> {
    to_json_bytes(&doc.provenance, &doc.body).map_err(|source| ArtifactError::Json { path: path.into(), source })
}

impl Calibration {
    /// Writes the calibrator to `model` and the report to `report` (either may be absent), all
    /// complete or none.
    pub fn write(&self, model: Option<&Path>, report: Option<&Path>) -> Result<(), CalibratorFileError> {
        let mut set = OutputSet::new();
        if let Some(path) = model {
            set.push_bytes(path, &bytes(path, &self.model)?)?;
        }
        if let Some(path) = report {
            set.push_bytes(path, &bytes(path, &self.report)?)?;
        }
        Ok(set.commit()?)
    }

    /// The calibrator file's text.
    pub fn model_json(&self) -> Result<String, ArtifactError> {
        Ok(String::from_utf8_lossy(&bytes(Path::new("calibrator"), &self.model)?).into_owned())
    }

    /// The report's text.
    pub fn report_json(&self) -> Result<String, ArtifactError> {
        Ok(String::from_utf8_lossy(&bytes(Path::new("calibration report"), &self.report)?).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calibration::pipeline::tests::separated;
    use crate::calibration::{CalibrationParams, Method};
    use ragjudge_artifacts::read_artifact;

    fn isotonic() -> Calibration {
        let params =
            CalibrationParams { method: Method::Isotonic, alpha: 0.2, binarize: Some(3.0), ..Default::default() };
        let prov = Provenance::with_command(vec!["ragjudge".into(), "calibrate".into()]);
        params.check().unwrap().calibrate(&separated(), vec!["id".into()], 21, prov).unwrap()
    }

    #[test]
    fn both_files_read_back_as_written_with_their_provenance() {
        let dir = tempfile::tempdir().unwrap();
        let (model, report) = (dir.path().join("cal.json"), dir.path().join("report.json"));
        let c = isotonic();
        c.write(Some(&model), Some(&report)).unwrap();
        let m = FittedCalibration::read(&model).unwrap();
        assert_eq!((m.kind.as_str(), m.schema_version), ("calibrator", 1));
        assert_eq!(m.body, c.model.body);
        assert_eq!(m.body.on, ["id"]);
        // The calibrator's provenance is the settings alone; the report's has the command line too.
        assert!(m.provenance.command.is_empty());
        assert_eq!(m.provenance.settings["method"], "isotonic");
        assert_eq!(m.provenance.settings["alpha"], 0.2);
        let r = read_artifact::<CalibrationReport>(&report).unwrap();
        assert_eq!(r.body, c.report.body);
        assert_eq!(r.provenance.command, ["ragjudge", "calibrate"]);
        // By hand: 20 joined rows of 21 given; round(20 * 0.25) = 5 calibration and 5 test rows.
        assert_eq!((r.body.rows, r.body.joined, r.body.fit, r.body.calibration, r.body.test), (21, 20, 10, 5, 5));
        assert_eq!(FittedCalibration::from_json("t", &c.model_json().unwrap()).unwrap().body, c.model.body);
    }

    #[test]
    fn files_written_before_artifacts_had_a_kind_still_read() {
        // The layout of `calibrate --save` and `calibrate --report` before artifacts had `kind`.
        let c = isotonic();
        let mut legacy = serde_json::to_value(&c.model.body).unwrap();
        assert!(legacy.get("kind").is_none());
        let back = FittedCalibration::from_json("old.json", &legacy.to_string()).unwrap();
        assert_eq!((back.schema_version, &back.body), (1, &c.model.body));
        legacy.as_object_mut().unwrap().remove("conformal");
        let e = FittedCalibration::from_json("old.json", &legacy.to_string()).unwrap_err();
        assert_eq!(e.to_string(), "old.json: not a calibrator file");
        let source = std::error::Error::source(&e).unwrap().to_string();
        assert_eq!(source, "old.json: not a ragjudge artifact (no `kind` field)");
        let mut report = serde_json::to_value(&c.report.body).unwrap();
        report["provenance"] = serde_json::json!({"ragjudge": "0.1.0", "command": ["ragjudge", "calibrate"]});
        assert!(CalibrationReport::is_legacy(&report));
        let doc = ragjudge_artifacts::read_artifact_value::<CalibrationReport>(Path::new("r.json"), report).unwrap();
        assert_eq!((doc.body, doc.provenance.ragjudge.as_str()), (c.report.body, "0.1.0"));
    }

    #[test]
    fn the_text_report_names_the_split_and_the_sets() {
        let text = isotonic().report.body.render();
        assert!(text.starts_with("isotonic calibration of s -> rating >= 3 (levels 0, 1)\n"), "{text}");
        assert!(text.contains("rows: 20 joined of 21; split (seed 42): fit 10, calibration 5, test 5\n"), "{text}");
        assert!(text.contains("LAC sets, alpha 0.2: q_hat"), "{text}");
    }
}
