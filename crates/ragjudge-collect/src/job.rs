//! `collect` as one job: a target named by a spec (`http:URL`, `cmd:PROGRAM`, `local:MODEL`,
//! `closed-book:MODEL`, `reference`, or a DICE baseline tier) built from its options, every
//! question asked, and the runs and failures written atomically beside a typed summary.

use crate::command::CommandTarget;
use crate::error::CollectError;
use crate::http::HttpTarget;
use crate::questions::read_questions;
use crate::rag::{Passages, RagOptions, ReferenceRag, Retrieval, RetrievalOnly};
use crate::reference::ReferenceAnswers;
use crate::run::{collect, CollectSettings, Collected};
use crate::template::{default_template, Exchange};
use crate::Target;
use ragjudge_models::{Embedder, Judge};
use ragjudge_store::CallCache;
use ragjudge_testgen::{ChunkOptions, ReadOptions};
use serde::Serialize;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A baseline tier of DICE's baseline mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tier {
    /// The reference answers, citing the passages they were written from.
    High,
    /// The built-in RAG over the corpus with a model.
    Medium,
    /// The model without retrieval.
    Low,
}

impl Tier {
    /// `high`, `medium` or `low`: the tier's system name.
    pub fn name(self) -> &'static str {
        match self {
            Tier::High => "high",
            Tier::Medium => "medium",
            Tier::Low => "low",
        }
    }
}

/// The system under test, as named by `--target` (or a tier).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetSpec {
    /// The reference answers with their source passages.
    Reference,
    /// The built-in RAG's retrieval alone: passages, no answer.
    Retrieve,
    /// A program: JSON on stdin, JSON on stdout.
    Command(String),
    /// An HTTP endpoint.
    Http(String),
    /// A model without retrieval (`closed-book:MODEL`).
    ClosedBook(String),
    /// The built-in RAG over the corpus with a model (`local:MODEL`, `openai:MODEL`).
    Rag(String),
}

impl TargetSpec {
    /// Parses `http:URL` (or a bare `http://` / `https://` URL), `cmd:PROGRAM ARGS`,
    /// `local:MODEL`, `openai:MODEL`, `closed-book:MODEL`, `retrieve` or `reference`.
    pub fn parse(spec: &str) -> Result<Self, CollectError> {
        if spec == "reference" {
            return Ok(TargetSpec::Reference);
        }
        if spec == "retrieve" {
            return Ok(TargetSpec::Retrieve);
        }
        if let Some(line) = spec.strip_prefix("cmd:") {
            return Ok(TargetSpec::Command(line.to_string()));
        }
        if spec.starts_with("http://") || spec.starts_with("https://") || spec.starts_with("http:") {
            let url = spec.strip_prefix("http:").filter(|u| u.starts_with("http")).unwrap_or(spec);
            return Ok(TargetSpec::Http(url.to_string()));
        }
        if let Some(model) = spec.strip_prefix("closed-book:") {
            return Ok(TargetSpec::ClosedBook(model.to_string()));
        }
        if spec.starts_with("local:") || spec.starts_with("openai:") {
            return Ok(TargetSpec::Rag(spec.to_string()));
        }
        Err(CollectError::Settings(format!(
            "--target {spec:?}: expected http:URL, cmd:PROGRAM, local:MODEL, openai:MODEL, closed-book:MODEL, retrieve or reference"
        )))
    }

    /// The target of a baseline tier answering with `model`.
    pub fn of_tier(tier: Tier, model: &str) -> Self {
        match tier {
            Tier::High => TargetSpec::Reference,
            Tier::Medium => TargetSpec::Rag(model.to_string()),
            Tier::Low => TargetSpec::ClosedBook(model.to_string()),
        }
    }

    /// Whether a local model answers (one question at a time uses every core).
    pub fn is_local(&self) -> bool {
        matches!(self, TargetSpec::Rag(m) | TargetSpec::ClosedBook(m) if m.starts_with("local:"))
    }
}

