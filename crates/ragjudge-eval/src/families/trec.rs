//! `trec`: the TREC 2024 RAG metrics as Open RAG Eval computes them (Open RAG Eval metrics (TREC
//! 2024 RAG)): UMBRELA, AutoNuggetizer, citations, hallucination, no-answer detection and
//! golden-answer metrics, with Open RAG Eval's column names; consistency across repeated runs and
//! Open RAG Eval's results CSV as cross-record stages.

use super::{check_parent, MetricFamily, MetricSettings, StageContext};
use crate::error::EvalError;
use crate::models::ModelSet;
use crate::stages::{self, Stage};
use ragjudge_core::{Metric, MetricError, MetricOutput, Record};
use ragjudge_trec::answer::{
    EntailmentModel, FactualCorrectnessScorer, GoldenAnswerMetric, HallucinationMetric, HallucinationOptions,
    NoAnswerMetric, SemanticSimilarity,
};
use ragjudge_trec::judging::CallOptions;
use ragjudge_trec::nuggets::NuggetOptions;
use ragjudge_trec::{Parts, TrecMetric, TrecOptions};
use std::path::PathBuf;

/// Every part of the trec evaluation, in column order.
pub const TREC_PARTS: [&str; 6] = ["retrieval", "nuggets", "citations", "hallucination", "no_answer", "golden"];

/// Prefix of the answer-level columns (Open RAG Eval's generation scores).
const GENERATION: &str = "generation_score_";

/// How the no-answer part decides.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum NoAnswerMode {
    /// Open RAG Eval's prompt; the judge's probability of `yes`.
    #[default]
    Judge,
    /// The transparent refusal-phrase rule, without a model.
    Lexical,
}

/// The parts of the trec evaluation to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrecParts {
    /// Parts of [`TrecMetric`]: retrieval (UMBRELA), nuggets, citations.
    pub trec: Parts,
    /// Hallucination score.
    pub hallucination: bool,
    /// No-answer detection.
    pub no_answer: bool,
    /// Golden-answer metrics.
    pub golden: bool,
}

impl Default for TrecParts {
    fn default() -> Self {
        Self {
            trec: Parts { retrieval: true, nuggets: true, citations: true },
            hallucination: true,
            no_answer: true,
            golden: true,
        }
    }
}

impl TrecParts {
    /// The parts named (see [`TREC_PARTS`]); empty names are ignored.
    pub fn from_names<S: AsRef<str>>(names: &[S]) -> Result<Self, EvalError> {
        let mut p = TrecParts {
            trec: Parts { retrieval: false, nuggets: false, citations: false },
            hallucination: false,
            no_answer: false,
            golden: false,
        };
        for name in names.iter().map(|s| s.as_ref().trim()).filter(|s| !s.is_empty()) {
            match name {
                "retrieval" => p.trec.retrieval = true,
                "nuggets" => p.trec.nuggets = true,
                "citations" => p.trec.citations = true,
                "hallucination" => p.hallucination = true,
                "no_answer" => p.no_answer = true,
                "golden" => p.golden = true,
                other => {
                    return Err(EvalError::settings(format!(
                        "--trec-parts: unknown part `{other}` (known: {})",
                        TREC_PARTS.join(", ")
                    )))
                }
            }
        }
        Ok(p)
    }

    fn any(&self) -> bool {
        self.trec.retrieval
            || self.trec.nuggets
            || self.trec.citations
            || self.hallucination
            || self.no_answer
            || self.golden
    }
}

/// Options of the trec metrics.
#[derive(Debug, Clone, PartialEq)]
pub struct TrecSettings {
    /// Cut-offs K of the UMBRELA Precision@K and AP@K.
    pub ks: Vec<usize>,
    /// Count the missing ranks of a list shorter than K as non-relevant (Open RAG Eval leaves such K out).
    pub pad_short_lists: bool,
    /// Which parts run.
    pub parts: TrecParts,
    /// Retries (with another seed) of a judge output that cannot be parsed.
    pub retries: u32,
    /// Ask the judge for structured (JSON-schema) output.
    pub structured: bool,
    /// Nugget creation rounds at most (at least 1).
    pub nugget_rounds: usize,
    /// Nugget scores with Open RAG Eval's max(n, 1) denominators.
    pub ore_denominators: bool,
    /// How the no-answer part decides.
    pub no_answer: NoAnswerMode,
    /// Also write the scores in Open RAG Eval's results CSV layout to this file.
    pub open_rag_csv: Option<PathBuf>,
}

