//! Hallucination (factual consistency) score of an answer against its retrieved passages
//! (Open RAG Eval, "Hallucination Detection").
//!
//! As Open RAG Eval's `HallucinationMetric`: the passages are joined with a space and truncated
//! to [`MAX_SOURCE_CHARS`] characters (the answer itself is not truncated); the score is in
//! [0, 1], higher meaning more consistent. Where Open RAG Eval reads one HHEM probability for the
//! whole answer, here each answer sentence (`ragjudge_core::text::split_sentences`) is checked
//! against the passages by an [`EntailmentModel`] and the per-sentence probabilities are
//! aggregated ([`SentenceAggregate`]: the mean by default), so the detail can name the
//! least-supported sentences. [`SentenceAggregate::WholeAnswer`] reproduces the single-pair form.
//!
//! Each sentence is checked against the few passage sentences most like it
//! ([`HallucinationOptions::premise_sentences`], 3 by default; premise selection as SummaC's
//! sentence-level premises, Laban et al. 2022), not against all passages: a small judge reads a
//! short premise much better, and much faster (`docs/judge-eval.md` has the measurements).
//! `premise_sentences: None` checks every sentence against all passages, as Open RAG Eval does.

use crate::error::TrecError;
use ragjudge_core::text::split_sentences;
use ragjudge_core::{Metric, MetricError, MetricOutput, Record};
use serde::Serialize;
use serde_json::json;

use super::entailment::{truncate_chars, EntailmentModel, MAX_SOURCE_CHARS};
use ragjudge_lexical::premise::{select_premise, DEFAULT_PREMISE_SENTENCES};

/// How per-sentence entailment probabilities become one score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SentenceAggregate {
    /// Mean over answer sentences: the expected share of supported sentences.
    #[default]
    Mean,
    /// The least-supported sentence: one hallucinated sentence sinks the answer.
    Min,
    /// One (passages, whole answer) pair, as HHEM is used in Open RAG Eval.
    WholeAnswer,
}

/// Options of [`HallucinationMetric`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HallucinationOptions {
    /// Passages longer than this (in characters) are truncated; 8,192 as in Open RAG Eval.
    pub max_source_chars: usize,
    /// Aggregation of sentence probabilities.
    pub aggregate: SentenceAggregate,
    /// How many least-supported sentences the detail names.
    pub least_supported: usize,
    /// Passage sentences shown as each sentence's premise (the most similar ones,
    /// [`select_premise`]); `None`: all passages (truncated to `max_source_chars`).
    pub premise_sentences: Option<usize>,
}

impl Default for HallucinationOptions {
    fn default() -> Self {
        Self {
            max_source_chars: MAX_SOURCE_CHARS,
            aggregate: SentenceAggregate::Mean,
            least_supported: 3,
            premise_sentences: Some(DEFAULT_PREMISE_SENTENCES),
        }
    }
}

/// Support of one answer sentence (or of the whole answer).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SentenceSupport {
    /// Position of the sentence in the answer (0-based).
    pub index: usize,
    /// The sentence text.
    pub sentence: String,
    /// P(the passages entail it).
    pub entailment: f64,
}

/// The hallucination score of one answer with its evidence.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HallucinationScore {
    /// Factual consistency in [0, 1] (higher = less hallucination).
    pub score: f64,
    /// Aggregation used.
    pub aggregate: SentenceAggregate,
    /// Every checked unit, in answer order.
    pub sentences: Vec<SentenceSupport>,
    /// The least-supported units, lowest first.
    pub least_supported: Vec<SentenceSupport>,
    /// Characters of the joined passages before truncation.
    pub source_chars: usize,
    /// Whether the passages were truncated (never with premise selection).
    pub truncated: bool,
    /// Passage sentences per premise (`None`: all passages).
    pub premise_sentences: Option<usize>,
    /// The entailment model used.
    pub model: String,
}

/// The hallucination metric: column `hallucination_score`.
#[derive(Debug, Clone)]
pub struct HallucinationMetric {
    model: EntailmentModel,
    opts: HallucinationOptions,
}

/// What one record asks of the entailment model.
struct Plan {
    /// One premise per unit.
    premises: Vec<String>,
    source_chars: usize,
    truncated: bool,
    units: Vec<String>,
}

impl HallucinationMetric {
    /// A metric reading entailment from `model`.
    pub fn new(model: EntailmentModel, opts: HallucinationOptions) -> Self {
        Self { model, opts }
    }

