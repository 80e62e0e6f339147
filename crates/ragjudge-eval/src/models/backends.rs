//! Builds model backends from names. Each heavy backend sits behind a feature of this crate
//! (`candle`, `llama`, `openai`); a build without one answers with an error saying so.

use super::settings::{CacheChoice, EncoderSettings, JudgeSettings};
use crate::error::EvalError;
use ragjudge_models::{CrossEncoder, Embedder, Judge, TokenClassifier, TokenEmbedder};
use ragjudge_store::{CachedJudge, CallCache, DryRunJudge};
use std::sync::Arc;

/// Resolves a model name or path, pulling a manifest model on first use (progress on stderr).
#[cfg(any(feature = "candle", feature = "llama"))]
fn resolve(spec: &str) -> Result<ragjudge_store::ResolvedModel, EvalError> {
    use ragjudge_store::{ModelStore, PullOptions};
    let report = PullOptions::default().with_progress(|m| eprintln!("{m}"));
    Ok(ModelStore::default().ensure(spec, &report)?)
}

/// Loads an encoder model of type `M` from a manifest name (pulled on first use) or a directory.
#[cfg(feature = "candle")]
fn load_encoder<M>(
    model: &str,
    run: EncoderSettings,
    load: fn(&std::path::Path, &ragjudge_candle::EncoderOptions) -> Result<M, ragjudge_models::ModelError>,
) -> Result<M, EvalError> {
    let resolved = resolve(model)?;
    let opts = ragjudge_candle::EncoderOptions {
        batch_size: run.batch_size.max(1),
        threads: run.threads,
        precision: match run.precision {
            super::Precision::F32 => ragjudge_candle::Precision::F32,
            super::Precision::Bf16 => ragjudge_candle::Precision::Bf16,
        },
        ..ragjudge_candle::EncoderOptions::default()
    };
    load(&resolved.dir, &opts).map_err(|source| EvalError::ModelLoad { context: format!("model `{model}`"), source })
}

/// An embedding model: a manifest name (pulled on first use) or a model directory.
#[cfg(feature = "candle")]
pub fn embedder(model: &str, run: EncoderSettings) -> Result<Box<dyn Embedder>, EvalError> {
    Ok(Box::new(load_encoder(model, run, ragjudge_candle::BertEmbedder::load)?))
}

/// The contextual token vectors of an embedding model (for BERTScore).
#[cfg(feature = "candle")]
pub fn token_embedder(model: &str, run: EncoderSettings) -> Result<Box<dyn TokenEmbedder>, EvalError> {
    Ok(Box::new(load_encoder(model, run, ragjudge_candle::BertEmbedder::load)?))
}

/// A cross-encoder (sequence classifier, e.g. NLI).
#[cfg(feature = "candle")]
pub fn cross_encoder(model: &str, run: EncoderSettings) -> Result<Box<dyn CrossEncoder>, EvalError> {
    Ok(Box::new(load_encoder(model, run, ragjudge_candle::BertCrossEncoder::load)?))
}

/// A token classifier (e.g. PII NER).
#[cfg(feature = "candle")]
pub fn token_classifier(model: &str, run: EncoderSettings) -> Result<Box<dyn TokenClassifier>, EvalError> {
    Ok(Box::new(load_encoder(model, run, ragjudge_candle::BertTokenClassifier::load)?))
}

#[cfg(not(feature = "candle"))]
pub use no_encoders::{cross_encoder, embedder, token_classifier, token_embedder};

/// A build without the `candle` feature: every encoder model is an error saying so.
#[cfg(not(feature = "candle"))]
mod no_encoders {
    use super::*;

    fn missing<T>(model: &str) -> Result<T, EvalError> {
        Err(EvalError::settings(format!(
            "model `{model}`: this ragjudge was built without the `candle` feature (encoder models)"
        )))
    }
    /// No embedding models in this build.
    pub fn embedder(model: &str, _run: EncoderSettings) -> Result<Box<dyn Embedder>, EvalError> {
        missing(model)
    }
    /// No embedding models in this build.
    pub fn token_embedder(model: &str, _run: EncoderSettings) -> Result<Box<dyn TokenEmbedder>, EvalError> {
        missing(model)
    }
    /// No cross-encoders in this build.
    pub fn cross_encoder(model: &str, _run: EncoderSettings) -> Result<Box<dyn CrossEncoder>, EvalError> {
        missing(model)
    }
    /// No token classifiers in this build.
    pub fn token_classifier(model: &str, _run: EncoderSettings) -> Result<Box<dyn TokenClassifier>, EvalError> {
        missing(model)
    }
}

