//! Command-line arguments (clap definitions only; no logic).

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// Evaluate retrieval-augmented generation (RAG) systems.
#[derive(Debug, Parser)]
#[command(name = "ragjudge", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Score records with per-record metrics and summarise them per system.
    Score(ScoreArgs),
    /// Correlate two numeric columns of a CSV or JSONL file (Pearson, Spearman, Kendall tau-b).
    Correlate(CorrelateArgs),
}

/// Options shared by commands that read records.
#[derive(Debug, Args)]
pub struct InputArgs {
    /// Input layout: auto, jsonl, csv, ragas, openrag.
    #[arg(long, default_value = "auto")]
    pub format: String,
    /// Report and skip malformed records instead of stopping at the first one.
    #[arg(long)]
    pub skip_invalid: bool,
    /// Longest accepted input line, in MiB.
    #[arg(long, default_value_t = 16, value_name = "MIB")]
    pub max_line_mib: usize,
}

/// `ragjudge score`.
#[derive(Debug, Args)]
pub struct ScoreArgs {
    /// Record file(s): JSONL, CSV, RAGAS or Open RAG Eval CSV.
    #[arg(long = "input", short = 'i', required = true, num_args = 1.., value_name = "FILE")]
    pub inputs: Vec<PathBuf>,
    /// Metric families, comma separated: lexical, ciu, retrieval.
    #[arg(long, value_delimiter = ',', default_value = "lexical,ciu,retrieval")]
    pub metrics: Vec<String>,
    /// Per-record output: OUT.csv or OUT.jsonl (JSONL keeps each metric's evidence).
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub input: InputArgs,
    /// Cut-offs K for the retrieval metrics.
    #[arg(long = "k", value_delimiter = ',', default_value = "1,3,5")]
    pub ks: Vec<usize>,
    /// Relevance grade from which a passage counts as relevant (UMBRELA scale 0-3).
    #[arg(long, default_value_t = 2.0)]
    pub relevance_threshold: f64,
    /// Leave P@K, AP@K, recall@K and nDCG@K empty when fewer than K passages were retrieved
    /// (Open RAG Eval's behaviour) instead of counting the missing ranks as non-relevant.
    #[arg(long)]
    pub skip_short_lists: bool,
    /// Stem tokens with the Porter stemmer before ROUGE (as rouge-score's use_stemmer=True).
    #[arg(long)]
    pub rouge_stemmer: bool,
    /// CIU reading cost per character, C_char (seed 004, eq. 3).
    #[arg(long, default_value_t = 0.005)]
    pub ciu_c_char: f64,
    /// CIU ablation: no position discount (gamma = 1).
    #[arg(long)]
    pub ciu_no_position: bool,
    /// CIU ablation: no frequency discount (freq = 1).
    #[arg(long)]
    pub ciu_no_frequency: bool,
    /// CIU ablation: no effort term (E = 0).
    #[arg(long)]
    pub ciu_no_effort: bool,
    /// Bootstrap replicates for the summary's confidence intervals.
    #[arg(long, default_value_t = 1000)]
    pub bootstrap: usize,
    /// Seed of every random choice (bootstrap).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Print the summary as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

/// `ragjudge correlate`.
#[derive(Debug, Args)]
pub struct CorrelateArgs {
    /// CSV or JSONL file holding both columns.
    pub file: PathBuf,
    /// First column (a CSV header, or a dotted JSON path such as `detail.ciu.value`).
    #[arg(long)]
    pub x: String,
    /// Second column (read from `--with` when given).
    #[arg(long)]
    pub y: String,
    /// A second CSV or JSONL file holding `--y` (e.g. human ratings), joined on `--on`.
    #[arg(long, value_name = "FILE")]
    pub with: Option<PathBuf>,
    /// Join keys for `--with`, comma separated.
    #[arg(long, value_delimiter = ',', default_value = "id,system")]
    pub on: Vec<String>,
    /// Confidence level of the intervals.
    #[arg(long, default_value_t = 0.95)]
    pub level: f64,
    /// Print the result as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}
