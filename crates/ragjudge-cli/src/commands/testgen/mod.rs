//! `ragjudge testgen`: questions from a document collection, stratified by topic (HCAT section
//! 2), through `ragjudge_testgen`. Writes the questions, the rejected tasks with their reasons,
//! the chunks, the topics and the topic map.

use crate::args::{JudgeArgs, Precision};
use crate::backends;
use anyhow::{bail, Context as _, Result};
use clap::{Args, ValueEnum};
use ragjudge_charts::write_chart;
use ragjudge_testgen::cluster::KMeansOptions;
use ragjudge_testgen::generate::GenOptions;
use ragjudge_testgen::select::SelectOptions;
use ragjudge_testgen::{
    estimate, plan, read_corpus, run, topic_map, Allocation, ChunkOptions, ClusterMethod, QueryType, ReadOptions,
    SampleOptions, StrataOptions, TestgenSettings,
};
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

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
    /// Directory for `topics.json`, `chunks.jsonl`, `rejected.jsonl`, `topic-map.svg|png`
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
    #[arg(long, default_value_t = 4)]
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
    /// Further attempts after a reply that fails its check.
    #[arg(long, default_value_t = 2)]
    pub retries: u32,
    /// Seed of sampling, clustering and generation.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Embedding model.
    #[arg(long, default_value = "minilm")]
    pub embedder: String,
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

fn settings(args: &TestgenArgs) -> Result<TestgenSettings> {
    let types = args
        .types
        .iter()
        .map(|t| QueryType::parse(t).with_context(|| format!("--types: unknown query type `{t}`")))
        .collect::<Result<Vec<_>>>()?;
    let allocation = match (&args.weights, args.allocation) {
        (Some(path), _) => {
            let text = std::fs::read_to_string(path).with_context(|| format!("{}: cannot read", path.display()))?;
            let w: BTreeMap<String, f64> = serde_json::from_str(&text)
                .with_context(|| format!("{}: expected a JSON object of topic -> weight", path.display()))?;
            Allocation::Weights(w)
        }
        (None, Allocate::Proportional) => Allocation::Proportional,
        (None, Allocate::Equal) => Allocation::Equal,
    };
    let method = match args.cluster {
        Clusterer::Kmeans => ClusterMethod::KMeans(KMeansOptions {
            k: args.topics,
            k_max: args.max_topics,
            seed: args.seed,
            ..KMeansOptions::default()
        }),
        Clusterer::Dbscan => ClusterMethod::Dbscan { eps: args.eps, min_points: args.min_points },
    };
    Ok(TestgenSettings {
        chunk: ChunkOptions { max_tokens: args.chunk_tokens, overlap_sentences: args.overlap },
        strata: StrataOptions { dims: args.dims, method, top_terms: 8 },
        sample: SampleOptions { total: args.sample, allocation, min_per_stratum: args.min_per_topic, seed: args.seed },
        types,
        per_chunk: args.per_chunk,
        generation: GenOptions { retries: args.retries, seed: args.seed, ..GenOptions::default() },
        selection: SelectOptions { per_topic: args.per_topic, ..SelectOptions::default() },
        batch: 32,
    })
}

/// Writes one JSON object per line.
pub(crate) fn write_jsonl<T: Serialize>(path: &Path, rows: impl IntoIterator<Item = T>) -> Result<()> {
    let mut w = ragjudge_artifacts::AtomicFile::create(path)?;
    for r in rows {
        serde_json::to_writer(&mut w, &r).with_context(|| format!("{}: write failed", path.display()))?;
        w.write_all(b"\n").with_context(|| format!("{}: write failed", path.display()))?;
    }
    w.commit()?;
    Ok(())
}

/// Runs `ragjudge testgen`.
pub fn run_testgen(args: &TestgenArgs) -> Result<()> {
    let settings = settings(args)?;
    let corpus = read_corpus(&args.corpus, ReadOptions { skip_invalid: args.skip_invalid })?;
    for s in &corpus.skipped {
        eprintln!("skipped {}: {}", s.source, s.reason);
    }
    let embedder = backends::embedder(&args.embedder, 32, args.judge.threads, args.precision)?;
    let started = std::time::Instant::now();
    let plan = plan(&corpus, embedder.as_ref(), &settings)?;
    let calls = estimate(&plan, &settings);
    let topics = plan.topic_rows();
    let artifacts = args.artifacts.clone().unwrap_or_else(|| {
        let stem =
            args.output.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "questions".into());
        args.output.with_file_name(format!("{stem}.testgen"))
    });
    std::fs::create_dir_all(&artifacts).with_context(|| format!("{}: cannot create", artifacts.display()))?;
    let topics_doc = plan.topics_document(&corpus, &calls);
    ragjudge_artifacts::write_atomic(
        &artifacts.join("topics.json"),
        serde_json::to_string_pretty(&topics_doc)?.as_bytes(),
    )?;
    write_jsonl(&artifacts.join("chunks.jsonl"), plan.chunk_rows())?;
    let map = topic_map(&plan.strata, &plan.sample.indices);
    let size = map.suggested_size();
    write_chart(&map, &artifacts.join("topic-map.svg"), size)?;
    write_chart(&map, &artifacts.join("topic-map.png"), size)?;
    eprintln!(
        "{} documents, {} chunks, {} topics (silhouette {}), {} sampled; {} generation tasks, ~{} prompt tokens; artifacts in {}",
        corpus.documents.len(),
        plan.chunking.chunks.len(),
        plan.strata.topics.len(),
        plan.strata.clustering.silhouette.map_or("-".into(), |s| format!("{s:.3}")),
        plan.sample.indices.len(),
        calls.tasks,
        calls.generation_prompt_tokens,
        artifacts.display()
    );
    if args.dry_run {
        let summary = json!({"dry_run": true, "calls": calls, "topics": topics});
        println!("{}", serde_json::to_string_pretty(&summary)?);
        return Ok(());
    }
    let judge = backends::judge(&args.judge)?;
    let out = run(plan, judge.as_ref(), embedder.as_ref(), &settings)?;
    write_jsonl(&args.output, out.questions.iter().map(|q| &q.record))?;
    write_jsonl(&artifacts.join("rejected.jsonl"), &out.rejected)?;
    let mut summary = out.summary();
    summary["seconds"] = json!(started.elapsed().as_secs_f64());
    if args.json {
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        println!(
            "{} questions from {} tasks ({} generation attempts); {} rejected {}",
            out.questions.len(),
            out.plan.tasks.len(),
            out.attempts,
            out.rejected.len(),
            summary["rejected_by_reason"]
        );
        println!("per type: {}", summary["per_type"]);
        println!("per topic: {}", summary["per_topic"]);
        if let Some(missing) = summary["topics_without_questions"].as_array().filter(|m| !m.is_empty()) {
            let names: Vec<&str> = missing.iter().filter_map(Value::as_str).collect();
            println!("topics without a kept question: {}", names.join(", "));
        }
    }
    if out.questions.is_empty() {
        bail!(
            "no question passed selection ({} rejected; reasons in {})",
            out.rejected.len(),
            artifacts.join("rejected.jsonl").display()
        );
    }
    Ok(())
}
