//! Question paraphrases written by a model, for robustness testing (HCAT (Sudjianto et al.),
//! §6.1, input variations): a *colloquial* rewording (how a user might type it) and a *terse* one
//! (a search-box query). A paraphrase that changed the question is worse than none, so each is
//! checked before it is kept: the judge must say the two questions ask for the same information
//! (P(Yes) of a yes/no question at least 0.5), and, when an embedding model is given, their cosine
//! similarity must reach a floor. A paraphrase equal to the question is dropped as well.

use std::collections::HashMap;
use std::sync::Arc;

use ragjudge_core::numeric::cosine_or_zero;
use ragjudge_models::{Embedder, GenParams, Judge, Message, Prompt};
use serde::Serialize;

/// Version of the paraphrase and same-meaning prompts; cached calls are keyed on the prompt.
pub const PARAPHRASE_VERSION: &str = "paraphrase-en-v1";

/// A way of rewording a question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Style {
    /// As a user might type it in a chat: informal, other words, same request.
    Colloquial,
    /// As a search-box query: a few key words.
    Terse,
}

impl Style {
    /// `colloquial` or `terse`.
    pub fn name(self) -> &'static str {
        match self {
            Style::Colloquial => "colloquial",
            Style::Terse => "terse",
        }
    }

    fn instruction(self) -> &'static str {
        match self {
            Style::Colloquial => {
                "Rewrite the question below the way a user might casually type it into a chat: informal, \
                 in other words, asking for exactly the same information. Reply with the rewritten question only."
            }
            Style::Terse => {
                "Rewrite the question below as a short search query of a few key words, asking for exactly \
                 the same information. Reply with the query only."
            }
        }
    }
}

/// The prompt rewording `question` in `style`.
pub fn paraphrase_prompt(style: Style, question: &str) -> Prompt {
    let user = format!("{}\n\nQuestion:\n{question}", style.instruction());
    Prompt {
        messages: vec![
            Message::new("system", "You rewrite questions without changing what they ask."),
            Message::new("user", user),
        ],
        assistant_prefix: None,
    }
}

/// The yes/no prompt asking whether two questions ask for the same information.
pub fn same_meaning_prompt(question: &str, paraphrase: &str) -> Prompt {
    let user = format!(
        "Question 1:\n{question}\n\nQuestion 2:\n{paraphrase}\n\nDo the two questions ask for the same information, so \
         that one correct answer answers both? Answer Yes or No."
    );
    Prompt {
        messages: vec![Message::new("system", "You compare questions carefully."), Message::new("user", user)],
        assistant_prefix: Some("Answer:".into()),
    }
}

/// A paraphrase and its checks.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Paraphrase {
    /// The paraphrase, when it was kept.
    pub text: Option<String>,
    /// The judge's P(same information).
    pub same_meaning: Option<f64>,
    /// Cosine similarity of the two questions' embeddings, when an embedder was given.
    pub similarity: Option<f64>,
    /// Why it was not kept.
    pub rejected: Option<String>,
}

fn rejected(why: String) -> Paraphrase {
    Paraphrase { text: None, same_meaning: None, similarity: None, rejected: Some(why) }
}

/// The reply's first line, without a label or quotes.
fn clean(reply: &str) -> String {
    let mut t = reply.trim().lines().next().unwrap_or_default().trim();
    for label in ["Question:", "Query:", "Rewritten question:", "Question 2:"] {
        if let Some(rest) = t.strip_prefix(label) {
            t = rest.trim();
        }
    }
    t.trim_matches('"').trim().to_string()
}

