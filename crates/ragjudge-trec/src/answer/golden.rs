//! Golden-answer metrics, when a record has a `reference` (Open RAG Eval, "Golden Answer Metrics").
//!
//! - Semantic similarity: cosine of the embeddings of answer and reference (Open RAG Eval's
//!   `SemanticSimilarityMetric`; a zero vector gives 0 as there).
//! - Factual correctness: the judge extracts atomic claims from both texts (Open RAG Eval's
//!   claim-extraction prompt, asked for JSON); each claim is checked for entailment by the other
//!   text with an [`EntailmentModel`] (a claim counts as entailed when P >= `threshold`). Open RAG
//!   Eval asks the judge for entailment / contradiction / neutral verdicts on all claims at once;
//!   only "entailment" counts there, so the binary entailed / not-entailed split is the same
//!   decision, taken here one claim at a time with a probability attached.
//!   `precision = entailed generated claims / generated claims`,
//!   `recall = entailed reference claims / reference claims`, `F1 = 2PR / (P + R)` (0 when
//!   `P + R = 0`); all three are 0 when either side has no claim, as in Open RAG Eval.

use crate::error::TrecError;
use std::sync::Arc;

use ragjudge_core::numeric::cosine_or_zero;
use ragjudge_core::{Metric, MetricError, MetricOutput, Record};
use ragjudge_models::{Embedder, GenParams, Judge, Prompt};
use serde::Serialize;
use serde_json::{json, Value};

use super::entailment::{truncate_chars, EntailmentModel, MAX_SOURCE_CHARS};

/// Semantic similarity of answer and reference by one [`Embedder`].
#[derive(Clone)]
pub struct SemanticSimilarity {
    embedder: Arc<dyn Embedder>,
}

impl SemanticSimilarity {
    /// Similarity by `embedder`.
    pub fn new(embedder: Arc<dyn Embedder>) -> Self {
        Self { embedder }
    }

    /// Cosine of the embeddings of each (answer, reference) pair, with one embedding call.
    pub fn similarities(&self, pairs: &[(&str, &str)]) -> Result<Vec<f64>, TrecError> {
        let texts: Vec<&str> = pairs.iter().flat_map(|&(a, r)| [a, r]).collect();
        let vecs = self
            .embedder
            .embed(&texts)
            .map_err(|e| TrecError::Model(ragjudge_models::Reason::caused("embedding failed", e)))?;
        if vecs.len() != texts.len() {
            return Err(TrecError::Contract(format!(
                "embedder returned {} vectors for {} texts",
                vecs.len(),
                texts.len()
            )));
        }
        vecs.chunks(2)
            .map(|p| {
                cosine_or_zero(&p[0], &p[1])
                    .map_err(|e| TrecError::Model(ragjudge_models::Reason::caused("embeddings", e)))
            })
            .collect()
    }
}

/// Open RAG Eval 0.3.0's `FactualCorrectnessMetric._CLAIM_EXTRACTION_PROMPT`, with a line asking
/// for the JSON object that its structured output (`Claims`) returns.
pub const CLAIM_EXTRACTION_PROMPT: &str = "Extract all atomic factual claims from the following text.
Each claim should be a single, verifiable statement.
Break down complex sentences into simple atomic claims.

Text: {text}

