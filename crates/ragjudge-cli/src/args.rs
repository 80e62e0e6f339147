//! Option groups several commands share: records input, judge, encoder precision. Each
//! command's own options live in its module under `commands/`; the command line itself in `cli`.

use clap::{Args, ValueEnum};
use ragjudge_core::{Format, ReadOptions, Record, Shard};
use ragjudge_eval::models::{CacheChoice, JudgeSettings};
use std::path::PathBuf;

/// Number format of an encoder's dense matrix products.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Precision {
    /// `f32` throughout (matches sentence-transformers to ~1e-7).
    F32,
    /// bfloat16 products with `f32` accumulation: ~1.8x faster where the CPU has AVX-512 BF16;
    /// MiniLM embeddings keep cosine >= 0.9999 with the `f32` ones.
    Bf16,
}

impl From<Precision> for ragjudge_eval::models::Precision {
    fn from(p: Precision) -> Self {
        match p {
            Precision::F32 => ragjudge_eval::models::Precision::F32,
            Precision::Bf16 => ragjudge_eval::models::Precision::Bf16,
        }
    }
}

/// How to reach a judge model: what every command that may call a judge shares.
#[derive(Debug, Clone, Args)]
pub struct JudgeSpecArgs {
    /// `local:MODEL` (manifest name or GGUF path) or `openai:MODEL` (OPENAI_BASE_URL, OPENAI_API_KEY).
    /// The default, Qwen2.5-Coder-1.5B (1.1 GB, pulled on first use), is the smallest local model
    /// found to judge better than chance; `local:smollm2-135m` is fast but only fit for tests.
    #[arg(long, default_value = "local:qwen2.5-1.5b")]
    pub judge: String,
    /// Call cache file (default: $RAGJUDGE_HOME/cache.sqlite).
    #[arg(long, value_name = "PATH")]
    pub cache: Option<PathBuf>,
    /// Do not read or write the call cache.
    #[arg(long)]
    pub no_cache: bool,
    /// Concurrent requests to an HTTP judge.
    #[arg(long, default_value_t = 8)]
    pub concurrency: usize,
    /// Per-request timeout of an HTTP judge, in seconds.
    #[arg(long, default_value_t = 120)]
    pub timeout: u64,
}

impl JudgeSpecArgs {
    /// The engine's judge settings, with a local judge's inference threads.
    pub fn settings(&self, threads: Option<usize>, hard_labels: bool) -> JudgeSettings {
        JudgeSettings {
            spec: self.judge.clone(),
            cache: CacheChoice::from_flags(self.cache.as_deref(), self.no_cache),
            threads,
            concurrency: self.concurrency,
            timeout: std::time::Duration::from_secs(self.timeout),
            hard_labels,
        }
    }
}

/// How to reach a judge model and run it (every judging command).
#[derive(Debug, Clone, Args)]
pub struct JudgeArgs {
    #[command(flatten)]
    pub spec: JudgeSpecArgs,
    /// Inference threads of a local judge (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// When an HTTP judge returns no log-probabilities, take its generated label as a hard
    /// verdict (probability 1; traces record the source `hard_label`) instead of failing.
    #[arg(long)]
    pub hard_labels: bool,
}

impl JudgeArgs {
    /// The engine's judge settings.
    pub fn settings(&self) -> JudgeSettings {
        self.spec.settings(self.threads, self.hard_labels)
    }
}

/// An input layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InputFormat {
    /// Decide from the file extension, then the CSV header or the first byte.
    Auto,
    /// One JSON object per line (our layout or RAGAS keys).
    #[value(alias = "json", alias = "ndjson")]
    Jsonl,
    /// CSV with our column names.
    Csv,
    /// RAGAS CSV: `user_input, retrieved_contexts, response, reference`.
    Ragas,
    /// Open RAG Eval CSV: one row per passage.
    #[value(name = "openrag", alias = "open-rag-eval", alias = "openrageval")]
    OpenRag,
    /// Parquet with the JSONL field names.
    Parquet,
}

impl From<InputFormat> for Format {
    fn from(f: InputFormat) -> Self {
        match f {
            InputFormat::Auto => Format::Auto,
            InputFormat::Jsonl => Format::Jsonl,
            InputFormat::Csv => Format::Csv,
            InputFormat::Ragas => Format::Ragas,
            InputFormat::OpenRag => Format::OpenRagEval,
            InputFormat::Parquet => Format::Parquet,
        }
    }
}

/// Options shared by commands that read records.
#[derive(Debug, Args)]
pub struct InputArgs {
    /// Input layout.
    #[arg(long, value_enum, default_value = "auto", ignore_case = true)]
    pub format: InputFormat,
    /// Report and skip malformed records instead of stopping at the first one.
    #[arg(long)]
    pub skip_invalid: bool,
    /// Longest accepted input line, in MiB (at least 1).
    #[arg(long, default_value_t = 16, value_name = "MIB", value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub max_line_mib: u64,
}

impl InputArgs {
    /// How the engine reads the inputs.
    pub fn read_options(&self) -> ReadOptions {
        ReadOptions {
            format: self.format.into(),
            max_line_bytes: usize::try_from(self.max_line_mib << 20).unwrap_or(usize::MAX),
            ..ReadOptions::default()
        }
    }
}

/// Fan-out: one part of the records (every command that reads records).
#[derive(Debug, Clone, Default, Args)]
pub struct ShardArgs {
    /// Only shard I of N (e.g. 2/4): the records whose `id` hashes to part I, so that every
    /// system's answer to a question, and every repeated run, land in the same shard;
    /// `ragjudge merge` joins the outputs of `score --shard`.
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    pub shard: Option<Shard>,
}

fn parse_shard(s: &str) -> Result<Shard, String> {
    Shard::parse(s).map_err(|e| e.reason)
}

impl ShardArgs {
    /// Whether `record` belongs to the selected shard (always, without `--shard`).
    pub fn keep(&self, record: &Record) -> bool {
        self.shard.is_none_or(|s| s.contains(&record.id))
    }

    /// The records of the selected shard.
    pub fn select(&self, records: Vec<Record>) -> Vec<Record> {
        match self.shard {
            None => records,
            Some(_) => records.into_iter().filter(|r| self.keep(r)).collect(),
        }
    }
}
