//! A fitted fusion model and its file (artifact kind `fusion-model`): the model (least squares,
//! SVR or a mixture of experts), the input columns it reads with how each was computed, the
//! label it predicts and the training distribution of each input. A model refuses inputs computed
//! differently from those it was fitted on (the CIU paper's fused score is only meaningful on the
//! metric definitions it was trained with, section 3.3) and says when the inputs it is applied to
//! are distributed differently ([`crate::shift`]).
//!
//! Schema versions: 1 had no training distribution (such files apply without the shift check);
//! 2 adds it.

use crate::dataset::Dataset;
use crate::linear::{Linear, Scaler};
use crate::moe::{MoeModel, MoeParams};
use crate::shift::{ShiftReference, ShiftReport, ShiftSettings, SHIFT_BINS};
use crate::shrink::Shrink;
use crate::svr::{grid_search, Svr, SvrGrid, SvrParams};
use crate::FusionError;
use ragjudge_artifacts::{read_artifact_value, Artifact, ArtifactError, Document};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::Path;

/// The `format` tag of model files written before artifacts were versioned.
pub const FORMAT: &str = "ragjudge-fusion-model/1";

/// Which model to fit.
#[derive(Debug, Clone)]
pub enum ModelChoice {
    /// Least squares on standardised inputs; `monotone`: every weight >= 0 (non-negative least
    /// squares), so that no input's effect is negative.
    Linear {
        /// Constrain the weights to be non-negative.
        monotone: bool,
    },
    /// Epsilon-SVR on standardised inputs, hyper-parameters by grid search with k-fold CV.
    Svr {
        /// The grid.
        grid: SvrGrid,
        /// Cross-validation folds.
        folds: usize,
    },
    /// MoE-Concat or MoE-CIU (by `params.kind`) on binned inputs.
    Moe(MoeParams),
}

/// A fitted model.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Model {
    /// Least squares.
    Linear {
        /// Input standardisation.
        scaler: Scaler,
        /// The weights.
        linear: Linear,
        /// Whether the weights were constrained to be non-negative (`--monotone`).
        #[serde(default)]
        monotone: bool,
    },
    /// Epsilon-SVR.
    Svr {
        /// Input standardisation.
        scaler: Scaler,
        /// The chosen hyper-parameters.
        params: SvrParams,
        /// Their mean cross-validated R^2 on the training rows.
        cv_r2: f64,
        /// The support vectors and coefficients.
        svr: Svr,
    },
    /// MoE-Concat or MoE-CIU.
    Moe(Box<MoeModel>),
}

impl Model {
    /// Fits `choice` on the rows of `data`.
    pub fn fit(data: &Dataset, choice: &ModelChoice) -> Result<Model, FusionError> {
        match choice {
            ModelChoice::Linear { monotone } => {
                let scaler = Scaler::fit(&data.x)?;
                let xs = scaler.transform_all(&data.x);
                let linear = if *monotone { Linear::fit_monotone(&xs, &data.y)? } else { Linear::fit(&xs, &data.y)? };
                Ok(Model::Linear { scaler, linear, monotone: *monotone })
            }
            ModelChoice::Svr { grid, folds } => {
                let scaler = Scaler::fit(&data.x)?;
                let (svr, params, cv_r2) = grid_search(&scaler.transform_all(&data.x), &data.y, grid, *folds)?;
                Ok(Model::Svr { scaler, params, cv_r2, svr })
            }
            ModelChoice::Moe(params) => Ok(Model::Moe(Box::new(MoeModel::fit(&data.x, &data.y, params)?))),
        }
    }

    /// The fused score of one row of input values.
    pub fn predict(&self, row: &[f64]) -> f64 {
        match self {
            Model::Linear { scaler, linear, .. } => linear.predict(&scaler.transform(row)),
            Model::Svr { scaler, svr, .. } => svr.predict(&scaler.transform(row)),
            Model::Moe(m) => m.predict(row),
        }
    }

    /// MoE-CIU's gate weights for one row (which metric drove the score); `None` for other models.
    pub fn gate(&self, row: &[f64]) -> Option<Vec<f64>> {
        match self {
            Model::Moe(m) => m.gate(row),
            _ => None,
        }
    }

    /// Whether the model has a gate (MoE-CIU), i.e. whether [`Model::gate`] gives weights.
    pub fn has_gate(&self) -> bool {
        matches!(self, Model::Moe(m) if m.params().kind == crate::moe::MoeKind::Gated)
    }

    /// A short name: `linear`, `linear-monotone`, `svr`, `moe-concat` or `moe`.
    pub fn name(&self) -> &'static str {
        match self {
            Model::Linear { monotone: false, .. } => "linear",
            Model::Linear { monotone: true, .. } => "linear-monotone",
            Model::Svr { .. } => "svr",
            Model::Moe(m) => match m.params().kind {
                crate::moe::MoeKind::Concat => "moe-concat",
                crate::moe::MoeKind::Gated => "moe",
            },
        }
    }
}

