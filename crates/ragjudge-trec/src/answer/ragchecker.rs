//! RAGChecker's diagnostics of one record (RAGChecker §3.2-3.3): claims of the answer and of the
//! reference, every claim checked for entailment against the other text and against each
//! retrieved passage, then the eleven metrics of [`crate::diagnostics`].
//!
//! Claims are the sentences of each text (citation markers removed) or, with
//! [`Extraction::Judge`], atomic claims the judge writes under a JSON grammar (RAGChecker §3.2
//! extracts claims with a large model), a text's sentences standing in where the judge fails or
//! writes none. Each check is one [`EntailmentModel`] call. A judge reads
//! [`check_prompt`]: the question, the premise (the reference, the answer or one passage,
//! truncated to [`MAX_SOURCE_CHARS`]) and the instruction, then the claim last; the checks of one
//! premise are sent together, so a backend that reuses a shared prompt prefix (the local judge
//! does) reads each premise once and each check costs little more than its claim. A check whose
//! claim shares too few words with its premise (ROUGE-1 recall of the claim below
//! [`RagCheckerOptions::skip_below`], stemmed) is decided "not entailed" without a call and
//! recorded as skipped: no entailment model reads a claim into a premise that holds none of its
//! words. A claim without an ASCII word (the tokenizer's words) is always asked.

use super::entailment::{truncate_chars, EntailmentModel, ENTAILMENT_PREFIX, ENTAILMENT_SYSTEM, MAX_SOURCE_CHARS};
use super::golden::{claims_schema, parse_claims, FactualCorrectnessScorer};
use crate::diagnostics::{ClaimTables, Diagnostics, METRICS};
use crate::error::TrecError;
use ragjudge_core::text::split_sentences;
use ragjudge_core::{Metric, MetricError, MetricOutput, Record};
use ragjudge_lexical::citations::strip_citations;
use ragjudge_lexical::rouge::tokenize;
use ragjudge_models::{GenParams, Judge, Message, Prompt};
use serde::Serialize;
use serde_json::json;
use std::collections::HashMap;
use std::sync::Arc;

/// Version of [`check_prompt`]; cached calls are keyed on the prompt, so any change of its text
/// needs a new version.
pub const CHECK_VERSION: &str = "ragchecker-en-v1";

/// The judge's check of `claim` against `premise`, for `query`: the claim comes last, after
/// everything the checks of one premise share.
pub fn check_prompt(query: &str, premise: &str, claim: &str) -> Prompt {
    let user = format!(
        "Question:\n{}\n\nTrusted text:\n{}\n\nDecide whether the trusted text, read together with the \
         question, states or directly implies every fact of the sentence below. Names, numbers, dates and \
         who did what must match. Answer Yes or No.\n\nSentence: {}",
        query.trim(),
        premise.trim(),
        claim.trim()
    );
    Prompt {
        messages: vec![Message::new("system", ENTAILMENT_SYSTEM), Message::new("user", user)],
        assistant_prefix: Some(ENTAILMENT_PREFIX.to_string()),
    }
}

/// Options of [`RagCheckerMetric`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RagCheckerOptions {
    /// P(entailed) at or above which a claim counts as entailed.
    pub threshold: f64,
    /// A claim whose stemmed-word recall in the premise is below this is not entailed, uncalled.
    pub skip_below: f64,
    /// Premises longer than this many characters are truncated.
    pub max_source_chars: usize,
}

impl Default for RagCheckerOptions {
    fn default() -> Self {
        Self { threshold: 0.5, skip_below: 0.2, max_source_chars: MAX_SOURCE_CHARS }
    }
}

/// Where the claims of the answer and of the reference come from.
#[derive(Clone, Default)]
pub enum Extraction {
    /// Their sentences, citation markers removed ([`claims_of`]).
    #[default]
    Sentences,
    /// Atomic claims this judge writes under a JSON grammar (Open RAG Eval's claim-extraction
    /// prompt, as the `golden` metrics use it), from the text without its citation markers; a
    /// text's sentences where the judge fails or writes no claim (recorded in the detail).
    Judge(Arc<dyn Judge>),
}

