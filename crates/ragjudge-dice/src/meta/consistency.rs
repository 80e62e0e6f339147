//! Factual consistency judged claim by claim: each summary sentence against the few source
//! sentences most like it (premise selection, as SummaC's sentence-level premises, Laban et al.
//! 2022, and the NLI-based metrics of Honovich et al. 2022 select them), the judge's probability
//! of "Yes" as its support; a summary is as consistent as its least supported sentence.
//! Measured against human consistency labels (QAGS, Wang et al. 2020, in UniEval's layout).

use std::path::Path;
use std::sync::{Arc, OnceLock};

use ragjudge_core::text::split_sentences;
use ragjudge_core::InputError;
use ragjudge_lexical::rouge::RougeScorer;
use ragjudge_models::{Judge, Message, ModelError, Prompt};
use serde::{Deserialize, Serialize};

use crate::prompts::{fill, section, sections};

/// Prompt version of the claim-support call.
pub const ENTAIL_VERSION: &str = "entail-en-v1";
const ENTAIL_V1: &str = include_str!("../../prompts/entail-en-v1.txt");

/// A source text, a summary of it and the human consistency label.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConsistencyItem {
    /// Position in the file.
    pub id: usize,
    /// The source (article).
    pub source: String,
    /// The judged summary.
    pub summary: String,
    /// Human consistency in [0, 1] (1: every sentence judged consistent).
    pub label: f64,
}

#[derive(Deserialize)]
struct UniEvalItem {
    source: String,
    system_output: String,
    scores: serde_json::Map<String, serde_json::Value>,
}

/// Reads a JSON list of `{"source", "system_output", "scores": {"consistency"}}` (UniEval's
/// layout of QAGS and SummEval); a malformed item is an error naming the file and the item.
pub fn read_consistency(path: &Path) -> Result<Vec<ConsistencyItem>, InputError> {
    let name = path.display().to_string();
    let text =
        std::fs::read_to_string(path).map_err(|e| InputError::fatal(&name, None, format!("cannot read: {e}")))?;
    let values: Vec<serde_json::Value> = serde_json::from_str(&text)
        .map_err(|e| InputError::fatal(&name, None, format!("expected a JSON list of scored summaries: {e}")))?;
    values
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            let item: UniEvalItem = serde_json::from_value(v)
                .map_err(|e| InputError::fatal(&name, None, format!("item {i}: not a scored summary: {e}")))?;
            let label = item.scores.get("consistency").and_then(|c| c.as_f64()).ok_or_else(|| {
                InputError::new(&name, None, Some("scores.consistency".into()), format!("item {i}: no number"))
            })?;
            Ok(ConsistencyItem { id: i, source: item.source, summary: item.system_output, label })
        })
        .collect()
}

/// The `k` sentences of `sentences` most like `claim` (ROUGE-2 recall of the claim, then
/// ROUGE-1 recall), in their original order.
pub fn select_premise<'a>(claim: &str, sentences: &[&'a str], k: usize) -> Vec<&'a str> {
    let scorer = RougeScorer::new(true);
    let mut scored: Vec<(usize, f64, f64)> = sentences
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let r = scorer.score(claim, s);
            (i, r.rouge2.recall, r.rouge1.recall)
        })
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(b.2.total_cmp(&a.2)).then(a.0.cmp(&b.0)));
    let mut keep: Vec<usize> = scored.iter().take(k).map(|s| s.0).collect();
    keep.sort_unstable();
    keep.into_iter().map(|i| sentences[i]).collect()
}

fn template() -> &'static [(String, String)] {
    static P: OnceLock<Vec<(String, String)>> = OnceLock::new();
    P.get_or_init(|| sections(ENTAIL_V1))
}

/// The claim-support prompt of `claim` against `premise` sentences.
pub fn entail_prompt(premise: &[&str], claim: &str) -> Prompt {
    let t = template();
    let get = |name: &str| section(t, ENTAIL_VERSION, name);
    let user = fill(&get("user"), &[("premise", &premise.join(" ")), ("claim", claim)]);
    Prompt {
        messages: vec![Message::new("system", get("system")), Message::new("user", user)],
        assistant_prefix: Some(get("prefix")),
    }
}

/// A summary's support: per sentence P(Yes), and their minimum.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Support {
    /// P(Yes) per summary sentence.
    pub sentences: Vec<f64>,
    /// The least supported sentence's P(Yes) (the summary's score).
    pub score: f64,
}

impl Support {
    /// The mean support of the summary's sentences (1 for a summary without a sentence).
    pub fn mean(&self) -> f64 {
        if self.sentences.is_empty() {
            1.0
        } else {
            self.sentences.iter().sum::<f64>() / self.sentences.len() as f64
        }
    }
}

/// Judges every sentence of each summary against its selected premise (`k` source sentences).
pub fn judge_support(judge: &Arc<dyn Judge>, items: &[ConsistencyItem], k: usize) -> Vec<Result<Support, ModelError>> {
    let labels = vec!["Yes".to_string(), "No".to_string()];
    let mut requests = Vec::new();
    let mut spans = Vec::new();
    for item in items {
        let source = split_sentences(&item.source);
        let claims = split_sentences(&item.summary);
        let start = requests.len();
        for c in &claims {
            requests.push((entail_prompt(&select_premise(c, &source, k), c), labels.clone()));
        }
        spans.push(start..requests.len());
    }
    let mut replies: Vec<Option<Result<f64, ModelError>>> =
        judge.label_probs_many(&requests).into_iter().map(|r| Some(r.map(|lp| lp.probs[0]))).collect();
    spans
        .into_iter()
        .map(|span| {
            let sentences =
                span.map(|i| replies[i].take().expect("each reply used once")).collect::<Result<Vec<_>, _>>()?;
            let score = sentences.iter().copied().fold(f64::INFINITY, f64::min);
            Ok(Support { score: if sentences.is_empty() { 1.0 } else { score }, sentences })
        })
        .collect()
}

/// ROUGE-2 precision of the summary against its source: the lexical baseline.
pub fn rouge2_precision(item: &ConsistencyItem) -> f64 {
    RougeScorer::new(false).score(&item.source, &item.summary).rouge2.precision
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_premise_is_the_most_overlapping_sentences_in_document_order() {
        let source = ["The cat sat on the mat.", "Dogs bark at night.", "The mat was red.", "It rained."];
        let p = select_premise("The cat sat on a red mat.", &source, 2);
        assert_eq!(p, vec!["The cat sat on the mat.", "The mat was red."]);
        assert_eq!(select_premise("x", &source, 10).len(), 4);
    }

    #[test]
    fn the_prompt_holds_premise_and_claim_and_ends_at_the_answer() {
        let p = entail_prompt(&["A b.", "C d."], "E {f}.");
        let user = &p.messages[1].content;
        assert!(user.contains("Premise:\nA b. C d.") && user.contains("Claim:\nE {f}."));
        assert_eq!(p.assistant_prefix.as_deref(), Some("Answer:"));
    }
}