    /// The passages joined by a space (as Open RAG Eval's `" ".join(passages)`), truncated to
    /// `max_source_chars` characters; with the untruncated length in characters and whether it was cut.
    pub fn premise(&self, record: &Record) -> (String, usize, bool) {
        let joined = record.contexts.iter().map(|c| c.text.as_str()).collect::<Vec<_>>().join(" ");
        let (cut, truncated) = truncate_chars(&joined, self.opts.max_source_chars);
        (cut.to_string(), joined.chars().count(), truncated)
    }

    fn plan(&self, record: &Record) -> Result<Plan, TrecError> {
        if record.contexts.iter().all(|c| c.text.trim().is_empty()) {
            return Err(TrecError::NothingToCheck("no passage text to check the answer against".into()));
        }
        let units: Vec<String> = match self.opts.aggregate {
            SentenceAggregate::WholeAnswer => {
                Some(record.answer.trim().to_string()).filter(|a| !a.is_empty()).into_iter().collect()
            }
            _ => split_sentences(&record.answer).into_iter().map(str::to_string).collect(),
        };
        if units.is_empty() {
            return Err(TrecError::NothingToCheck("empty answer".into()));
        }
        let (premise, source_chars, truncated) = self.premise(record);
        let selected = self.opts.premise_sentences.filter(|_| self.opts.aggregate != SentenceAggregate::WholeAnswer);
        let Some(k) = selected else {
            return Ok(Plan { premises: vec![premise; units.len()], source_chars, truncated, units });
        };
        let joined = record.contexts.iter().map(|c| c.text.as_str()).collect::<Vec<_>>().join(" ");
        let sentences = split_sentences(&joined);
        let premises = units.iter().map(|u| select_premise(u, &sentences, k).join(" ")).collect();
        Ok(Plan { premises, source_chars, truncated: false, units })
    }

    fn finish(&self, plan: Plan, probs: Vec<Result<f64, TrecError>>) -> Result<HallucinationScore, TrecError> {
        let mut sentences = Vec::with_capacity(plan.units.len());
        for (index, (sentence, p)) in plan.units.into_iter().zip(probs).enumerate() {
            sentences.push(SentenceSupport { index, sentence, entailment: p? });
        }
        let values: Vec<f64> = sentences.iter().map(|s| s.entailment).collect();
        let score = match self.opts.aggregate {
            SentenceAggregate::Min => values.iter().copied().fold(f64::INFINITY, f64::min),
            _ => values.iter().sum::<f64>() / values.len() as f64,
        };
        let mut least = sentences.clone();
        least.sort_by(|a, b| a.entailment.total_cmp(&b.entailment).then(a.index.cmp(&b.index)));
        least.truncate(self.opts.least_supported);
        Ok(HallucinationScore {
            score,
            aggregate: self.opts.aggregate,
            sentences,
            least_supported: least,
            source_chars: plan.source_chars,
            truncated: plan.truncated,
            premise_sentences: self.opts.premise_sentences,
            model: self.model.describe(),
        })
    }

    /// Scores many records with one batched entailment call.
    pub fn score_many(&self, records: &[Record]) -> Vec<Result<HallucinationScore, TrecError>> {
        let plans: Vec<Result<Plan, TrecError>> = records.iter().map(|r| self.plan(r)).collect();
        let pairs: Vec<(&str, &str)> = plans
            .iter()
            .flatten()
            .flat_map(|p| p.premises.iter().zip(&p.units).map(|(pr, u)| (pr.as_str(), u.as_str())))
            .collect();
        let mut probs = self.model.probs(&pairs).into_iter();
        plans
            .into_iter()
            .map(|plan| {
                let plan = plan?;
                let mine: Vec<Result<f64, TrecError>> = probs.by_ref().take(plan.units.len()).collect();
                self.finish(plan, mine)
            })
            .collect()
    }

    /// Scores one record.
    pub fn score_one(&self, record: &Record) -> Result<HallucinationScore, TrecError> {
        self.score_many(std::slice::from_ref(record))
            .pop()
            .unwrap_or_else(|| Err(TrecError::Contract("no result".into())))
    }
}

