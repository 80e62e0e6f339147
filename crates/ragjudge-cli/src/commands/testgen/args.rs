//! The options of `ragjudge testgen`.

use crate::args::{JudgeArgs, Precision};
use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// Clustering of the strata.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Clusterer {
    /// k-means, k by silhouette unless `--topics`.
    Kmeans,
    /// DBSCAN; its noise points form a stratum of their own.
    Dbscan,
}

/// How sampled chunks are split over topics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Allocate {
    /// In proportion to topic size.
    Proportional,
    /// The same number per topic.
    Equal,
}

/// `ragjudge testgen`.
#[derive(Debug, Args)]
pub struct TestgenArgs {
    /// Collection: JSONL (`id`, `text`, `title`, `meta`; or `doc_id` + `passages`), .txt, .md,
    /// .html files or directories of them.
    #[arg(long, required = true, num_args = 1..)]
    pub corpus: Vec<PathBuf>,
    /// Questions (JSONL records: `id`, `query`, `reference`, `meta`).
    #[arg(long, short = 'o')]
    pub output: PathBuf,
    /// Directory for `topics.json`, `chunks.jsonl`, `rejected.jsonl`, `summary.json`, `topic-map.svg|png`
    /// (default: next to the output, `OUTPUT_STEM.testgen/`).
    #[arg(long, value_name = "DIR")]
    pub artifacts: Option<PathBuf>,
    /// Chunks to sample in all.
    #[arg(long, default_value_t = 24)]
    pub sample: usize,
    /// Questions per sampled chunk (types in rotation within each topic).
    #[arg(long, default_value_t = 1)]
    pub per_chunk: usize,
    /// Query types, comma separated.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "factual,multi_hop,inference,yes_no,multiple_choice,unanswerable"
    )]
    pub types: Vec<String>,
    /// Split of the sample over topics.
    #[arg(long, value_enum, default_value_t = Allocate::Proportional)]
    pub allocation: Allocate,
    /// Weights per topic instead (JSON object `{"t0": 2, "t1": 1}`).
    #[arg(long, value_name = "FILE")]
    pub weights: Option<PathBuf>,
    /// Fewest chunks sampled from every topic.
    #[arg(long, default_value_t = 1)]
    pub min_per_topic: usize,
    /// Most questions kept per topic (0: no limit).
    #[arg(long, default_value_t = 0)]
    pub per_topic: usize,
    /// Clustering.
    #[arg(long, value_enum, default_value_t = Clusterer::Kmeans)]
    pub cluster: Clusterer,
    /// Number of topics for k-means (default: chosen by silhouette).
    #[arg(long)]
    pub topics: Option<usize>,
    /// Largest k tried by silhouette.
    #[arg(long, default_value_t = 12)]
    pub max_topics: usize,
    /// DBSCAN radius (default: the median k-distance).
    #[arg(long)]
    pub eps: Option<f64>,
    /// DBSCAN neighbours of a core point (itself included).
    #[arg(long, default_value_t = ragjudge_testgen::strata::DEFAULT_MIN_POINTS)]
    pub min_points: usize,
    /// PCA dimensions of the clustering.
    #[arg(long, default_value_t = 10)]
    pub dims: usize,
    /// Chunk budget in word tokens.
    #[arg(long, default_value_t = 160)]
    pub chunk_tokens: usize,
    /// Sentences repeated between consecutive chunks.
    #[arg(long, default_value_t = 1)]
    pub overlap: usize,
    /// A question must find its source chunk among this many best chunks for it (BM25 or
    /// embedding), else it is regenerated: a question too vague to find its source cannot be
    /// asked without the passage.
    #[arg(long, default_value_t = 5)]
    pub round_trip_k: usize,
    /// Look for another answer to each answerable question in this many chunks of other
    /// documents per retriever (BM25, embedding); one the judge answers otherwise from such a
    /// chunk is regenerated (check `unique_answer`). Off by default: it needs a judge stronger
    /// than the default 1.5B model, whose rejections were mostly wrong (docs/testgen.md).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub other_answers: usize,
    /// Further attempts after a reply that fails its check.
    #[arg(long, default_value_t = 2)]
    pub retries: u32,
    /// Share of the kept answerable questions (0 to 1) given a follow-up: the question a user
    /// would ask next, written right after it as turn 2 of a conversation (`meta.session_id`).
    #[arg(long, value_name = "F", default_value_t = 0.0)]
    pub follow_ups: f64,
    /// Seed of sampling, clustering and generation.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Embedding model [default: minilm when every document is English, else
    /// multilingual-e5-small].
    #[arg(long)]
    pub embedder: Option<String>,
    /// Number format of the encoder.
    #[arg(long, value_enum, default_value_t = Precision::F32)]
    pub precision: Precision,
    /// Record a malformed JSONL line of the collection as skipped instead of failing.
    #[arg(long)]
    pub skip_invalid: bool,
    /// Print the plan (chunks, topics, calls and estimated tokens) and call no model.
    #[arg(long)]
    pub dry_run: bool,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub judge: JudgeArgs,
}