impl std::fmt::Debug for Extraction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Extraction {
    /// `sentences` or `judge`, as the detail names it.
    pub fn name(&self) -> &'static str {
        match self {
            Extraction::Sentences => "sentences",
            Extraction::Judge(_) => "judge",
        }
    }
}

/// Most tokens of one claim list the judge writes.
const EXTRACTION_MAX_TOKENS: u32 = 768;

/// The claims of one text, and why they are its sentences when the judge was asked but failed.
#[derive(Debug, Clone, PartialEq)]
struct Claims {
    claims: Vec<String>,
    fallback: Option<String>,
}

/// One claim and its checks: `null` where the check was skipped (too few shared words).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckedClaim {
    /// The claim.
    pub claim: String,
    /// P(entailed) by the other text (the reference for an answer claim, and the reverse).
    pub other: Option<f64>,
    /// P(entailed) by each retrieved passage, in rank order.
    pub passages: Vec<Option<f64>>,
}

/// The evidence behind one record's diagnostics.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RagCheckerDetail {
    /// The answer's claims.
    pub answer_claims: Vec<CheckedClaim>,
    /// The reference's claims.
    pub reference_claims: Vec<CheckedClaim>,
    /// Retrieved passages.
    pub passages: usize,
    /// Checks sent to the model.
    pub calls: usize,
    /// Checks decided without a call.
    pub skipped: usize,
    /// Decision threshold on P(entailed).
    pub threshold: f64,
    /// The entailment model.
    pub model: String,
    /// The judge's prompt version (none for a cross-encoder).
    pub prompt_version: Option<String>,
    /// Where the claims come from: `sentences`, or `judge` (atomic claims it wrote).
    pub claims_from: String,
    /// Texts whose claims are their sentences although the judge was asked, with the reason
    /// (`answer: ...`, `reference: ...`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fallbacks: Vec<String>,
}

/// The column name of a diagnostic metric.
pub fn column(metric: &str) -> String {
    format!("ragchecker_{metric}")
}

/// The claims of a text: its sentences once citation markers are removed (a marker inside a
/// sentence does not cut it).
pub fn claims_of(text: &str) -> Vec<String> {
    split_sentences(&strip_citations(text))
        .into_iter()
        .map(|s| s.trim().to_string())
        .filter(|s| s.chars().any(char::is_alphanumeric))
        .collect()
}

/// The expected forms of the overall metrics, after [`METRICS`]: precision and recall as the mean
/// P(entailed) of the claims (a skipped check counts 0) instead of the share of decided ones, and
/// their harmonic mean. They keep how sure the judge was, which the 0.5 threshold throws away.
pub const EXPECTED: [&str; 3] = ["precision_expected", "recall_expected", "f1_expected"];

/// Expected precision, recall and F1 of a record's evidence (see [`EXPECTED`]); 0 without claims,
/// as the thresholded forms.
pub fn expected(d: &RagCheckerDetail) -> [f64; 3] {
    let mean = |claims: &[CheckedClaim]| {
        if claims.is_empty() {
            0.0
        } else {
            claims.iter().map(|c| c.other.unwrap_or(0.0)).sum::<f64>() / claims.len() as f64
        }
    };
    let (p, r) = (mean(&d.answer_claims), mean(&d.reference_claims));
    let f1 = if p > 0.0 && r > 0.0 { 2.0 * p * r / (p + r) } else { 0.0 };
    [p, r, f1]
}

/// The RAGChecker metric family: one column per metric of [`METRICS`], then [`EXPECTED`], each
/// prefixed `ragchecker_`.
#[derive(Debug, Clone)]
pub struct RagCheckerMetric {
    model: EntailmentModel,
    opts: RagCheckerOptions,
    extraction: Extraction,
}

/// Which text a claim comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Answer,
    Reference,
}

/// One check: claim `claim` of `side` against premise `premise` (0 the reference, 1 the answer,
/// 2.. the passages); `asked` unless the word rule decided it.
struct Check {
    side: Side,
    claim: usize,
    premise: usize,
    asked: bool,
}

