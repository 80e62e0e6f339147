//! `fused:MODEL`: a fusion model fitted by `ragjudge fuse fit` (the CIU paper's MoE-CIU,
//! section 3.3, or a baseline) used as a metric, so that the fused score gets the same
//! per-system intervals as every other column. The model's input columns are computed by their
//! own families with this run's settings, which must define them as they were defined when the
//! model was fitted (otherwise the run refuses to start, naming the difference).
//!
//! Columns: `fused` (`fused_<model file stem>` when several models are given) and, for MoE-CIU,
//! `fused_gate_<input>`: the gate's weight on each input, i.e. which metric drove the record's
//! score. A stage checks each model's inputs over the run against its training distribution
//! (`ragjudge_fusion::shift`) and reports the inputs that moved.

use super::{build_with_definitions, file_identity, find, MetricFamily, MetricSettings, StageContext};
use crate::error::EvalError;
use crate::models::{ModelSet, ModelSettings};
use crate::stages::{fused_shift, Stage, Watched};
use ragjudge_core::{Metric, MetricError, MetricOutput, Record};
use ragjudge_fusion::model::FusedModel;
use ragjudge_fusion::shift::ShiftSettings;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// The fusion models of a run (`--metrics fused:FILE`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FusedSettings {
    /// Model files, in the order given.
    pub models: Vec<PathBuf>,
    /// When the shift check warns.
    pub shift: ShiftSettings,
}

/// The `fused` family.
pub struct Fused;

impl MetricFamily for Fused {
    fn name(&self) -> &'static str {
        "fused"
    }

    fn definition(&self, settings: &MetricSettings, _models: &ModelSettings) -> Value {
        let files: Vec<Value> = settings
            .fused
            .models
            .iter()
            .map(|p| file_identity(p))
            .collect();
        json!({ "models": files })
    }

    fn build(&self, settings: &MetricSettings, models: &ModelSet) -> Result<Vec<Box<dyn Metric>>, EvalError> {
        let paths = &settings.fused.models;
        if paths.is_empty() {
            return Err(EvalError::settings("--metrics fused needs a model file: fused:FILE (from `ragjudge fuse fit`)"));
        }
        let mut out: Vec<Box<dyn Metric>> = Vec::new();
        for path in paths {
            out.push(Box::new(FusedMetric::new(path, prefix(paths, path), settings, models)?));
        }
        Ok(out)
    }

    /// The shift check of every model (the metrics were built first, so each file loads).
    fn stages(&self, ctx: &StageContext<'_>) -> Result<Vec<Box<dyn Stage>>, EvalError> {
        let paths = &ctx.settings.fused.models;
        let mut watched = Vec::new();
        for path in paths {
            let model = FusedModel::load(path).map_err(|e| EvalError::settings(e.to_string()))?;
            let inputs = model.input_names();
            watched.push(Watched {
                model: path.clone(),
                detail_key: prefix(paths, path),
                shrunk_toward: model.shrink.as_ref().map(|s| inputs[s.input].clone()),
                inputs,
                reference: model.shift.map(|r| {
                    let t = r.tally();
                    (r, t)
                }),
            });
        }
        Ok(vec![fused_shift(watched, ctx.settings.fused.shift)])
    }
}

/// The column prefix (and detail key) of one model among `paths`.
fn prefix(paths: &[PathBuf], path: &Path) -> String {
    if paths.len() == 1 {
        "fused".to_string()
    } else {
        format!("fused_{}", stem(path))
    }
}

fn stem(path: &Path) -> String {
    let s = path.file_stem().map(|s| s.to_string_lossy().to_lowercase()).unwrap_or_default();
    s.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect()
}

/// One fusion model over the metrics that compute its inputs.
struct FusedMetric {
    prefix: String,
    model: FusedModel,
    inner: Vec<Box<dyn Metric>>,
    /// Per model input: (inner metric, its column).
    inputs: Vec<(usize, usize)>,
    gated: bool,
}

