//! `ragjudge collect`: runs the system under test on every question (HTTP endpoint, program,
//! built-in reference RAG, or a baseline tier) through `ragjudge_collect`, and writes the runs
//! to score. Failed questions go to `OUTPUT_STEM.failed.ndjson` with their reasons and make the
//! command exit non-zero; answers are cached as they arrive, so a second run asks only the
//! questions still missing.

mod args;

pub use args::{CollectArgs, TierArg};

use crate::args::Precision;
use crate::backends;
use crate::progress::Progress;
use anyhow::{bail, Result};
use ragjudge_collect::job::{CollectJob, ModelMaker, TargetOptions, TargetSpec, Tier};
use ragjudge_collect::rag::RagOptions;
use ragjudge_collect::run::CollectSettings;
use ragjudge_collect::CollectError;
use ragjudge_eval::models::{backends as engine, CacheChoice, JudgeSettings};
use ragjudge_models::{Embedder, Judge};
use ragjudge_testgen::{ChunkOptions, ReadOptions};
use std::time::Duration;

impl CollectArgs {
    /// The call cache of `--cache` and `--no-cache`.
    fn cache(&self) -> CacheChoice {
        CacheChoice::from_flags(self.cache.as_deref(), self.no_cache)
    }

    fn timeout(&self) -> Result<Duration> {
        if !(self.timeout.is_finite() && self.timeout > 0.0) {
            bail!("--timeout must be a positive number of seconds, got {}", self.timeout);
        }
        Ok(Duration::from_secs_f64(self.timeout))
    }

    fn tier(&self) -> Option<Tier> {
        self.tier.map(|t| match t {
            TierArg::High => Tier::High,
            TierArg::Medium => Tier::Medium,
            TierArg::Low => Tier::Low,
        })
    }

    fn target_options(&self, spec: &str) -> Result<TargetOptions> {
        Ok(TargetOptions {
            request: self.request.clone(),
            headers: self.headers.clone(),
            answer_path: self.answer_path.clone(),
            contexts_path: self.contexts_path.clone(),
            timeout: self.timeout()?,
            rag: RagOptions { k: self.k, candidates: self.candidates, max_tokens: self.max_tokens },
            corpus: self.corpus.clone(),
            chunk: ChunkOptions { max_tokens: self.chunk_tokens, overlap_sentences: self.overlap },
            read: ReadOptions { skip_invalid: self.skip_invalid },
            needs_corpus: match self.tier() {
                Some(t @ (Tier::High | Tier::Medium)) => format!("--tier {}", t.name()),
                _ => format!("--target {spec}"),
            },
        })
    }
}

impl ModelMaker for CollectArgs {
    fn generator(&self, spec: &str) -> Result<Box<dyn Judge>, CollectError> {
        let timeout = Duration::from_secs_f64(self.timeout);
        let cache = self.cache();
        let (threads, concurrency) = (self.threads, self.concurrency);
        let settings = JudgeSettings { spec: spec.into(), cache, threads, concurrency, timeout, hard_labels: false };
        engine::judge(&settings).map_err(|e| CollectError::Backend(e.into()))
    }

    fn reranker(&self) -> Result<Option<Box<dyn Embedder>>, CollectError> {
        let Some(name) = &self.rerank else { return Ok(None) };
        let e = backends::embedder(name, 32, self.threads, Precision::F32);
        e.map(Some).map_err(|e| CollectError::Backend(e.into()))
    }
}

/// Runs `ragjudge collect`.
pub fn run(args: &CollectArgs) -> Result<()> {
    let tier = args.tier();
    let spec = match (tier, &args.target) {
        (Some(t), _) => Ok(TargetSpec::of_tier(t, &args.model)),
        (None, Some(t)) => TargetSpec::parse(t),
        (None, None) => bail!("--target or --tier is needed"),
    };
    let system = args.system.clone().or_else(|| tier.map(|t| t.name().to_string())).unwrap_or_else(|| {
        args.output.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "target".into())
    });
    // A local model uses every core for one answer: more questions in flight would only queue.
    let concurrency = if spec.as_ref().is_ok_and(TargetSpec::is_local) { 1 } else { args.concurrency.max(1) };
    let backoff = Duration::from_millis(args.backoff_ms);
    let settings = CollectSettings { system, concurrency, retries: args.retries, backoff, refresh: args.refresh };
    let stem = args.output.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "runs".into());
    let failures = args.failures.clone().unwrap_or_else(|| args.output.with_file_name(format!("{stem}.failed.ndjson")));
    let job = CollectJob { questions: args.questions.clone(), output: args.output.clone(), failures, settings };
    let questions = job.read_questions()?;
    let spec = spec?;
    let built = args.target_options(args.target.as_deref().unwrap_or_default())?.build(&spec, args)?;
    for n in &built.corpus_notes {
        eprintln!("{n}");
    }
    let cache = engine::call_cache(&args.cache())?;
    let progress = Progress::new("questions");
    let summary = job.run(&questions, built.target.as_ref(), &cache, &|done, failed| {
        progress.inc(1);
        if failed > 0 {
            progress.message(format!("{failed} failed (of {done})"));
        }
    });
    progress.finish();
    let s = summary?;
    let ms = |x: Option<f64>| x.map_or("-".into(), |x| format!("{x:.0}"));
    let not_asked = match s.not_asked {
        0 => String::new(),
        n => format!(" ({n} not asked: an earlier turn of their conversation failed)"),
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&s)?);
    } else {
        println!(
            "{} of {} questions answered ({} from the cache, {} asked in {} calls); {} failed{}; {} answers without passages; latency p50 {} ms, p95 {} ms; {}",
            s.answered, s.questions, s.from_cache, s.asked, s.calls, s.failed, not_asked, s.without_contexts,
            ms(s.latency_ms.p50), ms(s.latency_ms.p95), args.output.display()
        );
    }
    if s.cache_store_errors > 0 {
        eprintln!(
            "warning: {} answers could not be stored in the call cache (they are in the output)",
            s.cache_store_errors
        );
    }
    if let (Some((id, error)), Some(file)) = (&s.first_failure, &s.failures) {
        let again = if cache.is_enabled() {
            "answers so far are cached: run again to ask only the failed ones"
        } else {
            "nothing was cached (--no-cache): a new run asks every question again"
        };
        let (n, of) = (s.failed, s.questions);
        bail!("{n} of {of} questions failed (reasons in {}; first: {id}: {error}); {again}", file.display());
    }
    Ok(())
}