/// Paraphrases every distinct question in `style` and checks them (the judge, and the embedder
/// when given, with `min_similarity`); by question text.
pub fn paraphrase_questions(
    judge: &Arc<dyn Judge>,
    embedder: Option<&dyn Embedder>,
    questions: &[&str],
    style: Style,
    min_similarity: f64,
) -> HashMap<String, Paraphrase> {
    let mut distinct: Vec<&str> = Vec::new();
    for q in questions {
        if !distinct.contains(q) {
            distinct.push(q);
        }
    }
    let params = GenParams { max_tokens: 96, temperature: 0.0, ..GenParams::default() };
    let requests: Vec<(Prompt, GenParams)> =
        distinct.iter().map(|q| (paraphrase_prompt(style, q), params.clone())).collect();
    let mut out = HashMap::new();
    let mut candidates: Vec<(&str, String)> = Vec::new();
    for (q, reply) in distinct.iter().zip(judge.generate_many(&requests)) {
        match reply.map(|g| clean(&g.text)) {
            Err(e) => {
                out.insert(q.to_string(), rejected(format!("paraphrase failed: {e}")));
            }
            Ok(t) if t.is_empty() => {
                out.insert(q.to_string(), rejected("empty paraphrase".into()));
            }
            Ok(t) if t.to_lowercase() == q.trim().to_lowercase() => {
                out.insert(q.to_string(), rejected("the paraphrase is the question".into()));
            }
            Ok(t) => candidates.push((q, t)),
        }
    }
    let labels = vec!["Yes".to_string(), "No".to_string()];
    let checks: Vec<(Prompt, Vec<String>)> =
        candidates.iter().map(|(q, t)| (same_meaning_prompt(q, t), labels.clone())).collect();
    let verdicts = judge.label_probs_many(&checks);
    let texts: Vec<&str> = candidates.iter().flat_map(|(q, t)| [*q, t.as_str()]).collect();
    let vectors = embedder.map(|e| e.embed(&texts));
    for (k, ((q, t), verdict)) in candidates.into_iter().zip(verdicts).enumerate() {
        let similarity = match &vectors {
            Some(Ok(v)) => Some(cosine_or_zero(&v[2 * k], &v[2 * k + 1])),
            _ => None,
        };
        let p = match verdict {
            Ok(lp) => lp.probs[0],
            Err(e) => {
                out.insert(q.to_string(), rejected(format!("same-meaning check failed: {e}")));
                continue;
            }
        };
        let why = if let Some(Err(e)) = &vectors {
            Some(format!("embedding failed: {e}"))
        } else if let Some(Err(e)) = &similarity {
            Some(format!("embedding similarity: {e}"))
        } else if p < 0.5 {
            Some(format!("the judge finds the meaning changed (P(same) = {p:.2})"))
        } else if let Some(Ok(s)) = similarity.filter(|s| s.is_ok_and(|s| s < min_similarity)) {
            Some(format!("embedding similarity {s:.3} below {min_similarity}"))
        } else {
            None
        };
        let kept = why.is_none().then_some(t);
        let similarity = similarity.and_then(Result::ok);
        out.insert(q.to_string(), Paraphrase { text: kept, same_meaning: Some(p), similarity, rejected: why });
    }
    out
}

