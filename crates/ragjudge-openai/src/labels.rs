//! Label probabilities from `top_logprobs`, and hard labels from generated text.

use crate::snippet;
use ragjudge_models::{LabelProbs, ModelError, ProbSource};

/// Label probabilities from the first token's `top_logprobs` as (token, logprob).
///
/// A token matches a label when both are equal after trimming whitespace (so `A` and ` A` both
/// count for label `A`); a label's log-probability is the log of the summed probabilities of
/// its matching tokens, as the local backend sums a label's bare and space-led forms. The
/// probabilities are a softmax over the found labels' log-probabilities; a label absent from the
/// list gets logit `-inf` and probability 0. `label_mass` is the sum of `exp(logprob)` over all
/// matching tokens. No label among the tokens is a [`ModelError::Protocol`] error.
pub fn label_probs_from_top_logprobs(labels: &[String], top: &[(String, f64)]) -> Result<LabelProbs, ModelError> {
    // Per label: the largest matching log-probability and the sum of exp(lp - largest).
    let mut found: Vec<Option<(f64, f64)>> = vec![None; labels.len()];
    let mut mass = 0.0;
    for (token, lp) in top {
        let t = token.trim();
        if t.is_empty() || !lp.is_finite() {
            continue;
        }
        let mut matched = false;
        for (i, label) in labels.iter().enumerate() {
            if label.trim() == t {
                found[i] = Some(match found[i] {
                    None => (*lp, 1.0),
                    Some((m, s)) if *lp > m => (*lp, s * (m - lp).exp() + 1.0),
                    Some((m, s)) => (m, s + (lp - m).exp()),
                });
                matched = true;
            }
        }
        if matched {
            mass += lp.exp();
        }
    }
    let best: Vec<Option<f64>> = found.iter().map(|f| f.map(|(m, s)| m + s.ln())).collect();
    let Some(max) = best.iter().flatten().copied().reduce(f64::max) else {
        let shown: Vec<&str> = top.iter().take(10).map(|(t, _)| t.as_str()).collect();
        return Err(ModelError::Protocol(format!("none of the labels {labels:?} is among the top logprobs {shown:?}")));
    };
    let weights: Vec<f64> = best.iter().map(|b| b.map_or(0.0, |l| (l - max).exp())).collect();
    let total: f64 = weights.iter().sum();
    Ok(LabelProbs {
        labels: labels.to_vec(),
        probs: weights.iter().map(|w| w / total).collect(),
        logits: best.iter().map(|b| b.unwrap_or(f64::NEG_INFINITY)).collect(),
        label_mass: Some(mass),
        source: ProbSource::TopLogprobs,
    })
}

/// The generated text as a hard label: the label equal to it after trimming, else the longest
/// label it starts with; probability 1 for that label, 0 (logit `-inf`) for the others.
pub fn hard_label(labels: &[String], generated: &str) -> Result<LabelProbs, ModelError> {
    let g = generated.trim();
    let pick = labels.iter().position(|l| l.trim() == g).or_else(|| {
        labels
            .iter()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty() && g.starts_with(l.trim()))
            .max_by_key(|(_, l)| l.trim().len())
            .map(|(i, _)| i)
    });
    let Some(k) = pick else {
        return Err(ModelError::Protocol(format!("generated `{}` is none of the labels {labels:?}", snippet(g))));
    };
    Ok(LabelProbs {
        labels: labels.to_vec(),
        probs: (0..labels.len()).map(|i| if i == k { 1.0 } else { 0.0 }).collect(),
        logits: (0..labels.len()).map(|i| if i == k { 0.0 } else { f64::NEG_INFINITY }).collect(),
        label_mass: None,
        source: ProbSource::HardLabel,
    })
}
