//! Sentence embeddings: BERT, mean pooling over the attention mask, L2 normalisation, as
//! sentence-transformers' `Transformer -> Pooling(pooling_mode_mean_tokens) -> Normalize`
//! (Reimers & Gurevych 2019, "Sentence-BERT", section 3), and the token vectors before pooling
//! (sentence-transformers' `output_value="token_embeddings"`), as BERTScore uses them
//! (Zhang et al. 2020, "BERTScore", section 3).
//!
//! A model directory may hold sentence-transformers' `config_sentence_transformers.json` with
//! `prompts` (name -> text put before each input) and a `default_prompt_name`. E5 models need
//! them: multilingual-e5-small was trained on inputs that start with `query: ` or `passage: `
//! (Wang et al. 2024, "Multilingual E5 Text Embeddings: A Technical Report", section 2; Wang et
//! al. 2022, "Text Embeddings by Weakly-Supervised Contrastive Pre-training", section 4.2), and its
//! model card asks for `query: ` on both sides of symmetric tasks (similarity, clustering,
//! re-ranking by closeness). [`Embedder::embed`] puts the default prompt before every text;
//! [`BertEmbedder::embed_with_prompt`] picks another (e.g. `passage` for the passages of an
//! asymmetric retrieval); the token vectors ([`TokenEmbedder`]) are of the bare text.

use std::collections::BTreeMap;
use std::path::Path;

use ragjudge_models::{Embedder, ModelError, TokenEmbedder, TokenEmbedding};

use crate::encoder::{infer_msg, load_err, load_failed, BertCore, EncoderOptions};
use crate::vector_math;

/// A BERT sentence embedder (e.g. all-MiniLM-L6-v2, 384 dimensions).
pub struct BertEmbedder {
    core: BertCore,
    /// Prompt name -> text put before an input, from `config_sentence_transformers.json`.
    prompts: BTreeMap<String, String>,
    /// The prompt [`Embedder::embed`] uses (`default_prompt_name`), if any.
    default_prompt: Option<String>,
}

/// The prompts of `config_sentence_transformers.json` in `dir` (none without the file) and the
/// name of the default one, which must be among them.
fn read_prompts(dir: &Path) -> Result<(BTreeMap<String, String>, Option<String>), ModelError> {
    let path = dir.join("config_sentence_transformers.json");
    if !path.is_file() {
        return Ok((BTreeMap::new(), None));
    }
    #[derive(serde::Deserialize)]
    struct Prompts {
        #[serde(default)]
        prompts: BTreeMap<String, String>,
        #[serde(default)]
        default_prompt_name: Option<String>,
    }
    let raw = std::fs::read_to_string(&path)?;
    let p: Prompts = serde_json::from_str(&raw).map_err(|e| load_failed(path.display(), e))?;
    if let Some(name) = &p.default_prompt_name {
        if !p.prompts.contains_key(name) {
            return Err(load_err(format!("{}: default prompt `{name}` is not among the prompts", path.display())));
        }
    }
    Ok((p.prompts, p.default_prompt_name))
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
    ///
    /// Prompts come from `config_sentence_transformers.json` when the directory has one.
    pub fn load(dir: &Path, opts: &EncoderOptions) -> Result<Self, ModelError> {
        let (prompts, default_prompt) = read_prompts(dir)?;
        Ok(Self { core: BertCore::load(dir, opts)?, prompts, default_prompt })
    }

    /// The model's prompts by name (empty for a model without any).
    pub fn prompts(&self) -> &BTreeMap<String, String> {
        &self.prompts
    }

    /// The name of the prompt [`Embedder::embed`] puts before each text, if any.
    pub fn default_prompt(&self) -> Option<&str> {
        self.default_prompt.as_deref()
    }

    /// Like [`Embedder::embed`], with the prompt called `name` (e.g. `passage`) before each text
    /// instead of the default one; `None` embeds the bare texts.
    pub fn embed_with_prompt(&self, texts: &[&str], name: Option<&str>) -> Result<Vec<Vec<f32>>, ModelError> {
        let prefix = match name {
            None => "",
            Some(n) => self.prompts.get(n).ok_or_else(|| {
                infer_msg(format!(
                    "the model has no prompt `{n}` (it has: {:?})",
                    self.prompts.keys().collect::<Vec<_>>()
                ))
            })?,
        };
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        if prefix.is_empty() {
            return self.core.install(|| self.embed_inner(texts));
        }
        let owned: Vec<String> = texts.iter().map(|t| format!("{prefix}{t}")).collect();
        let refs: Vec<&str> = owned.iter().map(String::as_str).collect();
        self.core.install(|| self.embed_inner(&refs))
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

    /// Mean-pooled, L2-normalised vectors of the texts, each behind the default prompt if the
    /// model has one (`query: ` for E5).
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, ModelError> {
        self.embed_with_prompt(texts, self.default_prompt.as_deref())
    }

    /// Behind the model's `passage` prompt when it has one (`passage: ` for E5), else as `embed`.
    fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, ModelError> {
        if self.prompts.contains_key("passage") {
            self.embed_with_prompt(texts, Some("passage"))
        } else {
            self.embed(texts)
        }
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
