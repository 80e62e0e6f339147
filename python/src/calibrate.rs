//! `calibrate_fit` / `calibrate_apply`: `ragjudge_stats::calibration` (HCAT §5: Platt, isotonic or
//! ordinal calibration, then split conformal prediction sets), through the library's calibration
//! job. The calibrator travels as the JSON text `ragjudge calibrate --save` writes (artifact
//! `calibrator`), so files move freely between Python and the CLI.

use crate::error::value_error;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use ragjudge_artifacts::Provenance;
use ragjudge_stats::calibration::{CalibrationParams, FittedCalibration, LabelledScores, Method};

/// Fits a calibrator of the score rows `x` (one list per row, in `score_columns` order) to the
/// labels `y`; returns `(calibrator_json, report_json)`.
#[pyfunction]
#[pyo3(signature = (
    x, y, score_columns, label_column, *, method="platt", alpha=0.1, cal_fraction=0.25,
    test_fraction=0.25, seed=42, binarize=None, on=Vec::new()
))]
#[allow(clippy::too_many_arguments)]
pub fn calibrate_fit(
    py: Python<'_>,
    x: Vec<Vec<f64>>,
    y: Vec<f64>,
    score_columns: Vec<String>,
    label_column: String,
    method: &str,
    alpha: f64,
    cal_fraction: f64,
    test_fraction: f64,
    seed: u64,
    binarize: Option<f64>,
    on: Vec<String>,
) -> PyResult<(String, String)> {
    let method = Method::from_name(method)
        .ok_or_else(|| value_error(format!("method must be platt, isotonic or ordinal, got `{method}`")))?;
    if x.len() != y.len() {
        return Err(value_error(format!("{} score rows but {} labels", x.len(), y.len())));
    }
    if let Some(i) = x.iter().position(|r| r.len() != score_columns.len()) {
        return Err(value_error(format!("row {i}: {} scores for {} score columns", x[i].len(), score_columns.len())));
    }
    let params = CalibrationParams { method, alpha, cal_fraction, test_fraction, seed, binarize }
        .check()
        .map_err(value_error)?;
    let rows = x.len();
    let data = LabelledScores { score_columns, label_column, x, y };
    let provenance = Provenance::with_command(vec!["ragjudge.calibrate".into()]);
    let c = py.detach(|| params.calibrate(&data, on, rows, provenance)).map_err(value_error)?;
    let model = c.model_json().map_err(value_error)?;
    Ok((model.trim_end().to_string(), c.report_json().map_err(value_error)?))
}

/// Applies a calibrator (its JSON text) to the score rows `x`; returns a dict with `labels`
/// (label value of each level), `probs` (one list of level probabilities per row) and, per
/// conformal predictor `set_lac` / `set_aps`, one prediction set (label values) per row.
#[pyfunction]
pub fn calibrate_apply(py: Python<'_>, calibrator: &str, x: Vec<Vec<f64>>) -> PyResult<Py<PyDict>> {
    let saved = FittedCalibration::from_json("calibrator", calibrator).map_err(|e| value_error(chain(&e)))?.body;
    let width = saved.score_columns.len();
    let applied = py.detach(|| {
        x.iter()
            .enumerate()
            .map(|(i, row)| {
                if row.len() != width {
                    return Err(format!("row {i}: {} scores for {width} score columns", row.len()));
                }
                saved.apply(row).map_err(|e| format!("row {i}: {e}"))
            })
            .collect::<Result<Vec<_>, String>>()
    });
    let applied = applied.map_err(value_error)?;
    let d = PyDict::new(py);
    d.set_item("score_columns", &saved.score_columns)?;
    d.set_item("labels", &saved.labels)?;
    d.set_item("probs", applied.iter().map(|c| c.probs.clone()).collect::<Vec<_>>())?;
    for (k, c) in saved.conformal.iter().enumerate() {
        let sets: Vec<Vec<f64>> =
            applied.iter().map(|a| a.sets[k].iter().map(|&l| saved.labels[l]).collect()).collect();
        d.set_item(c.score.set_column(), sets)?;
    }
    Ok(d.unbind())
}

/// `e` and its causes on one line.
fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text = format!("{text}: {c}");
        cause = c.source();
    }
    text
}