/// What one record asks, its checks in the order they are sent.
struct Plan {
    query: String,
    answer: Vec<String>,
    reference: Vec<String>,
    premises: Vec<String>,
    checks: Vec<Check>,
    claims_from: &'static str,
    fallbacks: Vec<String>,
}

impl Plan {
    fn claim(&self, c: &Check) -> &str {
        match c.side {
            Side::Answer => &self.answer[c.claim],
            Side::Reference => &self.reference[c.claim],
        }
    }
}

/// The texts of one record's diagnostics and the claims to check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimSource<'a> {
    /// The question.
    pub query: &'a str,
    /// The answer (premise of the reference's claims).
    pub answer: &'a str,
    /// The answer's claims.
    pub answer_claims: Vec<String>,
    /// The reference answer (premise of the answer's claims).
    pub reference: &'a str,
    /// The reference's claims.
    pub reference_claims: Vec<String>,
    /// Retrieved passages, in rank order.
    pub passages: Vec<&'a str>,
}

/// ROUGE-1 recall of `claim` in a premise of these token counts: the share of the claim's tokens
/// the premise holds, each counted at most as often as the premise has it (0 for no token).
fn unigram_recall(claim: &[String], premise: &HashMap<String, usize>) -> f64 {
    if claim.is_empty() {
        return 0.0;
    }
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for t in claim {
        *counts.entry(t).or_default() += 1;
    }
    let overlap: usize = counts.iter().map(|(t, n)| (*n).min(premise.get(*t).copied().unwrap_or(0))).sum();
    overlap as f64 / claim.len() as f64
}

fn token_counts(text: &str) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for t in tokenize(text, true) {
        *counts.entry(t).or_default() += 1;
    }
    counts
}

impl RagCheckerMetric {
    /// A metric reading entailment from `model`, claims from sentences.
    pub fn new(model: EntailmentModel, opts: RagCheckerOptions) -> Self {
        Self { model, opts, extraction: Extraction::Sentences }
    }

    /// The metric with claims taken as `extraction` says.
    pub fn with_extraction(mut self, extraction: Extraction) -> Self {
        self.extraction = extraction;
        self
    }

    /// The reference of a record, when it has one to check against.
    fn reference(record: &Record) -> Option<&str> {
        record.reference.as_deref().filter(|r| !r.trim().is_empty())
    }