impl FusedMetric {
    fn new(path: &Path, prefix: String, settings: &MetricSettings, models: &ModelSet) -> Result<Self, EvalError> {
        let name = format!("fused:{}", path.display());
        let model = FusedModel::load(path).map_err(|e| EvalError::settings(e.to_string()))?;
        let mut families: Vec<String> = Vec::new();
        for input in &model.inputs {
            let family = input
                .definition
                .as_ref()
                .and_then(|d| d.get("family"))
                .and_then(Value::as_str)
                .ok_or_else(|| {
                    EvalError::settings(format!(
                        "{name}: input `{}` has no recorded definition, so `score` cannot compute it; fit on a file written by `ragjudge score -o`, or use `ragjudge fuse apply`",
                        input.name
                    ))
                })?;
            if family == "fused" {
                return Err(EvalError::settings(format!("{name}: input `{}` is itself a fused score", input.name)));
            }
            find(family)?;
            if !families.iter().any(|f| f == family) {
                families.push(family.to_string());
            }
        }
        let (inner, now) = build_with_definitions(&families, settings, models)?;
        let now_of = |col: &str| now.columns.get(col).and_then(|d| serde_json::to_value(d).ok());
        model.check_definitions(&now_of, "this run's settings").map_err(|e| EvalError::settings(format!("{name}: {e}")))?;
        let mut inputs = Vec::new();
        for input in &model.inputs {
            let at = inner.iter().enumerate().find_map(|(i, m)| {
                m.columns().iter().position(|c| *c == input.name).map(|j| (i, j))
            });
            inputs.push(at.ok_or_else(|| {
                EvalError::settings(format!("{name}: no metric of this run computes input `{}`", input.name))
            })?);
        }
        let gated = model.model.has_gate();
        Ok(FusedMetric { prefix, model, inner, inputs, gated })
    }

    fn combine(&self, outputs: &[Result<MetricOutput, MetricError>]) -> Result<MetricOutput, MetricError> {
        let mut row = Vec::with_capacity(self.inputs.len());
        let mut missing = Vec::new();
        for (k, &(i, j)) in self.inputs.iter().enumerate() {
            match &outputs[i] {
                Err(e) => return Err(MetricError::Record(format!("input `{}`: {e}", self.model.inputs[k].name))),
                Ok(o) => match o.values.get(j).copied().flatten() {
                    Some(v) => row.push(v),
                    None => missing.push(self.model.inputs[k].name.as_str()),
                },
            }
        }
        if !missing.is_empty() {
            return Err(MetricError::Record(format!("no value for input(s) {}", missing.join(", "))));
        }
        let fused = self.model.predict(&row);
        if !fused.is_finite() {
            return Err(MetricError::Contract(format!("fused score is {fused}")));
        }
        let mut values = vec![Some(fused)];
        let inputs: serde_json::Map<String, Value> =
            self.model.input_names().into_iter().zip(row.iter().map(|v| json!(v))).collect();
        let mut detail = json!({ "inputs": inputs });
        if let Some(g) = self.model.model.gate(&row) {
            values.extend(g.iter().map(|w| Some(*w)));
            detail["gate"] = json!(g);
        }
        Ok(MetricOutput { values, detail: Some(detail) })
    }
}

impl Metric for FusedMetric {
    /// The column prefix, so that several models keep their details apart.
    fn name(&self) -> &str {
        &self.prefix
    }

    fn columns(&self) -> Vec<String> {
        let mut cols = vec![self.prefix.clone()];
        if self.gated {
            cols.extend(self.model.inputs.iter().map(|c| format!("{}_gate_{}", self.prefix, c.name)));
        }
        cols
    }

    fn score(&self, record: &Record) -> Result<MetricOutput, MetricError> {
        let outputs: Vec<_> = self.inner.iter().map(|m| m.score(record)).collect();
        self.combine(&outputs)
    }

    fn score_batch(&self, records: &[Record]) -> Vec<Result<MetricOutput, MetricError>> {
        let per_metric: Vec<Vec<_>> = self.inner.iter().map(|m| m.score_batch(records)).collect();
        (0..records.len())
            .map(|r| {
                let outputs: Vec<_> = per_metric.iter().map(|o| o[r].clone()).collect();
                self.combine(&outputs)
            })
            .collect()
    }
}
