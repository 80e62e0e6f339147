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
//! Texts are sorted by length and batched, each batch padded to its longest sequence with an
//! attention mask, so padding never changes a result.
#![deny(missing_docs)]

mod cross_encoder;
mod embedder;
mod encoder;
mod token_classifier;

pub use cross_encoder::BertCrossEncoder;
pub use embedder::BertEmbedder;
pub use encoder::EncoderOptions;
pub use token_classifier::BertTokenClassifier;
