//! Model-facing traits of ragjudge (embedders, cross-encoders, token classifiers, judges), their
//! error type and the small decorators every backend shares (an in-memory embedding cache).
//!
//! This crate is light on purpose: metric crates depend on it alone. The model store (manifest,
//! `models pull|list|verify`, the SQLite call cache) lives in `ragjudge-store`, and the backends in
//! their own crates: `ragjudge-candle` (BERT-family encoders), `ragjudge-llama` (GGUF chat models
//! through llama.cpp) and `ragjudge-openai` (any OpenAI-compatible server).
#![deny(missing_docs)]
// Library code returns errors instead of panicking (tests may unwrap: clippy.toml).
#![deny(clippy::unwrap_used, clippy::expect_used)]

pub mod embed_cache;
pub mod error;
pub mod hash;
pub mod reason;
pub mod traits;

pub use embed_cache::CachedEmbedder;
pub use error::ModelError;
pub use reason::Reason;
pub use traits::{
    CrossEncoder, Embedder, GenParams, Generation, Judge, LabelProbs, Message, ProbSource, Prompt, TokenClassifier,
    TokenEmbedder, TokenEmbedding, TokenPrediction, Usage,
};
