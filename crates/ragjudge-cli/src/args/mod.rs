//! Option groups several commands share: records input and shards (`input`), judge, encoder
//! precision. Each command's own options live in its module under `commands/`; the command line
//! itself in `cli`.

mod input;

pub use input::{InputArgs, ShardArgs};

use clap::{Args, ValueEnum};
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