    /// The claims of every distinct answer and reference of `records` (those with a reference),
    /// with one batch of judge calls when the judge extracts them.
    fn extract<'r>(&self, records: &'r [Record]) -> HashMap<&'r str, Claims> {
        let mut texts: Vec<&str> = Vec::new();
        for r in records {
            if let Some(reference) = Self::reference(r) {
                for t in [r.answer.as_str(), reference] {
                    if !texts.contains(&t) {
                        texts.push(t);
                    }
                }
            }
        }
        let sentences: Vec<(&str, Vec<String>)> = texts.into_iter().map(|t| (t, claims_of(t))).collect();
        let Extraction::Judge(judge) = &self.extraction else {
            return sentences.into_iter().map(|(t, claims)| (t, Claims { claims, fallback: None })).collect();
        };
        // A text without a sentence has no claim to ask for.
        let (asked, empty): (Vec<_>, Vec<_>) = sentences.into_iter().partition(|(_, claims)| !claims.is_empty());
        let params =
            GenParams { json_schema: Some(claims_schema()), max_tokens: EXTRACTION_MAX_TOKENS, ..GenParams::default() };
        let requests: Vec<(Prompt, GenParams)> = asked
            .iter()
            .map(|(t, _)| (FactualCorrectnessScorer::claim_prompt(&strip_citations(t)), params.clone()))
            .collect();
        let replies = judge.generate_many(&requests);
        let mut out: HashMap<&str, Claims> =
            empty.into_iter().map(|(t, claims)| (t, Claims { claims, fallback: None })).collect();
        for ((t, sentences), reply) in asked.into_iter().zip(replies) {
            let claims =
                match reply.map_err(|e| e.to_string()).and_then(|g| parse_claims(&g.text).map_err(|e| e.to_string())) {
                    Ok(claims) if !claims.is_empty() => Claims { claims, fallback: None },
                    Ok(_) => Claims { claims: sentences, fallback: Some("the judge wrote no claim".into()) },
                    Err(why) => Claims { claims: sentences, fallback: Some(why) },
                };
            out.insert(t, claims);
        }
        out
    }

    fn plan(&self, record: &Record, claims: &HashMap<&str, Claims>) -> Result<Plan, TrecError> {
        let Some(reference) = Self::reference(record) else {
            return Err(TrecError::NothingToCheck("no reference answer".into()));
        };
        let of = |t: &str| claims.get(t).cloned().unwrap_or_else(|| Claims { claims: claims_of(t), fallback: None });
        let (answer, reference_claims) = (of(&record.answer), of(reference));
        let fallbacks = [("answer", &answer), ("reference", &reference_claims)]
            .iter()
            .filter_map(|(which, c)| c.fallback.as_ref().map(|why| format!("{which}: {why}")))
            .collect();
        let mut plan = self.plan_of(ClaimSource {
            query: &record.query,
            answer: &record.answer,
            answer_claims: answer.claims,
            reference,
            reference_claims: reference_claims.claims,
            passages: record.contexts.iter().map(|c| c.text.as_str()).collect(),
        });
        plan.claims_from = self.extraction.name();
        plan.fallbacks = fallbacks;
        Ok(plan)
    }

    fn plan_of(&self, source: ClaimSource<'_>) -> Plan {
        let cut = |s: &str| truncate_chars(s, self.opts.max_source_chars).0.to_string();
        // Premise 0: the reference, 1: the answer, 2..: the passages.
        let mut premises = vec![cut(source.reference), cut(source.answer)];
        premises.extend(source.passages.iter().map(|p| cut(p)));
        let premise_tokens: Vec<HashMap<String, usize>> = premises.iter().map(|p| token_counts(p)).collect();
        let mut checks = Vec::new();
        for (side, claims, other) in
            [(Side::Answer, &source.answer_claims, 0usize), (Side::Reference, &source.reference_claims, 1)]
        {
            let claim_tokens: Vec<Vec<String>> = claims.iter().map(|c| tokenize(c, true)).collect();
            for premise in std::iter::once(other).chain(2..premises.len()) {
                for (claim, tokens) in claim_tokens.iter().enumerate() {
                    // The tokenizer keeps ASCII words only (as rouge-score's): a claim it sees no
                    // word in (Chinese, say) cannot be ruled out by words, so it is asked.
                    let asked =
                        tokens.is_empty() || unigram_recall(tokens, &premise_tokens[premise]) >= self.opts.skip_below;
                    checks.push(Check { side, claim, premise, asked });
                }
            }
        }
        Plan {
            query: source.query.to_string(),
            answer: source.answer_claims,
            reference: source.reference_claims,
            premises,
            checks,
            claims_from: Extraction::Sentences.name(),
            fallbacks: Vec::new(),
        }
    }

    /// The evidence of `plan`, given one result per check (`None` for a skipped one).
    fn finish(&self, plan: Plan, probs: Vec<Result<Option<f64>, TrecError>>) -> Result<RagCheckerDetail, TrecError> {
        let passages = plan.premises.len() - 2;
        let checked = |claims: &[String]| -> Vec<CheckedClaim> {
            claims
                .iter()
                .map(|c| CheckedClaim { claim: c.clone(), other: None, passages: vec![None; passages] })
                .collect()
        };
        let (mut answer_claims, mut reference_claims) = (checked(&plan.answer), checked(&plan.reference));
        for (check, p) in plan.checks.iter().zip(probs) {
            let claim = match check.side {
                Side::Answer => &mut answer_claims[check.claim],
                Side::Reference => &mut reference_claims[check.claim],
            };
            match check.premise {
                0 | 1 => claim.other = p?,
                j => claim.passages[j - 2] = p?,
            }
        }
        let skipped = plan.checks.iter().filter(|c| !c.asked).count();
        Ok(RagCheckerDetail {
            answer_claims,
            reference_claims,
            passages,
            calls: plan.checks.len() - skipped,
            skipped,
            threshold: self.opts.threshold,
            model: self.model.describe(),
            prompt_version: matches!(self.model, EntailmentModel::Judge(_)).then(|| CHECK_VERSION.to_string()),
            claims_from: plan.claims_from.to_string(),
            fallbacks: plan.fallbacks,
        })
    }

    /// The entailment tables of a record's evidence, at the threshold.
    pub fn tables(&self, d: &RagCheckerDetail) -> ClaimTables {
        let yes = |p: &Option<f64>| p.is_some_and(|p| p >= self.opts.threshold);
        ClaimTables {
            answer_in_reference: d.answer_claims.iter().map(|c| yes(&c.other)).collect(),
            reference_in_answer: d.reference_claims.iter().map(|c| yes(&c.other)).collect(),
            reference_in_passages: d.reference_claims.iter().map(|c| c.passages.iter().map(yes).collect()).collect(),
            answer_in_passages: d.answer_claims.iter().map(|c| c.passages.iter().map(yes).collect()).collect(),
            passages: d.passages,
        }
    }

    /// Checks many records with one batched entailment call.
    pub fn check_many(&self, records: &[Record]) -> Vec<Result<(Diagnostics, RagCheckerDetail), TrecError>> {
        let claims = self.extract(records);
        let plans = records.iter().map(|r| self.plan(r, &claims)).collect();
        self.run(plans)
            .into_iter()
            .map(|detail| detail.map(|detail| (Diagnostics::of(&self.tables(&detail)), detail)))
            .collect()
    }

    /// Checks the claims of each source, as given, with one batched entailment call: the
    /// evidence of each, in order (for callers that choose the claims themselves, as a
    /// protocol that sets declining sentences apart).
    pub fn check_sources(&self, sources: Vec<ClaimSource<'_>>) -> Vec<Result<RagCheckerDetail, TrecError>> {
        self.run(sources.into_iter().map(|s| Ok(self.plan_of(s))).collect())
    }

    /// Asks every asked check of `plans` in one batch, the checks of one question and premise
    /// adjacent (two answers to one question share the reference's prefix), and places each
    /// result back in its plan.
    fn run(&self, plans: Vec<Result<Plan, TrecError>>) -> Vec<Result<RagCheckerDetail, TrecError>> {
        // (question, premise, claim) of every asked check, in plan order.
        let asks: Vec<(&str, &str, &str)> = plans
            .iter()
            .flatten()
            .flat_map(|p| {
                p.checks
                    .iter()
                    .filter(|c| c.asked)
                    .map(move |c| (p.query.as_str(), p.premises[c.premise].as_str(), p.claim(c)))
            })
            .collect();
        let mut order: Vec<usize> = (0..asks.len()).collect();
        order.sort_by_key(|&i| (asks[i].0, asks[i].1));
        let pairs: Vec<(&str, &str)> = order.iter().map(|&i| (asks[i].1, asks[i].2)).collect();
        let sent = self.model.probs_with(&pairs, |k| {
            let (query, premise, claim) = asks[order[k]];
            check_prompt(query, premise, claim)
        });
        let mut results: Vec<Option<Result<f64, TrecError>>> = (0..asks.len()).map(|_| None).collect();
        for (&i, r) in order.iter().zip(sent) {
            results[i] = Some(r);
        }
        let mut probs = results.into_iter();
        plans
            .into_iter()
            .map(|plan| {
                let plan = plan?;
                let mine: Vec<Result<Option<f64>, TrecError>> = plan
                    .checks
                    .iter()
                    .map(|c| match c.asked {
                        false => Ok(None),
                        true => probs
                            .next()
                            .flatten()
                            .unwrap_or_else(|| Err(TrecError::Contract("a check has no result".into())))
                            .map(Some),
                    })
                    .collect();
                self.finish(plan, mine)
            })
            .collect()
    }
}

