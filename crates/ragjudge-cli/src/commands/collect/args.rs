//! `ragjudge collect`'s options.

use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// A baseline tier of DICE's baseline mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TierArg {
    /// The reference answers, citing the passages they were written from.
    High,
    /// The built-in RAG over the corpus with `--model`.
    Medium,
    /// `--model` without retrieval.
    Low,
}

/// `ragjudge collect`.
#[derive(Debug, Args)]
pub struct CollectArgs {
    /// Questions (JSONL: `id`, `query`, optional `reference`, `history`, `meta`, `relevant`),
    /// e.g. the output of `ragjudge testgen`.
    #[arg(long, value_name = "FILE")]
    pub questions: PathBuf,
    /// The system under test: `http:URL` (or a bare `http://` / `https://` URL), `cmd:PROGRAM
    /// ARGS` (JSON on stdin, JSON on stdout), `local:MODEL` or `openai:MODEL` (the built-in RAG
    /// over `--corpus` with that model), `closed-book:local:MODEL`, `retrieve` (the built-in
    /// RAG's retrieval alone: passages and no answer, for `score --metrics retrieval`), or
    /// `reference`.
    #[arg(long, required_unless_present = "tier", conflicts_with = "tier")]
    pub target: Option<String>,
    /// A baseline tier instead of a target: `high` = `reference`, `medium` = `--model` with
    /// retrieval, `low` = `--model` without.
    #[arg(long, value_enum)]
    pub tier: Option<TierArg>,
    /// Model of the `medium` and `low` tiers.
    #[arg(long, default_value = "local:qwen2.5-1.5b")]
    pub model: String,
    /// Runs (JSONL records ready for `score`, `compare`, `baseline`).
    #[arg(long, short = 'o')]
    pub output: PathBuf,
    /// Questions that got no answer, with the reason (default: `OUTPUT_STEM.failed.ndjson`).
    #[arg(long, value_name = "FILE")]
    pub failures: Option<PathBuf>,
    /// `system` of the records (default: the tier, else the output file's stem). Part of the
    /// cache identity: name a new version of the system differently to ask it again.
    #[arg(long)]
    pub system: Option<String>,
    /// Collection of the built-in RAG and the reference tier (as given to `testgen`).
    #[arg(long, num_args = 1..)]
    pub corpus: Vec<PathBuf>,
    /// Chunk budget in word tokens (keep testgen's, so chunk ids match `meta.source_ids`).
    #[arg(long, default_value_t = 160)]
    pub chunk_tokens: usize,
    /// Sentences repeated between consecutive chunks (as testgen's `--overlap`).
    #[arg(long, default_value_t = 1)]
    pub overlap: usize,
    /// Passages the built-in RAG gives its model.
    #[arg(long, default_value_t = 5)]
    pub k: usize,
    /// Re-rank the BM25 candidates by cosine with this embedding model (e.g. `minilm`).
    #[arg(long, value_name = "EMBEDDER")]
    pub rerank: Option<String>,
    /// BM25 candidates re-ranked with `--rerank`.
    #[arg(long, default_value_t = 20)]
    pub candidates: usize,
    /// Most tokens in a built-in RAG answer.
    #[arg(long, default_value_t = 256)]
    pub max_tokens: u32,
    /// Request body template (JSON, or `@FILE`) with `{{query}}`, `{{id}}`, `{{history}}`,
    /// `{{meta}}`, `{{meta.KEY}}` (default: `{"id", "query", "history"}`).
    #[arg(long, value_name = "JSON|@FILE")]
    pub request: Option<String>,
    /// Request header `Name: value` for `http:` targets; `${VAR}` takes an environment variable.
    #[arg(long = "header", value_name = "NAME: VALUE")]
    pub headers: Vec<String>,
    /// JSON path (RFC 9535) of the answer in the reply.
    #[arg(long, default_value = "$.answer")]
    pub answer_path: String,
    /// JSON path of the passages in the reply (strings, or objects with `text`/`content`/`page_content` and `id`).
    #[arg(long, default_value = "$.contexts")]
    pub contexts_path: String,
    /// Questions in flight at once (a local model answers one at a time).
    #[arg(long, default_value_t = 4)]
    pub concurrency: usize,
    /// Per-call timeout in seconds (HTTP and command targets, HTTP models).
    #[arg(long, default_value_t = 120.0)]
    pub timeout: f64,
    /// Further attempts after a timeout, a connection failure, a 429 or 5xx, or a non-zero exit.
    #[arg(long, default_value_t = 2)]
    pub retries: u32,
    /// Wait before the first retry, in milliseconds; doubled for each further one.
    #[arg(long, default_value_t = 500)]
    pub backoff_ms: u64,
    /// Call cache file (default: $RAGJUDGE_HOME/cache.sqlite).
    #[arg(long, value_name = "PATH")]
    pub cache: Option<PathBuf>,
    /// Do not read or write the call cache (a killed run then starts over).
    #[arg(long)]
    pub no_cache: bool,
    /// Ask every question again, replacing cached answers.
    #[arg(long)]
    pub refresh: bool,
    /// Inference threads of a local model (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Record a malformed JSONL line of the corpus as skipped instead of failing.
    #[arg(long)]
    pub skip_invalid: bool,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
}
