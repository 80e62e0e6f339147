//! `ragchecker`: RAGChecker's diagnostics per claim (RAGChecker §3.3), columns
//! `ragchecker_precision`, `_recall`, `_f1` (overall), `_claim_recall`, `_context_precision`
//! (retriever), `_context_utilization`, `_noise_sensitivity_relevant`,
//! `_noise_sensitivity_irrelevant`, `_hallucination`, `_self_knowledge`, `_faithfulness`
//! (generator), then `_precision_expected`, `_recall_expected`, `_f1_expected` (mean P(entailed)
//! instead of the share of decided claims), by [`ragjudge_trec::answer::ragchecker::RagCheckerMetric`]. Entailment comes from
//! the NLI cross-encoder when one is given (`--nli`), else from the judge. The per-claim checks
//! are the JSONL detail; a record without a reference has no value, and the retriever and
//! generator columns of a record without passages are empty, each with its reason. Claims are
//! sentences, or atomic claims the judge writes ([`RagCheckerSettings::claims`]).

use super::{MetricFamily, MetricSettings};
use crate::error::EvalError;
use crate::models::{ModelSet, ModelSettings};
use ragjudge_core::Metric;
use ragjudge_trec::answer::ragchecker::Extraction;
use ragjudge_trec::answer::{EntailmentModel, RagCheckerMetric, RagCheckerOptions};
use serde_json::{json, Value};

/// Where the family takes claims from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ClaimsFrom {
    /// The sentences of each text, citation markers removed.
    #[default]
    Sentences,
    /// Atomic claims the judge writes under a JSON grammar (a text's sentences where it fails).
    Judge,
}

impl ClaimsFrom {
    /// `sentences` or `judge`.
    pub fn name(self) -> &'static str {
        match self {
            ClaimsFrom::Sentences => "sentences",
            ClaimsFrom::Judge => "judge",
        }
    }
}

/// Options of the `ragchecker` family.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RagCheckerSettings {
    /// Where the claims of answers and references come from.
    pub claims: ClaimsFrom,
}

/// The `ragchecker` family.
pub struct RagChecker;

impl MetricFamily for RagChecker {
    fn name(&self) -> &'static str {
        "ragchecker"
    }

    fn definition(&self, settings: &MetricSettings, models: &ModelSettings) -> Value {
        let o = RagCheckerOptions::default();
        json!({"nli_model": models.nli, "judge": models.judge.spec, "threshold": o.threshold,
               "skip_below": o.skip_below, "max_source_chars": o.max_source_chars,
               "claims": settings.ragchecker.claims.name()})
    }

    fn build(&self, settings: &MetricSettings, models: &ModelSet) -> Result<Vec<Box<dyn Metric>>, EvalError> {
        let entailment = match models.cross_encoder()? {
            Some(ce) => EntailmentModel::CrossEncoder(ce),
            None => EntailmentModel::Judge(models.judge()?),
        };
        let extraction = match settings.ragchecker.claims {
            ClaimsFrom::Sentences => Extraction::Sentences,
            ClaimsFrom::Judge => Extraction::Judge(models.judge()?),
        };
        Ok(vec![Box::new(RagCheckerMetric::new(entailment, RagCheckerOptions::default()).with_extraction(extraction))])
    }
}
