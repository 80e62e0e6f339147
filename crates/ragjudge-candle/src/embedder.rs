//! Sentence embeddings: BERT, mean pooling over the attention mask, L2 normalisation, as
//! sentence-transformers' `Transformer -> Pooling(pooling_mode_mean_tokens) -> Normalize`
//! (Reimers & Gurevych 2019, "Sentence-BERT", section 3).

use std::path::Path;

use candle_core::{DType, Tensor, D};
use ragjudge_models::{Embedder, ModelError};

use crate::encoder::{infer_err, BertCore, EncoderOptions};

/// A BERT sentence embedder (e.g. all-MiniLM-L6-v2, 384 dimensions).
pub struct BertEmbedder {
    core: BertCore,
}

impl std::fmt::Debug for BertEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BertEmbedder").field("identity", &self.core.identity).field("opts", &self.core.opts).finish()
    }
}

impl BertEmbedder {
    /// Loads a sentence-transformers / Hugging Face BERT directory (`config.json`, `tokenizer.json`,
    /// `model.safetensors`). The tokenizer's own padding is turned off and truncation set to
    /// `opts.max_length`.
    pub fn load(dir: &Path, opts: &EncoderOptions) -> Result<Self, ModelError> {
        Ok(Self { core: BertCore::load(dir, opts)? })
    }

    /// The options in effect (`max_length` capped at the model's position limit).
    pub fn options(&self) -> &EncoderOptions {
        &self.core.opts
    }

    fn embed_inner(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, ModelError> {
        let encodings = self.core.encode(texts)?;
        let mut out = vec![Vec::new(); texts.len()];
        for batch in self.core.batches(&encodings)? {
            let hidden = self.core.hidden(&batch)?;
            let vectors = mean_pool_normalize(&hidden, &batch.attention_mask).map_err(infer_err)?;
            for (&i, v) in batch.indices.iter().zip(vectors.to_vec2::<f32>().map_err(infer_err)?) {
                out[i] = v;
            }
        }
        Ok(out)
    }
}

/// Mean of the token vectors where `mask` is 1, then divided by its L2 norm: `(batch, hidden)`.
fn mean_pool_normalize(hidden: &Tensor, mask: &Tensor) -> candle_core::Result<Tensor> {
    let mask = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
    let summed = hidden.broadcast_mul(&mask)?.sum(1)?;
    // sentence-transformers clamps the token count at 1e-9.
    let counts = mask.sum(1)?.clamp(1e-9, f32::MAX)?;
    let mean = summed.broadcast_div(&counts)?;
    // torch.nn.functional.normalize: x / max(||x||, 1e-12).
    let norm = mean.sqr()?.sum_keepdim(D::Minus1)?.sqrt()?.clamp(1e-12, f32::MAX)?;
    mean.broadcast_div(&norm)
}

impl Embedder for BertEmbedder {
    fn identity(&self) -> String {
        self.core.identity.clone()
    }

    fn dim(&self) -> usize {
        self.core.config.hidden_size
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, ModelError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        self.core.install(|| self.embed_inner(texts))
    }
}
