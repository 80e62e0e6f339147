//! What the crate's unit tests share.

use ragjudge_models::{LabelProbs, ProbSource};

/// Probabilities `p` and `1 - p` of two labels (a scripted yes/no judge).
pub(crate) fn yes_no(labels: &[String], p: f64) -> LabelProbs {
    LabelProbs {
        labels: labels.to_vec(),
        probs: vec![p, 1.0 - p],
        logits: vec![0.0; 2],
        label_mass: None,
        source: ProbSource::Logits,
    }
}
