//! Model-facing traits of ragjudge and what every backend shares: the model manifest with
//! `models pull|list|verify`, and the SQLite call cache that makes re-runs free.
//!
//! Backends live in their own crates so that heavy dependencies stay optional:
//! `ragjudge-candle` (BERT-family encoders), `ragjudge-llama` (GGUF chat models through
//! llama.cpp) and `ragjudge-openai` (any OpenAI-compatible server).
#![deny(missing_docs)]

pub mod error;
pub mod traits;

pub use error::ModelError;
pub use traits::{
    CrossEncoder, Embedder, GenParams, Generation, Judge, LabelProbs, Message, ProbSource, Prompt, TokenClassifier,
    TokenPrediction, Usage,
};