Extract all claims. Reply with a JSON object {\"claims\": [\"...\", \"...\"]} and nothing else.";

/// JSON schema of the claim list (`{"claims": [string]}`).
pub fn claims_schema() -> Value {
    json!({
        "type": "object",
        "properties": { "claims": { "type": "array", "items": { "type": "string" } } },
        "required": ["claims"]
    })
}

/// The claims of a judge reply: a JSON object with a `claims` list of strings (or a bare JSON
/// list), possibly surrounded by other text or a code fence. Blank claims are dropped.
pub fn parse_claims(reply: &str) -> Result<Vec<String>, TrecError> {
    let from_object = reply.find('{').zip(reply.rfind('}')).and_then(|(a, b)| {
        let v: Value = serde_json::from_str(reply.get(a..=b)?).ok()?;
        v.get("claims").cloned()
    });
    let from_list = || {
        reply.find('[').zip(reply.rfind(']')).and_then(|(a, b)| serde_json::from_str::<Value>(reply.get(a..=b)?).ok())
    };
    let list = from_object.or_else(from_list).ok_or_else(|| {
        TrecError::Output(format!(
            "claim extraction: reply is not JSON with a `claims` list: {:?}",
            reply.chars().take(80).collect::<String>()
        ))
    })?;
    let items = list.as_array().ok_or_else(|| TrecError::Output("claim extraction: `claims` is not a list".into()))?;
    items
        .iter()
        .map(|c| {
            c.as_str()
                .map(|s| s.trim().to_string())
                .ok_or_else(|| TrecError::Output("claim extraction: a claim is not a string".into()))
        })
        .filter(|c| c.as_ref().map_or(true, |s| !s.is_empty()))
        .collect()
}

/// Precision, recall and F1 from the entailment flags of generated and reference claims, with
/// Open RAG Eval's conventions (all 0 when either list is empty; F1 = 0 when P + R = 0).
pub fn claim_prf(generated_entailed: &[bool], reference_entailed: &[bool]) -> (f64, f64, f64) {
    if generated_entailed.is_empty() || reference_entailed.is_empty() {
        return (0.0, 0.0, 0.0);
    }
    let ratio = |v: &[bool]| v.iter().filter(|&&e| e).count() as f64 / v.len() as f64;
    let (p, r) = (ratio(generated_entailed), ratio(reference_entailed));
    let f1 = if p + r > 0.0 { 2.0 * p * r / (p + r) } else { 0.0 };
    (p, r, f1)
}

/// One claim and its check against the other text.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClaimCheck {
    /// The claim.
    pub claim: String,
    /// P(the other text entails it).
    pub entailment: f64,
    /// `entailment >= threshold`.
    pub entailed: bool,
}

/// Factual correctness of an answer against its reference.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FactualCorrectness {
    /// Share of generated claims the reference entails.
    pub precision: f64,
    /// Share of reference claims the answer entails.
    pub recall: f64,
    /// Harmonic mean of precision and recall.
    pub f1: f64,
    /// Claims of the generated answer, checked against the reference.
    pub generated_claims: Vec<ClaimCheck>,
    /// Claims of the reference, checked against the answer.
    pub expected_claims: Vec<ClaimCheck>,
}

/// Claim extraction by a judge plus entailment checks.
#[derive(Clone)]
pub struct FactualCorrectnessScorer {
    judge: Arc<dyn Judge>,
    nli: EntailmentModel,
    /// Entailment probability at which a claim counts as entailed (0.5).
    pub threshold: f64,
    /// Generation parameters of claim extraction (greedy, 512 tokens, with [`claims_schema`]).
    pub params: GenParams,
}

impl FactualCorrectnessScorer {
    /// Claims extracted by `judge`, checked by `nli` (a cross-encoder, or the judge itself).
    pub fn new(judge: Arc<dyn Judge>, nli: EntailmentModel) -> Self {
        let params = GenParams { json_schema: Some(claims_schema()), ..GenParams::default() };
        Self { judge, nli, threshold: 0.5, params }
    }

    /// The claim-extraction prompt for `text`.
    pub fn claim_prompt(text: &str) -> Prompt {
        let (head, tail) = CLAIM_EXTRACTION_PROMPT.split_once("{text}").unwrap_or((CLAIM_EXTRACTION_PROMPT, ""));
        Prompt::chat("", format!("{head}{text}{tail}"))
    }

    fn extract(&self, texts: &[&str]) -> Result<Vec<Vec<String>>, TrecError> {
        let requests: Vec<(Prompt, GenParams)> =
            texts.iter().map(|t| (Self::claim_prompt(t), self.params.clone())).collect();
        self.judge
            .generate_many(&requests)
            .into_iter()
            .map(|g| {
                parse_claims(
                    &g.map_err(|e| TrecError::Model(ragjudge_models::Reason::caused("claim extraction failed", e)))?
                        .text,
                )
            })
            .collect()
    }

    fn check(&self, claims: &[String], premise: &str) -> Result<Vec<ClaimCheck>, TrecError> {
        let (premise, _) = truncate_chars(premise, MAX_SOURCE_CHARS);
        let pairs: Vec<(&str, &str)> = claims.iter().map(|c| (premise, c.as_str())).collect();
        claims
            .iter()
            .zip(self.nli.probs(&pairs))
            .map(|(c, p)| {
                let p = p?;
                Ok(ClaimCheck { claim: c.clone(), entailment: p, entailed: p >= self.threshold })
            })
            .collect()
    }

