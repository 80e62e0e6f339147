//! Entailment probabilities P(premise entails hypothesis) from an NLI cross-encoder or a judge.
//!
//! Open RAG Eval (Open RAG Eval, "Hallucination Detection") scores factual consistency with HHEM, a
//! cross-encoder that reads (sources, answer) and returns a consistency probability; no such model
//! ships here, so any NLI cross-encoder stands in, and without one the judge answers yes / no after
//! an entailment prompt and its label probabilities are used.

use crate::error::TrecError;
use std::sync::Arc;

use ragjudge_models::{CrossEncoder, Judge, Message, Prompt};

/// Open RAG Eval's HHEM input limit: sources longer than this many characters are truncated
/// (`HHEMBackend(max_chars=8192)`, Open RAG Eval "Max Input: 8192 characters").
pub const MAX_SOURCE_CHARS: usize = 8192;

/// The first `max` characters (Unicode scalar values, as Python's `s[:max]`) of `s`, and whether
/// anything was cut.
pub fn truncate_chars(s: &str, max: usize) -> (&str, bool) {
    match s.char_indices().nth(max) {
        Some((byte, _)) => (&s[..byte], true),
        None => (s, false),
    }
}

/// Version of the judge's entailment prompt; cached calls are keyed on the prompt, so any change
/// of its text needs a new version.
pub const ENTAILMENT_VERSION: &str = "entail-en-v1";

/// The judge's system message for entailment questions.
pub const ENTAILMENT_SYSTEM: &str =
    "You are a careful fact checker. You decide whether a claim is supported by a premise, using only the premise.";

/// The judge's entailment question; `{premise}` and `{hypothesis}` are filled in.
pub const ENTAILMENT_PROMPT: &str = "Premise:\n{premise}\n\nClaim:\n{hypothesis}\n\nIs every fact in the claim \
stated in, or directly implied by, the premise? Names, numbers, dates and who did what must match. Answer Yes or No.";

/// The start of the judge's turn; the next token is the verdict.
pub const ENTAILMENT_PREFIX: &str = "Answer:";

/// The two single-token labels the judge's probabilities are read on; the first means "entailed".
pub const ENTAILMENT_LABELS: [&str; 2] = ["Yes", "No"];

/// The entailment prompt for one (premise, hypothesis) pair.
pub fn entailment_prompt(premise: &str, hypothesis: &str) -> Prompt {
    let user = ENTAILMENT_PROMPT.replacen("{premise}", premise, 1);
    // The premise is inserted first, so a `{hypothesis}` inside it is not the placeholder: split
    // on the last occurrence.
    let user = match user.rfind("{hypothesis}") {
        Some(i) => format!("{}{}{}", &user[..i], hypothesis, &user[i + "{hypothesis}".len()..]),
        None => user,
    };
    Prompt {
        messages: vec![Message::new("system", ENTAILMENT_SYSTEM), Message::new("user", user)],
        assistant_prefix: Some(ENTAILMENT_PREFIX.to_string()),
    }
}

/// Where entailment probabilities come from.
#[derive(Clone)]
pub enum EntailmentModel {
    /// An NLI cross-encoder read on (premise, hypothesis): the softmax probability of its label
    /// containing `entail`; a model with one output (HHEM-style) gives `sigmoid(logit)`.
    CrossEncoder(Arc<dyn CrossEncoder>),
    /// A judge asked [`ENTAILMENT_PROMPT`]: `P(Yes)` over the labels `Yes` / `No`.
    Judge(Arc<dyn Judge>),
}

impl std::fmt::Debug for EntailmentModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe())
    }
}

impl EntailmentModel {
    /// `cross-encoder:IDENTITY` or `judge:IDENTITY`, for details and traces.
    pub fn describe(&self) -> String {
        match self {
            EntailmentModel::CrossEncoder(m) => format!("cross-encoder:{}", m.identity()),
            EntailmentModel::Judge(j) => format!("judge:{}", j.identity()),
        }
    }

