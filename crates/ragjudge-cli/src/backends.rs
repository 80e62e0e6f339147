//! Builds model backends from command-line specs. Each heavy backend sits behind a cargo
//! feature (`candle`, `llama`, `openai`, all on by default); a build without one says so.

use crate::args::{JudgeArgs, Precision};
use anyhow::{bail, Result};
use ragjudge_models::{CrossEncoder, Embedder, Judge, TokenClassifier, TokenEmbedder};
use ragjudge_store::CallCache;
use std::sync::Arc;

/// Resolves a model name or path, pulling a manifest model on first use.
#[cfg(any(feature = "candle", feature = "llama"))]
fn resolve(spec: &str) -> Result<ragjudge_store::ResolvedModel> {
    use ragjudge_store::{ModelStore, PullOptions};
    let report = PullOptions::default().with_progress(|m| eprintln!("{m}"));
    Ok(ModelStore::default().ensure(spec, &report)?)
}

/// How encoder models run: inputs per forward pass, inference threads (`None`: all cores) and
/// the number format of their matrix products.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EncoderRun {
    /// Inputs per forward pass (at least 1 is used).
    pub batch_size: usize,
    /// Inference threads.
    pub threads: Option<usize>,
    /// `f32`, or bfloat16 products with `f32` accumulation.
    pub precision: Precision,
}

/// Loads an encoder model of type `M` from a manifest name (pulled on first use) or a directory.
#[cfg(feature = "candle")]
fn load_encoder<M>(
    model: &str,
    run: EncoderRun,
    load: fn(&std::path::Path, &ragjudge_candle::EncoderOptions) -> Result<M, ragjudge_models::ModelError>,
) -> Result<M> {
    use anyhow::Context as _;
    let resolved = resolve(model)?;
    let opts = ragjudge_candle::EncoderOptions {
        batch_size: run.batch_size.max(1),
        threads: run.threads,
        precision: match run.precision {
            Precision::F32 => ragjudge_candle::Precision::F32,
            Precision::Bf16 => ragjudge_candle::Precision::Bf16,
        },
        ..ragjudge_candle::EncoderOptions::default()
    };
    load(&resolved.dir, &opts).with_context(|| format!("model `{model}`"))
}

/// An embedding model: a manifest name (pulled on first use) or a model directory.
#[cfg(feature = "candle")]
pub fn embedder(model: &str, run: EncoderRun) -> Result<Box<dyn Embedder>> {
    Ok(Box::new(load_encoder(model, run, ragjudge_candle::BertEmbedder::load)?))
}

/// The contextual token vectors of an embedding model (for BERTScore).
#[cfg(feature = "candle")]
pub fn token_embedder(model: &str, run: EncoderRun) -> Result<Box<dyn TokenEmbedder>> {
    Ok(Box::new(load_encoder(model, run, ragjudge_candle::BertEmbedder::load)?))
}

/// A cross-encoder (sequence classifier, e.g. NLI).
#[cfg(feature = "candle")]
pub fn cross_encoder(model: &str, run: EncoderRun) -> Result<Box<dyn CrossEncoder>> {
    Ok(Box::new(load_encoder(model, run, ragjudge_candle::BertCrossEncoder::load)?))
}

/// A token classifier (e.g. PII NER).
#[cfg(feature = "candle")]
pub fn token_classifier(model: &str, run: EncoderRun) -> Result<Box<dyn TokenClassifier>> {
    Ok(Box::new(load_encoder(model, run, ragjudge_candle::BertTokenClassifier::load)?))
}

#[cfg(not(feature = "candle"))]
pub use no_encoders::{cross_encoder, embedder, token_classifier, token_embedder};

/// A build without the `candle` feature: every encoder model is an error saying so.
#[cfg(not(feature = "candle"))]
mod no_encoders {
    use super::*;

    fn missing<T>(model: &str) -> Result<T> {
        bail!("model `{model}`: this ragjudge was built without the `candle` feature (encoder models)")
    }
    /// No embedding models in this build.
    pub fn embedder(model: &str, _run: EncoderRun) -> Result<Box<dyn Embedder>> {
        missing(model)
    }
    /// No embedding models in this build.
    pub fn token_embedder(model: &str, _run: EncoderRun) -> Result<Box<dyn TokenEmbedder>> {
        missing(model)
    }
    /// No cross-encoders in this build.
    pub fn cross_encoder(model: &str, _run: EncoderRun) -> Result<Box<dyn CrossEncoder>> {
        missing(model)
    }
    /// No token classifiers in this build.
    pub fn token_classifier(model: &str, _run: EncoderRun) -> Result<Box<dyn TokenClassifier>> {
        missing(model)
    }
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
        let stand_in = ragjudge_store::DryRunJudge::new(inner.identity());
        Box::new(ragjudge_store::CachedJudge::new(stand_in, cache).read_only())
    } else {
        Box::new(ragjudge_store::CachedJudge::new(inner, cache))
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
