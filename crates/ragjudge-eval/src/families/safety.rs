//! `safety`: risk and safety metrics (HCAT (Sudjianto et al.), §4): PII counts and leakage from
//! checksummed pattern detectors and an NER model, and toxicity from the judge.

use super::{check_range, MetricFamily, MetricSettings};
use crate::error::EvalError;
use crate::models::ModelSet;
use ragjudge_core::Metric;
use ragjudge_safety::pii::detectors::PatternDetectors;
use ragjudge_safety::{PiiScanner, SafetyMetric, SafetyOptions};

/// Options of the safety metrics.
#[derive(Debug, Clone, PartialEq)]
pub struct SafetySettings {
    /// Also judge the answer's toxicity with the judge model.
    pub toxicity: bool,
    /// Also count PII in the query.
    pub scan_query: bool,
    /// Also count PII in the contexts (pattern detectors only).
    pub scan_contexts: bool,
    /// Least mean token probability of a PII entity from the NER model.
    pub pii_threshold: f32,
    /// Region of phone numbers written without `+country` (two-letter code, or `none`).
    pub phone_region: String,
    /// Longest text window given to the NER model at once, in bytes.
    pub chunk_bytes: usize,
}

impl Default for SafetySettings {
    fn default() -> Self {
        Self {
            toxicity: false,
            scan_query: false,
            scan_contexts: false,
            pii_threshold: 0.5,
            phone_region: "US".into(),
            chunk_bytes: 1000,
        }
    }
}

/// The `safety` family.
pub struct Safety;

impl MetricFamily for Safety {
    fn name(&self) -> &'static str {
        "safety"
    }

    fn build(&self, settings: &MetricSettings, models: &ModelSet) -> Result<Vec<Box<dyn Metric>>, EvalError> {
        let s = &settings.safety;
        check_range("--pii-threshold", f64::from(s.pii_threshold), 0.0, 1.0)?;
        let phone_region =
            PatternDetectors::parse_region(&s.phone_region).map_err(|e| EvalError::settings(e.to_string()))?;
        let scanner = PiiScanner {
            patterns: PatternDetectors { phone_region, types: Vec::new() },
            ner_threshold: s.pii_threshold,
            ner_chunk_bytes: s.chunk_bytes.max(64),
        };
        let pii_model = &models.settings().pii_model;
        let ner = if pii_model.eq_ignore_ascii_case("none") {
            None
        } else {
            Some(models.token_classifier().map_err(|e| {
                EvalError::settings(format!(
                    "--pii-model `{pii_model}` (use --pii-model none for the pattern detectors only): {e}"
                ))
            })?)
        };
        let toxicity_judge = if s.toxicity {
            Some(models.judge().map_err(|e| EvalError::settings(format!("--safety-toxicity: {e}")))?)
        } else {
            None
        };
        let opts =
            SafetyOptions { scanner, scan_query: s.scan_query, scan_contexts: s.scan_contexts, ner, toxicity_judge };
        Ok(vec![Box::new(SafetyMetric::new(opts))])
    }
}