    /// P(entailed) for each (premise, hypothesis) pair, in order, in one batched model call.
    pub fn probs(&self, pairs: &[(&str, &str)]) -> Vec<Result<f64, TrecError>> {
        self.probs_with(pairs, |i| entailment_prompt(pairs[i].0, pairs[i].1))
    }

    /// [`probs`](Self::probs) where a judge reads `prompt(i)` for pair `i` (ending where the next
    /// token is `Yes` or `No`) instead of [`entailment_prompt`]; a cross-encoder reads the pairs.
    pub fn probs_with(&self, pairs: &[(&str, &str)], prompt: impl Fn(usize) -> Prompt) -> Vec<Result<f64, TrecError>> {
        if pairs.is_empty() {
            return Vec::new();
        }
        match self {
            EntailmentModel::CrossEncoder(m) => cross_encoder_probs(m.as_ref(), pairs, entailment_index),
            EntailmentModel::Judge(j) => judge_yes(j.as_ref(), pairs.len(), prompt),
        }
    }

    /// P(the hypothesis contradicts the premise) for each pair: a cross-encoder's softmax
    /// probability of its label containing `contradict` (a one-output model cannot tell a
    /// contradiction from new information and is refused), or a judge's `P(Yes)` on `prompt(i)`,
    /// which must ask whether the two contradict each other.
    pub fn contradiction_probs_with(
        &self,
        pairs: &[(&str, &str)],
        prompt: impl Fn(usize) -> Prompt,
    ) -> Vec<Result<f64, TrecError>> {
        if pairs.is_empty() {
            return Vec::new();
        }
        match self {
            EntailmentModel::CrossEncoder(m) => cross_encoder_probs(m.as_ref(), pairs, contradiction_index),
            EntailmentModel::Judge(j) => judge_yes(j.as_ref(), pairs.len(), prompt),
        }
    }
}

/// The judge's `P(Yes)` on `prompt(i)` for `i < n`, in one batched call.
fn judge_yes(j: &dyn Judge, n: usize, prompt: impl Fn(usize) -> Prompt) -> Vec<Result<f64, TrecError>> {
    let labels: Vec<String> = ENTAILMENT_LABELS.iter().map(|s| s.to_string()).collect();
    let requests: Vec<(Prompt, Vec<String>)> = (0..n).map(|i| (prompt(i), labels.clone())).collect();
    j.label_probs_many(&requests)
        .into_iter()
        .map(|r| match r {
            Ok(lp) => lp
                .probs
                .first()
                .copied()
                .filter(|p| p.is_finite())
                .ok_or_else(|| TrecError::Output("judge returned no probability for `Yes`".into())),
            Err(e) => Err(TrecError::Model(ragjudge_models::Reason::caused("entailment judge failed", e))),
        })
        .collect()
}

/// Index of the contradiction label; a one-output model has none.
fn contradiction_index(labels: &[String]) -> Result<Option<usize>, TrecError> {
    labels.iter().position(|l| l.to_lowercase().contains("contradict")).map(Some).ok_or_else(|| {
        TrecError::Options(format!(
            "cross-encoder labels {labels:?} have no contradiction label (a three-label NLI model is needed)"
        ))
    })
}

/// Index of the entailment label, or `None` for a one-output model.
fn entailment_index(labels: &[String]) -> Result<Option<usize>, TrecError> {
    if labels.len() == 1 {
        return Ok(None);
    }
    labels
        .iter()
        .position(|l| l.to_lowercase().contains("entail"))
        .map(Some)
        .ok_or_else(|| TrecError::Options(format!("cross-encoder labels {labels:?} have no entailment label")))
}

