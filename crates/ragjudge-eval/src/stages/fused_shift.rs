//! The shift check of `fused:MODEL` (`ragjudge_fusion::shift`): each model's inputs over the
//! scored records, counted as the run goes (memory stays flat), against the training distribution
//! the model file records.

use super::{Stage, StageReport};
use crate::error::EvalError;
use crate::progress::Progress;
use crate::sink::Row;
use ragjudge_core::Record;
use ragjudge_fusion::shift::{ShiftReference, ShiftReport, ShiftSettings, ShiftTally};
use serde::Serialize;
use serde_json::Value;
use std::path::PathBuf;

/// The stage's name.
pub const FUSED_SHIFT: &str = "fused-shift";

/// One model's shift check over a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelShift {
    /// The model file.
    pub model: PathBuf,
    /// The check; none when the model file records no training distribution (schema 1).
    pub report: Option<ShiftReport>,
    /// The single input a model fitted with `--shrink` is shrunk toward; none when it is not.
    pub shrunk_toward: Option<String>,
}

impl ModelShift {
    /// Warnings, a line saying there are none, or the note that the check is unavailable.
    pub fn render(&self) -> String {
        let what = format!("fused:{}", self.model.display());
        match &self.report {
            Some(r) => {
                let mut out = r.render(&what);
                if let Some(input) = self.shrunk_toward.as_ref().filter(|_| r.warned) {
                    out += &format!(
                        "warning: {what} is shrunk toward `{input}`: under this shift `fuse apply` scores it as `{input}` alone; the column here holds the shrunk score as fitted (scores are written before the whole run's shift is known)\n"
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

/// One model: where its inputs are in a row's detail, and its counts so far.
pub(crate) struct Watched {
    /// The model file.
    pub model: PathBuf,
    /// The detail key of the model's metric (its column prefix).
    pub detail_key: String,
    /// The model's input names, in its order.
    pub inputs: Vec<String>,
    /// The training distribution and the counts; none for a file of schema 1.
    pub reference: Option<(ShiftReference, ShiftTally)>,
    /// The single input the model is shrunk toward, if it is.
    pub shrunk_toward: Option<String>,
}

/// The stage over `models`, warning under `settings`.
pub(crate) fn fused_shift(models: Vec<Watched>, settings: ShiftSettings) -> Box<dyn Stage> {
    Box::new(FusedShift { models, settings })
}

struct FusedShift {
    models: Vec<Watched>,
    settings: ShiftSettings,
}

impl Stage for FusedShift {
    fn name(&self) -> &'static str {
        FUSED_SHIFT
    }

    fn add(&mut self, _record: &Record, row: Row<'_>, _progress: &dyn Progress) -> Result<(), EvalError> {
        for m in &mut self.models {
            let Some((reference, tally)) = &mut m.reference else { continue };
            let Some(values) = row.detail.get(&m.detail_key).and_then(|d| d.get("inputs")) else { continue };
            let x: Option<Vec<f64>> = m.inputs.iter().map(|i| values.get(i).and_then(Value::as_f64)).collect();
            if let Some(x) = x {
                tally.add(reference, &x);
            }
        }
        Ok(())
    }

    fn finish(self: Box<Self>, _earlier: &[StageReport], _progress: &dyn Progress) -> Result<StageReport, EvalError> {
        let out = self
            .models
            .into_iter()
            .map(|m| ModelShift {
                report: m.reference.map(|(r, t)| t.report(&r, &m.inputs, &self.settings)),
                shrunk_toward: m.shrunk_toward,
                model: m.model,
            })
            .collect();
        Ok(StageReport::FusedShift(out))
    }
}