fn to_output(r: Result<(Diagnostics, RagCheckerDetail), TrecError>) -> Result<MetricOutput, MetricError> {
    match r {
        Ok((d, detail)) => {
            let values = d.values();
            let mut evidence = serde_json::to_value(&detail).unwrap_or_default();
            let why: serde_json::Map<String, serde_json::Value> =
                values.iter().filter_map(|(name, v)| v.err().map(|e| (column(name), json!(e)))).collect();
            if let (Some(obj), false) = (evidence.as_object_mut(), why.is_empty()) {
                obj.insert("empty".into(), why.into());
            }
            let mut out: Vec<Option<f64>> = values.iter().map(|(_, v)| v.ok()).collect();
            out.extend(expected(&detail).map(Some));
            Ok(MetricOutput { values: out, detail: Some(evidence) })
        }
        Err(TrecError::NothingToCheck(why)) => Ok(MetricOutput {
            values: vec![None; METRICS.len() + EXPECTED.len()],
            detail: Some(json!({ "ragchecker": why })),
        }),
        Err(e) => Err(e.into()),
    }
}

impl Metric for RagCheckerMetric {
    fn name(&self) -> &str {
        "ragchecker"
    }

    fn columns(&self) -> Vec<String> {
        METRICS.iter().chain(&EXPECTED).map(|m| column(m)).collect()
    }

