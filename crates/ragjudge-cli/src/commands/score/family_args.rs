//! The options of the model-backed metric families of `score` (hcat, safety, trec), as flags.

use anyhow::Result;
use clap::{Args, ValueEnum};
use ragjudge_eval::families::{HcatNli, HcatSettings, NoAnswerMode, SafetySettings, TrecParts, TrecSettings};
use ragjudge_eval::stages::ConsistencySettings;
use ragjudge_hcat::Premise;
use std::path::PathBuf;

/// Where NLI groundedness (HCAT §3.2.2) comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum HcatNliArg {
    /// The judge (`--judge`): log-odds of its two labels after an entailment prompt (slow).
    Judge,
    /// The NLI cross-encoder of `--nli DIR`: entailment logit minus the strongest other logit.
    CrossEncoder,
    /// No NLI groundedness: its columns stay empty.
    Off,
}

/// The premise each answer sentence is tested against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum HcatPremiseArg {
    /// The whole context, passages joined by blank lines (the paper's choice).
    #[default]
    Joined,
    /// Each passage on its own, keeping the most entailing one.
    BestPassage,
}

/// Options of the hcat metrics.
#[derive(Debug, Clone, Default, Args)]
pub struct HcatArgs {
    /// HCAT NLI groundedness source [default: cross-encoder when --nli is given, else off].
    #[arg(long = "hcat-nli", value_enum, value_name = "SOURCE")]
    pub hcat_nli: Option<HcatNliArg>,
    /// HCAT NLI premise of each answer sentence.
    #[arg(long = "hcat-nli-premise", value_enum, default_value = "joined", value_name = "PREMISE")]
    pub hcat_nli_premise: HcatPremiseArg,
    /// HCAT judge labels for "entailed" and "not entailed", each a single token of the judge model.
    #[arg(long = "hcat-judge-labels", value_delimiter = ',', default_value = "Yes,No", value_name = "YES,NO")]
    pub hcat_judge_labels: Vec<String>,
}

impl HcatArgs {
    /// The engine's hcat settings.
    pub fn settings(&self) -> HcatSettings {
        HcatSettings {
            nli: self.hcat_nli.map(|n| match n {
                HcatNliArg::Judge => HcatNli::Judge,
                HcatNliArg::CrossEncoder => HcatNli::CrossEncoder,
                HcatNliArg::Off => HcatNli::Off,
            }),
            premise: match self.hcat_nli_premise {
                HcatPremiseArg::Joined => Premise::Joined,
                HcatPremiseArg::BestPassage => Premise::BestPassage,
            },
            judge_labels: self.hcat_judge_labels.clone(),
        }
    }
}

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

impl SafetyArgs {
    /// The engine's safety settings.
    pub fn settings(&self) -> SafetySettings {
        SafetySettings {
            toxicity: self.safety_toxicity,
            scan_query: self.safety_scan_query,
            scan_contexts: self.safety_scan_contexts,
            pii_threshold: self.pii_threshold,
            phone_region: self.pii_phone_region.clone(),
            chunk_bytes: self.pii_chunk_bytes,
        }
    }
}

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
