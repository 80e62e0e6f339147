//! Selection of generated questions (HCAT section 2, step 5): the judge checks that the source
//! answers the question (the probability of "Yes", or for unanswerable questions that it does
//! not), the reference answer must be close to some sentence of the source (embedding cosine, or
//! the share of its words found in the source),
//! near-duplicate questions are dropped (embedding cosine), and questions that a model could
//! answer without retrieval are flagged; at most N questions per topic are kept.

use ragjudge_core::numeric::cosine_or_zero;
use ragjudge_core::text::split_sentences;
use ragjudge_models::{Embedder, Judge, Prompt};
use serde::Serialize;

use crate::error::TestgenError;
use crate::generate::{PromptSet, QueryType};

/// Thresholds of selection.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct SelectOptions {
    /// Least P(Yes) that the source answers an answerable question (unanswerable ones need less
    /// than 1 - this).
    pub min_answerable: f64,
    /// Least grounding of a free-text reference answer: the larger of its cosine with the closest
    /// source sentence and the share of its words found in the sources.
    pub min_grounding: f64,
    /// Questions at least this similar to a kept one are dropped.
    pub max_similarity: f64,
    /// P(Yes) above which a question is flagged as answerable without retrieval.
    pub closed_book: f64,
    /// Most questions kept per topic (0 = no limit).
    pub per_topic: usize,
}

impl Default for SelectOptions {
    fn default() -> Self {
        Self { min_answerable: 0.5, min_grounding: 0.45, max_similarity: 0.92, closed_book: 0.5, per_topic: 0 }
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
    /// The source chunks' texts.
    pub sources: Vec<String>,
    /// Language of the first source (`en`, `zh`).
    pub lang: &'static str,
    /// Topic index.
    pub topic: usize,
}

/// The checks of one candidate and the verdict.
#[derive(Debug, Clone, Serialize)]
pub struct Checks {
    /// P(Yes) that the sources answer the question.
    pub answerable: Option<f64>,
    /// Cosine of the reference answer with its closest source sentence (free-text answers).
    pub grounding: Option<f64>,
    /// P(Yes) that the question can be answered without any document.
    pub closed_book: Option<f64>,
    /// Cosine with the most similar question kept before it.
    pub nearest_kept: Option<f64>,
    /// Kept, or why not.
    pub verdict: Result<(), String>,
}

fn yes_prob(judge: &dyn Judge, prompt: &Prompt) -> Result<f64, TestgenError> {
    let labels = vec!["Yes".to_string(), "No".to_string()];
    let p = judge
        .label_probs(prompt, &labels)
        .map_err(|e| TestgenError::Numeric { step: "selection", message: e.to_string() })?;
    Ok(p.probs[0])
}

/// Share of the answer's words (lower-cased; a CJK character is a word) found in the sources:
/// 1 for an answer copied from them. Grounding takes the larger of this and the embedding
/// cosine, so that an extractive answer passes even where the embedding model does not know the
/// language (MiniLM is English-only).
fn word_recall(answer: &str, sources: &[String]) -> f64 {
    let source: std::collections::HashSet<String> =
        sources.iter().flat_map(|s| ragjudge_core::text::words(s)).map(str::to_lowercase).collect();
    let words: Vec<String> = ragjudge_core::text::words(answer).into_iter().map(str::to_lowercase).collect();
    if words.is_empty() {
        return 0.0;
    }
    words.iter().filter(|w| source.contains(*w)).count() as f64 / words.len() as f64
}

/// Checks candidates in order; a model call that fails rejects that candidate with the reason.
pub fn select(
    judge: &dyn Judge,
    embedder: &dyn Embedder,
    candidates: &[Candidate],
    options: &SelectOptions,
) -> Result<Vec<Checks>, TestgenError> {
    let questions: Vec<&str> = candidates.iter().map(|c| c.question.as_str()).collect();
    let qvec = embedder.embed(&questions)?;
    let mut kept: Vec<usize> = Vec::new();
    let mut per_topic: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
    let mut out = Vec::with_capacity(candidates.len());
    for (i, c) in candidates.iter().enumerate() {
        let p = PromptSet::for_lang(c.lang);
        let mut checks =
            Checks { answerable: None, grounding: None, closed_book: None, nearest_kept: None, verdict: Ok(()) };
        let nearest = kept
            .iter()
            .map(|&j| cosine_or_zero(&qvec[i], &qvec[j]))
            .try_fold(None, |m: Option<f64>, x| x.map(|x| Some(m.map_or(x, |m| m.max(x)))))?;
        checks.nearest_kept = nearest;
        let verdict = (|| -> Result<Result<(), String>, TestgenError> {
            if let Some(s) = nearest.filter(|&s| s >= options.max_similarity) {
                return Ok(Err(format!("near-duplicate of a kept question (cosine {s:.3})")));
            }
            let passage = c.sources.join("\n\n");
            let ask =
                p.section("check_answers").replace("{passage}", passage.trim()).replace("{question}", &c.question);
            let answerable = yes_prob(judge, &Prompt::chat("", ask))?;
            checks.answerable = Some(answerable);
            if c.query_type == QueryType::Unanswerable {
                if answerable > 1.0 - options.min_answerable {
                    return Ok(Err(format!("the source seems to answer it (P(yes) {answerable:.2})")));
                }
            } else if answerable < options.min_answerable {
                return Ok(Err(format!("the source does not answer it (P(yes) {answerable:.2})")));
            }
            if matches!(c.query_type, QueryType::Factual | QueryType::MultiHop | QueryType::Inference) {
                let sentences: Vec<&str> = c.sources.iter().flat_map(|s| split_sentences(s)).collect();
                let mut texts = vec![c.answer.as_str()];
                texts.extend(sentences.iter().copied());
                let v = embedder.embed(&texts)?;
                let cos =
                    v[1..].iter().map(|s| cosine_or_zero(&v[0], s)).try_fold(0.0f64, |m, c| c.map(|c| m.max(c)))?;
                let best = cos.max(word_recall(&c.answer, &c.sources));
                checks.grounding = Some(best);
                if best < options.min_grounding {
                    return Ok(Err(format!(
                        "the reference answer is not grounded in the source (grounding {best:.2})"
                    )));
                }
            }
            if options.per_topic > 0 && per_topic.get(&c.topic).copied().unwrap_or(0) >= options.per_topic {
                return Ok(Err(format!("topic already has {} questions", options.per_topic)));
            }
            let ask = p.section("check_closed_book").replace("{question}", &c.question);
            checks.closed_book = Some(yes_prob(judge, &Prompt::chat("", ask))?);
            Ok(Ok(()))
        })();
        checks.verdict = match verdict {
            Ok(v) => v,
            Err(e) => Err(format!("check failed: {e}")),
        };
        if checks.verdict.is_ok() {
            kept.push(i);
            *per_topic.entry(c.topic).or_insert(0) += 1;
        }
        out.push(checks);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_recall_by_hand() {
        let src = vec!["毕昇发明了活字印刷术。".to_string(), "Gutenberg built a press.".to_string()];
        // 毕 昇: both in the source; "Gutenberg press" 2 of 2; "Gutenberg's wooden press": the
        // apostrophe joins "gutenberg's" (not in the source), so 1 of 3.
        assert_eq!(word_recall("毕昇", &src), 1.0);
        assert_eq!(word_recall("Gutenberg press", &src), 1.0);
        approx::assert_abs_diff_eq!(word_recall("Gutenberg's wooden press", &src), 1.0 / 3.0, epsilon = 1e-12);
        assert_eq!(word_recall("", &src), 0.0);
    }
}