    fn score(&self, record: &Record) -> Result<MetricOutput, MetricError> {
        self.score_batch(std::slice::from_ref(record))
            .pop()
            .unwrap_or_else(|| Err(MetricError::Contract("no result".into())))
    }

    fn score_batch(&self, records: &[Record]) -> Vec<Result<MetricOutput, MetricError>> {
        self.check_many(records).into_iter().map(to_output).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::test_support::{record, FakeCrossEncoder, FakeJudge};
    use std::sync::Arc;

    fn metric() -> (RagCheckerMetric, Arc<FakeCrossEncoder>) {
        let ce = Arc::new(FakeCrossEncoder::default());
        (RagCheckerMetric::new(EntailmentModel::CrossEncoder(ce.clone()), RagCheckerOptions::default()), ce)
    }

    #[test]
    fn claims_are_sentences_without_citation_markers() {
        // A marker ends its part: the stop after it is dropped with the marker.
        assert_eq!(
            claims_of("Paris is in France [1]. Rome, [2] the old city, is old [2][3]. It is big."),
            vec!["Paris is in France.", "Rome, the old city, is old.", "It is big."]
        );
        assert!(claims_of("... [1]").is_empty());
        assert!(claims_of("").is_empty());
    }

    /// The fake entails a claim (P = 3/4) when the premise contains the claim's first word, else
    /// P = 1/4.
    #[test]
    fn one_record_worked_by_hand() {
        let passages = [
            "Paris is the capital of France.",
            "Rome is the capital of Spain, said the old map.",
            "Bananas grow on trees.",
        ];
        let mut r = record(&passages, "Paris is the capital of France. Rome is the capital of Spain [2].");
        r.reference = Some("Paris is the capital of France. Madrid is the capital of Spain.".into());
        let (m, ce) = metric();
        let out = m.score(&r).unwrap();
        // Answer claims a1 "Paris ...", a2 "Rome ...": a1 in the reference, a2 not.
        // Reference claims g1 "Paris ...", g2 "Madrid ...": g1 in the answer, g2 not.
        // Passages: p1 entails a1 and g1 (relevant); p2 entails a2 only (irrelevant); p3 shares
        // no word with any claim: its four checks are skipped.
        // precision 1/2, recall 1/2, F1 1/2; claim recall 1/2 (g1); context precision 1/3 (p1);
        // utilisation 1/1 (g1 retrieved and in the answer); a2 incorrect and only in the
        // irrelevant p2: noise (irrelevant) 1/2; hallucination 0; self-knowledge 0 (a1 is in
        // p1); faithfulness 2/2.
        let want = [0.5, 0.5, 0.5, 0.5, 1.0 / 3.0, 1.0, 0.0, 0.5, 0.0, 0.0, 1.0];
        assert_eq!(&out.values[..11], &want.iter().map(|&v| Some(v)).collect::<Vec<_>>()[..]);
        // Expected forms: P(a1 in reference) = 3/4, P(a2) = 1/4: precision 1/2; P(g1 in answer)
        // = 3/4, P(g2) = 1/4 ("Madrid" is not in the answer): recall 1/2; F1 1/2.
        for (got, want) in out.values[11..].iter().zip([0.5, 0.5, 0.5]) {
            assert!((got.unwrap() - want).abs() < 1e-6, "{got:?}");
        }
        let d = out.detail.unwrap();
        assert_eq!(d["answer_claims"][1]["claim"], "Rome is the capital of Spain");
        let near = |v: &serde_json::Value, want: f64| (v.as_f64().unwrap() - want).abs() < 1e-6;
        assert!(near(&d["answer_claims"][1]["other"], 0.25));
        let p = &d["answer_claims"][1]["passages"];
        assert!(near(&p[0], 0.25) && near(&p[1], 0.75) && p[2].is_null(), "{p}");
        // 2 + 2 claims, each against the other text and three passages: 16 checks, 4 skipped.
        assert_eq!((d["calls"].as_u64(), d["skipped"].as_u64()), (Some(12), Some(4)));
        assert_eq!(ce.seen().len(), 12);
        // Premise-major: both answer claims against the reference first.
        assert_eq!(ce.seen()[0].0, ce.seen()[1].0);
    }

    #[test]
    fn the_claim_comes_last_after_what_the_checks_of_a_premise_share() {
        let a = check_prompt("Q?", "Paris is big.", "Paris is big.");
        let b = check_prompt("Q?", "Paris is big.", "Rome is old.");
        let (ua, ub) = (&a.messages[1].content, &b.messages[1].content);
        assert!(ua.ends_with("Sentence: Paris is big.") && ub.ends_with("Sentence: Rome is old."), "{ua}");
        assert_eq!(ua.strip_suffix("Paris is big."), ub.strip_suffix("Rome is old."));
        assert!(ua.starts_with("Question:\nQ?\n\nTrusted text:\nParis is big.\n\n"));
        assert_eq!(a.assistant_prefix.as_deref(), Some("Answer:"));
    }

    #[test]
    fn passages_count_even_when_no_text_has_a_claim() {
        let mut r = record(&["Paris is big."], "...");
        r.reference = Some("!".into());
        let (m, ce) = metric();
        let out = m.score(&r).unwrap();
        // No claim anywhere: the paper's zeros, and the retriever metrics are measured (0), not
        // "no retrieved passages".
        assert_eq!(&out.values[..5], &[Some(0.0); 5]);
        assert_eq!(out.detail.unwrap()["passages"], 1);
        assert!(ce.seen().is_empty());
    }

    #[test]
    fn a_claim_without_ascii_words_is_asked_not_skipped() {
        let mut r = record(&["Bananas grow on trees."], "巴黎是法国的首都。");
        r.reference = Some("巴黎是法国的首都。".into());
        let (m, ce) = metric();
        let d = m.score(&r).unwrap().detail.unwrap();
        // One answer and one reference claim, each against the other text and the passage: all
        // four asked, although the tokenizer sees no word in either claim.
        assert_eq!((d["calls"].as_u64(), d["skipped"].as_u64()), (Some(4), Some(0)));
        assert_eq!(ce.seen().len(), 4);
    }

    #[test]
    fn checks_of_one_question_and_premise_are_sent_together_and_placed_back() {
        let reference = "Paris is the capital of France.";
        let (mut a, mut b) = (record(&[], "Paris is the capital."), record(&[], "Lyon is in France."));
        a.reference = Some(reference.into());
        b.reference = Some(reference.into());
        let (m, ce) = metric();
        let out = m.score_batch(&[a, b]);
        // Four checks over three premises: each premise's checks adjacent, so both answers'
        // claims against the one reference follow each other.
        let premises: Vec<String> = ce.seen().into_iter().map(|(premise, _)| premise).collect();
        assert_eq!(premises.len(), 4);
        let runs = 1 + premises.windows(2).filter(|w| w[0] != w[1]).count();
        assert_eq!(runs, 3, "{premises:?}");
        // Results go back to their records: "Paris ..." checks hold (3/4), "Lyon ..." against
        // the reference and the reference against "Lyon ..." do not (1/4).
        for (o, want) in out.iter().zip([0.75, 0.25]) {
            let values = &o.as_ref().unwrap().values;
            assert!(values[11..13].iter().all(|v| (v.unwrap() - want).abs() < 1e-6), "{values:?}");
        }
    }

    #[test]
    fn judge_claims_replace_sentences_and_a_failed_extraction_falls_back_to_them() {
        let judge = Arc::new(FakeJudge {
            claims: vec![(
                "Paris is the capital of France and Rome".into(),
                vec!["Paris is the capital of France.".into(), "Rome is old.".into()],
            )],
            ..FakeJudge::default()
        });
        let (m, _) = metric();
        let m = m.with_extraction(Extraction::Judge(judge.clone()));
        let mut a = record(&[], "Paris is the capital of France and Rome is old [1].");
        let mut b = record(&[], "Madrid is big.");
        a.reference = Some("Madrid is in Spain.".into());
        b.reference = a.reference.clone();
        let out = m.score_batch(&[a, b]);
        let d = out[0].as_ref().unwrap().detail.clone().unwrap();
        let claims = |side: &str| -> Vec<String> {
            d[side].as_array().unwrap().iter().map(|c| c["claim"].as_str().unwrap().to_string()).collect()
        };
        // The judge's two claims for the answer; its reply for the reference is not JSON, so the
        // reference's sentence stands in, and the detail says why.
        assert_eq!(claims("answer_claims"), ["Paris is the capital of France.", "Rome is old."]);
        assert_eq!(claims("reference_claims"), ["Madrid is in Spain."]);
        assert_eq!(d["claims_from"], "judge");
        let fallbacks = d["fallbacks"].as_array().unwrap();
        assert_eq!(fallbacks.len(), 1);
        assert!(
            fallbacks[0].as_str().unwrap().starts_with("reference: claim extraction: reply is not JSON"),
            "{fallbacks:?}"
        );
        // Three distinct texts, each asked once (the shared reference too), without citation markers.
        let asked = judge.generated();
        assert_eq!(asked.len(), 3);
        assert!(asked.iter().all(|p| !p.messages.last().unwrap().content.contains("[1]")));
        // Sentences by default: nothing generated, no fallback.
        let (m, _) = metric();
        let mut r = record(&[], "Paris is big.");
        r.reference = Some("Paris is big.".into());
        let d = m.score(&r).unwrap().detail.unwrap();
        assert_eq!(d["claims_from"], "sentences");
        assert!(d.get("fallbacks").is_none());
    }

    #[test]
    fn without_a_reference_nothing_applies() {
        let (m, ce) = metric();
        let out = m.score(&record(&["Paris."], "Paris.")).unwrap();
        assert_eq!(out.values, vec![None; 14]);
        assert_eq!(out.detail.unwrap()["ragchecker"], "no reference answer");
        assert!(ce.seen().is_empty());
    }

    #[test]
    fn without_passages_the_retriever_and_generator_columns_say_why() {
        let mut r = record(&[], "Paris is big.");
        r.reference = Some("Paris is big.".into());
        let (m, _) = metric();
        let out = m.score(&r).unwrap();
        assert_eq!(&out.values[..3], &[Some(1.0), Some(1.0), Some(1.0)]);
        assert!(out.values[3..11].iter().all(Option::is_none));
        // P(entailed) = 3/4 both ways.
        assert!(out.values[11..].iter().all(|v| (v.unwrap() - 0.75).abs() < 1e-6), "{:?}", out.values);
        assert_eq!(out.detail.unwrap()["empty"]["ragchecker_faithfulness"], "no retrieved passages");
    }
}
