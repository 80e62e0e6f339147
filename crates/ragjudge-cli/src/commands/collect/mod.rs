//! `ragjudge collect`: runs the system under test on every question (HTTP endpoint, program,
//! built-in reference RAG, or a baseline tier) through `ragjudge_collect`, and writes the runs
//! to score. Failed questions go to `OUTPUT_STEM.failed.ndjson` with their reasons and make the
//! command exit non-zero; answers are cached as they arrive, so a second run asks only the
//! questions still missing.

use crate::args::Precision;
use crate::backends;
use crate::commands::testgen::write_jsonl;
use crate::progress::Progress;
use anyhow::{bail, Context as _, Result};
use clap::{Args, ValueEnum};
use ragjudge_collect::command::CommandTarget;
use ragjudge_collect::http::HttpTarget;
use ragjudge_collect::questions::read_questions;
use ragjudge_collect::rag::{Passages, RagOptions, ReferenceRag, Retrieval};
use ragjudge_collect::reference::ReferenceAnswers;
use ragjudge_collect::run::{collect, CollectSettings};
use ragjudge_collect::template::{default_template, Exchange};
use ragjudge_collect::Target;
use ragjudge_eval::models::{backends as engine, CacheChoice, JudgeSettings};
use ragjudge_testgen::{ChunkOptions, ReadOptions};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// A baseline tier of DICE's baseline mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Tier {
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
    /// over `--corpus` with that model), `closed-book:local:MODEL`, or `reference`.
    #[arg(long, required_unless_present = "tier", conflicts_with = "tier")]
    pub target: Option<String>,
    /// A baseline tier instead of a target: `high` = `reference`, `medium` = `--model` with
    /// retrieval, `low` = `--model` without.
    #[arg(long, value_enum)]
    pub tier: Option<Tier>,
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

impl CollectArgs {
    fn cache_choice(&self) -> CacheChoice {
        match (&self.cache, self.no_cache) {
            (_, true) => CacheChoice::Disabled,
            (Some(p), false) => CacheChoice::Path(p.clone()),
            (None, false) => CacheChoice::Default,
        }
    }

    fn timeout(&self) -> Result<Duration> {
        if !(self.timeout.is_finite() && self.timeout > 0.0) {
            bail!("--timeout must be a positive number of seconds, got {}", self.timeout);
        }
        Ok(Duration::from_secs_f64(self.timeout))
    }

    /// The target spec, with tiers spelled out.
    fn spec(&self) -> String {
        match (self.tier, &self.target) {
            (Some(Tier::High), _) => "reference".into(),
            (Some(Tier::Medium), _) => self.model.clone(),
            (Some(Tier::Low), _) => format!("closed-book:{}", self.model),
            (None, Some(t)) => t.clone(),
            (None, None) => String::new(),
        }
    }

    fn passages(&self) -> Result<Arc<Passages>> {
        if self.corpus.is_empty() {
            let what = match self.tier {
                Some(Tier::High) => "--tier high".to_string(),
                Some(Tier::Medium) => "--tier medium".to_string(),
                Some(Tier::Low) | None => format!("--target {}", self.spec()),
            };
            bail!("{what} needs --corpus (the collection the questions were made from)");
        }
        let chunk = ChunkOptions { max_tokens: self.chunk_tokens, overlap_sentences: self.overlap };
        let (passages, corpus) =
            Passages::from_corpus(&self.corpus, ReadOptions { skip_invalid: self.skip_invalid }, chunk)?;
        for s in &corpus.skipped {
            eprintln!("skipped {}: {}", s.source, s.reason);
        }
        eprintln!("corpus: {} documents, {} chunks indexed (BM25)", corpus.documents.len(), passages.len());
        Ok(Arc::new(passages))
    }

    fn model(&self, spec: &str) -> Result<Box<dyn ragjudge_models::Judge>> {
        let settings = JudgeSettings {
            spec: spec.to_string(),
            cache: self.cache_choice(),
            threads: self.threads,
            concurrency: self.concurrency,
            timeout: self.timeout()?,
            hard_labels: false,
        };
        Ok(engine::judge(&settings)?)
    }

    fn exchange(&self) -> Result<Exchange> {
        let template = match &self.request {
            None => default_template(),
            Some(t) => {
                let (text, from) = match t.strip_prefix('@') {
                    Some(path) => {
                        (std::fs::read_to_string(path).with_context(|| format!("--request: cannot read {path}"))?, path)
                    }
                    None => (t.clone(), "--request"),
                };
                serde_json::from_str::<Value>(&text)
                    .with_context(|| format!("{from}: the request template is not JSON"))?
            }
        };
        Ok(Exchange::new(template, &self.answer_path, &self.contexts_path)?)
    }

    fn headers(&self) -> Result<Vec<(String, String)>> {
        self.headers
            .iter()
            .map(|h| {
                let (name, value) =
                    h.split_once(':').with_context(|| format!("--header {h:?}: expected `Name: value`"))?;
                Ok((name.trim().to_string(), expand_env(value.trim())?))
            })
            .collect()
    }

