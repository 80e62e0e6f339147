//! `fuse_fit` / `fuse_apply`: `ragjudge_fusion` (the CIU paper's MoE-CIU, section 3.3, and its
//! static baselines: SVR and least squares), through the library's fit job. The model travels as
//! the JSON text `ragjudge fuse fit --save` writes (artifact `fusion-model`), so model files move
//! freely between Python and the CLI.

use crate::error::value_error;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use ragjudge_artifacts::Provenance;
use ragjudge_fusion::dataset::Dataset;
use ragjudge_fusion::job::{FitSettings, ModelName};
use ragjudge_fusion::model::{FusedModel, OnShift};
use ragjudge_fusion::shift::ShiftSettings;
use ragjudge_fusion::shrink::ShrinkSetting;
use serde_json::{Map, Value};
use std::path::Path;

/// Column definitions (`{column: definition}` as JSON text) as a lookup; none when absent.
fn definitions(text: Option<&str>) -> PyResult<impl Fn(&str) -> Option<Value>> {
    let map: Map<String, Value> = match text {
        None => Map::new(),
        Some(t) => serde_json::from_str(t).map_err(|e| value_error(format!("definitions: not a JSON object: {e}")))?,
    };
    Ok(move |col: &str| map.get(col).cloned())
}

/// The column definitions `ragjudge score -o FILE` wrote beside the score file `path`, as JSON
/// text `{column: definition}`; `None` when there are none.
#[pyfunction]
pub fn read_definitions(path: &str) -> PyResult<Option<String>> {
    let defs = ragjudge_eval::families::read_definitions(Path::new(path)).map_err(value_error)?;
    defs.map(|d| serde_json::to_string(&d.columns).map_err(value_error)).transpose()
}

/// `shrink=`: `"auto"` or a weight in [0, 1].
#[derive(FromPyObject)]
pub enum ShrinkArg {
    /// A weight.
    Lambda(f64),
    /// `"auto"`.
    Name(String),
}

impl ShrinkArg {
    fn setting(&self) -> PyResult<ShrinkSetting> {
        match self {
            ShrinkArg::Lambda(v) => v.to_string().parse(),
            ShrinkArg::Name(s) => s.parse(),
        }
        .map_err(value_error)
    }
}

/// Fits a fusion model (`model`: `moe`, `moe-concat`, `svr` or `linear`; `monotone`: least
/// squares with non-negative weights; `shrink`: toward the best single input) of the score rows `x`
/// (one list per row, in `inputs` order) to the labels `y`, as `ragjudge fuse fit` does. Returns
/// `(model_json, report_json)`; the report is the fit summary (model name, inputs, training
/// Spearman, MoE-CIU's gate).
#[pyfunction]
#[pyo3(signature = (
    x, y, inputs, label_column, *, model="moe", seed=0, epochs=None, binarize=None, folds=5,
    monotone=false, shrink=None, definitions=None, label_file=String::new()
))]
#[allow(clippy::too_many_arguments)]
pub fn fuse_fit(
    py: Python<'_>,
    x: Vec<Vec<f64>>,
    y: Vec<f64>,
    inputs: Vec<String>,
    label_column: String,
    model: &str,
    seed: u64,
    epochs: Option<usize>,
    binarize: Option<f64>,
    folds: usize,
    monotone: bool,
    shrink: Option<ShrinkArg>,
    definitions: Option<String>,
    label_file: String,
) -> PyResult<(String, String)> {
    let settings = FitSettings {
        model: ModelName::from_name(model).map_err(value_error)?,
        seed,
        epochs,
        binarize,
        folds,
        monotone,
        shrink: shrink.map(|s| s.setting()).transpose()?,
    };
    let data = Dataset::from_rows(inputs, label_column, x, y).map_err(value_error)?;
    let defs = self::definitions(definitions.as_deref())?;
    let provenance = Provenance::with_command(vec!["ragjudge.fuse".into()]);
    let fit = py.detach(|| settings.fit(data, &defs, &label_file, provenance)).map_err(value_error)?;
    let report = serde_json::to_string(&fit.summary).map_err(value_error)?;
    Ok((fit.model_json().map_err(value_error)?, report))
}

/// Applies a model (its JSON text) to the score rows `x` (in the model's input order), refusing
/// inputs whose `definitions` differ from those it was fitted on. Returns a dict with `fused`
/// (one score per row), `gates` (MoE-CIU: one list of input weights per row; else `None`),
/// `shift_warned` (the shift check of the rows at the default thresholds; `None` for a model
/// without a training distribution) and `fell_back_to` (the input a shrunk model scored as under
/// that warning, as `ragjudge fuse apply` does; else `None`).
#[pyfunction]
#[pyo3(signature = (model, x, *, definitions=None, source="the scores".to_string()))]
pub fn fuse_apply(
    py: Python<'_>,
    model: &str,
    x: Vec<Vec<f64>>,
    definitions: Option<String>,
    source: String,
) -> PyResult<Py<PyDict>> {
    let fitted =
        FusedModel::from_json("model", model).map_err(|e| value_error(format!("not a fusion model: {e}")))?.body;
    fitted.check_definitions(&self::definitions(definitions.as_deref())?, &source).map_err(value_error)?;
    let width = fitted.inputs.len();
    if let Some(i) = x.iter().position(|r| r.len() != width) {
        return Err(value_error(format!("row {i}: {} values for {width} inputs", x[i].len())));
    }
    let applied = py.detach(|| fitted.apply_rows(&x, &ShiftSettings::default(), OnShift::Fallback));
    let d = PyDict::new(py);
    d.set_item("name", fitted.model.name())?;
    d.set_item("inputs", fitted.input_names())?;
    d.set_item("fused", applied.fused)?;
    d.set_item("gates", fitted.model.has_gate().then_some(applied.gates))?;
    d.set_item("shift_warned", applied.shift.as_ref().map(|s| s.warned))?;
    d.set_item("fell_back_to", applied.fell_back_to)?;
    Ok(d.unbind())
}
