//! `fuse_fit` / `fuse_apply`: `ragjudge_fusion` (the CIU paper's MoE-CIU, section 3.3, and its
//! static baselines: SVR and least squares). The model travels as the JSON text
//! `ragjudge fuse fit --save` writes, so model files move freely between Python and the CLI.

use crate::error::value_error;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use ragjudge_fusion::dataset::{Dataset, JoinCounts};
use ragjudge_fusion::model::{FusedModel, ModelChoice};
use ragjudge_fusion::moe::{MoeKind, MoeParams, Objective};
use ragjudge_fusion::svr::SvrGrid;
use serde_json::{json, Map, Value};
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

/// Fits a fusion model (`model`: `moe`, `moe-concat`, `svr` or `linear`) of the score rows `x`
/// (one list per row, in `inputs` order) to the labels `y`, as `ragjudge fuse fit` does. Returns
/// `(model_json, report_json)`; the report has the model name, inputs and training Spearman.
#[pyfunction]
#[pyo3(signature = (
    x, y, inputs, label_column, *, model="moe", seed=0, epochs=None, binarize=None, folds=5,
    definitions=None, label_file=String::new()
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
    definitions: Option<String>,
    label_file: String,
) -> PyResult<(String, String)> {
    if x.len() != y.len() {
        return Err(value_error(format!("{} score rows but {} labels", x.len(), y.len())));
    }
    if x.is_empty() {
        return Err(value_error("no labelled row to fit on"));
    }
    if let Some(i) = x.iter().position(|r| r.len() != inputs.len()) {
        return Err(value_error(format!("row {i}: {} values for {} inputs", x[i].len(), inputs.len())));
    }
    if let Some((i, j)) = x.iter().enumerate().find_map(|(i, r)| r.iter().position(|v| !v.is_finite()).map(|j| (i, j)))
    {
        return Err(value_error(format!("row {i}: `{}` is not a finite number", inputs[j])));
    }
    if let Some(i) = y.iter().position(|v| !v.is_finite()) {
        return Err(value_error(format!("row {i}: the label is not a finite number")));
    }
    if y.iter().all(|&v| v == y[0]) {
        return Err(value_error(format!("every label is {}; a constant label cannot be learned", y[0])));
    }
    let mut y = y;
    if let Some(t) = binarize {
        y = y.iter().map(|&v| if v >= t { 1.0 } else { 0.0 }).collect();
        if y.iter().all(|&v| v == y[0]) {
            return Err(value_error(format!(
                "binarize={t}: every label falls on the same side; a constant label cannot be learned"
            )));
        }
    }
    let choice = match model {
        "linear" => ModelChoice::Linear,
        "svr" => {
            if folds < 2 {
                return Err(value_error(format!("folds must be at least 2, got {folds}")));
            }
            ModelChoice::Svr { grid: SvrGrid::default(), folds }
        }
        "moe" | "moe-concat" => {
            let d = MoeParams::default();
            ModelChoice::Moe(MoeParams {
                kind: if model == "moe" { MoeKind::Gated } else { MoeKind::Concat },
                objective: if binarize.is_some() { Objective::Binary } else { Objective::Regression },
                seed,
                epochs: epochs.unwrap_or(d.epochs),
                ..d
            })
        }
        other => return Err(value_error(format!("model must be moe, moe-concat, svr or linear, got `{other}`"))),
    };
    // The join was made by the caller (`ragjudge.fuse`), which reports its own counts.
    let counts = JoinCounts { score_rows: x.len(), labels: y.len(), joined: y.len(), ..JoinCounts::default() };
    let keys = (0..x.len()).map(|i| vec![i.to_string()]).collect();
    let data = Dataset { inputs, label: label_column, keys, x, y, counts };
    let defs = self::definitions(definitions.as_deref())?;
    let created_by = vec!["ragjudge.fuse".to_string(), format!("model={model}"), format!("seed={seed}")];
    let fitted = py.detach(|| FusedModel::fit(&data, &choice, &defs, &label_file, created_by)).map_err(value_error)?;
    let pred: Vec<f64> = data.x.iter().map(|r| fitted.predict(r)).collect();
    let rho = ragjudge_stats::correlation::spearman(&pred, &data.y).ok().and_then(|c| c.coefficient);
    let unknown: Vec<&str> = fitted.inputs.iter().filter(|c| c.definition.is_none()).map(|c| c.name.as_str()).collect();
    let report = json!({
        "model": fitted.model.name(), "inputs": fitted.input_names(), "label": data.label,
        "rows": data.y.len(), "training_spearman": rho, "inputs_without_definition": unknown,
    });
    let text = serde_json::to_string(&fitted).map_err(value_error)?;
    Ok((text, report.to_string()))
}

/// Applies a model (its JSON text) to the score rows `x` (in the model's input order), refusing
/// inputs whose `definitions` differ from those it was fitted on. Returns a dict with `fused`
/// (one score per row) and `gates` (MoE-CIU: one list of input weights per row; else `None`).
#[pyfunction]
#[pyo3(signature = (model, x, *, definitions=None, source="the scores".to_string()))]
pub fn fuse_apply(
    py: Python<'_>,
    model: &str,
    x: Vec<Vec<f64>>,
    definitions: Option<String>,
    source: String,
) -> PyResult<Py<PyDict>> {
    let fitted: FusedModel =
        serde_json::from_str(model).map_err(|e| value_error(format!("not a fusion model: {e}")))?;
    fitted.check_definitions(&self::definitions(definitions.as_deref())?, &source).map_err(value_error)?;
    let width = fitted.inputs.len();
    if let Some(i) = x.iter().position(|r| r.len() != width) {
        return Err(value_error(format!("row {i}: {} values for {width} inputs", x[i].len())));
    }
    let (fused, gates) = py.detach(|| {
        let fused: Vec<f64> = x.iter().map(|r| fitted.predict(r)).collect();
        let gates: Option<Vec<Vec<f64>>> =
            fitted.model.has_gate().then(|| x.iter().filter_map(|r| fitted.model.gate(r)).collect());
        (fused, gates)
    });
    let d = PyDict::new(py);
    d.set_item("name", fitted.model.name())?;
    d.set_item("inputs", fitted.input_names())?;
    d.set_item("fused", fused)?;
    d.set_item("gates", gates)?;
    Ok(d.unbind())
}
