//! `retrieval`: Precision@K, AP@K, Recall@K, nDCG@K and MRR from graded contexts, and with
//! relevance judgments (`--qrels`) precision and recall against every passage a question needs.

use super::{MetricFamily, MetricSettings};
use crate::error::EvalError;
use crate::models::ModelSet;
use crate::models::ModelSettings;
use ragjudge_core::InputError;
use ragjudge_core::Metric;
use ragjudge_lexical::qrels::{Qrels, QrelsMetric};
use ragjudge_lexical::retrieval::{RetrievalMetric, RetrievalOptions, ShortList};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::Arc;

/// Options of the retrieval metrics.
#[derive(Debug, Clone, PartialEq)]
pub struct RetrievalSettings {
    /// Cut-offs K.
    pub ks: Vec<usize>,
    /// Grade from which a passage counts as relevant (UMBRELA scale 0-3).
    pub relevance_threshold: f64,
    /// Leave @K values empty for lists shorter than K (Open RAG Eval) instead of padding with
    /// non-relevant ranks.
    pub skip_short_lists: bool,
    /// Relevance judgments: a question file (`relevant` or testgen's `meta.source_ids`) or a
    /// TREC qrels file; adds the `qrels_*` columns.
    pub qrels: Option<PathBuf>,
    /// Grade from which a TREC qrels line counts as relevant (trec_eval's `-l`).
    pub qrels_level: f64,
}

impl Default for RetrievalSettings {
    fn default() -> Self {
        Self { ks: vec![1, 3, 5], relevance_threshold: 2.0, skip_short_lists: false, qrels: None, qrels_level: 1.0 }
    }
}

/// The `retrieval` family.
pub struct Retrieval;

impl MetricFamily for Retrieval {
    fn name(&self) -> &'static str {
        "retrieval"
    }

    fn definition(&self, settings: &MetricSettings, _models: &ModelSettings) -> Value {
        let s = &settings.retrieval;
        let mut d =
            json!({"k": s.ks, "relevance_threshold": s.relevance_threshold, "skip_short_lists": s.skip_short_lists});
        if let Some(p) = &s.qrels {
            d["qrels"] = json!(p.display().to_string());
            d["qrels_level"] = json!(s.qrels_level);
        }
        d
    }

    fn build(&self, settings: &MetricSettings, _models: &ModelSet) -> Result<Vec<Box<dyn Metric>>, EvalError> {
        let s = &settings.retrieval;
        if s.ks.is_empty() || s.ks.contains(&0) {
            return Err(EvalError::settings("--k needs positive cut-offs, e.g. --k 1,3,5"));
        }
        // A NaN threshold would make every passage non-relevant without a word.
        for (flag, value) in [("--relevance-threshold", s.relevance_threshold), ("--qrels-level", s.qrels_level)] {
            if !value.is_finite() {
                return Err(EvalError::settings(format!("{flag} must be a finite number, got {value}")));
            }
        }
        let short_list = if s.skip_short_lists { ShortList::Undefined } else { ShortList::PadNonRelevant };
        let opts = RetrievalOptions { threshold: s.relevance_threshold, short_list, ..RetrievalOptions::default() };
        let mut metrics: Vec<Box<dyn Metric>> = vec![Box::new(RetrievalMetric { ks: s.ks.clone(), opts })];
        if let Some(path) = &s.qrels {
            let qrels = Arc::new(read_qrels(path, s.qrels_level)?);
            metrics.push(Box::new(QrelsMetric { ks: s.ks.clone(), short_list, qrels }));
        }
        Ok(metrics)
    }
}

/// Reads `--qrels` (errors name the file and line).
fn read_qrels(path: &std::path::Path, level: f64) -> Result<Qrels, EvalError> {
    let file = path.display().to_string();
    let f = std::fs::File::open(path).map_err(|e| InputError::fatal(&file, None, format!("cannot open: {e}")))?;
    Ok(Qrels::read(std::io::BufReader::new(f), &file, level)?)
}
