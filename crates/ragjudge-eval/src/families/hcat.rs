//! `hcat`: HCAT functionality metrics (HCAT (Sudjianto et al.), §3): context relevancy,
//! groundedness (embedding and NLI), completeness with the exact Wasserstein distance, answer
//! relevancy, and their RAGAS-like mean.

use serde_json::{json, Value};
use crate::models::ModelSettings;
use super::{MetricFamily, MetricSettings};
use crate::error::EvalError;
use crate::models::ModelSet;
use ragjudge_core::Metric;
use ragjudge_hcat::{HcatMetric, NliSource, Premise};

/// Where NLI groundedness (HCAT §3.2.2) comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HcatNli {
    /// The judge: log-odds of its two labels after an entailment prompt (slow).
    Judge,
    /// The NLI cross-encoder of the model settings: entailment logit minus the strongest other.
    CrossEncoder,
    /// No NLI groundedness: its columns stay empty.
    Off,
}

/// Options of the hcat metrics.
#[derive(Debug, Clone, PartialEq)]
pub struct HcatSettings {
    /// NLI source; `None`: the cross-encoder when one is named, else off.
    pub nli: Option<HcatNli>,
    /// The premise each answer sentence is tested against.
    pub premise: Premise,
    /// The judge's labels for "entailed" and "not entailed", each one token of the judge model.
    pub judge_labels: Vec<String>,
}

impl Default for HcatSettings {
    fn default() -> Self {
        Self { nli: None, premise: Premise::Joined, judge_labels: vec!["Yes".into(), "No".into()] }
    }
}

/// The `hcat` family.
pub struct Hcat;

impl MetricFamily for Hcat {
    fn name(&self) -> &'static str {
        "hcat"
    }

    fn definition(&self, settings: &MetricSettings, models: &ModelSettings) -> Value {
        let s = &settings.hcat;
        json!({"embedder": models.embedder, "nli_model": models.nli, "nli": format!("{:?}", s.nli),
               "premise": format!("{:?}", s.premise), "judge": models.judge.spec,
               "judge_labels": s.judge_labels})
    }

    fn build(&self, settings: &MetricSettings, models: &ModelSet) -> Result<Vec<Box<dyn Metric>>, EvalError> {
        let s = &settings.hcat;
        let default = if models.settings().nli.is_some() { HcatNli::CrossEncoder } else { HcatNli::Off };
        let nli = match s.nli.unwrap_or(default) {
            HcatNli::Off => None,
            HcatNli::CrossEncoder => {
                let Some(model) = models.cross_encoder()? else {
                    return Err(EvalError::settings("--hcat-nli cross-encoder needs an NLI model: pass --nli DIR"));
                };
                Some(NliSource::cross_encoder(model).map_err(|e| EvalError::settings(e.to_string()))?)
            }
            HcatNli::Judge => {
                let labels: [String; 2] = match s.judge_labels.as_slice() {
                    [yes, no] if !yes.is_empty() && !no.is_empty() && yes != no => [yes.clone(), no.clone()],
                    other => {
                        return Err(EvalError::settings(format!(
                            "--hcat-judge-labels needs two different labels, got {other:?}"
                        )))
                    }
                };
                Some(NliSource::judge(models.judge()?, labels))
            }
        };
        let mut metric = HcatMetric::new(models.embedder()?);
        if let Some(nli) = nli {
            metric = metric.with_nli(nli, s.premise);
        }
        Ok(vec![Box::new(metric)])
    }
}