/// The softmax probability of the label `label_index` picks (sigmoid of a one-output model's logit
/// when it picks none) for each pair.
fn cross_encoder_probs(
    m: &dyn CrossEncoder,
    pairs: &[(&str, &str)],
    label_index: fn(&[String]) -> Result<Option<usize>, TrecError>,
) -> Vec<Result<f64, TrecError>> {
    let fail = |e: TrecError| pairs.iter().map(|_| Err(e.clone())).collect();
    let index = match label_index(&m.labels()) {
        Ok(i) => i,
        Err(e) => return fail(e),
    };
    let rows = match m.logits(pairs) {
        Ok(r) if r.len() == pairs.len() => r,
        Ok(r) => {
            return fail(TrecError::Contract(format!(
                "cross-encoder returned {} rows for {} pairs",
                r.len(),
                pairs.len()
            )))
        }
        Err(e) => return fail(TrecError::Model(ragjudge_models::Reason::caused("cross-encoder failed", e))),
    };
    rows.into_iter().map(|row| entailment_from_logits(&row, index)).collect()
}

/// Softmax probability of `row[index]`, or `sigmoid(row[0])` when `index` is `None`.
fn entailment_from_logits(row: &[f32], index: Option<usize>) -> Result<f64, TrecError> {
    if row.is_empty() || row.iter().any(|x| !x.is_finite()) {
        return Err(TrecError::Model(format!("cross-encoder logits {row:?} are empty or not finite").into()));
    }
    match index {
        None => Ok(1.0 / (1.0 + (-f64::from(row[0])).exp())),
        Some(i) => {
            let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max) as f64;
            let exps: Vec<f64> = row.iter().map(|&x| (f64::from(x) - max).exp()).collect();
            let total: f64 = exps.iter().sum();
            exps.get(i)
                .map(|e| e / total)
                .ok_or_else(|| TrecError::Contract(format!("logit row {row:?} has no index {i}")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prompt_holds_premise_and_claim_and_ends_at_the_answer() {
        let p = entailment_prompt("A b. C d.", "E {premise}.");
        let user = &p.messages[1].content;
        assert!(user.contains("Premise:\nA b. C d.") && user.contains("Claim:\nE {premise}."), "{user}");
        assert_eq!(p.assistant_prefix.as_deref(), Some("Answer:"));
    }

    #[test]
    fn truncation_counts_characters_not_bytes() {
        assert_eq!(truncate_chars("héllo", 2), ("hé", true));
        assert_eq!(truncate_chars("北京是首都", 5), ("北京是首都", false));
        assert_eq!(truncate_chars("北京是首都", 3), ("北京是", true));
        assert_eq!(truncate_chars("", 0), ("", false));
    }

    #[test]
    fn softmax_and_sigmoid() {
        // softmax([0, ln 3]) = [1/4, 3/4]
        let p = entailment_from_logits(&[0.0, 3f32.ln()], Some(1)).unwrap();
        assert!((p - 0.75).abs() < 1e-6);
        // sigmoid(0) = 0.5
        assert_eq!(entailment_from_logits(&[0.0], None).unwrap(), 0.5);
        assert!(entailment_from_logits(&[f32::NAN, 0.0], Some(0)).is_err());
    }

    #[test]
    fn label_lookup() {
        let l = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(entailment_index(&l(&["contradiction", "ENTAILMENT", "neutral"])), Ok(Some(1)));
        assert_eq!(entailment_index(&l(&["consistent"])), Ok(None));
        assert!(entailment_index(&l(&["a", "b"])).is_err());
        assert_eq!(contradiction_index(&l(&["CONTRADICTION", "entailment", "neutral"])), Ok(Some(0)));
        assert!(contradiction_index(&l(&["consistent"])).is_err());
    }

    #[test]
    fn prompt_placeholders_inside_texts_are_not_expanded() {
        let p = entailment_prompt("premise with {hypothesis} inside", "the claim");
        let user = &p.messages[1].content;
        assert!(user.contains("premise with {hypothesis} inside"));
        assert!(user.contains("Claim:\nthe claim\n"));
    }
}
