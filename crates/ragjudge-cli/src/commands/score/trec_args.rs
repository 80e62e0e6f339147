//! The options of the trec metric family of `score` (Open RAG Eval's TREC RAG metrics) and of
//! consistency across runs, as flags.

use anyhow::Result;
use clap::{Args, ValueEnum};
use ragjudge_eval::families::{NoAnswerMode, TrecParts, TrecSettings};
use ragjudge_eval::stages::ConsistencySettings;
use std::path::PathBuf;

/// How the no-answer part decides.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum NoAnswerArg {
    /// Open RAG Eval's prompt; the judge's probability of `yes`.
    #[default]
    Judge,
    /// The transparent refusal-phrase rule, without a model.
    Lexical,
}

/// Options of the trec metrics.
#[derive(Debug, Clone, Default, Args)]
pub struct TrecArgs {
    /// Cut-offs K of the UMBRELA Precision@K and AP@K.
    #[arg(long = "trec-k", value_delimiter = ',', default_value = "1,3,5", value_name = "K")]
    pub trec_ks: Vec<usize>,
    /// Count the missing ranks of a list shorter than K as non-relevant (Open RAG Eval leaves such K out).
    #[arg(long)]
    pub trec_pad_short_lists: bool,
    /// Parts of the trec evaluation, comma separated: retrieval, nuggets, citations, hallucination,
    /// no_answer, golden.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "retrieval,nuggets,citations,hallucination,no_answer,golden",
        value_name = "PART"
    )]
    pub trec_parts: Vec<String>,
    /// Retries (with another seed) of a judge output that cannot be parsed.
    #[arg(long, default_value_t = 2, value_name = "N")]
    pub trec_retries: u32,
    /// Do not ask the judge for structured (JSON-schema) output.
    #[arg(long)]
    pub trec_no_structured: bool,
    /// Nugget creation rounds at most.
    #[arg(long, default_value_t = 5, value_name = "N")]
    pub trec_nugget_rounds: usize,
    /// Nugget scores with Open RAG Eval's max(n, 1) denominators (Vital = 0 without vital nuggets)
    /// instead of the paper's formulas (empty when no nugget of the kind exists).
    #[arg(long)]
    pub trec_ore_denominators: bool,
    /// How the no_answer part decides whether a question was answered.
    #[arg(long, value_enum, default_value_t = NoAnswerArg::Judge, value_name = "MODE")]
    pub trec_no_answer: NoAnswerArg,
    /// Also write the scores in Open RAG Eval's results CSV layout (run_N_ column prefixes).
    #[arg(long, value_name = "FILE")]
    pub trec_open_rag_csv: Option<PathBuf>,
    /// Compute consistency across repeated runs (records sharing system and id with different
    /// `run`) for any metrics; always on with `--metrics trec`.
    #[arg(long)]
    pub consistency: bool,
    /// Where the per-query consistency rows go (default: OUTPUT with extension `.consistency.csv`).
    #[arg(long, value_name = "FILE")]
    pub consistency_output: Option<PathBuf>,
}

impl TrecArgs {
    /// The engine's trec settings (fails on an unknown part).
    pub fn settings(&self) -> Result<TrecSettings> {
        Ok(TrecSettings {
            ks: self.trec_ks.clone(),
            pad_short_lists: self.trec_pad_short_lists,
            parts: TrecParts::from_names(&self.trec_parts)?,
            retries: self.trec_retries,
            structured: !self.trec_no_structured,
            nugget_rounds: self.trec_nugget_rounds,
            ore_denominators: self.trec_ore_denominators,
            no_answer: match self.trec_no_answer {
                NoAnswerArg::Judge => NoAnswerMode::Judge,
                NoAnswerArg::Lexical => NoAnswerMode::Lexical,
            },
            open_rag_csv: self.trec_open_rag_csv.clone(),
        })
    }

    /// Consistency across runs, as `--consistency` and `--consistency-output` ask.
    pub fn consistency_settings(&self) -> ConsistencySettings {
        ConsistencySettings { enabled: self.consistency, output: self.consistency_output.clone() }
    }
}
