//! Fitting and applying a fusion model as library calls shared by the command line and the
//! Python package (CIU paper, section 3.3): settings -> model choice, labels binarised when asked,
//! the model fitted and returned as its file (artifact `fusion-model`) with provenance and a fit
//! summary; a model applied to a score file gives the fused column, for MoE-CIU the gate, and the
//! shift check of its inputs against the training rows ([`crate::shift`]).

use crate::dataset::{Dataset, JoinCounts};
use crate::model::{FusedModel, ModelChoice, OnShift};
use crate::moe::{MoeKind, MoeParams, Objective};
use crate::shift::{ShiftReport, ShiftSettings};
use crate::shrink::{Shrink, ShrinkSetting};
use crate::svr::SvrGrid;
use crate::FusionError;
use ragjudge_artifacts::{to_json_bytes, write_artifact, Artifact, ArtifactError, Document, Provenance};
use ragjudge_core::table::{has_column, read_table};
use serde::Serialize;
use serde_json::Value;
use std::fmt::Write as _;
use std::path::Path;

/// The models `fuse fit` fits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ModelName {
    /// MoE-CIU: bin embeddings mixed by an input-dependent gate.
    Moe,
    /// MoE-Concat: concatenated bin embeddings and a small network.
    MoeConcat,
    /// Epsilon-SVR with a grid search.
    Svr,
    /// Least squares.
    Linear,
}

impl ModelName {
    /// The model called `name` (`moe`, `moe-concat`, `svr`, `linear`).
    pub fn from_name(name: &str) -> Result<ModelName, FusionError> {
        match name {
            "moe" => Ok(ModelName::Moe),
            "moe-concat" => Ok(ModelName::MoeConcat),
            "svr" => Ok(ModelName::Svr),
            "linear" => Ok(ModelName::Linear),
            other => Err(FusionError::Params(format!("model must be moe, moe-concat, svr or linear, got `{other}`"))),
        }
    }

    /// Its name (`moe`, `moe-concat`, `svr`, `linear`).
    pub fn name(self) -> &'static str {
        match self {
            ModelName::Moe => "moe",
            ModelName::MoeConcat => "moe-concat",
            ModelName::Svr => "svr",
            ModelName::Linear => "linear",
        }
    }
}

/// How to fit, the same whichever face asks (recorded as the model file's provenance `settings`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FitSettings {
    /// The model.
    pub model: ModelName,
    /// Seed of the MoE initialisation and batches.
    pub seed: u64,
    /// MoE training epochs (`None`: the model's default).
    pub epochs: Option<usize>,
    /// Binarise the labels (1 when label >= T, else 0); MoE models then train as classifiers.
    pub binarize: Option<f64>,
    /// Cross-validation folds of the SVR grid search.
    pub folds: usize,
    /// Least squares only: every input's weight >= 0 (inputs oriented so that higher is better).
    pub monotone: bool,
    /// Shrink the fused score toward the best single input ([`crate::shrink`]); none: do not.
    pub shrink: Option<ShrinkSetting>,
}

impl Default for FitSettings {
    /// MoE-CIU, seed 0, its own epochs, labels as they are, 5 folds, weights unconstrained, no
    /// shrinkage.
    fn default() -> Self {
        Self { model: ModelName::Moe, seed: 0, epochs: None, binarize: None, folds: 5, monotone: false, shrink: None }
    }
}

/// A fitted model file and what the fit showed.
#[derive(Debug, Clone)]
pub struct FusionFit {
    /// The model with its provenance.
    pub model: Document<FusedModel>,
    /// The fit summary.
    pub summary: FitSummary,
}

/// What `fuse fit` reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FitSummary {
    /// The model's short name.
    pub model: String,
    /// The input columns.
    pub inputs: Vec<String>,
    /// The label column.
    pub label: String,
    /// Training rows.
    pub rows: usize,
    /// How the scores joined the labels.
    pub join: JoinCounts,
    /// Spearman correlation of the fitted scores with the labels on the training rows (optimistic).
    pub training_spearman: Option<f64>,
    /// MoE-CIU's gate over the training rows.
    pub gate: Option<GateSummary>,
    /// The shrinkage toward the best single input, if asked for.
    pub shrink: Option<Shrink>,
    /// Inputs without a recorded definition (not checked when the model is applied).
    pub inputs_without_definition: Vec<String>,
}