/// Makes the models a target needs; the library does not choose backends itself.
pub trait ModelMaker {
    /// The answering model named `spec`.
    fn generator(&self, spec: &str) -> Result<Box<dyn Judge>, CollectError>;
    /// The embedder that re-ranks retrieved passages, if any.
    fn reranker(&self) -> Result<Option<Box<dyn Embedder>>, CollectError>;
}

/// How targets are reached and fed.
#[derive(Debug, Clone)]
pub struct TargetOptions {
    /// Request body template: JSON, or `@FILE` (`None`: `{"id", "query", "history"}`).
    pub request: Option<String>,
    /// Request headers `Name: value` of HTTP targets; `${VAR}` takes an environment variable.
    pub headers: Vec<String>,
    /// JSON path of the answer in the reply.
    pub answer_path: String,
    /// JSON path of the passages in the reply.
    pub contexts_path: String,
    /// Per-call timeout.
    pub timeout: Duration,
    /// The built-in RAG's settings.
    pub rag: RagOptions,
    /// The collection of the built-in RAG and the reference tier.
    pub corpus: Vec<PathBuf>,
    /// How the collection is chunked (as `testgen`, so chunk ids match `meta.source_ids`).
    pub chunk: ChunkOptions,
    /// How the collection is read.
    pub read: ReadOptions,
    /// What a missing `--corpus` is reported against (e.g. `--tier high`).
    pub needs_corpus: String,
}

/// A built target and, when it reads the collection, what was indexed.
pub struct BuiltTarget {
    /// The target.
    pub target: Box<dyn Target>,
    /// Documents, chunks and skipped sources of the collection, as lines to show.
    pub corpus_notes: Vec<String>,
}

impl TargetOptions {
    fn passages(&self, notes: &mut Vec<String>) -> Result<Arc<Passages>, CollectError> {
        if self.corpus.is_empty() {
            return Err(CollectError::Settings(format!(
                "{} needs --corpus (the collection the questions were made from)",
                self.needs_corpus
            )));
        }
        let (passages, corpus) = Passages::from_corpus(&self.corpus, self.read, self.chunk)?;
        notes.extend(corpus.skipped.iter().map(|s| format!("skipped {}: {}", s.source, s.reason)));
        notes.push(format!("corpus: {} documents, {} chunks indexed (BM25)", corpus.documents.len(), passages.len()));
        Ok(Arc::new(passages))
    }

    fn exchange(&self) -> Result<Exchange, CollectError> {
        let template = match &self.request {
            None => default_template(),
            Some(t) => {
                let (text, from) = match t.strip_prefix('@') {
                    Some(path) => {
                        let text = std::fs::read_to_string(path)
                            .map_err(|source| CollectError::Read { path: PathBuf::from(path), source })?;
                        (text, path)
                    }
                    None => (t.clone(), "--request"),
                };
                serde_json::from_str::<Value>(&text)
                    .map_err(|e| CollectError::Settings(format!("{from}: the request template is not JSON: {e}")))?
            }
        };
        Exchange::new(template, &self.answer_path, &self.contexts_path)
    }

    fn headers(&self) -> Result<Vec<(String, String)>, CollectError> {
        self.headers
            .iter()
            .map(|h| {
                let (name, value) = h
                    .split_once(':')
                    .ok_or_else(|| CollectError::Settings(format!("--header {h:?}: expected `Name: value`")))?;
                Ok((name.trim().to_string(), expand_env(value.trim())?))
            })
            .collect()
    }

