//! Builds model backends from command-line specs. Each heavy backend sits behind a cargo
//! feature (`candle`, `llama`, `openai`, all on by default); a build without one says so.

use crate::args::JudgeArgs;
use anyhow::{bail, Result};
use ragjudge_models::{CallCache, CrossEncoder, Embedder, Judge, TokenClassifier, TokenEmbedder};
use std::sync::Arc;

/// Resolves a model name or path, pulling a manifest model on first use.
#[cfg(any(feature = "candle", feature = "llama"))]
fn resolve(spec: &str) -> Result<ragjudge_models::ResolvedModel> {
    use ragjudge_models::{ModelStore, PullOptions};
    let report = PullOptions::default().with_progress(|m| eprintln!("{m}"));
    Ok(ModelStore::default().ensure(spec, &report)?)
}

/// An embedding model: a manifest name (pulled on first use) or a model directory.
#[cfg(feature = "candle")]
pub fn embedder(model: &str, batch_size: usize, threads: Option<usize>) -> Result<Box<dyn Embedder>> {
    use anyhow::Context as _;
    use ragjudge_candle::{BertEmbedder, EncoderOptions};
    let resolved = resolve(model)?;
    let opts = EncoderOptions { batch_size: batch_size.max(1), threads, ..EncoderOptions::default() };
    let e = BertEmbedder::load(&resolved.dir, &opts).with_context(|| format!("model `{model}`"))?;
    Ok(Box::new(e))
}

/// An embedding model (this build has no encoder backend).
#[cfg(not(feature = "candle"))]
pub fn embedder(_model: &str, _batch_size: usize, _threads: Option<usize>) -> Result<Box<dyn Embedder>> {
    bail!("this ragjudge was built without the `candle` feature (embedding models)")
}

/// The contextual token vectors of an embedding model (for BERTScore): a manifest name or a model
/// directory.
#[cfg(feature = "candle")]
pub fn token_embedder(model: &str, batch_size: usize, threads: Option<usize>) -> Result<Box<dyn TokenEmbedder>> {
    use anyhow::Context as _;
    use ragjudge_candle::{BertEmbedder, EncoderOptions};
    let resolved = resolve(model)?;
    let opts = EncoderOptions { batch_size: batch_size.max(1), threads, ..EncoderOptions::default() };
    Ok(Box::new(BertEmbedder::load(&resolved.dir, &opts).with_context(|| format!("model `{model}`"))?))
}

/// Token vectors of an embedding model (this build has no encoder backend).
#[cfg(not(feature = "candle"))]
pub fn token_embedder(_model: &str, _batch_size: usize, _threads: Option<usize>) -> Result<Box<dyn TokenEmbedder>> {
    bail!("this ragjudge was built without the `candle` feature (embedding models)")
}

/// A cross-encoder (sequence classifier, e.g. NLI): a manifest name or a model directory.
#[cfg(feature = "candle")]
pub fn cross_encoder(model: &str, batch_size: usize, threads: Option<usize>) -> Result<Box<dyn CrossEncoder>> {
    use anyhow::Context as _;
    use ragjudge_candle::{BertCrossEncoder, EncoderOptions};
    let resolved = resolve(model)?;
    let opts = EncoderOptions { batch_size: batch_size.max(1), threads, ..EncoderOptions::default() };
    Ok(Box::new(BertCrossEncoder::load(&resolved.dir, &opts).with_context(|| format!("model `{model}`"))?))
}

/// A cross-encoder (this build has no encoder backend).
#[cfg(not(feature = "candle"))]
pub fn cross_encoder(_model: &str, _batch_size: usize, _threads: Option<usize>) -> Result<Box<dyn CrossEncoder>> {
    bail!("this ragjudge was built without the `candle` feature (encoder models)")
}

