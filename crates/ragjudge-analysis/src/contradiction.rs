//! Contradictory passages for robustness testing (HCAT (Sudjianto et al.), §6.1, adversarial
//! contexts): a retrieved passage with one fact altered by a model. The model is asked to change
//! exactly one fact (a number, a date, a name or a place) and keep every other word; the rewrite
//! is kept only when it still looks like the passage (length within half to one and a half times
//! the original's, not the same text) and the judge does *not* find one of its changed sentences
//! entailed by the original (P(Yes) of the entailment check below 0.5 for the least entailed,
//! each against the original sentences most like it, `ragjudge_trec::answer::entailment`), so
//! that it really contradicts it. [`crate::adversarial`] inserts the kept rewrites among the passages.

use std::collections::HashMap;
use std::sync::Arc;

use ragjudge_core::text::split_sentences;
use ragjudge_lexical::premise::{select_premise, DEFAULT_PREMISE_SENTENCES};
use ragjudge_models::{GenParams, Judge, Message, Prompt};
use ragjudge_trec::answer::EntailmentModel;
use ragjudge_trec::TrecError;
use serde::Serialize;

/// Version of the rewrite prompt; cached calls are keyed on the prompt, so any change of its text
/// needs a new version.
pub const CONTRADICT_VERSION: &str = "contradict-en-v1";

const SYSTEM: &str = "You edit texts precisely and change only what you are asked to change.";
const USER: &str = "Rewrite the passage below, changing exactly one fact in it (a number, a date, a name or a place) \
so that the new passage contradicts the original. Keep every other word as it is. Reply with the rewritten \
passage only.\n\nPassage:\n";

/// The rewrite prompt of one passage.
pub fn contradict_prompt(passage: &str) -> Prompt {
    Prompt {
        messages: vec![Message::new("system", SYSTEM), Message::new("user", format!("{USER}{passage}"))],
        assistant_prefix: None,
    }
}

/// A passage and what became of its rewrite.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Altered {
    /// The rewrite, when it was kept.
    pub text: Option<String>,
    /// P(the original entails the rewrite's least entailed changed sentence), when checked.
    pub entailed: Option<f64>,
    /// Why the rewrite was not kept.
    pub rejected: Option<String>,
}

/// Rewrites each distinct passage once and checks the rewrites; by passage text.
pub fn alter_passages(judge: &Arc<dyn Judge>, passages: &[&str]) -> HashMap<String, Altered> {
    let mut distinct: Vec<&str> = Vec::new();
    for p in passages {
        if !distinct.contains(p) {
            distinct.push(p);
        }
    }
    let requests: Vec<(Prompt, GenParams)> = distinct
        .iter()
        .map(|p| {
            // Room for the passage again (about 4 characters per token), greedy.
            let max_tokens = (p.chars().count() / 2).clamp(64, 1024) as u32;
            (contradict_prompt(p), GenParams { max_tokens, temperature: 0.0, ..GenParams::default() })
        })
        .collect();
    let replies = judge.generate_many(&requests);
    let mut out: HashMap<String, Altered> = HashMap::new();
    let mut to_check: Vec<(&str, String)> = Vec::new();
    for (p, reply) in distinct.iter().zip(replies) {
        let reject = |why: String| Altered { text: None, entailed: None, rejected: Some(why) };
        let text = match reply {
            Ok(g) => clean(&g.text),
            Err(e) => {
                out.insert(p.to_string(), reject(format!("rewrite failed: {e}")));
                continue;
            }
        };
        let ratio = text.chars().count() as f64 / p.chars().count().max(1) as f64;
        if text.trim() == p.trim() {
            out.insert(p.to_string(), reject("the rewrite is the original".into()));
        } else if !(0.5..=1.5).contains(&ratio) {
            out.insert(p.to_string(), reject(format!("the rewrite is {ratio:.2} times as long as the original")));
        } else {
            to_check.push((p, text));
        }
    }
    // Each changed sentence of a rewrite against the original sentences most like it.
    let mut premises: Vec<String> = Vec::new();
    let mut claims: Vec<String> = Vec::new();
    let mut spans: Vec<std::ops::Range<usize>> = Vec::new();
    for (p, text) in &to_check {
        let original = split_sentences(p);
        let start = claims.len();
        for c in changed_sentences(p, text) {
            premises.push(select_premise(&c, &original, DEFAULT_PREMISE_SENTENCES).join(" "));
            claims.push(c);
        }
        spans.push(start..claims.len());
    }
    let pairs: Vec<(&str, &str)> = premises.iter().map(String::as_str).zip(claims.iter().map(String::as_str)).collect();
    let mut checks: Vec<Option<Result<f64, _>>> =
        EntailmentModel::Judge(Arc::clone(judge)).probs(&pairs).into_iter().map(Some).collect();
    for ((p, text), span) in to_check.into_iter().zip(spans) {
        if span.is_empty() {
            out.insert(
                p.to_string(),
                Altered { text: None, entailed: None, rejected: Some("no sentence changed".into()) },
            );
            continue;
        }
        // The least entailed changed sentence decides.
        let probs: Result<Vec<f64>, _> = span
            .map(|i| {
                let check = checks.get_mut(i).and_then(Option::take);
                check.unwrap_or_else(|| Err(TrecError::Model("the batch returned no entailment check".into())))
            })
            .collect();
        let altered = match probs {
            Ok(v) => {
                let e = v.iter().copied().fold(f64::INFINITY, f64::min);
                if e < 0.5 {
                    Altered { text: Some(text), entailed: Some(e), rejected: None }
                } else {
                    let why = format!("the original entails every changed sentence (P >= {e:.2}): no contradiction");
                    Altered { text: None, entailed: Some(e), rejected: Some(why) }
                }
            }
            Err(e) => Altered { text: None, entailed: None, rejected: Some(format!("entailment check failed: {e}")) },
        };
        out.insert(p.to_string(), altered);
    }
    out
}

