//! The models of `score`'s model-backed metrics, as flags.

use crate::args::{JudgeSpecArgs, Precision};
use clap::Args;
use ragjudge_eval::models::{default_embedder, EncoderSettings, ModelSettings};
use ragjudge_lexical::lang::LangMode;

/// The models of model-backed metrics (loaded only when a metric needs them).
#[derive(Debug, Clone, Args)]
pub struct ScoreModelArgs {
    /// Sentence embedder: manifest name or model directory [default: minilm with --lang en,
    /// multilingual-e5-small with --lang zh or auto].
    #[arg(long)]
    pub embedder: Option<String>,
    /// NLI cross-encoder directory (safetensors + config.json + tokenizer.json); without it the judge
    /// decides entailment.
    #[arg(long, value_name = "DIR")]
    pub nli: Option<String>,
    /// PII token-classification model: manifest name or model directory.
    #[arg(long, default_value = "pii-ner")]
    pub pii_model: String,
    /// Encoder batch size.
    #[arg(long, default_value_t = 32)]
    pub batch_size: usize,
    /// Number format of the encoders' matrix products (embedder, NLI, PII model).
    #[arg(long, value_enum, default_value_t = Precision::F32)]
    pub precision: Precision,
    #[command(flatten)]
    pub judge: JudgeSpecArgs,
}

impl ScoreModelArgs {
    /// The model settings of a run in `lang`; `threads` runs both the encoders and a local judge.
    pub fn settings(&self, threads: Option<usize>, lang: LangMode) -> ModelSettings {
        ModelSettings {
            embedder: self.embedder.clone().unwrap_or_else(|| default_embedder(lang).into()),
            nli: self.nli.clone(),
            pii_model: self.pii_model.clone(),
            encoder: EncoderSettings { batch_size: self.batch_size, threads, precision: self.precision.into() },
            judge: self.judge.settings(threads, false),
        }
    }
}