/// One input column of a model and how it was computed (`None`: unknown, e.g. a score file
/// written by another tool).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct InputColumn {
    /// The column name.
    pub name: String,
    /// Its definition as `score` recorded it (family, version, settings).
    pub definition: Option<Value>,
}

/// The label a model predicts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LabelInfo {
    /// The label column.
    pub column: String,
    /// The label file.
    pub file: String,
    /// Training rows.
    pub rows: usize,
    /// Smallest training label.
    pub min: f64,
    /// Largest training label.
    pub max: f64,
    /// Mean training label.
    pub mean: f64,
}

/// What a shrunk model scores when the shift check warns on the rows it is applied to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum OnShift {
    /// The single input it is shrunk toward, alone ([`Shrink::fallback`]).
    #[default]
    Fallback,
    /// The shrunk score as fitted.
    Keep,
}

/// A model applied to rows of input values.
#[derive(Debug, Clone, PartialEq)]
pub struct AppliedRows {
    /// One score per row.
    pub fused: Vec<f64>,
    /// MoE-CIU: the gate's weight on each input, per row; else empty.
    pub gates: Vec<Vec<f64>>,
    /// The rows against the training rows; none when the model records no training distribution.
    pub shift: Option<ShiftReport>,
    /// The input the scores fell back to ([`OnShift::Fallback`] of a shrunk model under a shift
    /// warning); none when they are the model's own.
    pub fell_back_to: Option<String>,
}

/// A model file: what was fitted and on what (who fitted it, when and how is its provenance).
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FusedModel {
    /// The input columns, in the order the model reads them.
    pub inputs: Vec<InputColumn>,
    /// The label.
    pub label: LabelInfo,
    /// The model.
    pub model: Model,
    /// Shrinkage of the model's score toward the best single input (`--shrink`); none: the
    /// model's score as it is.
    #[serde(default)]
    pub shrink: Option<Shrink>,
    /// Each input's training distribution, for the shift check when the model is applied (none
    /// in files of schema 1, which apply without it).
    #[serde(default)]
    pub shift: Option<ShiftReference>,
}

impl Artifact for FusedModel {
    const KIND: &'static str = "fusion-model";
    const SCHEMA_VERSION: u32 = 2;

    /// Before artifacts were versioned: `"format": "ragjudge-fusion-model/1"`.
    fn is_legacy(value: &Value) -> bool {
        value.get("format").and_then(Value::as_str) == Some(FORMAT)
    }

    /// The version and command of a file of schema 0 become its provenance; files of schema 0
    /// and 1 have no training distribution (`shift` stays empty).
    fn migrate(mut value: Value, from: u32) -> Value {
        if from == 0 {
            if let Some(o) = value.as_object_mut() {
                let ragjudge = o.remove("ragjudge_version").unwrap_or_default();
                let command = o.remove("created_by").unwrap_or_default();
                o.remove("format");
                o.insert("provenance".into(), serde_json::json!({"ragjudge": ragjudge, "command": command}));
            }
        }
        value
    }
}

impl FusedModel {
    /// Fits `choice` on `data`; `definitions` gives each input's definition where known.
    pub fn fit(
        data: &Dataset,
        choice: &ModelChoice,
        definitions: &dyn Fn(&str) -> Option<Value>,
        label_file: &str,
    ) -> Result<FusedModel, FusionError> {
        let model = Model::fit(data, choice)?;
        let n = data.y.len() as f64;
        Ok(FusedModel {
            inputs: data.inputs.iter().map(|c| InputColumn { name: c.clone(), definition: definitions(c) }).collect(),
            label: LabelInfo {
                column: data.label.clone(),
                file: label_file.to_string(),
                rows: data.y.len(),
                min: data.y.iter().copied().fold(f64::INFINITY, f64::min),
                max: data.y.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                mean: data.y.iter().sum::<f64>() / n,
            },
            model,
            shrink: None,
            shift: Some(ShiftReference::fit(&data.x, SHIFT_BINS)?),
        })
    }

    /// The input column names.
    pub fn input_names(&self) -> Vec<String> {
        self.inputs.iter().map(|c| c.name.clone()).collect()
    }

    /// The fused score of one row (input values in [`FusedModel::inputs`] order), shrunk toward
    /// the best single input when the model was fitted so.
    pub fn predict(&self, row: &[f64]) -> f64 {
        let fused = self.model.predict(row);
        match &self.shrink {
            Some(s) => s.predict(fused, row),
            None => fused,
        }
    }

    /// The scores of `rows` (input values in [`FusedModel::inputs`] order), with the shift check
    /// of the rows under `settings`; a shrunk model under a warning scores as `on_shift` says.
    pub fn apply_rows(&self, rows: &[Vec<f64>], settings: &ShiftSettings, on_shift: OnShift) -> AppliedRows {
        let names = self.input_names();
        let shift = self.shift.as_ref().map(|r| r.check(&names, rows, settings));
        let warned = shift.as_ref().is_some_and(|s| s.warned);
        let fallback = self.shrink.as_ref().filter(|_| warned && on_shift == OnShift::Fallback);
        let fused = rows
            .iter()
            .map(|r| match fallback {
                Some(s) => s.fallback(r),
                None => self.predict(r),
            })
            .collect();
        let gates = rows.iter().filter_map(|r| self.model.gate(r)).collect();
        AppliedRows { fused, gates, shift, fell_back_to: fallback.map(|s| names[s.input].clone()) }
    }

