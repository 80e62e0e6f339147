//! The options of `ragjudge judge-eval`, turned into the library's inputs and settings.

use crate::args::JudgeArgs;
use anyhow::{Context as _, Result};
use clap::Args;
use ragjudge_dice::meta::job::{parse_protocols, JudgeEvalInputs, JudgeEvalSettings};
use std::path::PathBuf;

/// `ragjudge judge-eval`.
#[derive(Debug, Args)]
pub struct JudgeEvalArgs {
    /// Labelled pair sets: JSON lists of `{"input", "output_1", "output_2", "label": 1|2}` (LLMBar's layout).
    #[arg(long = "set", num_args = 1.., value_name = "FILE")]
    pub sets: Vec<PathBuf>,
    /// Runs (JSONL records of several systems) whose pairs `--pairs` labels.
    #[arg(long, num_args = 1.., requires = "pairs", value_name = "FILE")]
    pub runs: Vec<PathBuf>,
    /// Human pairwise labels of `--runs`: JSONL `{"id", "system_a", "system_b", "label": "A"|"B"|"tie"}`.
    #[arg(long, requires = "runs", value_name = "FILE")]
    pub pairs: Option<PathBuf>,
    /// Scored summaries for the consistency (hallucination) judge: JSON lists of `{"source",
    /// "system_output", "scores": {"consistency"}}` (UniEval's layout of QAGS and SummEval).
    #[arg(long, num_args = 1.., value_name = "FILE")]
    pub consistency: Vec<PathBuf>,
    /// Sentences shown as the premise of each summary sentence (`--consistency`) or answer claim
    /// (`--protocol claims`); 0: the whole source.
    #[arg(long, default_value_t = 3)]
    pub premise_sentences: usize,
    /// Name of the `--runs` set in the table [default: the label file's stem].
    #[arg(long, value_name = "NAME")]
    pub runs_name: Option<String>,
    /// Protocols, comma separated: dice, dice-reasoning, two-label, pointwise, ensemble, claims,
    /// ragchecker (claims and ragchecker need reference answers: sets without them are skipped).
    #[arg(long, value_delimiter = ',', default_value = "two-label")]
    pub protocol: Vec<String>,
    /// First N pairs of each set only.
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// A score within this distance of 0.5 is a tie (two-label, pointwise).
    #[arg(long, default_value_t = 0.0)]
    pub tie_margin: f64,
    /// Also fit a stacker (logistic regression over the protocols' scores, token F1 and length
    /// differences) on each set's labels, measured by grouped cross-validation by question.
    #[arg(long)]
    pub stack: bool,
    /// Folds of the stacker's cross-validation.
    #[arg(long, default_value_t = 6)]
    pub folds: usize,
    /// Pairs per batch of judge calls (progress is reported, and calls cached, per batch).
    #[arg(long, default_value_t = 8)]
    pub batch: usize,
    /// Directory for `judge-eval.csv`, `judge-eval.md`, `judge-eval.json` and `verdicts.jsonl`.
    #[arg(long, short, value_name = "DIR")]
    pub output: PathBuf,
    /// Print the rows as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub judge: JudgeArgs,
}

impl JudgeEvalArgs {
    /// The files to read.
    pub fn inputs(&self) -> JudgeEvalInputs {
        JudgeEvalInputs {
            sets: self.sets.clone(),
            runs: self.runs.clone(),
            pairs: self.pairs.clone(),
            runs_name: self.runs_name.clone(),
            consistency: self.consistency.clone(),
        }
    }

    /// The library's settings.
    pub fn settings(&self) -> Result<JudgeEvalSettings> {
        Ok(JudgeEvalSettings {
            protocols: parse_protocols(&self.protocol).context("--protocol")?,
            tie_margin: self.tie_margin,
            premise_sentences: self.premise_sentences,
            limit: self.limit,
            stack: self.stack,
            folds: self.folds,
            batch: self.batch,
        })
    }
}
