//! Entailment of answer sentences by the context (HCAT §3.2.2).
//!
//! The paper maps the signed distance `D` of the NLI input to the entailment decision boundary to a
//! groundedness probability `sigma(D) = 1 / (1 + e^-D)`: `D > 0` is the entailment side (grounded),
//! `D < 0` a potential hallucination. Two sources of `D` are supported: an NLI cross-encoder
//! ([`distance_from_logits`]) and a generative judge ([`distance_from_label_probs`]).

use crate::error::HcatError;
use ragjudge_models::{CrossEncoder, Judge, LabelProbs, Prompt};
use std::sync::Arc;

/// What the premise of each answer sentence is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Premise {
    /// The whole context, passages joined by blank lines, as in the paper ("each sentence `a_i` is
    /// combined with the context `C`"). A cross-encoder truncates what exceeds its input length.
    #[default]
    Joined,
    /// Each passage on its own; the sentence's `D` is the largest over the passages. One model call
    /// per passage and sentence; nothing is truncated unless a single passage is too long.
    BestPassage,
}

/// One answer sentence's entailment: the signed distance `D` and `sigma(D)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Entailment {
    /// `D`, or `None` where the source gives only a hard label (then the score is 0 or 1).
    pub distance: Option<f64>,
    /// `sigma(D)`, the groundedness probability in `[0, 1]`.
    pub score: f64,
}

impl Entailment {
    /// The entailment of signed distance `d`.
    pub fn from_distance(d: f64) -> Self {
        Self { distance: Some(d), score: sigmoid(d) }
    }
}

/// `sigma(x) = 1 / (1 + e^-x)`, computed without overflow.
pub fn sigmoid(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

/// The index of the entailment label: the first label whose lower-case form starts with `entail`
/// (so `ENTAILMENT` and `entailment` match, `not_entailment` does not).
pub fn entailment_index(labels: &[String]) -> Result<usize, HcatError> {
    labels
        .iter()
        .position(|l| l.trim().to_lowercase().starts_with("entail"))
        .filter(|_| labels.len() >= 2)
        .ok_or_else(|| HcatError::NoEntailmentLabel(labels.join(", ")))
}

/// `D` from an NLI classifier's logits: `z_entail - max_{c != entail} z_c`.
///
/// The paper's `D = z / |w|` is the distance of the pooled embedding `x` to the hyperplane
/// `w.x + b = 0` of a linear head. A softmax head has one hyperplane per pair of classes; the one
/// that decides entailment is against the strongest rival class `c`, with normal `w_e - w_c` and
/// signed value `z_e - z_c`. The head's weights are not visible through the logits, so `|w|` is
/// taken as 1: `D` is then the logit margin, `D > 0` exactly when entailment is the predicted class,
/// and for a two-class model `sigma(D)` is the softmax probability of entailment.
pub fn distance_from_logits(logits: &[f32], entail: usize) -> Result<f64, HcatError> {
    let z = logits.get(entail).copied().map(f64::from);
    let rival = logits.iter().enumerate().filter(|&(c, _)| c != entail).map(|(_, &v)| f64::from(v)).reduce(f64::max);
    match (z, rival) {
        (Some(z), Some(r)) if z.is_finite() && r.is_finite() => Ok(z - r),
        _ => Err(HcatError::Model(format!("NLI logits {logits:?} lack a finite entailment or rival class").into())),
    }
}

/// `D` from a judge's probabilities of the labels `[yes, no]`: `D = log p_yes - log p_no`, the
/// log-odds of entailment, so `sigma(D) = p_yes / (p_yes + p_no)`. With a hard label (one
/// probability 0) `D` is infinite: it is reported as `None` and the score is 0 or 1.
pub fn distance_from_label_probs(probs: &LabelProbs) -> Result<Entailment, HcatError> {
    let (yes, no) = match probs.probs.as_slice() {
        [yes, no] => (*yes, *no),
        other => return Err(HcatError::Model(format!("expected 2 label probabilities, got {}", other.len()).into())),
    };
    if !(yes.is_finite() && no.is_finite() && yes >= 0.0 && no >= 0.0 && yes + no > 0.0) {
        return Err(HcatError::Model(format!("unusable label probabilities yes={yes}, no={no}").into()));
    }
    if yes > 0.0 && no > 0.0 {
        Ok(Entailment::from_distance(yes.ln() - no.ln()))
    } else {
        Ok(Entailment { distance: None, score: yes / (yes + no) })
    }
}

/// The entailment prompt for a judge: the context as premise, one answer sentence as hypothesis,
/// answered with one of two single-token labels.
pub fn entailment_prompt(premise: &str, hypothesis: &str, labels: &[String; 2]) -> Prompt {
    let (yes, no) = (&labels[0], &labels[1]);
    let system = format!(
        "You check facts. Decide whether the statement is fully supported by the context alone. \
         Answer with one word: {yes} if it is supported, {no} if it is not."
    );
    let user = format!(
        "Context:\n{premise}\n\nStatement: {hypothesis}\n\nIs the statement supported by the context? Answer {yes} or {no}."
    );
    Prompt::chat(&system, user)
}

/// Where entailment scores come from.
#[derive(Clone)]
pub enum NliSource {
    /// An NLI cross-encoder: pairs (premise, hypothesis), the entailment label from its config.
    CrossEncoder {
        /// The model.
        model: Arc<dyn CrossEncoder>,
        /// Index of the entailment logit.
        entail: usize,
    },
    /// A generative judge asked [`entailment_prompt`], scored on two single-token labels.
    Judge {
        /// The judge.
        judge: Arc<dyn Judge>,
        /// The labels meaning "entailed" and "not entailed", e.g. `Yes`, `No`.
        labels: [String; 2],
    },
}

impl std::fmt::Debug for NliSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.kind())
    }
}