fn to_output(r: Result<HallucinationScore, TrecError>) -> Result<MetricOutput, MetricError> {
    match r {
        Ok(s) => Ok(MetricOutput { values: vec![Some(s.score)], detail: serde_json::to_value(&s).ok() }),
        // Nothing to check (no passages, empty answer): not applicable rather than a failure.
        Err(TrecError::NothingToCheck(why)) => {
            Ok(MetricOutput { values: vec![None], detail: Some(json!({ "hallucination": why })) })
        }
        Err(e) => Err(e.into()),
    }
}

impl Metric for HallucinationMetric {
    fn name(&self) -> &str {
        "hallucination"
    }

    fn columns(&self) -> Vec<String> {
        vec!["hallucination_score".to_string()]
    }

    fn score(&self, record: &Record) -> Result<MetricOutput, MetricError> {
        to_output(self.score_one(record))
    }

    fn score_batch(&self, records: &[Record]) -> Vec<Result<MetricOutput, MetricError>> {
        self.score_many(records).into_iter().map(to_output).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::test_support::{record, BrokenJudge, FakeCrossEncoder, FakeJudge};
    use std::sync::Arc;

    /// Entailment logit rule of the fake cross-encoder: `[contradiction, entailment]` =
    /// `[0, ln 3]` (P = 3/4) when the hypothesis's first word occurs in the premise, else
    /// `[ln 3, 0]` (P = 1/4).
    fn metric(aggregate: SentenceAggregate) -> (HallucinationMetric, Arc<FakeCrossEncoder>) {
        let ce = Arc::new(FakeCrossEncoder::default());
        let m = HallucinationMetric::new(
            EntailmentModel::CrossEncoder(ce.clone()),
            HallucinationOptions { aggregate, ..Default::default() },
        );
        (m, ce)
    }

    #[test]
    fn mean_min_and_least_supported_with_a_cross_encoder() {
        let r = record(&["Paris is in France.", "Berlin is in Germany."], "Paris is big. Rome is old. Berlin is cold.");
        // Sentences: Paris (3/4), Rome (1/4), Berlin (3/4): mean = 7/12, min = 1/4.
        let (m, ce) = metric(SentenceAggregate::Mean);
        let s = m.score_one(&r).unwrap();
        assert!((s.score - 7.0 / 12.0).abs() < 1e-6, "{}", s.score);
        assert_eq!(s.least_supported[0].sentence, "Rome is old.");
        assert_eq!(s.least_supported.len(), 3);
        assert!(!s.truncated);
        let seen = ce.seen();
        assert_eq!(seen.len(), 3);
        assert_eq!(seen[0].0, "Paris is in France. Berlin is in Germany.");
        let (m, _) = metric(SentenceAggregate::Min);
        assert!((m.score_one(&r).unwrap().score - 0.25).abs() < 1e-6);
        let (m, ce) = metric(SentenceAggregate::WholeAnswer);
        assert!((m.score_one(&r).unwrap().score - 0.75).abs() < 1e-6);
        assert_eq!(ce.seen()[0].1, "Paris is big. Rome is old. Berlin is cold.");
    }

    #[test]
    fn each_sentence_is_checked_against_the_passage_sentences_most_like_it() {
        let r = record(
            &["Paris is in France. It rains in Brest.", "Berlin is in Germany. Rome is in Italy."],
            "Paris is big. Berlin is cold.",
        );
        let ce = Arc::new(FakeCrossEncoder::default());
        let one = HallucinationOptions { premise_sentences: Some(1), ..Default::default() };
        let s = HallucinationMetric::new(EntailmentModel::CrossEncoder(ce.clone()), one).score_one(&r).unwrap();
        let seen = ce.seen();
        assert_eq!((seen[0].0.as_str(), seen[1].0.as_str()), ("Paris is in France.", "Berlin is in Germany."));
        assert_eq!(s.premise_sentences, Some(1));
        // One sentence each: the only one sharing a bigram with the claim ("paris is", "berlin
        // is"; ROUGE-2 recall 1/2). With two, "Paris is big." adds the best of the rest by
        // ROUGE-1 recall: "is" (1/3) in both "Berlin is in Germany." and "Rome is in Italy.",
        // the first in passage order wins; premises keep passage order.
        let ce = Arc::new(FakeCrossEncoder::default());
        let two = HallucinationOptions { premise_sentences: Some(2), ..Default::default() };
        HallucinationMetric::new(EntailmentModel::CrossEncoder(ce.clone()), two).score_one(&r).unwrap();
        assert_eq!(ce.seen()[0].0, "Paris is in France. Berlin is in Germany.");
    }

    #[test]
    fn passages_are_truncated_to_8192_characters() {
        // 3 passages of 3,000 "é" (2 bytes each) joined by 2 spaces: 9,002 characters; the
        // premise keeps the first 8,192 = 3,000 + 1 + 3,000 + 1 + 2,190 "é".
        let p = "é".repeat(3000);
        let r = record(&[&p, &p, &p], "Some answer.");
        let ce = Arc::new(FakeCrossEncoder::default());
        let whole = HallucinationOptions { premise_sentences: None, ..Default::default() };
        let m = HallucinationMetric::new(EntailmentModel::CrossEncoder(ce.clone()), whole);
        let s = m.score_one(&r).unwrap();
        assert!(s.truncated);
        assert_eq!(s.source_chars, 9002);
        let premise = &ce.seen()[0].0;
        assert_eq!(premise.chars().count(), 8192);
        assert!(premise.ends_with(&format!(" {}", "é".repeat(2190))));
        assert!(!premise.ends_with(&"é".repeat(2191)));
    }

    #[test]
    fn judge_probabilities_are_used_without_a_cross_encoder() {
        // The fake judge answers P(Yes) = 0.9 when the claim mentions "Paris", else 0.2.
        let judge = Arc::new(FakeJudge::default());
        let m = HallucinationMetric::new(EntailmentModel::Judge(judge.clone()), HallucinationOptions::default());
        let r = record(&["Paris is the capital of France."], "Paris is the capital. It has 90 million people.");
        let out = m.score(&r).unwrap();
        // (0.9 + 0.2) / 2 = 0.55
        assert!((out.values[0].unwrap() - 0.55).abs() < 1e-12);
        let d = out.detail.unwrap();
        assert_eq!(d["least_supported"][0]["sentence"], "It has 90 million people.");
        let prompts = judge.label_prompts();
        assert_eq!(prompts.len(), 2);
        assert!(prompts[0].contains("Paris is the capital of France."));
    }

    #[test]
    fn empty_answer_or_no_passages_is_not_applicable() {
        let (m, _) = metric(SentenceAggregate::Mean);
        let out = m.score(&record(&["x"], "  ")).unwrap();
        assert_eq!(out.values, vec![None]);
        let out = m.score(&record(&[], "An answer.")).unwrap();
        assert_eq!(out.values, vec![None]);
        let batch = m.score_batch(&[record(&[], "An answer."), record(&["Rome"], "Rome. Milan.")]);
        assert_eq!(batch[0].as_ref().unwrap().values, vec![None]);
        // Rome (3/4), Milan (1/4): mean 1/2.
        assert!((batch[1].as_ref().unwrap().values[0].unwrap() - 0.5).abs() < 1e-6);
    }

    #[test]
    fn a_failed_judge_is_a_model_failure_and_an_unusable_answer_an_output_failure() {
        let r = record(&["Paris is in France."], "Paris is big.");
        let down = HallucinationMetric::new(
            EntailmentModel::Judge(Arc::new(BrokenJudge { down: true })),
            HallucinationOptions::default(),
        );
        assert_eq!(down.score_one(&r), Err(TrecError::Model("entailment judge failed: timed out after 30 s".into())));
        assert_eq!(down.score(&r), Err(MetricError::Model("entailment judge failed: timed out after 30 s".into())));
        let mute = HallucinationMetric::new(
            EntailmentModel::Judge(Arc::new(BrokenJudge { down: false })),
            HallucinationOptions::default(),
        );
        assert_eq!(mute.score(&r), Err(MetricError::Output("judge returned no probability for `Yes`".into())));
    }

    #[test]
    fn nothing_to_check_is_not_applicable_even_when_the_judge_is_down() {
        let m = HallucinationMetric::new(
            EntailmentModel::Judge(Arc::new(BrokenJudge { down: true })),
            HallucinationOptions::default(),
        );
        let empty = record(&["Paris is in France."], " ");
        assert_eq!(m.score_one(&empty), Err(TrecError::NothingToCheck("empty answer".into())));
        let out = m.score(&empty).unwrap();
        assert_eq!(out.values, vec![None]);
        assert_eq!(out.detail, Some(json!({ "hallucination": "empty answer" })));
        let out = m.score(&record(&["  "], "Paris is big.")).unwrap();
        assert_eq!(out.values, vec![None]);
        assert_eq!(out.detail, Some(json!({ "hallucination": "no passage text to check the answer against" })));
    }
}
