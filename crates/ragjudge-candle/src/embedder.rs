//! Sentence embeddings: BERT, mean pooling over the attention mask, L2 normalisation, as
//! sentence-transformers' `Transformer -> Pooling(pooling_mode_mean_tokens) -> Normalize`
//! (Reimers & Gurevych 2019, "Sentence-BERT", section 3), and the token vectors before pooling
//! (sentence-transformers' `output_value="token_embeddings"`), as BERTScore uses them
//! (Zhang et al. 2020, "BERTScore", section 3).

use std::path::Path;

use ragjudge_models::{Embedder, ModelError, TokenEmbedder, TokenEmbedding};

use crate::encoder::{infer_msg, BertCore, EncoderOptions};
use crate::vector_math;

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
        let h = self.core.config.hidden_size;
        let groups = self.core.map_groups(&encodings, |group, hidden| {
            let mut rows = hidden.chunks_exact(h);
            let vectors: Vec<Vec<f32>> =
                group.iter().map(|&i| mean_pool_normalize(rows.by_ref().take(encodings[i].len()), h)).collect();
            Ok((group.to_vec(), vectors))
        })?;
        let mut out = vec![Vec::new(); texts.len()];
        for (group, vectors) in groups {
            for (i, v) in group.into_iter().zip(vectors) {
                out[i] = v;
            }
        }
        Ok(out)
    }
}

/// Mean of an input's token vectors, then divided by its L2 norm. As sentence-transformers, the
/// token count is clamped at 1e-9 and the norm at 1e-12 (`torch.nn.functional.normalize`), so an
/// input without tokens gets the zero vector.
fn mean_pool_normalize<'a>(rows: impl Iterator<Item = &'a [f32]>, h: usize) -> Vec<f32> {
    let mut mean = vec![0f32; h];
    let mut count = 0usize;
    for row in rows {
        for (m, v) in mean.iter_mut().zip(row) {
            *m += v;
        }
        count += 1;
    }
    let count = (count as f32).max(1e-9);
    for m in &mut mean {
        *m /= count;
    }
    let norm = vector_math::sum(&mean.iter().map(|m| m * m).collect::<Vec<_>>()).sqrt().max(1e-12);
    for m in &mut mean {
        *m /= norm;
    }
    mean
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

impl BertEmbedder {
    fn embed_tokens_inner(&self, texts: &[&str]) -> Result<Vec<TokenEmbedding>, ModelError> {
        let encodings = self.core.encode(texts)?;
        let h = self.core.config.hidden_size;
        let groups = self.core.map_groups(&encodings, |group, hidden| {
            let mut rows = hidden.chunks_exact(h);
            let vectors: Vec<Vec<Vec<f32>>> =
                group.iter().map(|&i| rows.by_ref().take(encodings[i].len()).map(<[f32]>::to_vec).collect()).collect();
            Ok((group.to_vec(), vectors))
        })?;
        let mut out: Vec<Option<TokenEmbedding>> = vec![None; texts.len()];
        for (group, vectors) in groups {
            for (i, vectors) in group.into_iter().zip(vectors) {
                let e = &encodings[i];
                out[i] = Some(TokenEmbedding {
                    tokens: e.get_tokens().to_vec(),
                    ids: e.get_ids().to_vec(),
                    special: e.get_special_tokens_mask().iter().map(|&m| m == 1).collect(),
                    vectors,
                });
            }
        }
        out.into_iter()
            .enumerate()
            .map(|(i, t)| t.ok_or_else(|| infer_msg(format!("text {i} missing from the token batches"))))
            .collect()
    }
}

impl TokenEmbedder for BertEmbedder {
    fn identity(&self) -> String {
        self.core.identity.clone()
    }

    fn dim(&self) -> usize {
        self.core.config.hidden_size
    }

    /// Last hidden state of every token, `[CLS]` and `[SEP]` included and flagged, truncated to
    /// `max_length` tokens like [`Embedder::embed`].
    fn embed_tokens(&self, texts: &[&str]) -> Result<Vec<TokenEmbedding>, ModelError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        self.core.install(|| self.embed_tokens_inner(texts))
    }
}
