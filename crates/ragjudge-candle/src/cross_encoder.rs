//! Sequence-pair classification as Hugging Face `BertForSequenceClassification`: the `[CLS]`
//! state through `BertPooler` (dense + tanh), then the `classifier` linear layer
//! (Devlin et al. 2019, "BERT", section 4.1).

use std::path::Path;

use candle_core::{IndexOp, Module, Tensor};
use candle_nn::Linear;
use ragjudge_models::{CrossEncoder, ModelError};

use crate::encoder::{infer_err, load_err, load_failed, BertCore, EncoderOptions};

/// A BERT cross-encoder (e.g. an NLI or reranking model).
pub struct BertCrossEncoder {
    core: BertCore,
    pooler: Linear,
    classifier: Linear,
    labels: Vec<String>,
}

impl std::fmt::Debug for BertCrossEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BertCrossEncoder").field("identity", &self.core.identity).field("labels", &self.labels).finish()
    }
}

impl BertCrossEncoder {
    /// Loads a `BertForSequenceClassification` directory: `bert.*` (or un-prefixed) encoder weights,
    /// `bert.pooler.dense.*`, `classifier.*`, and `id2label` in `config.json`.
    pub fn load(dir: &Path, opts: &EncoderOptions) -> Result<Self, ModelError> {
        let core = BertCore::load(dir, opts)?;
        let labels = core.labels()?;
        let h = core.config.hidden_size;
        let vb = core.head_vb();
        let pooler = ["bert.pooler.dense", "pooler.dense"]
            .iter()
            .find_map(|p| candle_nn::linear(h, h, vb.pp(p)).ok())
            .ok_or_else(|| load_err("no pooler weights (bert.pooler.dense.weight)"))?;
        let classifier =
            candle_nn::linear(h, labels.len(), vb.pp("classifier")).map_err(|e| load_failed("classifier", e))?;
        Ok(Self { core, pooler, classifier, labels })
    }

    fn logits_inner(&self, pairs: &[(&str, &str)]) -> Result<Vec<Vec<f32>>, ModelError> {
        let encodings = self.core.encode_pairs(pairs)?;
        let mut out = vec![Vec::new(); pairs.len()];
        for batch in self.core.batches(&encodings)? {
            let hidden = self.core.hidden(&batch)?;
            let logits = self.head(&hidden).map_err(infer_err)?;
            for (&i, v) in batch.indices.iter().zip(logits.to_vec2::<f32>().map_err(infer_err)?) {
                out[i] = v;
            }
        }
        Ok(out)
    }

    fn head(&self, hidden: &Tensor) -> candle_core::Result<Tensor> {
        let cls = hidden.i((.., 0))?;
        let pooled = self.pooler.forward(&cls)?.tanh()?;
        self.classifier.forward(&pooled)
    }
}

impl CrossEncoder for BertCrossEncoder {
    fn identity(&self) -> String {
        self.core.identity.clone()
    }

    fn labels(&self) -> Vec<String> {
        self.labels.clone()
    }

    fn logits(&self, pairs: &[(&str, &str)]) -> Result<Vec<Vec<f32>>, ModelError> {
        if pairs.is_empty() {
            return Ok(Vec::new());
        }
        self.core.install(|| self.logits_inner(pairs))
    }
}
