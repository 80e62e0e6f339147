//! Per-token classification as Hugging Face `BertForTokenClassification`: the `classifier`
//! linear layer over every final hidden state (Devlin et al. 2019, "BERT", section 5.3).

use std::path::Path;

use candle_core::{Module, D};
use candle_nn::Linear;
use ragjudge_models::{ModelError, TokenClassifier, TokenPrediction};

use crate::encoder::{infer_err, load_failed, BertCore, EncoderOptions};

/// A BERT token classifier (e.g. PII named-entity recognition).
///
/// Inputs longer than `max_length` tokens are truncated: tokens past it get no prediction.
pub struct BertTokenClassifier {
    core: BertCore,
    classifier: Linear,
    labels: Vec<String>,
}

impl std::fmt::Debug for BertTokenClassifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BertTokenClassifier")
            .field("identity", &self.core.identity)
            .field("labels", &self.labels)
            .finish()
    }
}

impl BertTokenClassifier {
    /// Loads a `BertForTokenClassification` directory: `bert.*` (or un-prefixed) encoder weights,
    /// `classifier.*`, and `id2label` in `config.json`.
    pub fn load(dir: &Path, opts: &EncoderOptions) -> Result<Self, ModelError> {
        let core = BertCore::load(dir, opts)?;
        let labels = core.labels()?;
        let classifier = candle_nn::linear(core.config.hidden_size, labels.len(), core.head_vb().pp("classifier"))
            .map_err(|e| load_failed("classifier", e))?;
        Ok(Self { core, classifier, labels })
    }

    fn classify_inner(&self, texts: &[&str]) -> Result<Vec<Vec<TokenPrediction>>, ModelError> {
        let encodings = self.core.encode(texts)?;
        let mut out = vec![Vec::new(); texts.len()];
        for batch in self.core.batches(&encodings)? {
            let hidden = self.core.hidden(&batch)?;
            let probs = self
                .classifier
                .forward(&hidden)
                .and_then(|l| candle_nn::ops::softmax_last_dim(&l))
                .map_err(infer_err)?;
            let best = probs.argmax(D::Minus1).and_then(|t| t.to_vec2::<u32>()).map_err(infer_err)?;
            let probs = probs.to_vec3::<f32>().map_err(infer_err)?;
            for (row, &i) in batch.indices.iter().enumerate() {
                let e = &encodings[i];
                let mut preds = Vec::new();
                for t in 0..e.len() {
                    if e.get_special_tokens_mask()[t] == 1 {
                        continue;
                    }
                    let label = best[row][t] as usize;
                    let (start, end) = e.get_offsets()[t];
                    preds.push(TokenPrediction {
                        token: e.get_tokens()[t].clone(),
                        start,
                        end,
                        label: self.labels[label].clone(),
                        score: probs[row][t][label],
                    });
                }
                out[i] = preds;
            }
        }
        Ok(out)
    }
}

impl TokenClassifier for BertTokenClassifier {
    fn identity(&self) -> String {
        self.core.identity.clone()
    }

    fn labels(&self) -> Vec<String> {
        self.labels.clone()
    }

    fn classify(&self, texts: &[&str]) -> Result<Vec<Vec<TokenPrediction>>, ModelError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        self.core.install(|| self.classify_inner(texts))
    }
}