    /// The target named by `--target` or `--tier`.
    fn build_target(&self) -> Result<Box<dyn Target>> {
        let spec = self.spec();
        let options = RagOptions { k: self.k, candidates: self.candidates, max_tokens: self.max_tokens };
        if spec == "reference" {
            return Ok(Box::new(ReferenceAnswers::new(self.passages()?)));
        }
        if let Some(line) = spec.strip_prefix("cmd:") {
            return Ok(Box::new(CommandTarget::new(line, self.exchange()?, self.timeout()?)?));
        }
        if spec.starts_with("http://") || spec.starts_with("https://") || spec.starts_with("http:") {
            let url = spec.strip_prefix("http:").filter(|u| u.starts_with("http")).unwrap_or(&spec);
            return Ok(Box::new(HttpTarget::new(url, self.headers()?, self.exchange()?, self.timeout()?)));
        }
        if let Some(model) = spec.strip_prefix("closed-book:") {
            return Ok(Box::new(ReferenceRag::new(Retrieval::ClosedBook, self.model(model)?, options)?));
        }
        if spec.starts_with("local:") || spec.starts_with("openai:") {
            let passages = self.passages()?;
            let embedder = match &self.rerank {
                Some(name) => Some(backends::embedder(name, 32, self.threads, Precision::F32)?),
                None => None,
            };
            let retrieval = Retrieval::Corpus { passages, embedder };
            return Ok(Box::new(ReferenceRag::new(retrieval, self.model(&spec)?, options)?));
        }
        bail!(
            "--target {spec:?}: expected http:URL, cmd:PROGRAM, local:MODEL, openai:MODEL, closed-book:MODEL or reference"
        )
    }
}

/// `${VAR}` replaced by the environment variable's value.
fn expand_env(value: &str) -> Result<String> {
    let mut out = String::new();
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        let Some(len) = rest[start + 2..].find('}') else { break };
        let name = &rest[start + 2..start + 2 + len];
        out.push_str(&rest[..start]);
        out.push_str(
            &std::env::var(name).with_context(|| format!("--header: environment variable {name} is not set"))?,
        );
        rest = &rest[start + 3 + len..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The `q`-quantile (nearest rank) of sorted values.
fn quantile(sorted: &[f64], q: f64) -> Option<f64> {
    let n = sorted.len();
    (n > 0).then(|| sorted[((q * n as f64).ceil() as usize).clamp(1, n) - 1])
}

fn stem_path(output: &Path, suffix: &str) -> PathBuf {
    let stem = output.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "runs".into());
    output.with_file_name(format!("{stem}{suffix}"))
}

/// Runs `ragjudge collect`.
pub fn run(args: &CollectArgs) -> Result<()> {
    ragjudge_artifacts::check_not_input(&args.output, &[&args.questions])?;
    let questions = read_questions(&args.questions)?;
    let target = args.build_target()?;
    let cache = engine::call_cache(&args.cache_choice())?;
    let system = args.system.clone().unwrap_or_else(|| match args.tier {
        Some(Tier::High) => "high".into(),
        Some(Tier::Medium) => "medium".into(),
        Some(Tier::Low) => "low".into(),
        None => args.output.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "target".into()),
    });
    // A local model uses every core for one answer: more questions in flight would only queue
    // behind it and inflate the latencies.
    let spec = args.spec();
    let local = spec.trim_start_matches("closed-book:").starts_with("local:");
    let settings = CollectSettings {
        system: system.clone(),
        concurrency: if local { 1 } else { args.concurrency.max(1) },
        retries: args.retries,
        backoff: Duration::from_millis(args.backoff_ms),
        refresh: args.refresh,
    };
    let started = std::time::Instant::now();
    let progress = Progress::new("questions");
    let out = collect(&questions, target.as_ref(), &cache, &settings, &|done, failed| {
        progress.inc(1);
        if failed > 0 {
            progress.message(format!("{failed} failed (of {done})"));
        }
    });
    progress.finish();
    write_jsonl(&args.output, &out.records)?;
    let failures = args.failures.clone().unwrap_or_else(|| stem_path(&args.output, ".failed.ndjson"));
    if out.failures.is_empty() {
        if failures.exists() {
            std::fs::remove_file(&failures).with_context(|| format!("{}: cannot remove", failures.display()))?;
        }
    } else {
        write_jsonl(&failures, &out.failures)?;
    }
    let mut lat = out.latencies_ms.clone();
    lat.sort_by(f64::total_cmp);
    let summary = json!({
        "questions": questions.len(),
        "answered": out.records.len(),
        "failed": out.failures.len(),
        "from_cache": out.from_cache,
        "asked": out.asked,
        "calls": out.attempts,
        "without_contexts": out.without_contexts,
        "cache_store_errors": out.store_errors,
        "latency_ms": {"p50": quantile(&lat, 0.5), "p95": quantile(&lat, 0.95), "max": lat.last()},
        "system": system,
        "target": target.identity().split('|').next().unwrap_or_default(),
        "output": args.output,
        "failures": (!out.failures.is_empty()).then_some(&failures),
        "seconds": started.elapsed().as_secs_f64(),
    });
    if args.json {
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        println!(
            "{} of {} questions answered ({} from the cache, {} asked in {} calls); {} failed; {} answers without passages; latency p50 {} ms, p95 {} ms; {}",
            out.records.len(),
            questions.len(),
            out.from_cache,
            out.asked,
            out.attempts,
            out.failures.len(),
            out.without_contexts,
            quantile(&lat, 0.5).map_or("-".into(), |x| format!("{x:.0}")),
            quantile(&lat, 0.95).map_or("-".into(), |x| format!("{x:.0}")),
            args.output.display()
        );
    }
    if out.store_errors > 0 {
        eprintln!(
            "warning: {} answers could not be stored in the call cache (they are in the output)",
            out.store_errors
        );
    }
    if !out.failures.is_empty() {
        let first = &out.failures[0];
        let again = if cache.is_enabled() {
            "answers so far are cached: run again to ask only the failed ones"
        } else {
            "nothing was cached (--no-cache): a new run asks every question again"
        };
        bail!(
            "{} of {} questions failed (reasons in {}; first: {}: {}); {again}",
            out.failures.len(),
            questions.len(),
            failures.display(),
            first.id,
            first.error
        );
    }
    Ok(())
}