/// The call cache a judge setting names.
pub fn call_cache(choice: &CacheChoice) -> Result<CallCache, EvalError> {
    Ok(match choice {
        CacheChoice::Disabled => CallCache::disabled(),
        CacheChoice::Path(p) => CallCache::open(p)?,
        CacheChoice::Default => CallCache::open_default()?,
    })
}

/// A judge from `local:MODEL | openai:MODEL`, behind the call cache unless it is disabled.
pub fn judge(settings: &JudgeSettings) -> Result<Box<dyn Judge>, EvalError> {
    judge_or_dry_run(settings, false)
}

/// With `dry_run`, a stand-in that counts calls and estimates prompt tokens, behind a read-only
/// view of the same call cache (so calls already cached count as free); else [`judge`].
pub fn judge_or_dry_run(settings: &JudgeSettings, dry_run: bool) -> Result<Box<dyn Judge>, EvalError> {
    let cache = Arc::new(call_cache(&settings.cache)?);
    let (backend, model) = match settings.spec.split_once(':') {
        Some((b @ ("local" | "openai"), m)) => (b, m),
        _ => ("local", settings.spec.as_str()),
    };
    if model.trim().is_empty() {
        return Err(EvalError::settings(format!(
            "--judge `{}`: no model named (use local:MODEL or openai:MODEL)",
            settings.spec
        )));
    }
    let inner = match backend {
        "openai" => openai_judge(model, settings)?,
        _ => local_judge(model, settings)?,
    };
    Ok(if dry_run {
        let stand_in = DryRunJudge::new(inner.identity());
        Box::new(CachedJudge::new(stand_in, cache).read_only())
    } else {
        Box::new(CachedJudge::new(inner, cache))
    })
}

/// Ends the process with `code` at once. With llama.cpp built in, without C exit handlers
/// ([`ragjudge_llama::exit_now`]): an interrupted command's judge threads may still be decoding,
/// and the C teardown under them would end the process with SIGSEGV instead of `code`.
pub fn exit_process(code: i32) -> ! {
    #[cfg(feature = "llama")]
    {
        ragjudge_llama::exit_now(code)
    }
    #[cfg(not(feature = "llama"))]
    {
        std::process::exit(code)
    }
}

#[cfg(feature = "llama")]
fn local_judge(model: &str, settings: &JudgeSettings) -> Result<Box<dyn Judge>, EvalError> {
    use ragjudge_llama::{LlamaJudge, LlamaOptions};
    let resolved = resolve(model)?;
    let opts = LlamaOptions { threads: settings.threads, ..LlamaOptions::default() };
    LlamaJudge::load(resolved.main_file(), &opts)
        .map(|j| Box::new(j) as Box<dyn Judge>)
        .map_err(|source| EvalError::ModelLoad { context: format!("judge `{model}`"), source })
}

#[cfg(not(feature = "llama"))]
fn local_judge(_model: &str, _settings: &JudgeSettings) -> Result<Box<dyn Judge>, EvalError> {
    Err(EvalError::settings(
        "this ragjudge was built without the `llama` feature (local GGUF judges); use --judge openai:MODEL",
    ))
}

#[cfg(feature = "openai")]
fn openai_judge(model: &str, settings: &JudgeSettings) -> Result<Box<dyn Judge>, EvalError> {
    use ragjudge_openai::{OpenAiConfig, OpenAiJudge};
    let cfg = OpenAiConfig {
        concurrency: settings.concurrency.max(1),
        timeout: settings.timeout.max(std::time::Duration::from_secs(1)),
        hard_label_fallback: settings.hard_labels,
        ..OpenAiConfig::from_env(model)
    };
    Ok(Box::new(OpenAiJudge::new(cfg)))
}

#[cfg(not(feature = "openai"))]
fn openai_judge(_model: &str, _settings: &JudgeSettings) -> Result<Box<dyn Judge>, EvalError> {
    Err(EvalError::settings("this ragjudge was built without the `openai` feature (HTTP judges)"))
}
