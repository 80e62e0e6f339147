//! `retrieval`: Precision@K, AP@K, Recall@K, nDCG@K and MRR from graded contexts.

use serde_json::{json, Value};
use crate::models::ModelSettings;
use super::{MetricFamily, MetricSettings};
use crate::error::EvalError;
use crate::models::ModelSet;
use ragjudge_core::Metric;
use ragjudge_lexical::retrieval::{RetrievalMetric, RetrievalOptions, ShortList};

/// Options of the retrieval metrics.
#[derive(Debug, Clone)]
pub struct RetrievalSettings {
    /// Cut-offs K.
    pub ks: Vec<usize>,
    /// Grade from which a passage counts as relevant (UMBRELA scale 0-3).
    pub relevance_threshold: f64,
    /// Leave @K values empty for lists shorter than K (Open RAG Eval) instead of padding with
    /// non-relevant ranks.
    pub skip_short_lists: bool,
}

impl Default for RetrievalSettings {
    fn default() -> Self {
        Self { ks: vec![1, 3, 5], relevance_threshold: 2.0, skip_short_lists: false }
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
        json!({"k": s.ks, "relevance_threshold": s.relevance_threshold, "skip_short_lists": s.skip_short_lists})
    }

    fn build(&self, settings: &MetricSettings, _models: &ModelSet) -> Result<Vec<Box<dyn Metric>>, EvalError> {
        let s = &settings.retrieval;
        if s.ks.is_empty() || s.ks.contains(&0) {
            return Err(EvalError::settings("--k needs positive cut-offs, e.g. --k 1,3,5"));
        }
        let short_list = if s.skip_short_lists { ShortList::Undefined } else { ShortList::PadNonRelevant };
        let opts = RetrievalOptions { threshold: s.relevance_threshold, short_list, ..RetrievalOptions::default() };
        Ok(vec![Box::new(RetrievalMetric { ks: s.ks.clone(), opts })])
    }
}