impl NliSource {
    /// A cross-encoder source; fails when the model has no entailment label.
    pub fn cross_encoder(model: Arc<dyn CrossEncoder>) -> Result<Self, HcatError> {
        let entail = entailment_index(&model.labels())?;
        Ok(Self::CrossEncoder { model, entail })
    }

    /// A judge source with labels `[yes, no]`.
    pub fn judge(judge: Arc<dyn Judge>, labels: [String; 2]) -> Self {
        Self::Judge { judge, labels }
    }

    /// `cross-encoder` or `judge`, for the detail output.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::CrossEncoder { .. } => "cross-encoder",
            Self::Judge { .. } => "judge",
        }
    }

    /// The entailment of each `(premise, hypothesis)` pair, in order, in one batched model call.
    /// A failed call fails every pair.
    pub fn entail(&self, pairs: &[(&str, &str)]) -> Vec<Result<Entailment, HcatError>> {
        if pairs.is_empty() {
            return Vec::new();
        }
        match self {
            Self::CrossEncoder { model, entail } => match model.logits(pairs) {
                Ok(rows) if rows.len() == pairs.len() => {
                    rows.iter().map(|row| distance_from_logits(row, *entail).map(Entailment::from_distance)).collect()
                }
                Ok(rows) => {
                    let e = HcatError::Model(
                        format!("NLI model gave {} results for {} pairs", rows.len(), pairs.len()).into(),
                    );
                    vec![Err(e); pairs.len()]
                }
                Err(e) => vec![Err(HcatError::Model(ragjudge_models::Reason::caused("NLI model", e))); pairs.len()],
            },
            Self::Judge { judge, labels } => {
                let requests: Vec<(Prompt, Vec<String>)> =
                    pairs.iter().map(|(p, h)| (entailment_prompt(p, h, labels), labels.to_vec())).collect();
                let answers = judge.label_probs_many(&requests);
                if answers.len() != pairs.len() {
                    let e = HcatError::Model(
                        format!("judge gave {} results for {} prompts", answers.len(), pairs.len()).into(),
                    );
                    return vec![Err(e); pairs.len()];
                }
                answers
                    .into_iter()
                    .map(|a| match a {
                        Ok(probs) => distance_from_label_probs(&probs),
                        Err(e) => Err(HcatError::Model(ragjudge_models::Reason::caused("entailment judge", e))),
                    })
                    .collect()
            }
        }
    }
}