/// A token classifier (e.g. PII NER): a manifest name or a model directory.
#[cfg(feature = "candle")]
pub fn token_classifier(model: &str, batch_size: usize, threads: Option<usize>) -> Result<Box<dyn TokenClassifier>> {
    use anyhow::Context as _;
    use ragjudge_candle::{BertTokenClassifier, EncoderOptions};
    let resolved = resolve(model)?;
    let opts = EncoderOptions { batch_size: batch_size.max(1), threads, ..EncoderOptions::default() };
    Ok(Box::new(BertTokenClassifier::load(&resolved.dir, &opts).with_context(|| format!("model `{model}`"))?))
}

/// A token classifier (this build has no encoder backend).
#[cfg(not(feature = "candle"))]
pub fn token_classifier(_model: &str, _batch_size: usize, _threads: Option<usize>) -> Result<Box<dyn TokenClassifier>> {
    bail!("this ragjudge was built without the `candle` feature (encoder models)")
}

/// A judge from `--judge local:MODEL | openai:MODEL`, behind the call cache unless `--no-cache`.
pub fn judge(args: &JudgeArgs) -> Result<Box<dyn Judge>> {
    judge_or_dry_run(args, false)
}

/// With `dry_run`, a stand-in that counts calls and estimates prompt tokens, behind a read-only
/// view of the same call cache (so calls already cached count as free); else [`judge`].
pub fn judge_or_dry_run(args: &JudgeArgs, dry_run: bool) -> Result<Box<dyn Judge>> {
    let cache = Arc::new(if args.no_cache {
        CallCache::disabled()
    } else {
        match &args.cache {
            Some(p) => CallCache::open(p)?,
            None => CallCache::open_default()?,
        }
    });
    let (backend, model) = match args.judge.split_once(':') {
        Some((b @ ("local" | "openai"), m)) => (b, m),
        _ => ("local", args.judge.as_str()),
    };
    if model.trim().is_empty() {
        bail!("--judge `{}`: no model named (use local:MODEL or openai:MODEL)", args.judge);
    }
    let inner = match backend {
        "openai" => openai_judge(model, args)?,
        _ => local_judge(model, args)?,
    };
    Ok(if dry_run {
        let stand_in = ragjudge_models::DryRunJudge::new(inner.identity());
        Box::new(ragjudge_models::CachedJudge::new(stand_in, cache).read_only())
    } else {
        Box::new(ragjudge_models::CachedJudge::new(inner, cache))
    })
}

#[cfg(feature = "llama")]
fn local_judge(model: &str, args: &JudgeArgs) -> Result<Box<dyn Judge>> {
    use anyhow::Context as _;
    use ragjudge_llama::{LlamaJudge, LlamaOptions};
    let resolved = resolve(model)?;
    let opts = LlamaOptions { threads: args.threads, ..LlamaOptions::default() };
    Ok(Box::new(LlamaJudge::load(resolved.main_file(), &opts).with_context(|| format!("judge `{model}`"))?))
}

#[cfg(not(feature = "llama"))]
fn local_judge(_model: &str, _args: &JudgeArgs) -> Result<Box<dyn Judge>> {
    bail!("this ragjudge was built without the `llama` feature (local GGUF judges); use --judge openai:MODEL")
}

#[cfg(feature = "openai")]
fn openai_judge(model: &str, args: &JudgeArgs) -> Result<Box<dyn Judge>> {
    use ragjudge_openai::{OpenAiConfig, OpenAiJudge};
    let cfg = OpenAiConfig {
        concurrency: args.concurrency.max(1),
        timeout: std::time::Duration::from_secs(args.timeout.max(1)),
        hard_label_fallback: args.hard_labels,
        ..OpenAiConfig::from_env(model)
    };
    Ok(Box::new(OpenAiJudge::new(cfg)))
}

#[cfg(not(feature = "openai"))]
fn openai_judge(_model: &str, _args: &JudgeArgs) -> Result<Box<dyn Judge>> {
    bail!("this ragjudge was built without the `openai` feature (HTTP judges)")
}
