//! Model-facing traits of ragjudge and what every backend shares: the model manifest with
//! `models pull|list|verify`, and the SQLite call cache that makes re-runs free.
//!
//! Backends live in their own crates so that heavy dependencies stay optional:
//! `ragjudge-candle` (BERT-family encoders), `ragjudge-llama` (GGUF chat models through
//! llama.cpp) and `ragjudge-openai` (any OpenAI-compatible server).
#![deny(missing_docs)]

pub mod cache;
pub mod cached;
pub mod embed_cache;
pub mod error;
pub mod home;
pub mod manifest;
pub mod pull;
pub mod traits;

pub use cache::{cache_key, default_cache_path, CacheStats, CallCache};
pub use cached::{CachedJudge, DryRunJudge};
pub use embed_cache::CachedEmbedder;
pub use error::ModelError;
pub use home::{models_dir, ragjudge_home};
pub use manifest::{JoinedFile, Manifest, ModelEntry, Package, Part};
pub use pull::{
    ensure, list, pull, resolve, verify, ModelStatus, ModelStore, PullOptions, PullReport, ResolvedModel, VerifyReport,
};
pub use traits::{
    CrossEncoder, Embedder, GenParams, Generation, Judge, LabelProbs, Message, ProbSource, Prompt, TokenClassifier,
    TokenEmbedder, TokenEmbedding, TokenPrediction, Usage,
};