/// MoE-CIU's gate over a data set: per input, the mean weight and how many rows it drove (had the
/// largest weight).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GateSummary {
    /// Input names.
    pub inputs: Vec<String>,
    /// Mean gate weight per input.
    pub mean_weight: Vec<f64>,
    /// Rows where the input had the largest weight.
    pub drove: Vec<usize>,
}

impl GateSummary {
    /// The summary of per-row gate weights (`None` when there are none: a model without a gate).
    pub fn of(inputs: Vec<String>, gates: &[Vec<f64>]) -> Option<GateSummary> {
        if gates.is_empty() {
            return None;
        }
        let m = inputs.len();
        let mut mean = vec![0.0; m];
        let mut drove = vec![0usize; m];
        for g in gates {
            for (j, w) in g.iter().enumerate() {
                mean[j] += w / gates.len() as f64;
            }
            if let Some((j, _)) = g.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)) {
                drove[j] += 1;
            }
        }
        Some(GateSummary { inputs, mean_weight: mean, drove })
    }

    /// The summary as lines of text.
    pub fn render(&self) -> String {
        let mut out = String::from("MoE-CIU gate: input, mean weight, rows where it weighs most\n");
        for j in 0..self.inputs.len() {
            out += &format!("  {:<16} {:.3} {:>6}\n", self.inputs[j], self.mean_weight[j], self.drove[j]);
        }
        out.trim_end().to_string()
    }
}

impl FitSettings {
    /// The model to fit; SVR needs at least two folds, and only least squares can be monotone.
    pub fn choice(&self) -> Result<ModelChoice, FusionError> {
        if self.monotone && self.model != ModelName::Linear {
            return Err(FusionError::Params(format!(
                "monotone applies to the linear model (least squares) only, not {}",
                self.model.name()
            )));
        }
        Ok(match self.model {
            ModelName::Linear => ModelChoice::Linear { monotone: self.monotone },
            ModelName::Svr if self.folds < 2 => {
                return Err(FusionError::Params(format!("folds must be at least 2, got {}", self.folds)))
            }
            ModelName::Svr => ModelChoice::Svr { grid: SvrGrid::default(), folds: self.folds },
            ModelName::Moe | ModelName::MoeConcat => {
                let d = MoeParams::default();
                ModelChoice::Moe(MoeParams {
                    kind: if self.model == ModelName::Moe { MoeKind::Gated } else { MoeKind::Concat },
                    objective: if self.binarize.is_some() { Objective::Binary } else { Objective::Regression },
                    seed: self.seed,
                    epochs: self.epochs.unwrap_or(d.epochs),
                    ..d
                })
            }
        })
    }

    /// Fits a model on `data` (labels of `label_file`); `definitions` gives each input's
    /// definition where known; `provenance` is the caller's, the settings are added.
    pub fn fit(
        &self,
        mut data: Dataset,
        definitions: &dyn Fn(&str) -> Option<Value>,
        label_file: &str,
        mut provenance: Provenance,
    ) -> Result<FusionFit, FusionError> {
        let choice = self.choice()?;
        if let Some(t) = self.binarize {
            data.y = data.y.iter().map(|&v| if v >= t { 1.0 } else { 0.0 }).collect();
            if data.y.iter().all(|&v| v == data.y[0]) {
                return Err(FusionError::Data(format!(
                    "binarize at {t}: every label falls on the same side; a constant label cannot be learned"
                )));
            }
        }
        let mut model = FusedModel::fit(&data, &choice, definitions, label_file)?;
        if let Some(setting) = self.shrink {
            let fused: Vec<f64> = data.x.iter().map(|r| model.model.predict(r)).collect();
            model.shrink = Some(Shrink::fit(&data, &choice, &fused, setting, self.folds, self.seed)?);
        }
        let pred: Vec<f64> = data.x.iter().map(|r| model.predict(r)).collect();
        let gates: Vec<Vec<f64>> = data.x.iter().filter_map(|r| model.model.gate(r)).collect();
        let summary = FitSummary {
            model: model.model.name().to_string(),
            inputs: model.input_names(),
            label: data.label.clone(),
            rows: data.y.len(),
            join: data.counts,
            training_spearman: ragjudge_stats::correlation::spearman(&pred, &data.y).ok().and_then(|c| c.coefficient),
            gate: GateSummary::of(model.input_names(), &gates),
            shrink: model.shrink.clone(),
            inputs_without_definition: model
                .inputs
                .iter()
                .filter(|c| c.definition.is_none())
                .map(|c| c.name.clone())
                .collect(),
        };
        provenance.settings = serde_json::to_value(self).unwrap_or(Value::Null);
        let model = Document {
            kind: FusedModel::KIND.to_string(),
            schema_version: FusedModel::SCHEMA_VERSION,
            provenance,
            body: model,
        };
        Ok(FusionFit { model, summary })
    }
}