    /// Factual correctness of `answer` against `reference`.
    pub fn score(&self, answer: &str, reference: &str) -> Result<FactualCorrectness, TrecError> {
        let mut claims = self.extract(&[answer, reference])?.into_iter();
        let (gen, exp) = (claims.next().unwrap_or_default(), claims.next().unwrap_or_default());
        let (generated_claims, expected_claims) = if gen.is_empty() || exp.is_empty() {
            let unchecked = |v: Vec<String>| {
                v.into_iter().map(|claim| ClaimCheck { claim, entailment: 0.0, entailed: false }).collect()
            };
            (unchecked(gen), unchecked(exp))
        } else {
            (self.check(&gen, reference)?, self.check(&exp, answer)?)
        };
        let flags = |v: &[ClaimCheck]| v.iter().map(|c| c.entailed).collect::<Vec<_>>();
        let (precision, recall, f1) = claim_prf(&flags(&generated_claims), &flags(&expected_claims));
        Ok(FactualCorrectness { precision, recall, f1, generated_claims, expected_claims })
    }
}

/// Golden-answer metric: columns `semantic_similarity`, `factual_correctness_precision`,
/// `factual_correctness_recall`, `factual_correctness_f1`; empty without a reference or without
/// the model each needs.
#[derive(Clone, Default)]
pub struct GoldenAnswerMetric {
    similarity: Option<SemanticSimilarity>,
    factual: Option<FactualCorrectnessScorer>,
}

impl GoldenAnswerMetric {
    /// A metric with the parts given.
    pub fn new(similarity: Option<SemanticSimilarity>, factual: Option<FactualCorrectnessScorer>) -> Self {
        Self { similarity, factual }
    }
}

impl Metric for GoldenAnswerMetric {
    fn name(&self) -> &str {
        "golden_answer"
    }

    fn columns(&self) -> Vec<String> {
        ["semantic_similarity", "factual_correctness_precision", "factual_correctness_recall", "factual_correctness_f1"]
            .map(String::from)
            .to_vec()
    }

    fn score(&self, record: &Record) -> Result<MetricOutput, MetricError> {
        let Some(reference) = record.reference.as_deref().filter(|r| !r.trim().is_empty()) else {
            return Ok(MetricOutput { values: vec![None; 4], detail: None });
        };
        let mut values = vec![None; 4];
        let mut detail = serde_json::Map::new();
        if let Some(s) = &self.similarity {
            values[0] = s.similarities(&[(&record.answer, reference)])?.pop();
        }
        if let Some(f) = &self.factual {
            let fc = f.score(&record.answer, reference)?;
            values[1] = Some(fc.precision);
            values[2] = Some(fc.recall);
            values[3] = Some(fc.f1);
            detail.insert("factual_correctness".into(), serde_json::to_value(&fc).unwrap_or(Value::Null));
        }
        Ok(MetricOutput { values, detail: (!detail.is_empty()).then_some(Value::Object(detail)) })
    }

