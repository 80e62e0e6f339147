//! Answer-level TREC RAG metrics of Open RAG Eval: hallucination, no-answer detection,
//! golden-answer metrics and consistency across repeated runs.
//!
//! - [`hallucination::HallucinationMetric`]: factual consistency of the answer with its passages
//!   (column `hallucination_score`), by an NLI cross-encoder or the judge.
//! - [`no_answer::NoAnswerMetric`]: did the system attempt an answer (columns `answered`,
//!   `answered_prob`); [`no_answer::share_answered`] gives the share of questions answered.
//! - [`ragchecker::RagCheckerMetric`]: RAGChecker's diagnostics per claim (columns
//!   `ragchecker_*`: precision, recall, F1, retriever and generator metrics).
//! - [`golden::GoldenAnswerMetric`]: semantic similarity and claim-level factual correctness
//!   against the `reference`.
//! - [`consistency::ConsistencyAccumulator`]: pairwise BERTScore / ROUGE and run statistics per
//!   `(system, id)` over repeated runs, with per-system aggregates.

pub mod bertscore;
pub mod consistency;
pub mod entailment;
pub mod golden;
pub mod hallucination;
pub mod no_answer;
pub mod ragchecker;

#[cfg(test)]
pub(crate) mod test_support;

pub use bertscore::{bert_score, BertScore, Idf};
pub use consistency::{
    run_stats, ConsistencyAccumulator, ConsistencyOptions, ConsistencyReport, ConsistencyRow, RunStats,
    SystemAggregate, SystemConsistency,
};
pub use entailment::{EntailmentModel, MAX_SOURCE_CHARS};
pub use golden::{FactualCorrectness, FactualCorrectnessScorer, GoldenAnswerMetric, SemanticSimilarity};
pub use hallucination::{HallucinationMetric, HallucinationOptions, HallucinationScore, SentenceAggregate};
pub use no_answer::{share_answered, share_answered_column, AnswerAttempt, NoAnswerMetric};
pub use ragchecker::{RagCheckerMetric, RagCheckerOptions};