impl FusionFit {
    /// Writes the model file, atomically.
    pub fn write(&self, path: &Path) -> Result<(), FusionError> {
        Ok(write_artifact(path, &self.model.provenance, &self.model.body)?)
    }

    /// The model file's text.
    pub fn model_json(&self) -> Result<String, FusionError> {
        let bytes = to_json_bytes(&self.model.provenance, &self.model.body)
            .map_err(|source| ArtifactError::Json { path: "fusion model".into(), source })?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }
}

impl FitSummary {
    /// The summary as lines of text.
    pub fn render(&self) -> String {
        let mut out = format!("{}\n", self.join);
        let _ = writeln!(
            out,
            "fitted {} on {} rows: inputs {}; label `{}`",
            self.model,
            self.rows,
            self.inputs.join(", "),
            self.label
        );
        if let Some(r) = self.training_spearman {
            let _ = writeln!(
                out,
                "Spearman on the training rows: {r:.3} (optimistic; `fuse study` measures held-out rows)"
            );
        }
        if let Some(g) = &self.gate {
            let _ = writeln!(out, "{}", g.render());
        }
        if let Some(s) = &self.shrink {
            let _ = writeln!(
                out,
                "shrunk toward `{}` (training Spearman {:.3}): score = {:.3} fused + {:.3} `{}`, both standardised ({})",
                self.inputs[s.input],
                s.training_spearman,
                s.lambda,
                1.0 - s.lambda,
                self.inputs[s.input],
                if s.cross_validated { "weight by inner cross-validation" } else { "weight as given" }
            );
        }
        if !self.inputs_without_definition.is_empty() {
            let _ = writeln!(
                out,
                "note: no definition recorded for {} (not written by `ragjudge score -o`); such inputs are not checked when the model is applied",
                self.inputs_without_definition.join(", ")
            );
        }
        out
    }
}

/// A model applied to a score file.
#[derive(Debug, Clone)]
pub struct Applied {
    /// CSV: the key columns, `fused`, and for MoE-CIU `gate_<input>`; rows without every input
    /// value keep their keys and empty cells.
    pub csv: Vec<u8>,
    /// What was scored.
    pub summary: ApplySummary,
}

/// What `fuse apply` reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ApplySummary {
    /// Rows scored.
    pub scored: usize,
    /// Rows of the score file.
    pub rows: usize,
    /// Lines of the rows without every input value.
    pub incomplete_lines: Vec<u64>,
    /// The model's short name.
    pub model: String,
    /// MoE-CIU's gate over the scored rows.
    pub gate: Option<GateSummary>,
    /// The scored rows' inputs against the training rows; none when the model file records no
    /// training distribution (schema 1).
    pub shift: Option<ShiftReport>,
    /// The input a shrunk model fell back to under a shift warning ([`OnShift::Fallback`]); none
    /// when the scores are the model's own.
    pub fell_back_to: Option<String>,
}

impl ApplySummary {
    /// The shift check as lines of text: a warning per input beyond its limits, a line saying none
    /// is, or a note that the model file cannot be checked. `what` names the model.
    pub fn render_shift(&self, what: &str) -> String {
        match &self.shift {
            Some(s) => {
                let mut out = s.render(what);
                if let Some(input) = &self.fell_back_to {
                    let _ = writeln!(
                        out,
                        "warning: {what} is shrunk toward `{input}`: under this shift the `fused` column is `{input}` alone on the label's scale (--on-shift keep: the shrunk score as fitted)"
                    );
                }
                out
            }
            None => format!(
                "note: {what} records no training distribution (written before fusion-model schema 2): the shift check is unavailable; refit to get it\n"
            ),
        }
    }
}