    /// Builds the target `spec` names.
    pub fn build(&self, spec: &TargetSpec, models: &dyn ModelMaker) -> Result<BuiltTarget, CollectError> {
        let mut notes = Vec::new();
        let target: Box<dyn Target> = match spec {
            TargetSpec::Reference => Box::new(ReferenceAnswers::new(self.passages(&mut notes)?)),
            TargetSpec::Retrieve => {
                Box::new(RetrievalOnly::new(self.passages(&mut notes)?, models.reranker()?, self.rag)?)
            }
            TargetSpec::Command(line) => Box::new(CommandTarget::new(line, self.exchange()?, self.timeout)?),
            TargetSpec::Http(url) => Box::new(HttpTarget::new(url, self.headers()?, self.exchange()?, self.timeout)),
            TargetSpec::ClosedBook(model) => {
                Box::new(ReferenceRag::new(Retrieval::ClosedBook, models.generator(model)?, self.rag)?)
            }
            TargetSpec::Rag(model) => {
                let passages = self.passages(&mut notes)?;
                let retrieval = Retrieval::Corpus { passages, embedder: models.reranker()? };
                Box::new(ReferenceRag::new(retrieval, models.generator(model)?, self.rag)?)
            }
        };
        Ok(BuiltTarget { target, corpus_notes: notes })
    }
}

