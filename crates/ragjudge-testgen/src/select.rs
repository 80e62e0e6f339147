//! Selection of the questions that passed their own checks ([`crate::verify`]) and the
//! near-duplicate check of generation, as a set (HCAT section 2, step 5): at most N questions per
//! topic are kept, and questions that a model could answer without retrieval are flagged.

use ragjudge_models::{Judge, Prompt};
use serde::Serialize;

use crate::generate::{PromptSet, QueryType};
use crate::verify::VerifyOptions;

/// Thresholds of the checks and of selection.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct SelectOptions {
    /// Bars of each question's own checks.
    pub verify: VerifyOptions,
    /// A question at least this similar (embedding cosine of the question, without options) to
    /// one kept before it is regenerated.
    pub max_similarity: f64,
    /// P(Yes) above which a question is flagged as answerable without retrieval.
    pub closed_book: f64,
    /// Most questions kept per topic (0 = no limit).
    pub per_topic: usize,
}

impl Default for SelectOptions {
    fn default() -> Self {
        Self { verify: VerifyOptions::default(), max_similarity: 0.92, closed_book: 0.5, per_topic: 0 }
    }
}

/// A candidate question to check.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// Type.
    pub query_type: QueryType,
    /// Question text.
    pub question: String,
    /// Reference answer.
    pub answer: String,
    /// Language of the first source (`en`, `zh`).
    pub lang: &'static str,
    /// Topic index.
    pub topic: usize,
}

/// The set checks of one candidate and the verdict.
#[derive(Debug, Clone, Serialize)]
pub struct Checks {
    /// P(Yes) that the question can be answered without any document.
    pub closed_book: Option<f64>,
    /// Kept, or why not.
    pub verdict: Result<(), String>,
}

/// Checks candidates in order; a model call that fails rejects that candidate with the reason.
pub fn select(judge: &dyn Judge, candidates: &[Candidate], options: &SelectOptions) -> Vec<Checks> {
    let mut per_topic: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
    let mut out = Vec::with_capacity(candidates.len());
    let labels = vec!["Yes".to_string(), "No".to_string()];
    for c in candidates {
        let mut checks = Checks { closed_book: None, verdict: Ok(()) };
        checks.verdict = if options.per_topic > 0 && per_topic.get(&c.topic).copied().unwrap_or(0) >= options.per_topic
        {
            Err(format!("topic already has {} questions", options.per_topic))
        } else {
            let ask = PromptSet::for_lang(c.lang).section("check_closed_book").replace("{question}", &c.question);
            match judge.label_probs(&Prompt::chat("", ask), &labels) {
                Ok(p) => {
                    checks.closed_book = Some(p.probs[0]);
                    Ok(())
                }
                Err(e) => Err(format!("check failed: {e}")),
            }
        };
        if checks.verdict.is_ok() {
            *per_topic.entry(c.topic).or_insert(0) += 1;
        }
        out.push(checks);
    }
    out
}