impl Default for TrecSettings {
    fn default() -> Self {
        Self {
            ks: vec![1, 3, 5],
            pad_short_lists: false,
            parts: TrecParts::default(),
            retries: 2,
            structured: true,
            nugget_rounds: 5,
            ore_denominators: false,
            no_answer: NoAnswerMode::Judge,
            open_rag_csv: None,
        }
    }
}

impl TrecSettings {
    /// The options of [`TrecMetric`] (and of Open RAG Eval's CSV layout).
    pub fn options(&self) -> Result<TrecOptions, EvalError> {
        if self.nugget_rounds == 0 {
            return Err(EvalError::settings("--trec-nugget-rounds must be at least 1"));
        }
        Ok(TrecOptions {
            ks: self.ks.clone(),
            pad_short_lists: self.pad_short_lists,
            parts: self.parts.trec,
            nuggets: NuggetOptions {
                rounds: self.nugget_rounds,
                ore_denominators: self.ore_denominators,
                ..NuggetOptions::default()
            },
            call: CallOptions { retries: self.retries, structured: self.structured, ..CallOptions::default() },
        })
    }
}

/// The `trec` family.
pub struct Trec;

impl MetricFamily for Trec {
    fn name(&self) -> &'static str {
        "trec"
    }

    /// The TREC metric (retrieval, nuggets, citations), then hallucination, no-answer and
    /// golden-answer metrics, each when its part is selected.
    fn build(&self, settings: &MetricSettings, models: &ModelSet) -> Result<Vec<Box<dyn Metric>>, EvalError> {
        let s = &settings.trec;
        let opts = s.options()?;
        let parts = s.parts;
        if let Some(path) = &s.open_rag_csv {
            check_parent("--trec-open-rag-csv", path)?;
        }
        if !parts.any() {
            return Err(EvalError::settings(format!(
                "--trec-parts selects nothing (known: {})",
                TREC_PARTS.join(", ")
            )));
        }
        let mut metrics: Vec<Box<dyn Metric>> = Vec::new();
        if parts.trec.retrieval || parts.trec.nuggets || parts.trec.citations {
            let metric = TrecMetric::new(models.judge()?, opts)
                .map_err(|e| EvalError::settings(format!("--metrics trec: {e}")))?;
            metrics.push(Box::new(metric));
        }
        let entailment = || -> Result<EntailmentModel, EvalError> {
            Ok(match models.cross_encoder()? {
                Some(ce) => EntailmentModel::CrossEncoder(ce),
                None => EntailmentModel::Judge(models.judge()?),
            })
        };
        if parts.hallucination {
            let m = HallucinationMetric::new(entailment()?, HallucinationOptions::default());
            metrics.push(Box::new(Generation(m)));
        }
        if parts.no_answer {
            let judge = match s.no_answer {
                NoAnswerMode::Judge => Some(models.judge()?),
                NoAnswerMode::Lexical => None,
            };
            metrics.push(Box::new(Generation(NoAnswerMetric::new(judge))));
        }
        if parts.golden {
            // A build without an encoder backend leaves the similarity column empty rather than
            // failing the factual-correctness columns of every record with a reference.
            let similarity = cfg!(feature = "candle").then(|| SemanticSimilarity::new(models.embedder_on_first_use()));
            let factual = FactualCorrectnessScorer::new(models.judge()?, entailment()?);
            metrics.push(Box::new(Generation(GoldenAnswerMetric::new(similarity, Some(factual)))));
        }
        Ok(metrics)
    }

    /// Consistency across repeated runs is always on with trec.
    fn stages(&self, ctx: &StageContext<'_>) -> Result<Vec<Box<dyn Stage>>, EvalError> {
        Ok(vec![stages::consistency(ctx)?])
    }
}

/// An answer-level metric with Open RAG Eval's `generation_score_` column prefix.
struct Generation<M>(M);

impl<M: Metric> Metric for Generation<M> {
    fn name(&self) -> &str {
        self.0.name()
    }

    fn columns(&self) -> Vec<String> {
        self.0.columns().into_iter().map(|c| format!("{GENERATION}{c}")).collect()
    }

    fn score(&self, record: &Record) -> Result<MetricOutput, MetricError> {
        self.0.score(record)
    }

    fn score_batch(&self, records: &[Record]) -> Vec<Result<MetricOutput, MetricError>> {
        self.0.score_batch(records)
    }
}