/// `${VAR}` replaced by the environment variable's value.
fn expand_env(value: &str) -> Result<String, CollectError> {
    let mut out = String::new();
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        let Some(len) = rest[start + 2..].find('}') else { break };
        let name = &rest[start + 2..start + 2 + len];
        out.push_str(&rest[..start]);
        let v = std::env::var(name)
            .map_err(|_| CollectError::Settings(format!("--header: environment variable {name} is not set")))?;
        out.push_str(&v);
        rest = &rest[start + 3 + len..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Answer latencies, in milliseconds: numpy's linear quantiles and the largest.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Latency {
    /// Median.
    pub p50: Option<f64>,
    /// 95th percentile.
    pub p95: Option<f64>,
    /// Slowest.
    pub max: Option<f64>,
}

/// What a collect run did.
#[derive(Debug, Clone, Serialize)]
pub struct CollectSummary {
    /// Questions read.
    pub questions: usize,
    /// Questions answered.
    pub answered: usize,
    /// Questions without an answer.
    pub failed: usize,
    /// Of those, turns of a conversation not asked because an earlier turn failed.
    pub not_asked: usize,
    /// Answers taken from the call cache.
    pub from_cache: usize,
    /// Questions asked.
    pub asked: usize,
    /// Calls made, retries included.
    pub calls: usize,
    /// Answers that came without passages.
    pub without_contexts: usize,
    /// Answers that could not be stored in the call cache.
    pub cache_store_errors: usize,
    /// Answer latencies.
    pub latency_ms: Latency,
    /// The records' system.
    pub system: String,
    /// The target's identity.
    pub target: String,
    /// The runs file.
    pub output: PathBuf,
    /// The failures file, when a question failed.
    pub failures: Option<PathBuf>,
    /// Wall time.
    pub seconds: f64,
    /// The first failure (id, reason), for the message.
    #[serde(skip)]
    pub first_failure: Option<(String, String)>,
}

/// Where a collect run reads and writes.
#[derive(Debug, Clone)]
pub struct CollectJob {
    /// Questions (JSONL).
    pub questions: PathBuf,
    /// Runs (JSONL records).
    pub output: PathBuf,
    /// Failures with their reasons (written only when a question failed; else removed).
    pub failures: PathBuf,
    /// Concurrency, retries, the records' system.
    pub settings: CollectSettings,
}

impl CollectJob {
    /// Reads the questions, refusing an output that is the question file.
    pub fn read_questions(&self) -> Result<Vec<crate::questions::Question>, CollectError> {
        ragjudge_artifacts::check_not_input(&self.output, &[&self.questions])?;
        read_questions(&self.questions)
    }

    /// Asks `target` every question (cached answers reused), writes the runs and the failures.
    pub fn run(
        &self,
        questions: &[crate::questions::Question],
        target: &dyn Target,
        cache: &CallCache,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<CollectSummary, CollectError> {
        let started = Instant::now();
        let out = collect(questions, target, cache, &self.settings, progress);
        write_jsonl(&self.output, &out.records)?;
        if out.failures.is_empty() {
            if self.failures.exists() {
                std::fs::remove_file(&self.failures)
                    .map_err(|source| CollectError::Remove { path: self.failures.clone(), source })?;
            }
        } else {
            write_jsonl(&self.failures, &out.failures)?;
        }
        Ok(self.summary(questions.len(), &out, target, started))
    }

    fn summary(&self, questions: usize, out: &Collected, target: &dyn Target, started: Instant) -> CollectSummary {
        let mut lat = out.latencies_ms.clone();
        lat.sort_by(f64::total_cmp);
        let q = |p| ragjudge_stats::quantile_sorted(&lat, p);
        CollectSummary {
            questions,
            answered: out.records.len(),
            failed: out.failures.len(),
            not_asked: out.not_asked,
            from_cache: out.from_cache,
            asked: out.asked,
            calls: out.attempts,
            without_contexts: out.without_contexts,
            cache_store_errors: out.store_errors,
            latency_ms: Latency { p50: q(0.5), p95: q(0.95), max: lat.last().copied() },
            system: self.settings.system.clone(),
            target: target.identity().split('|').next().unwrap_or_default().to_string(),
            output: self.output.clone(),
            failures: (!out.failures.is_empty()).then(|| self.failures.clone()),
            seconds: started.elapsed().as_secs_f64(),
            first_failure: out.failures.first().map(|f| (f.id.clone(), f.error.clone())),
        }
    }
}

/// `rows` as JSON lines, written atomically.
fn write_jsonl<T: Serialize>(path: &Path, rows: &[T]) -> Result<(), CollectError> {
    let mut bytes = Vec::new();
    for r in rows {
        serde_json::to_writer(&mut bytes, r).map_err(|source| CollectError::Json { path: path.into(), source })?;
        bytes.push(b'\n');
    }
    Ok(ragjudge_artifacts::write_atomic(path, &bytes)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_specs_parse_and_tiers_spell_out() {
        assert_eq!(TargetSpec::parse("reference").unwrap(), TargetSpec::Reference);
        assert_eq!(TargetSpec::parse("retrieve").unwrap(), TargetSpec::Retrieve);
        assert_eq!(TargetSpec::parse("cmd:./rag --x").unwrap(), TargetSpec::Command("./rag --x".into()));
        assert_eq!(TargetSpec::parse("http:https://h/x").unwrap(), TargetSpec::Http("https://h/x".into()));
        assert_eq!(TargetSpec::parse("http://h/x").unwrap(), TargetSpec::Http("http://h/x".into()));
        assert_eq!(TargetSpec::parse("closed-book:local:m").unwrap(), TargetSpec::ClosedBook("local:m".into()));
        assert_eq!(TargetSpec::parse("openai:gpt").unwrap(), TargetSpec::Rag("openai:gpt".into()));
        let e = TargetSpec::parse("ftp:x").unwrap_err().to_string();
        assert!(e.starts_with("--target \"ftp:x\": expected http:URL, cmd:PROGRAM"), "{e}");
        assert!(TargetSpec::of_tier(Tier::Low, "local:m").is_local());
        assert!(!TargetSpec::of_tier(Tier::Medium, "openai:m").is_local());
        assert_eq!(TargetSpec::of_tier(Tier::High, "local:m"), TargetSpec::Reference);
    }

    #[test]
    fn headers_take_environment_variables() {
        assert_eq!(expand_env("Bearer x").unwrap(), "Bearer x");
        let e = expand_env("${RAGJUDGE_TEST_NO_SUCH_VAR}").unwrap_err().to_string();
        assert_eq!(e, "--header: environment variable RAGJUDGE_TEST_NO_SUCH_VAR is not set");
    }
}
