//! The models an evaluation may need, named by plain settings, loaded on first use and shared by
//! every metric ([`ModelSet`]); and the functions that build each backend from a name
//! ([`backends`]). Heavy backends sit behind this crate's features `candle`, `llama` and `openai`;
//! a build without one says so when such a model is asked for.

pub mod backends;
mod set;
mod settings;

pub use set::ModelSet;
pub use settings::{
    default_embedder, default_embedder_for, CacheChoice, EncoderSettings, JudgeSettings, ModelSettings, Precision,
    ENGLISH_EMBEDDER, MULTILINGUAL_EMBEDDER,
};