/// The variant records of `questions` (JSON objects with `id` and the text in `field`) whose
/// paraphrase in `style` was kept: id `ID~STYLE`, the paraphrase in `field`, and `meta.variant_of`,
/// `meta.perturbation`, `meta.severity` (1), `meta.same_meaning`, `meta.similarity`; every other
/// field is kept. Returns them with the number of questions dropped per reason (its figures left
/// out, so that equal reasons count together).
pub fn paraphrase_variants(
    questions: &[serde_json::Value],
    field: &str,
    style: Style,
    done: &HashMap<String, Paraphrase>,
) -> (Vec<serde_json::Value>, std::collections::BTreeMap<String, usize>) {
    use serde_json::Value;
    let (mut out, mut dropped) = (Vec::new(), std::collections::BTreeMap::new());
    for q in questions {
        let Some(p) = q.get(field).and_then(Value::as_str).and_then(|t| done.get(t)) else { continue };
        let Some(text) = &p.text else {
            let why = p.rejected.clone().unwrap_or_default();
            let kind = why.split(|c: char| c == '(' || c.is_ascii_digit()).next().unwrap_or_default().trim();
            *dropped.entry(kind.to_string()).or_default() += 1;
            continue;
        };
        let id = match q.get("id") {
            Some(Value::String(s)) => s.clone(),
            Some(v) => v.to_string(),
            None => String::new(),
        };
        let mut v = q.clone();
        v[field] = Value::from(text.clone());
        v["id"] = Value::from(format!("{id}~{}", style.name()));
        if !v.get("meta").is_some_and(Value::is_object) {
            v["meta"] = serde_json::json!({});
        }
        v["meta"]["variant_of"] = Value::from(id);
        v["meta"]["perturbation"] = Value::from(style.name());
        v["meta"]["severity"] = Value::from(1);
        v["meta"]["same_meaning"] = serde_json::json!(p.same_meaning);
        v["meta"]["similarity"] = serde_json::json!(p.similarity);
        out.push(v);
    }
    (out, dropped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::yes_no;
    use ragjudge_models::{Generation, LabelProbs, ModelError, Usage};

    /// Paraphrases by rule: "capital" questions become "whats the capital of X", the "boil"
    /// question comes back unchanged, anything else becomes "tell me a joke"; the same-meaning
    /// check says Yes (0.9) unless Question 2 asks for a joke (0.1).
    struct Rewriter;

    impl Judge for Rewriter {
        fn identity(&self) -> String {
            "scripted:rewriter".into()
        }
        fn generate(&self, prompt: &Prompt, _: &GenParams) -> Result<Generation, ModelError> {
            let q = prompt.messages[1].content.split("Question:\n").nth(1).unwrap_or_default();
            let text = if let Some(x) = q.strip_prefix("What is the capital of ") {
                format!("Question: \"whats the capital of {}\"\n(informal)", x.trim_end_matches('?'))
            } else if q.contains("boil") {
                q.to_string()
            } else {
                "tell me a joke".into()
            };
            Ok(Generation { text, ..Default::default() })
        }
        fn label_probs(&self, prompt: &Prompt, labels: &[String]) -> Result<LabelProbs, ModelError> {
            let p = if prompt.messages[1].content.contains("Question 2:\ntell me a joke") { 0.1 } else { 0.9 };
            Ok(yes_no(labels, p))
        }
        fn usage(&self) -> Usage {
            Usage::default()
        }
    }

    /// Embeds by length class: texts under 30 characters on one axis, longer ones on another.
    struct ByLength;

    impl Embedder for ByLength {
        fn identity(&self) -> String {
            "scripted:length".into()
        }
        fn dim(&self) -> usize {
            2
        }
        fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, ModelError> {
            Ok(texts.iter().map(|t| if t.len() < 30 { vec![1.0, 0.0] } else { vec![0.6, 0.8] }).collect())
        }
    }

    #[test]
    fn a_paraphrase_that_changes_the_question_is_dropped() {
        let judge: Arc<dyn Judge> = Arc::new(Rewriter);
        let capital = "What is the capital of Mongolia?";
        let boil = "At what temperature does water boil?";
        let other = "Who wrote Hamlet?";
        let out = paraphrase_questions(&judge, None, &[capital, boil, other, capital], Style::Colloquial, 0.8);
        assert_eq!(out.len(), 3);
        assert_eq!(out[capital].text.as_deref(), Some("whats the capital of Mongolia"));
        assert_eq!(out[capital].same_meaning, Some(0.9));
        assert_eq!(out[boil].rejected.as_deref(), Some("the paraphrase is the question"));
        assert_eq!(out[other].text, None);
        assert_eq!(out[other].rejected.as_deref(), Some("the judge finds the meaning changed (P(same) = 0.10)"));
        // With an embedder: the 32-character question and its 29-character paraphrase fall in
        // different length classes, cosine 0.6 < 0.8.
        let out = paraphrase_questions(&judge, Some(&ByLength), &[capital], Style::Terse, 0.8);
        assert!((out[capital].similarity.unwrap() - 0.6).abs() < 1e-6);
        assert!(out[capital].rejected.as_ref().unwrap().starts_with("embedding similarity 0.600 below 0.8"));
        let out = paraphrase_questions(&judge, Some(&ByLength), &[capital], Style::Terse, 0.5);
        assert!(out[capital].text.is_some());
    }

    #[test]
    fn the_prompts_carry_the_style_and_both_questions() {
        assert!(paraphrase_prompt(Style::Terse, "Q?").messages[1].content.contains("short search query"));
        let p = same_meaning_prompt("A?", "B?");
        assert!(p.messages[1].content.contains("Question 1:\nA?\n\nQuestion 2:\nB?"));
        assert_eq!(p.assistant_prefix.as_deref(), Some("Answer:"));
    }
}
