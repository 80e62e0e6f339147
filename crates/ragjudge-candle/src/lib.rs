//! BERT-family encoders for ragjudge on [candle](https://github.com/huggingface/candle), on the CPU.
//!
//! - [`BertEmbedder`]: sentence embeddings as sentence-transformers' `Transformer -> Pooling(mean)
//!   -> Normalize` (e.g. all-MiniLM-L6-v2), implementing [`ragjudge_models::Embedder`].
//! - [`BertCrossEncoder`]: sequence-pair classification as Hugging Face
//!   `BertForSequenceClassification`, implementing [`ragjudge_models::CrossEncoder`].
//! - [`BertTokenClassifier`]: per-token classification as Hugging Face
//!   `BertForTokenClassification`, implementing [`ragjudge_models::TokenClassifier`].
//!
//! Each loads a model directory holding `config.json`, `tokenizer.json` and `model.safetensors`
//! (memory-mapped). Loading is separate from running: `X::load(dir, &opts)` then the trait methods.
//! Texts are sorted by length and grouped; a group's tokens run through the encoder packed, with
//! no padding, each text attending only to its own tokens, so grouping never changes a result.
//! [`EncoderOptions::precision`] picks `f32` or bfloat16 ([`Precision::Bf16`]) dense products.
#![deny(missing_docs)]
// Library code returns errors instead of panicking (tests may unwrap: clippy.toml).
#![deny(clippy::unwrap_used, clippy::expect_used)]

mod bert_config;
mod bf16_gemm;
mod cross_encoder;
mod embedder;
mod encoder;
mod packed_bert;
mod token_classifier;
mod vector_math;

pub use cross_encoder::BertCrossEncoder;
pub use embedder::BertEmbedder;
pub use encoder::{EncoderOptions, Precision};
pub use token_classifier::BertTokenClassifier;