impl FusedModel {
    /// The fused score of every row of the score file `scores` (keyed by `id`, and `system` when
    /// it has one), with the shift check of the scored rows under `shift`; a shrunk model under a
    /// warning scores as `on_shift` says ([`FusedModel::apply_rows`]).
    pub fn apply_file(&self, scores: &Path, shift: &ShiftSettings, on_shift: OnShift) -> Result<Applied, FusionError> {
        shift.validate()?;
        let inputs = self.input_names();
        let mut keys: Vec<&str> = vec!["id"];
        if has_column(scores, "system")? {
            keys.push("system");
        }
        let mut cols = keys.clone();
        cols.extend(inputs.iter().map(String::as_str));
        let table = read_table(scores, &cols)?;
        let mut header: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
        header.push("fused".into());
        if self.model.has_gate() {
            header.extend(inputs.iter().map(|i| format!("gate_{i}")));
        }
        let (mut incomplete, mut complete, mut values) = (Vec::new(), Vec::new(), Vec::new());
        for i in 0..table.rows.len() {
            let mut row = Vec::with_capacity(inputs.len());
            for (j, col) in inputs.iter().enumerate() {
                if let Some(v) = table.number(i, keys.len() + j, col)? {
                    row.push(v);
                }
            }
            if row.len() == inputs.len() {
                complete.push(i);
                values.push(row);
            } else {
                incomplete.push(table.rows[i].0);
            }
        }
        let applied = self.apply_rows(&values, shift, on_shift);
        let mut out = csv::Writer::from_writer(Vec::new());
        out.write_record(&header)?;
        let mut next = 0; // position of row i among the complete rows
        for i in 0..table.rows.len() {
            let mut cells = table.key(i, keys.len());
            if complete.get(next) == Some(&i) {
                cells.push(applied.fused[next].to_string());
                if let Some(g) = applied.gates.get(next) {
                    cells.extend(g.iter().map(f64::to_string));
                }
                next += 1;
            }
            cells.resize(header.len(), String::new());
            out.write_record(&cells)?;
        }
        let csv = out.into_inner().map_err(|e| csv::Error::from(e.into_error()))?;
        let summary = ApplySummary {
            scored: complete.len(),
            rows: table.rows.len(),
            incomplete_lines: incomplete,
            model: self.model.name().to_string(),
            shift: applied.shift,
            fell_back_to: applied.fell_back_to,
            gate: GateSummary::of(inputs, &applied.gates),
        };
        Ok(Applied { csv, summary })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gate_summary_by_hand() {
        let g = GateSummary::of(vec!["a".into(), "b".into()], &[vec![0.75, 0.25], vec![0.25, 0.75], vec![0.5, 0.5]])
            .unwrap();
        // By hand: means (0.75 + 0.25 + 0.5) / 3 = 0.5 each; a drives row 1, b rows 2 and 3 (a tie goes to the
        // later input, as `Iterator::max_by` keeps the last of equal maxima).
        assert!(g.mean_weight.iter().all(|m| (m - 0.5).abs() < 1e-12), "{:?}", g.mean_weight);
        assert_eq!(g.drove, [1, 2]);
        assert!(GateSummary::of(vec!["a".into()], &[]).is_none());
    }

    #[test]
    fn a_linear_fit_is_a_model_file_that_reads_back_and_applies_to_a_score_file() {
        let dir = tempfile::tempdir().unwrap();
        // y = 1 + 2a exactly: least squares gives it back.
        let x: Vec<Vec<f64>> = (0..8).map(|i| vec![f64::from(i) / 8.0]).collect();
        let y: Vec<f64> = x.iter().map(|r| 1.0 + 2.0 * r[0]).collect();
        let data = Dataset::from_rows(vec!["a".into()], "h".into(), x, y).unwrap();
        let settings = FitSettings { model: ModelName::Linear, ..FitSettings::default() };
        let prov = Provenance::with_command(vec!["ragjudge".into(), "fuse".into(), "fit".into()]);
        let fit = settings.fit(data, &|_| None, "labels.csv", prov).unwrap();
        assert_eq!(fit.summary.inputs_without_definition, ["a"]);
        // The fitted scores are increasing in `a`, as the labels are: Spearman 1.
        assert!((fit.summary.training_spearman.unwrap() - 1.0).abs() < 1e-12);
        let path = dir.path().join("m.json");
        fit.write(&path).unwrap();
        let doc = FusedModel::read(&path).unwrap();
        assert_eq!((doc.kind.as_str(), doc.schema_version), ("fusion-model", 2));
        assert_eq!(doc.provenance.command, ["ragjudge", "fuse", "fit"]);
        assert_eq!(doc.provenance.settings["model"], "linear");
        let scores = dir.path().join("s.csv");
        std::fs::write(&scores, "id,a\nq1,0.5\nq2,\n").unwrap();
        let applied = doc.body.apply_file(&scores, &ShiftSettings::default(), OnShift::Fallback).unwrap();
        let text = String::from_utf8(applied.csv).unwrap();
        let fused: f64 = text.lines().nth(1).unwrap().split(',').nth(1).unwrap().parse().unwrap();
        // By hand: 1 + 2 * 0.5 = 2; q2 has no value of `a` and keeps its key only.
        assert!((fused - 2.0).abs() < 1e-9, "{text}");
        assert!(text.ends_with("q2,\n"), "{text}");
        assert_eq!((applied.summary.scored, applied.summary.rows, applied.summary.incomplete_lines), (1, 2, vec![3]));
    }

    #[test]
    fn a_model_file_written_before_artifacts_had_a_kind_still_reads() {
        let settings = FitSettings { model: ModelName::Linear, ..FitSettings::default() };
        let data =
            Dataset::from_rows(vec!["a".into()], "h".into(), vec![vec![0.0], vec![1.0]], vec![1.0, 3.0]).unwrap();
        let fit = settings.fit(data, &|_| None, "l.csv", Provenance::version_only()).unwrap();
        // The layout of `fuse fit --save` before artifacts had `kind`.
        let mut legacy = serde_json::to_value(&fit.model.body).unwrap();
        let o = legacy.as_object_mut().unwrap();
        o.remove("shift");
        o.insert("format".into(), crate::model::FORMAT.into());
        o.insert("ragjudge_version".into(), "0.1.0".into());
        o.insert("created_by".into(), serde_json::json!(["ragjudge", "fuse", "fit"]));
        let doc = FusedModel::from_json("old.json", &legacy.to_string()).unwrap();
        assert_eq!((doc.schema_version, doc.provenance.ragjudge.as_str()), (2, "0.1.0"));
        assert_eq!(doc.provenance.command, ["ragjudge", "fuse", "fit"]);
        assert!((doc.body.predict(&[0.5]) - 2.0).abs() < 1e-9);
        assert!(doc.body.shift.is_none());
        let e = FusedModel::from_json("x.json", r#"{"format": "other/2"}"#).unwrap_err();
        assert_eq!(
            e.to_string(),
            "x.json: model format other/2; this version reads `fusion-model` files and ragjudge-fusion-model/1"
        );
        let e = FusedModel::from_json("n.json", r#"{"kind": "fusion-model", "schema_version": 3}"#).unwrap_err();
        assert!(e.to_string().starts_with("n.json: `fusion-model` schema version 3 was written by a newer ragjudge"));
    }

    #[test]
    fn a_schema_1_model_applies_with_a_note_and_a_new_one_with_the_shift_check() {
        let dir = tempfile::tempdir().unwrap();
        let settings = FitSettings { model: ModelName::Linear, ..FitSettings::default() };
        let x: Vec<Vec<f64>> = (0..20).map(|i| vec![f64::from(i) / 20.0]).collect();
        let y: Vec<f64> = x.iter().map(|r| 2.0 * r[0]).collect();
        let data = Dataset::from_rows(vec!["a".into()], "h".into(), x, y).unwrap();
        let fit = settings.fit(data, &|_| None, "l.csv", Provenance::version_only()).unwrap();
        let scores = dir.path().join("s.csv");
        // Every value above the training maximum 0.95.
        let rows: String = (0..20).map(|i| format!("q{i},{}\n", 2.0 + f64::from(i))).collect();
        std::fs::write(&scores, format!("id,a\n{rows}")).unwrap();
        let applied = fit.model.body.apply_file(&scores, &ShiftSettings::default(), OnShift::Fallback).unwrap();
        let shift = applied.summary.shift.as_ref().unwrap();
        assert_eq!((shift.rows, shift.training_rows, shift.inputs[0].outside), (20, 20, 1.0));
        assert!(shift.warned);
        assert!(applied.summary.render_shift("m.json").starts_with("warning: m.json: input `a`"));
        // The same model as schema 1 wrote it: no training distribution.
        let mut old = serde_json::to_value(&fit.model.body).unwrap();
        let o = old.as_object_mut().unwrap();
        o.remove("shift");
        o.insert("kind".into(), "fusion-model".into());
        o.insert("schema_version".into(), 1.into());
        let doc = FusedModel::from_json("old.json", &old.to_string()).unwrap();
        assert_eq!(doc.schema_version, 2);
        let applied = doc.body.apply_file(&scores, &ShiftSettings::default(), OnShift::Fallback).unwrap();
        assert!(applied.summary.shift.is_none());
        assert_eq!(
            applied.summary.render_shift("old.json"),
            "note: old.json records no training distribution (written before fusion-model schema 2): the shift check is unavailable; refit to get it\n"
        );
    }

    #[test]
    fn a_shrunk_model_falls_back_to_its_single_input_when_the_shift_check_warns() {
        let dir = tempfile::tempdir().unwrap();
        let settings = FitSettings {
            model: ModelName::Linear,
            shrink: Some(ShrinkSetting::Lambda(0.5)),
            ..FitSettings::default()
        };
        // y = a + b on a = 0, 0.05, ..., 0.95 and b = 0, 0.025, 0.05, 0.075 repeated: least squares is
        // exact, `a` ranks y best alone (b adds less than two steps of a), the fallback is `a` rescaled.
        let a: Vec<f64> = (0..20).map(|i| f64::from(i) / 20.0).collect();
        let b: Vec<f64> = (0..20).map(|i| f64::from(i % 4) / 40.0).collect();
        let y: Vec<f64> = a.iter().zip(&b).map(|(a, b)| a + b).collect();
        let x: Vec<Vec<f64>> = a.iter().zip(&b).map(|(a, b)| vec![*a, *b]).collect();
        let data = Dataset::from_rows(vec!["a".into(), "b".into()], "h".into(), x.clone(), y.clone()).unwrap();
        let body = settings.fit(data, &|_| None, "l.csv", Provenance::version_only()).unwrap().model.body;
        let stats = |v: &[f64]| {
            let m = v.iter().sum::<f64>() / v.len() as f64;
            (m, (v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / v.len() as f64).sqrt())
        };
        let ((ma, sa), (my, sy)) = (stats(&a), stats(&y));
        // Every value above the training maximum 0.95: the check warns.
        let shifted = dir.path().join("s.csv");
        let rows: String = (0..20).map(|i| format!("q{i},{},0.5\n", 2.0 + f64::from(i))).collect();
        std::fs::write(&shifted, format!("id,a,b\n{rows}")).unwrap();
        let first = |csv: &[u8]| -> f64 {
            String::from_utf8(csv.to_vec()).unwrap().lines().nth(1).unwrap().split(',').nth(1).unwrap().parse().unwrap()
        };
        let applied = body.apply_file(&shifted, &ShiftSettings::default(), OnShift::Fallback).unwrap();
        assert_eq!(applied.summary.fell_back_to.as_deref(), Some("a"));
        // q0 (a = 2, b = 0.5): the label's mean and population sd around a's z-score on the training rows.
        let by_hand = my + sy * (2.0 - ma) / sa;
        assert!((first(&applied.csv) - by_hand).abs() < 1e-9, "{} vs {by_hand}", first(&applied.csv));
        assert!(applied.summary.render_shift("m.json").contains("warning: m.json is shrunk toward `a`"));
        let kept = body.apply_file(&shifted, &ShiftSettings::default(), OnShift::Keep).unwrap();
        assert_eq!(kept.summary.fell_back_to, None);
        assert!((first(&kept.csv) - body.predict(&[2.0, 0.5])).abs() < 1e-12);
        assert!((first(&kept.csv) - by_hand).abs() > 0.1, "the shrunk score differs from the fallback here");
        // The training rows themselves do not warn: the model's own score.
        let same = body.apply_rows(&x, &ShiftSettings::default(), OnShift::Fallback);
        assert!(!same.shift.unwrap().warned && same.fell_back_to.is_none());
        assert!((same.fused[3] - body.predict(&x[3])).abs() < 1e-12);
    }

    #[test]
    fn unknown_models_and_too_few_folds_are_refused() {
        assert_eq!(
            ModelName::from_name("forest").unwrap_err().to_string(),
            "model must be moe, moe-concat, svr or linear, got `forest`"
        );
        let s = FitSettings { model: ModelName::Svr, folds: 1, ..FitSettings::default() };
        assert_eq!(s.choice().unwrap_err().to_string(), "folds must be at least 2, got 1");
        let s = FitSettings { model: ModelName::Moe, monotone: true, ..FitSettings::default() };
        assert_eq!(
            s.choice().unwrap_err().to_string(),
            "monotone applies to the linear model (least squares) only, not moe"
        );
    }
}
