//! The models a `score` run may need, each loaded on first use and shared by every metric.

use crate::args::{JudgeArgs, ScoreModelArgs};
use crate::backends::{self, EncoderRun};
use anyhow::{bail, Result};
use ragjudge_models::{CrossEncoder, Embedder, Judge, ModelError, TokenClassifier, TokenEmbedder};
use std::sync::{Arc, OnceLock};

/// Lazily loaded models named by the `score` command's model options.
pub struct ModelSet {
    args: ScoreModelArgs,
    threads: Option<usize>,
    embedder: Arc<OnceLock<Arc<dyn Embedder>>>,
    token_embedder: OnceLock<Arc<dyn TokenEmbedder>>,
    judge: OnceLock<Arc<dyn Judge>>,
    cross_encoder: OnceLock<Arc<dyn CrossEncoder>>,
    token_classifier: OnceLock<Arc<dyn TokenClassifier>>,
}

impl ModelSet {
    /// Nothing is loaded until a metric asks for it.
    pub fn new(args: &ScoreModelArgs, threads: Option<usize>) -> Self {
        Self {
            args: args.clone(),
            threads,
            embedder: Arc::new(OnceLock::new()),
            token_embedder: OnceLock::new(),
            judge: OnceLock::new(),
            cross_encoder: OnceLock::new(),
            token_classifier: OnceLock::new(),
        }
    }

    /// The options the models were named by.
    pub fn args(&self) -> &ScoreModelArgs {
        &self.args
    }

    fn encoder_run(&self) -> EncoderRun {
        encoder_run(&self.args, self.threads)
    }

    /// The sentence embedder (`--embedder`, default `minilm`), behind an in-memory embedding cache.
    pub fn embedder(&self) -> Result<Arc<dyn Embedder>> {
        load_embedder(&self.embedder, &self.args, self.threads)
    }

    /// The same embedder as [`ModelSet::embedder`], loaded only when a text is first embedded
    /// (for metrics that need it on some records only); a failed load fails that call.
    pub fn embedder_on_first_use(&self) -> Arc<dyn Embedder> {
        Arc::new(LazyEmbedder { cell: self.embedder.clone(), args: self.args.clone(), threads: self.threads })
    }

    /// The token vectors of the `--embedder` model (BERTScore).
    pub fn token_embedder(&self) -> Result<Arc<dyn TokenEmbedder>> {
        get_or_load(&self.token_embedder, || {
            Ok(Arc::from(backends::token_embedder(&self.args.embedder, self.encoder_run())?))
        })
    }

    /// The judge (`--judge`), behind the call cache unless `--no-cache`.
    pub fn judge(&self) -> Result<Arc<dyn Judge>> {
        get_or_load(&self.judge, || {
            let a = &self.args;
            let judge_args = JudgeArgs {
                judge: a.judge.clone(),
                cache: a.cache.clone(),
                no_cache: a.no_cache,
                threads: self.threads,
                concurrency: a.concurrency,
                timeout: a.timeout,
                hard_labels: false,
            };
            Ok(Arc::from(backends::judge(&judge_args)?))
        })
    }

    /// The NLI cross-encoder of `--nli DIR`, if one was named.
    pub fn cross_encoder(&self) -> Result<Option<Arc<dyn CrossEncoder>>> {
        let Some(spec) = self.args.nli.clone() else { return Ok(None) };
        get_or_load(&self.cross_encoder, || {
            Ok(Arc::from(backends::cross_encoder(&spec, self.encoder_run())?))
        })
        .map(Some)
    }

    /// The PII token classifier (`--pii-model`).
    pub fn token_classifier(&self) -> Result<Arc<dyn TokenClassifier>> {
        get_or_load(&self.token_classifier, || {
            Ok(Arc::from(backends::token_classifier(&self.args.pii_model, self.encoder_run())?))
        })
    }
}

fn encoder_run(args: &ScoreModelArgs, threads: Option<usize>) -> EncoderRun {
    EncoderRun { batch_size: args.batch_size, threads, precision: args.precision }
}

fn load_embedder(
    cell: &OnceLock<Arc<dyn Embedder>>,
    args: &ScoreModelArgs,
    threads: Option<usize>,
) -> Result<Arc<dyn Embedder>> {
    get_or_load(cell, || {
        let e = backends::embedder(&args.embedder, encoder_run(args, threads))?;
        Ok(Arc::new(ragjudge_models::CachedEmbedder::new(e, 100_000)) as Arc<dyn Embedder>)
    })
}

/// An embedder handle that loads the shared model on its first embedding call.
struct LazyEmbedder {
    cell: Arc<OnceLock<Arc<dyn Embedder>>>,
    args: ScoreModelArgs,
    threads: Option<usize>,
}

impl LazyEmbedder {
    fn get(&self) -> Result<Arc<dyn Embedder>, ModelError> {
        load_embedder(&self.cell, &self.args, self.threads).map_err(|e| ModelError::Inference(format!("{e:#}")))
    }
}

impl Embedder for LazyEmbedder {
    fn identity(&self) -> String {
        self.get().map_or_else(|_| format!("unloaded:{}", self.args.embedder), |m| m.identity())
    }

    fn dim(&self) -> usize {
        self.get().map_or(0, |m| m.dim())
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, ModelError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        self.get()?.embed(texts)
    }
}

/// Returns the cell's model, loading it on first use; a failed load is returned, not cached.
fn get_or_load<T: ?Sized>(cell: &OnceLock<Arc<T>>, load: impl FnOnce() -> Result<Arc<T>>) -> Result<Arc<T>> {
    if let Some(m) = cell.get() {
        return Ok(m.clone());
    }
    let m = load()?;
    Ok(cell.get_or_init(|| m).clone())
}

/// Fails unless `value` is a finite number in `[lo, hi]`.
pub fn check_range(flag: &str, value: f64, lo: f64, hi: f64) -> Result<()> {
    if !(value.is_finite() && (lo..=hi).contains(&value)) {
        bail!("{flag} must be a number in [{lo}, {hi}], got {value}");
    }
    Ok(())
}