    fn score_batch(&self, records: &[Record]) -> Vec<Result<MetricOutput, MetricError>> {
        // Batch the embeddings; claim extraction stays per record.
        let Some(sim) = &self.similarity else {
            return records.iter().map(|r| self.score(r)).collect();
        };
        let pairs: Vec<(&str, &str)> = records
            .iter()
            .filter_map(|r| r.reference.as_deref().filter(|x| !x.trim().is_empty()).map(|x| (r.answer.as_str(), x)))
            .collect();
        let sims = sim.similarities(&pairs);
        let without_sim = Self { similarity: None, factual: self.factual.clone() };
        let mut k = 0;
        records
            .iter()
            .map(|r| {
                let mut out = without_sim.score(r)?;
                if r.reference.as_deref().is_some_and(|x| !x.trim().is_empty()) {
                    out.values[0] = Some(
                        *sims
                            .as_ref()
                            .map_err(|e| MetricError::from(e.clone()))?
                            .get(k)
                            .ok_or_else(|| MetricError::Contract("missing similarity".into()))?,
                    );
                    k += 1;
                }
                Ok(out)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::test_support::{record, FakeJudge};
    use ragjudge_models::ModelError;

    struct FakeEmbedder;
    impl Embedder for FakeEmbedder {
        fn identity(&self) -> String {
            "fake".into()
        }
        fn dim(&self) -> usize {
            2
        }
        /// "a..." -> (1, 0); "b..." -> (0.6, 0.8); anything else -> (0, 1).
        fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, ModelError> {
            Ok(texts
                .iter()
                .map(|t| match t.chars().next() {
                    Some('a') => vec![1.0, 0.0],
                    Some('b') => vec![0.6, 0.8],
                    _ => vec![0.0, 1.0],
                })
                .collect())
        }
    }

    #[test]
    fn prf_arithmetic() {
        // 2 of 3 generated entailed: P = 2/3; 1 of 4 reference entailed: R = 1/4;
        // F1 = 2 (2/3)(1/4) / (2/3 + 1/4) = (1/3) / (11/12) = 4/11.
        let (p, r, f) = claim_prf(&[true, false, true], &[false, true, false, false]);
        assert!((p - 2.0 / 3.0).abs() < 1e-15 && (r - 0.25).abs() < 1e-15 && (f - 4.0 / 11.0).abs() < 1e-15);
        assert_eq!(claim_prf(&[], &[true]), (0.0, 0.0, 0.0));
        assert_eq!(claim_prf(&[false], &[false]), (0.0, 0.0, 0.0));
    }

    #[test]
    fn claim_replies() {
        assert_eq!(parse_claims("```json\n{\"claims\": [\"A\", \" \", \"B \"]}\n```").unwrap(), ["A", "B"]);
        assert_eq!(parse_claims("[\"x\"]").unwrap(), ["x"]);
        assert!(parse_claims("none").is_err());
        assert!(parse_claims("{\"claims\": [1]}").is_err());
    }

    #[test]
    fn factual_correctness_with_a_fake_judge() {
        // Entailment rule: P = 0.9 when the statement's last word occurs in the text, else 0.1.
        let judge = Arc::new(FakeJudge {
            entail: Box::new(|text, s| {
                let w = s.split_whitespace().last().unwrap_or("").trim_end_matches('.');
                if text.contains(w) {
                    0.9
                } else {
                    0.1
                }
            }),
            claims: vec![
                ("GEN ANSWER".into(), vec!["Paris is in France.".into(), "Paris has 90 people.".into()]),
                (
                    "REF ANSWER".into(),
                    vec!["Paris is the capital.".into(), "Paris is in France.".into(), "It rains.".into()],
                ),
            ],
            ..Default::default()
        });
        let scorer = FactualCorrectnessScorer::new(judge.clone(), EntailmentModel::Judge(judge.clone()));
        let answer = "GEN ANSWER: Paris, France, capital.";
        let reference = "REF ANSWER: Paris, France.";
        let fc = scorer.score(answer, reference).unwrap();
        // Generated claims vs reference: "France" yes, "people" no -> P = 1/2.
        // Reference claims vs answer: "capital" yes, "France" yes, "rains" no -> R = 2/3.
        // F1 = 2 (1/2)(2/3) / (1/2 + 2/3) = (2/3) / (7/6) = 4/7.
        assert!((fc.precision - 0.5).abs() < 1e-15);
        assert!((fc.recall - 2.0 / 3.0).abs() < 1e-15);
        assert!((fc.f1 - 4.0 / 7.0).abs() < 1e-15);
        assert_eq!(fc.generated_claims.len(), 2);
        assert!(!fc.generated_claims[1].entailed);
        assert_eq!(fc.expected_claims[2].claim, "It rains.");
        let gens = judge.generated();
        assert_eq!(gens.len(), 2);
        assert!(gens[0].messages[0].content.contains("Text: GEN ANSWER: Paris, France, capital.\n"));

        // The metric: similarity of "a..." and "b..." = 0.6 (cosine of (1,0) and (0.6,0.8)).
        let metric = GoldenAnswerMetric::new(Some(SemanticSimilarity::new(Arc::new(FakeEmbedder))), Some(scorer));
        let mut r = record(&[], "a GEN ANSWER: Paris, France, capital.");
        r.reference = Some("b REF ANSWER: Paris, France.".into());
        let out = metric.score_batch(&[record(&[], "no reference"), r]);
        assert_eq!(out[0].as_ref().unwrap().values, vec![None; 4]);
        let v = &out[1].as_ref().unwrap().values;
        assert!((v[0].unwrap() - 0.6).abs() < 1e-6);
        assert!((v[3].unwrap() - 4.0 / 7.0).abs() < 1e-15);
    }

    #[test]
    fn no_claims_on_one_side_gives_zero() {
        let judge = Arc::new(FakeJudge {
            claims: vec![("EMPTY".into(), vec![]), ("FULL".into(), vec!["Paris.".into()])],
            ..Default::default()
        });
        let scorer = FactualCorrectnessScorer::new(judge.clone(), EntailmentModel::Judge(judge.clone()));
        let fc = scorer.score("EMPTY", "FULL").unwrap();
        assert_eq!((fc.precision, fc.recall, fc.f1), (0.0, 0.0, 0.0));
        assert_eq!(fc.expected_claims.len(), 1);
        // No entailment call was made.
        assert!(judge.label_prompts().is_empty());
    }
}
