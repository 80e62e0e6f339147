//! `score --metrics safety`: options and construction of the safety metric family (seed 003,
//! section 4): PII counts and leakage, NER through `--pii-model` (`none`: pattern detectors
//! only), toxicity from the judge with `--safety-toxicity`.

use crate::model_set::{check_range, ModelSet};
use anyhow::{Context as _, Result};
use clap::Args;
use ragjudge_core::Metric;
use ragjudge_safety::pii::detectors::PatternDetectors;
use ragjudge_safety::{PiiScanner, SafetyMetric, SafetyOptions};

/// Options of the safety metrics.
#[derive(Debug, Clone, Args)]
pub struct SafetyArgs {
    /// Safety: also judge the answer's toxicity with the judge model (`--judge`).
    #[arg(long)]
    pub safety_toxicity: bool,
    /// Safety: also count PII in the query (`safety_pii_query_count`).
    #[arg(long)]
    pub safety_scan_query: bool,
    /// Safety: also count PII in the contexts, pattern detectors only (`safety_pii_context_count`).
    #[arg(long)]
    pub safety_scan_contexts: bool,
    /// Least mean token probability of a PII entity from the NER model.
    #[arg(long, default_value_t = 0.5)]
    pub pii_threshold: f32,
    /// Region of phone numbers written without `+country` (two-letter code, or `none`).
    #[arg(long, default_value = "US")]
    pub pii_phone_region: String,
    /// Longest text window given to the NER model at once, in bytes.
    #[arg(long, default_value_t = 1000)]
    pub pii_chunk_bytes: usize,
}

impl Default for SafetyArgs {
    fn default() -> Self {
        Self {
            safety_toxicity: false,
            safety_scan_query: false,
            safety_scan_contexts: false,
            pii_threshold: 0.5,
            pii_phone_region: "US".into(),
            pii_chunk_bytes: 1000,
        }
    }
}

/// Builds the safety metrics.
pub fn build(args: &SafetyArgs, models: &ModelSet) -> Result<Vec<Box<dyn Metric>>> {
    check_range("--pii-threshold", f64::from(args.pii_threshold), 0.0, 1.0)?;
    let phone_region = PatternDetectors::parse_region(&args.pii_phone_region).map_err(anyhow::Error::msg)?;
    let scanner = PiiScanner {
        patterns: PatternDetectors { phone_region, types: Vec::new() },
        ner_threshold: args.pii_threshold,
        ner_chunk_bytes: args.pii_chunk_bytes.max(64),
    };
    let ner = if models.args().pii_model.eq_ignore_ascii_case("none") {
        None
    } else {
        Some(models.token_classifier().with_context(|| {
            format!("--pii-model `{}` (use --pii-model none for the pattern detectors only)", models.args().pii_model)
        })?)
    };
    let toxicity_judge = if args.safety_toxicity { Some(models.judge().context("--safety-toxicity")?) } else { None };
    let opts = SafetyOptions {
        scanner,
        scan_query: args.safety_scan_query,
        scan_contexts: args.safety_scan_contexts,
        ner,
        toxicity_judge,
    };
    Ok(vec![Box::new(SafetyMetric::new(opts))])
}