    /// Reads a model file, refusing other kinds and models that cannot be applied.
    pub fn load(path: &Path) -> Result<FusedModel, FusionError> {
        Ok(Self::read(path)?.body)
    }

    /// [`FusedModel::load`], with the file's provenance.
    pub fn read(path: &Path) -> Result<Document<FusedModel>, FusionError> {
        let text = std::fs::read_to_string(path).map_err(|source| ArtifactError::Io {
            path: path.into(),
            action: "read",
            source,
        })?;
        Self::from_json(&path.display().to_string(), &text)
    }

    /// [`FusedModel::read`] on the JSON text of a model file, called `name` in errors.
    pub fn from_json(name: &str, text: &str) -> Result<Document<FusedModel>, FusionError> {
        let path = Path::new(name);
        let value: Value = serde_json::from_str(text.strip_prefix('\u{feff}').unwrap_or(text))
            .map_err(|source| ArtifactError::Json { path: path.into(), source })?;
        if value.get("kind").is_none() {
            if let Some(format) = value.get("format").and_then(Value::as_str).filter(|f| *f != FORMAT) {
                return Err(FusionError::Format { path: path.into(), format: format.to_string() });
            }
        }
        let doc = read_artifact_value::<FusedModel>(path, value)?;
        doc.body.check().map_err(|e| FusionError::Model(format!("{name}: malformed model: {e}").into()))?;
        Ok(doc)
    }

    /// Checks that the model reads as many values as it has inputs and that its numbers can be
    /// applied (a hand-edited file with a zero standard deviation or a missing weight would
    /// otherwise give infinite or silently shortened predictions).
    pub fn check(&self) -> Result<(), String> {
        let n = self.inputs.len();
        if n == 0 {
            return Err("no inputs".into());
        }
        if let Some(dup) = self
            .inputs
            .iter()
            .enumerate()
            .find_map(|(i, c)| self.inputs[..i].iter().any(|d| d.name == c.name).then_some(&c.name))
        {
            return Err(format!("input `{dup}` is listed twice"));
        }
        let check_scaler = |s: &Scaler| -> Result<(), String> {
            if s.mean.len() != n || s.sd.len() != n {
                return Err(format!(
                    "the scaler has {} means and {} deviations for {n} inputs",
                    s.mean.len(),
                    s.sd.len()
                ));
            }
            if let Some(j) = s.sd.iter().position(|v| !(v.is_finite() && *v > 0.0)) {
                return Err(format!("the scaler's deviation of input {} is {}, not a positive number", j + 1, s.sd[j]));
            }
            if let Some(j) = s.mean.iter().position(|v| !v.is_finite()) {
                return Err(format!("the scaler's mean of input {} is not a finite number", j + 1));
            }
            Ok(())
        };
        if let Some(shift) = &self.shift {
            shift.validate(n)?;
        }
        if let Some(shrink) = &self.shrink {
            shrink.validate(n)?;
        }
        match &self.model {
            Model::Linear { scaler, linear, monotone } => {
                check_scaler(scaler)?;
                if *monotone && linear.coef.iter().any(|c| *c < 0.0) {
                    return Err("a monotone model has a negative weight".into());
                }
                if linear.coef.len() != n {
                    return Err(format!("{} weights for {n} inputs", linear.coef.len()));
                }
                if linear.coef.iter().chain([&linear.intercept]).any(|c| !c.is_finite()) {
                    return Err("a weight is not a finite number".into());
                }
            }
            Model::Svr { scaler, svr, .. } => {
                check_scaler(scaler)?;
                if svr.n_features() != n {
                    return Err(format!("the SVR reads {} values for {n} inputs", svr.n_features()));
                }
            }
            Model::Moe(m) => {
                if m.bins().n_metrics() != n {
                    return Err(format!("the mixture of experts reads {} values for {n} inputs", m.bins().n_metrics()));
                }
            }
        }
        Ok(())
    }

    /// Refuses inputs whose definitions now (`now(column)`) differ from those at fit time. A
    /// column unknown on either side is not compared.
    pub fn check_definitions(&self, now: &dyn Fn(&str) -> Option<Value>, source: &str) -> Result<(), FusionError> {
        let mut diffs = Vec::new();
        for c in &self.inputs {
            if let (Some(was), Some(is)) = (&c.definition, now(&c.name)) {
                if *was != is {
                    diffs.push(format!("`{}` was {} and is now {}", c.name, compact(was), compact(&is)));
                }
            }
        }
        if diffs.is_empty() {
            Ok(())
        } else {
            Err(FusionError::Model(
                format!("the model was fitted on inputs computed differently from {source}: {}", diffs.join("; "))
                    .into(),
            ))
        }
    }
}

fn compact(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}