/// The sentences of `rewrite` that are not sentences of `original` (whitespace aside).
pub fn changed_sentences(original: &str, rewrite: &str) -> Vec<String> {
    let norm = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let before: std::collections::HashSet<String> = split_sentences(original).into_iter().map(norm).collect();
    split_sentences(rewrite).into_iter().map(norm).filter(|s| !s.is_empty() && !before.contains(s)).collect()
}

/// The reply without a leading "Passage:" or "Rewritten passage:" label and surrounding quotes.
fn clean(reply: &str) -> String {
    let mut t = reply.trim();
    for label in ["Rewritten passage:", "Passage:", "Rewrite:"] {
        if let Some(rest) = t.strip_prefix(label) {
            t = rest.trim();
        }
    }
    t.trim_matches('"').trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::yes_no;
    use ragjudge_models::{Generation, LabelProbs, ModelError, Usage};
    use std::sync::atomic::{AtomicU64, Ordering};

    /// Rewrites "1455" as "1502" and leaves other passages as they are; the entailment check
    /// says Yes with 0.9 unless the claim holds "1502" (0.1).
    struct Editor {
        generated: AtomicU64,
    }

    impl Judge for Editor {
        fn identity(&self) -> String {
            "scripted:editor".into()
        }
        fn generate(&self, prompt: &Prompt, _: &GenParams) -> Result<Generation, ModelError> {
            self.generated.fetch_add(1, Ordering::Relaxed);
            let passage = prompt.messages[1].content.split("Passage:\n").nth(1).unwrap_or_default();
            if passage.contains("fail") {
                return Err(ModelError::Inference("scripted".into()));
            }
            Ok(Generation { text: format!("Passage: {}", passage.replace("1455", "1502")), ..Default::default() })
        }
        fn label_probs(&self, prompt: &Prompt, labels: &[String]) -> Result<LabelProbs, ModelError> {
            let p =
                if prompt.messages[1].content.contains("Claim:\nThe Bible was completed in 1502") { 0.1 } else { 0.9 };
            Ok(yes_no(labels, p))
        }
        fn usage(&self) -> Usage {
            Usage::default()
        }
    }

    #[test]
    fn a_rewrite_is_kept_only_when_it_contradicts_the_original() {
        let editor = Arc::new(Editor { generated: AtomicU64::new(0) });
        let judge: Arc<dyn Judge> = editor.clone();
        let a = "The Bible was completed in 1455.";
        let b = "Water boils at a hundred degrees.";
        let out = alter_passages(&judge, &[a, b, a, "This one will fail."]);
        // Three distinct passages, each rewritten once.
        assert_eq!(editor.generated.load(Ordering::Relaxed), 3);
        assert_eq!(out[a].text.as_deref(), Some("The Bible was completed in 1502."));
        assert_eq!(out[a].entailed, Some(0.1));
        assert_eq!(out[b].rejected.as_deref(), Some("the rewrite is the original"));
        assert!(out["This one will fail."].rejected.as_ref().unwrap().starts_with("rewrite failed"));
    }

    #[test]
    fn only_the_changed_sentences_are_checked() {
        assert_eq!(
            changed_sentences("It rained. The  sun set at 6.", "It rained. The sun set at 9."),
            ["The sun set at 9."]
        );
        assert!(changed_sentences("It rained.", "It  rained.").is_empty());
    }

    #[test]
    fn the_prompt_asks_for_one_changed_fact_and_labels_are_stripped() {
        let p = contradict_prompt("Some text.");
        assert!(
            p.messages[1].content.ends_with("Passage:\nSome text.")
                && p.messages[1].content.contains("exactly one fact")
        );
        assert_eq!(clean("Rewritten passage: \"It rained.\""), "It rained.");
    }
}
