//! A BERT model's `config.json` (Devlin et al., 2019, as Hugging Face `transformers` writes it):
//! the fields candle's reference BERT requires, with the same names, defaults and values, so
//! that a file it accepts is accepted here and one it refuses is refused.

use serde::Deserialize;

/// The feed-forward activation (`hidden_act`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum HiddenAct {
    /// GELU with the error function.
    Gelu,
    /// GELU with the tanh approximation.
    GeluApproximate,
    /// ReLU.
    Relu,
}

/// How positions are embedded: BERT's learned absolute positions only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum PositionEmbeddingType {
    /// One learned vector per position.
    #[default]
    Absolute,
}

/// The architecture of a BERT encoder.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[allow(dead_code)] // dropout, initialiser and cache fields are read to validate the file only
pub(crate) struct BertConfig {
    pub vocab_size: usize,
    pub hidden_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    pub intermediate_size: usize,
    pub hidden_act: HiddenAct,
    pub hidden_dropout_prob: f64,
    pub max_position_embeddings: usize,
    pub type_vocab_size: usize,
    pub initializer_range: f64,
    pub layer_norm_eps: f64,
    pub pad_token_id: usize,
    #[serde(default)]
    pub position_embedding_type: PositionEmbeddingType,
    #[serde(default)]
    pub use_cache: bool,
    pub classifier_dropout: Option<f64>,
    pub model_type: Option<String>,
}
