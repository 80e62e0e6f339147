//! The whole of test generation as one call: collection -> chunks -> strata -> sample ->
//! generation tasks -> questions -> selection -> question records with their strata in `meta`,
//! and, with [`TestgenSettings::follow_ups`], a follow-up turn after some of them ([`crate::followup`]).

use std::collections::BTreeMap;

use ragjudge_artifacts::Artifact;
use ragjudge_core::text::words;
use ragjudge_models::{Embedder, Judge};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::chunk::{chunk_documents, ChunkOptions, Chunking};
use crate::corpus::{Corpus, Skip};
use crate::error::TestgenError;
use crate::followup::{follow_ups, FirstTurn};
use crate::generate::{
    generate, question_text, reference_answer, task_prompt, GenOptions, GenTask, Generated, NearDuplicates, QueryType,
    LETTERS,
};
use crate::sample::{stratified_sample, Sample, SampleOptions};
use crate::select::{select, Candidate, Checks, SelectOptions};
use crate::strata::{build_strata, embed_chunks, Strata, StrataOptions};
use crate::verify::{Collection, Verified, Verifier};

/// Every setting of a run.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TestgenSettings {
    /// Chunking.
    pub chunk: ChunkOptions,
    /// Strata.
    pub strata: StrataOptions,
    /// Sampling of chunks.
    pub sample: SampleOptions,
    /// Query types, assigned in rotation to the sampled chunks of each topic (topic `t` starts
    /// at type `t`).
    pub types: Vec<QueryType>,
    /// Questions asked of each sampled chunk.
    pub per_chunk: usize,
    /// Generation.
    pub generation: GenOptions,
    /// Selection.
    pub selection: SelectOptions,
    /// Embedding batch size.
    pub batch: usize,
    /// Share of the kept answerable questions given a follow-up question (a second turn of the
    /// same conversation), in [0, 1]; left out of the recorded settings when 0.
    #[serde(skip_serializing_if = "no_follow_ups")]
    pub follow_ups: f64,
}

fn no_follow_ups(share: &f64) -> bool {
    *share == 0.0
}

impl TestgenSettings {
    /// Refuses settings that cannot work: a share of follow-ups outside [0, 1], no query types,
    /// no questions per chunk.
    pub fn validate(&self) -> Result<(), TestgenError> {
        if !(0.0..=1.0).contains(&self.follow_ups) {
            return Err(TestgenError::Settings(format!(
                "follow-ups must be a share of the questions between 0 and 1, got {}",
                self.follow_ups
            )));
        }
        if self.types.is_empty() || self.per_chunk == 0 {
            return Err(TestgenError::Settings("no query types or no questions per chunk".into()));
        }
        Ok(())
    }
}

impl Default for TestgenSettings {
    /// Every query type, one question per sampled chunk, and each part's own defaults.
    fn default() -> Self {
        Self {
            chunk: ChunkOptions::default(),
            strata: StrataOptions::default(),
            sample: SampleOptions::default(),
            types: QueryType::ALL.to_vec(),
            per_chunk: 1,
            generation: GenOptions::default(),
            selection: SelectOptions::default(),
            batch: 32,
            follow_ups: 0.0,
        }
    }
}

/// The plan before any model is called.
#[derive(Debug, Clone, Serialize)]
pub struct Plan {
    /// The chunks.
    pub chunking: Chunking,
    /// Their strata.
    pub strata: Strata,
    /// The sampled chunks.
    pub sample: Sample,
    /// Generation tasks.
    #[serde(skip)]
    pub tasks: Vec<GenTask>,
    /// The chunks' embeddings, one row each (questions are checked against them).
    #[serde(skip)]
    pub vectors: ndarray::Array2<f64>,
}

/// Upper bounds of the model calls a run makes and its estimated prompt tokens.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CallEstimate {
    /// Generation tasks.
    pub tasks: usize,
    /// First generation attempts (one per task).
    pub generation_calls: usize,
    /// Generation calls if every attempt failed its check.
    pub generation_calls_max: usize,
    /// Judge calls of the checks at most: those of every attempt (up to three for an answerable
    /// question; the source, up to four retrieved chunks and the judge's own answer for an
    /// unanswerable one) and the closed-book flag of selection.
    pub selection_calls_max: usize,
    /// Estimated prompt tokens of the first attempts (characters / 4).
    pub generation_prompt_tokens: u64,
    /// Tasks per query type.
    pub per_type: BTreeMap<String, usize>,
    /// Follow-ups asked for at most (the share of the answerable tasks, as if every one were
    /// kept); their calls are in the maxima above, not in the first attempts or the tokens.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub follow_ups_max: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// One question that passed selection, as a record.
#[derive(Debug, Clone, Serialize)]
pub struct Question {
    /// The record (`id`, `query`, `reference`, `meta`).
    pub record: Value,
}

/// A task whose question was not kept, and why.
#[derive(Debug, Clone, Serialize)]
pub struct Rejected {
    /// Query type.
    pub query_type: QueryType,
    /// Source chunk ids.
    pub source_ids: Vec<String>,
    /// The question, when one was generated.
    pub question: Option<String>,
    /// Why it was left out.
    pub reason: String,
    /// Raw replies of failed attempts.
    pub raw: Vec<(String, String)>,
    /// For a follow-up: the id of the question it follows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub follow_up_of: Option<String>,
}

/// Everything a run produced.
#[derive(Debug, Clone, Serialize)]
pub struct TestgenOutput {
    /// The plan it carried out.
    pub plan: Plan,
    /// Kept questions.
    pub questions: Vec<Question>,
    /// Tasks without a kept question.
    pub rejected: Vec<Rejected>,
    /// Generation attempts per task (failed and retried included), follow-ups included.
    pub attempts: usize,
    /// Follow-ups asked for (each a task beside the plan's).
    pub follow_up_tasks: usize,
    /// What each check did to the tasks.
    pub quality: QualityReport,
}

/// How many tasks one check let through at once, let through after regenerating the question,
/// and dropped.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CheckCounts {
    /// Passed on the first reply (generation checks) or passed (selection checks).
    pub passed: usize,
    /// Failed at first, passed after one or more regenerated replies.
    pub regenerated: usize,
    /// Dropped by this check.
    pub dropped: usize,
}

/// A reviewer's view of a run: what each check did, with examples, and the properties of the
/// kept set a check cannot see one question at a time.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct QualityReport {
    /// Per check (`format`, `self_contained`, `model_call` at generation; `near_duplicate`,
    /// `answerable`, `grounded`, `per_topic` at selection), the tasks it passed, regenerated and
    /// dropped; `follow_up`: the follow-ups kept at once, kept after regenerating, and dropped.
    pub checks: BTreeMap<String, CheckCounts>,
    /// Up to three failures per check: the question (or the raw reply) and the reason.
    pub examples: BTreeMap<String, Vec<String>>,
    /// Kept multiple-choice questions per answer letter.
    pub answer_letters: BTreeMap<String, usize>,
    /// P-value of Pearson's chi-square test of those letters against a uniform spread (none
    /// with fewer than four items): a small value says the letter gives the answer away.
    pub answer_letters_p: Option<f64>,
    /// Replies that were near-duplicates of a question kept before them (and were regenerated
    /// or dropped), over the replies that reached that check.
    pub near_duplicate_rate: f64,
    /// Kept yes/no questions per answer.
    #[serde(default)]
    pub yes_no_answers: BTreeMap<String, usize>,
    /// Multi-hop questions kept as factual because one source holds the whole answer.
    #[serde(default)]
    pub retyped: usize,
    /// Per topic: its chunks, the chunks sampled from it and the questions kept.
    #[serde(default)]
    pub topics: Vec<TopicCoverage>,
}

/// How well the kept questions cover one topic.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TopicCoverage {
    /// `t0`, `t1`, ... or `noise`.
    pub id: String,
    /// The three heaviest terms, joined by `/`.
    pub label: String,
    /// Chunks in it.
    pub chunks: usize,
    /// Chunks sampled from it.
    pub sampled: usize,
    /// Questions kept.
    pub questions: usize,
}

/// Examples kept per check.
const EXAMPLES: usize = 3;

/// The checks of one reply, in the order they run: those that fail regenerate the reply.
const REPLY_CHECKS: [&str; 9] = [
    "format",
    "self_contained",
    "near_duplicate",
    "round_trip",
    "answerable",
    "grounded",
    "reference",
    "unique_answer",
    "unanswerable",
];

/// The check a generation failure's reason belongs to.
fn generation_check(reason: &str) -> &'static str {
    const PREFIXES: [(&str, &str); 10] = [
        ("the question is not self-contained", "self_contained"),
        ("the question has more than one answer", "unique_answer"),
        ("near-duplicate", "near_duplicate"),
        ("the question does not find its source", "round_trip"),
        ("the source does not answer it", "answerable"),
        ("the reference answer is not grounded", "grounded"),
        ("the reference does not answer", "reference"),
        ("the collection may answer it", "unanswerable"),
        ("model call failed", "model_call"),
        ("check failed", "model_call"),
    ];
    PREFIXES.iter().find(|(p, _)| reason.starts_with(p)).map_or("format", |(_, c)| c)
}

/// The check a selection verdict's reason belongs to.
fn selection_check(reason: &str) -> &'static str {
    if reason.starts_with("topic already has") {
        "per_topic"
    } else {
        "model_call"
    }
}

/// P-value of Pearson's chi-square test of `counts` against equal expected counts.
pub fn uniform_p(counts: &[usize]) -> Option<f64> {
    use statrs::distribution::{ChiSquared, ContinuousCDF};
    let n: usize = counts.iter().sum();
    if n < 4 || counts.len() < 2 {
        return None;
    }
    let expected = n as f64 / counts.len() as f64;
    let chi2: f64 = counts.iter().map(|&c| (c as f64 - expected).powi(2) / expected).sum();
    ChiSquared::new((counts.len() - 1) as f64).ok().map(|d| d.sf(chi2))
}

impl QualityReport {
    /// The report of one run: its generation outcomes, its candidates' selection verdicts and
    /// the kept multiple-choice items' answer letters.
    fn of(generated: &[Generated], candidates: &[Candidate], checks: &[Checks], letters: &[String]) -> Self {
        let mut q = QualityReport::default();
        let example = |q: &mut QualityReport, check: &str, text: String| {
            let list = q.examples.entry(check.to_string()).or_default();
            if list.len() < EXAMPLES {
                list.push(text);
            }
        };
        for g in generated {
            let failed: Vec<&'static str> = g.failures.iter().map(|(_, why)| generation_check(why)).collect();
            for (raw, why) in &g.failures {
                let shown: String = raw.chars().take(200).collect();
                example(&mut q, generation_check(why), format!("{shown} -- {why}"));
            }
            let applied = |check: &str| {
                ["format", "self_contained", "near_duplicate"].contains(&check)
                    || g.verified.as_ref().is_some_and(|v| v.applied.contains(&check))
            };
            let last = g.failures.last().map(|(_, why)| generation_check(why));
            // A check that never ran (one that is off, or one every reply failed before) gets no entry.
            for check in REPLY_CHECKS {
                let mut count = |field: fn(&mut CheckCounts) -> &mut usize| {
                    *field(q.checks.entry(check.to_string()).or_default()) += 1;
                };
                match (&g.item, failed.contains(&check)) {
                    (Some(_), true) => count(|c| &mut c.regenerated),
                    (Some(_), false) if applied(check) => count(|c| &mut c.passed),
                    (None, _) if last == Some(check) => count(|c| &mut c.dropped),
                    _ => {}
                }
            }
            if g.item.is_none() && last == Some("model_call") {
                q.checks.entry("model_call".into()).or_default().dropped += 1;
            }
            if let Some(why) = g.verified.as_ref().and_then(|v| v.retyped.as_ref()) {
                q.retyped += 1;
                let question = g.item.as_ref().and_then(|i| i.get("question")).and_then(Value::as_str);
                example(&mut q, "multi_hop_type", format!("{} -- {why}", question.unwrap_or_default()));
            }
        }
        let kept = checks.iter().filter(|c| c.verdict.is_ok()).count();
        q.checks.entry("per_topic".to_string()).or_default().passed = kept;
        for (c, check) in candidates.iter().zip(checks) {
            if let Err(why) = &check.verdict {
                let name = selection_check(why);
                q.checks.entry(name.to_string()).or_default().dropped += 1;
                example(&mut q, name, format!("{} -- {why}", c.question));
            }
        }
        // Replies that reached the near-duplicate check: those that failed it or a later check,
        // and those kept.
        let later = |why: &str| !matches!(generation_check(why), "format" | "self_contained");
        let (mut reached, mut repeated) = (0usize, 0usize);
        for g in generated {
            reached += usize::from(g.item.is_some()) + g.failures.iter().filter(|(_, why)| later(why)).count();
            repeated += g.failures.iter().filter(|(_, why)| generation_check(why) == "near_duplicate").count();
        }
        q.near_duplicate_rate = if reached == 0 { 0.0 } else { repeated as f64 / reached as f64 };
        for l in LETTERS {
            q.answer_letters.insert(l.to_string(), letters.iter().filter(|x| *x == l).count());
        }
        q.answer_letters_p = uniform_p(&q.answer_letters.values().copied().collect::<Vec<_>>());
        q
    }
}

/// One topic as `topics.json` lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TopicRow {
    /// `t0`, `t1`, ... or `noise`.
    pub id: String,
    /// The three heaviest terms, joined by `/`.
    pub label: String,
    /// Heaviest c-TF-IDF terms with their weights.
    pub terms: Vec<(String, f64)>,
    /// Chunks in it.
    pub chunks: usize,
    /// Chunks sampled from it.
    pub sampled: usize,
}

/// One chunk with its topic, as `chunks.jsonl` lists them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChunkRow {
    /// `DOCUMENT_ID:INDEX`.
    pub id: String,
    /// The document it comes from.
    pub doc_id: String,
    /// Character offset of its first character in the document.
    pub start: usize,
    /// Character offset just past its last character.
    pub end: usize,
    /// Word tokens.
    pub tokens: usize,
    /// `en` or `zh`.
    pub lang: String,
    /// Its topic's id.
    pub topic: String,
    /// The text.
    pub text: String,
}

/// `topics.json`: the collection, its chunking, the clustering's quality, the topics and the
/// calls a run will make.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TopicsDocument {
    /// Documents read.
    pub documents: usize,
    /// Files and lines left out.
    pub skipped: Vec<Skip>,
    /// Chunks.
    pub chunks: usize,
    /// Sentences longer than the budget, cut at word boundaries.
    pub cut_sentences: usize,
    /// Dimensions the clustering used.
    pub dims: usize,
    /// Share of variance those dimensions keep.
    pub variance_kept: f64,
    /// Mean silhouette of the partition.
    pub silhouette: Option<f64>,
    /// k-means only: silhouette for every k tried.
    pub k_scores: Vec<(usize, f64)>,
    /// The topics.
    pub topics: Vec<TopicRow>,
    /// The calls a run will make.
    pub calls: CallEstimate,
}

impl Artifact for TopicsDocument {
    const KIND: &'static str = "testgen-topics";
    const SCHEMA_VERSION: u32 = 2;

    /// Before artifacts were versioned: the same fields without a header.
    fn is_legacy(value: &Value) -> bool {
        ["documents", "chunks", "topics", "calls", "k_scores"].iter().all(|k| value.get(k).is_some())
    }
}

/// What a run kept and left out: per type and topic, rejections per reason.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TestgenSummary {
    /// Questions kept (follow-ups included).
    pub questions: usize,
    /// Generation tasks (follow-ups included).
    pub tasks: usize,
    /// Generation attempts (failed and retried included).
    pub attempts: usize,
    /// Tasks without a kept question.
    pub rejected: usize,
    /// Rejections per reason (the text before ` (`).
    pub rejected_by_reason: BTreeMap<String, usize>,
    /// Kept questions per query type.
    pub per_type: BTreeMap<String, usize>,
    /// Kept questions per topic.
    pub per_topic: BTreeMap<String, usize>,
    /// Topics without a kept question.
    pub topics_without_questions: Vec<String>,
    /// What each check did, with examples; answer letters; near-duplicates.
    #[serde(default)]
    pub quality: QualityReport,
}

impl Artifact for TestgenSummary {
    const KIND: &'static str = "testgen-summary";
    const SCHEMA_VERSION: u32 = 3;
}

impl Plan {
    /// Per topic: id, label, top terms, chunks and chunks sampled (as `topics.json` lists them).
    pub fn topic_rows(&self) -> Vec<TopicRow> {
        self.strata
            .topics
            .iter()
            .map(|t| TopicRow {
                id: t.id.clone(),
                label: t.label.clone(),
                terms: t.terms.clone(),
                chunks: t.size,
                sampled: self.sample.per_stratum.get(&t.id).map_or(0, |x| x.1),
            })
            .collect()
    }

    /// The `topics.json` document: collection, chunking, clustering quality, topics and calls.
    pub fn topics_document(&self, corpus: &Corpus, calls: &CallEstimate) -> TopicsDocument {
        TopicsDocument {
            documents: corpus.documents.len(),
            skipped: corpus.skipped.clone(),
            chunks: self.chunking.chunks.len(),
            cut_sentences: self.chunking.cut_sentences,
            dims: self.strata.dims,
            variance_kept: self.strata.variance_kept,
            silhouette: self.strata.clustering.silhouette,
            k_scores: self.strata.clustering.k_scores.clone(),
            topics: self.topic_rows(),
            calls: calls.clone(),
        }
    }

    /// One row per chunk with its topic (as `chunks.jsonl` lists them).
    pub fn chunk_rows(&self) -> impl Iterator<Item = ChunkRow> + '_ {
        self.chunking.chunks.iter().zip(&self.strata.assignment).map(|(c, &a)| ChunkRow {
            id: c.id.clone(),
            doc_id: c.doc_id.clone(),
            start: c.start,
            end: c.end,
            tokens: c.tokens,
            lang: c.lang.to_string(),
            topic: self.strata.topics[a].id.clone(),
            text: c.text.clone(),
        })
    }
}

impl TestgenOutput {
    /// Kept questions per type and per topic, rejections per reason (the text before ` (`),
    /// and the topics without a kept question.
    pub fn summary(&self) -> TestgenSummary {
        let mut per_type: BTreeMap<String, usize> = BTreeMap::new();
        let mut per_topic: BTreeMap<String, usize> = BTreeMap::new();
        for q in &self.questions {
            let meta = &q.record["meta"];
            *per_type.entry(meta["query_type"].as_str().unwrap_or_default().to_string()).or_insert(0) += 1;
            *per_topic.entry(meta["topic"].as_str().unwrap_or_default().to_string()).or_insert(0) += 1;
        }
        let mut rejected_by_reason: BTreeMap<String, usize> = BTreeMap::new();
        for r in &self.rejected {
            *rejected_by_reason.entry(r.reason.split(" (").next().unwrap_or(&r.reason).to_string()).or_insert(0) += 1;
        }
        let topics_without_questions =
            self.plan.strata.topics.iter().map(|t| t.id.clone()).filter(|t| !per_topic.contains_key(t)).collect();
        TestgenSummary {
            questions: self.questions.len(),
            tasks: self.plan.tasks.len() + self.follow_up_tasks,
            attempts: self.attempts,
            rejected: self.rejected.len(),
            rejected_by_reason,
            per_type,
            per_topic,
            topics_without_questions,
            quality: self.quality.clone(),
        }
    }
}

/// Chunks, embeds, stratifies and samples a collection, and lays out the generation tasks.
pub fn plan(corpus: &Corpus, embedder: &dyn Embedder, settings: &TestgenSettings) -> Result<Plan, TestgenError> {
    settings.validate()?;
    let chunking = chunk_documents(&corpus.documents, settings.chunk)?;
    let vectors = embed_chunks(embedder, &chunking.chunks, settings.batch)?;
    let strata = build_strata(&chunking.chunks, &vectors, &settings.strata)?;
    let names: Vec<String> = strata.assignment.iter().map(|&a| strata.topics[a].id.clone()).collect();
    let sample = stratified_sample(&names, &settings.sample)?;
    let mut tasks = Vec::new();
    let mut turn: BTreeMap<usize, usize> = BTreeMap::new();
    let mut yes_no = 0usize;
    for &i in &sample.indices {
        let topic = strata.assignment[i];
        for _ in 0..settings.per_chunk {
            // Each topic starts its rotation at its own offset, so that a few chunks per topic
            // still give every type across the collection.
            let k = turn.entry(topic).or_insert(topic);
            let mut query_type = settings.types[*k % settings.types.len()];
            *k += 1;
            let mut sources = vec![i];
            if query_type == QueryType::MultiHop {
                match partner(i, &strata, &chunking, &vectors) {
                    Some(j) => sources.push(j),
                    None => query_type = QueryType::Factual,
                }
            }
            let answer = (query_type == QueryType::YesNo).then(|| {
                yes_no += 1;
                if yes_no % 2 == 1 {
                    "yes"
                } else {
                    "no"
                }
            });
            tasks.push(GenTask { query_type, sources, topic, answer });
        }
    }
    Ok(Plan { chunking, strata, sample, tasks, vectors })
}

/// The most similar chunk of the same topic from another document (else the same document).
fn partner(i: usize, strata: &Strata, chunking: &Chunking, vectors: &ndarray::Array2<f64>) -> Option<usize> {
    let chunks = &chunking.chunks;
    let topic = strata.assignment[i];
    let score =
        |j: usize| -> (bool, f64) { (chunks[j].doc_id != chunks[i].doc_id, vectors.row(i).dot(&vectors.row(j))) };
    (0..chunks.len()).filter(|&j| j != i && strata.assignment[j] == topic).max_by(|&a, &b| {
        let (da, sa) = score(a);
        let (db, sb) = score(b);
        da.cmp(&db).then(sa.total_cmp(&sb))
    })
}

/// What a plan will cost: calls and estimated prompt tokens, without calling any model.
pub fn estimate(plan: &Plan, settings: &TestgenSettings) -> CallEstimate {
    let mut per_type = BTreeMap::new();
    let mut tokens = 0u64;
    for t in &plan.tasks {
        *per_type.entry(t.query_type.name().to_string()).or_insert(0) += 1;
        let (prompt, _) = task_prompt(t, &plan.chunking.chunks);
        let chars: usize = prompt.messages.iter().map(|m| m.content.chars().count()).sum();
        tokens += (chars as u64).div_ceil(4);
    }
    let n = plan.tasks.len();
    let attempts = 1 + settings.generation.retries as usize;
    // Answerable, then the reference: a yes/no answer in one call; free text and multiple choice
    // in two, the second the judge's own answer (generated, counted here with the checks). An
    // unanswerable one: the source and up to four retrieved chunks, then the judge's own answer.
    // Free text and multiple choice then look for another answer: up to two chunks of other
    // documents, each asked whether it answers and, when it does, answered from.
    let verify = &settings.selection.verify;
    let per_attempt = |t: &GenTask| match t.query_type {
        QueryType::Unanswerable => 2 + 2 * verify.unanswerable_chunks,
        QueryType::YesNo => 2,
        _ => 3 + 4 * verify.other_answer_chunks,
    };
    // A follow-up's rewrite is checked as a factual question and flagged.
    let answerable = plan.tasks.iter().filter(|t| t.query_type != QueryType::Unanswerable).count();
    let follow_ups = crate::followup::count(answerable, settings.follow_ups);
    CallEstimate {
        tasks: n,
        generation_calls: n,
        generation_calls_max: (n + follow_ups) * attempts,
        selection_calls_max: plan.tasks.iter().map(|t| attempts * per_attempt(t) + 1).sum::<usize>()
            + follow_ups * (attempts * (3 + 4 * verify.other_answer_chunks) + 1),
        generation_prompt_tokens: tokens,
        per_type,
        follow_ups_max: follow_ups,
    }
}

/// Generates, checks and selects the questions of a plan.
pub fn run(
    plan: Plan,
    judge: &dyn Judge,
    embedder: &dyn Embedder,
    settings: &TestgenSettings,
) -> Result<TestgenOutput, TestgenError> {
    let chunks = &plan.chunking.chunks;
    let collection = Collection::new(chunks, &plan.vectors)?;
    let verifier = Verifier { judge, embedder, collection: &collection, options: settings.selection.verify };
    let check = |i: usize, item: &serde_json::Map<String, Value>| -> Result<Verified, String> {
        let task = &plan.tasks[i];
        match verifier.verify(task.query_type, &task.sources, item) {
            Ok(verdict) => verdict,
            Err(e) => Err(format!("check failed: {e}")),
        }
    };
    let duplicates = NearDuplicates { embedder, max_similarity: settings.selection.max_similarity };
    let generated: Vec<Generated> =
        generate(judge, &plan.tasks, chunks, &settings.generation, Some(duplicates), &check);
    let attempts: usize = generated.iter().map(|g| g.attempts as usize).sum();
    let mut rejected = Vec::new();
    let mut candidates = Vec::new();
    let mut kept_replies: Vec<(usize, &Verified)> = Vec::new();
    for (k, (task, g)) in plan.tasks.iter().zip(&generated).enumerate() {
        match (&g.item, &g.verified) {
            (Some(item), Some(v)) => {
                candidates.push(Candidate {
                    query_type: v.query_type,
                    question: question_text(v.query_type, item),
                    answer: reference_answer(v.query_type, item),
                    lang: chunks[v.sources[0]].lang,
                    topic: task.topic,
                });
                kept_replies.push((k, v));
            }
            _ => rejected.push(Rejected {
                query_type: task.query_type,
                source_ids: task.sources.iter().map(|&i| chunks[i].id.clone()).collect(),
                question: None,
                reason: format!("no valid reply in {} attempt(s)", g.attempts),
                raw: g.failures.clone(),
                follow_up_of: None,
            }),
        }
    }
    let checks: Vec<Checks> = select(judge, &candidates, &settings.selection);
    let letters: Vec<String> = candidates
        .iter()
        .zip(&checks)
        .filter(|(c, check)| c.query_type == QueryType::MultipleChoice && check.verdict.is_ok())
        .map(|(c, _)| c.answer.split(')').next().unwrap_or_default().to_string())
        .collect();
    let mut quality = QualityReport::of(&generated, &candidates, &checks, &letters);
    for (c, check) in candidates.iter().zip(&checks) {
        if c.query_type == QueryType::YesNo && check.verdict.is_ok() {
            *quality.yes_no_answers.entry(c.answer.clone()).or_insert(0) += 1;
        }
    }
    let mut questions = Vec::new();
    let mut firsts = Vec::new();
    for ((c, check), &(k, v)) in candidates.iter().zip(&checks).zip(&kept_replies) {
        let source_ids: Vec<String> = v.sources.iter().map(|&i| chunks[i].id.clone()).collect();
        if let Err(reason) = &check.verdict {
            rejected.push(Rejected {
                query_type: v.query_type,
                source_ids,
                question: Some(c.question.clone()),
                reason: reason.clone(),
                raw: Vec::new(),
                follow_up_of: None,
            });
            continue;
        }
        let topic = &plan.strata.topics[plan.tasks[k].topic];
        let source_docs: Vec<String> = v.sources.iter().map(|&i| chunks[i].doc_id.clone()).collect();
        let sources: Vec<String> = v.sources.iter().map(|&i| chunks[i].text.clone()).collect();
        let needs_retrieval = check.closed_book.is_none_or(|p| p <= settings.selection.closed_book);
        let mut values = serde_json::to_value(&v.values).map_err(TestgenError::Record)?;
        values["closed_book"] = json!(check.closed_book);
        let record = json!({
            "id": format!("tg{:04}", questions.len() + 1),
            "query": c.question,
            "reference": c.answer,
            "meta": {
                "topic": topic.id,
                "topic_label": topic.label,
                "topic_terms": topic.terms.iter().map(|(t, _)| t.clone()).collect::<Vec<_>>(),
                "query_type": v.query_type.name(),
                "source_ids": source_ids,
                "source_docs": source_docs,
                "difficulty": difficulty(v.query_type, &c.question, &sources),
                "lang": c.lang,
                "needs_retrieval": needs_retrieval,
                "checks": values,
                "retyped": v.retyped,
                "prompt_version": generated[k].prompt_version,
            }
        });
        if v.query_type != QueryType::Unanswerable {
            let first =
                FirstTurn { index: questions.len(), record: record.clone(), sources: v.sources.clone(), lang: c.lang };
            firsts.push(first);
        }
        questions.push(Question { record });
    }
    let follow = follow_ups(judge, &verifier, &firsts, chunks, settings)?;
    let questions = with_follow_ups(questions, follow.kept);
    rejected.extend(follow.rejected);
    if follow.tasks > 0 {
        quality.checks.insert("follow_up".into(), follow.counts);
        quality.examples.insert("follow_up".into(), follow.examples);
    }
    quality.topics = plan
        .topic_rows()
        .into_iter()
        .map(|t| {
            let kept = questions.iter().filter(|q| q.record["meta"]["topic"] == t.id.as_str()).count();
            TopicCoverage { id: t.id, label: t.label, chunks: t.chunks, sampled: t.sampled, questions: kept }
        })
        .collect();
    let attempts = attempts + follow.attempts;
    Ok(TestgenOutput { plan, questions, rejected, attempts, follow_up_tasks: follow.tasks, quality })
}

/// The kept questions with each kept follow-up right after its first question, which becomes
/// turn 1 of a conversation named by its id.
fn with_follow_ups(questions: Vec<Question>, follow_ups: Vec<(usize, Value)>) -> Vec<Question> {
    let mut after: BTreeMap<usize, Value> = follow_ups.into_iter().collect();
    let mut out = Vec::with_capacity(questions.len() + after.len());
    for (k, mut q) in questions.into_iter().enumerate() {
        let follow_up = after.remove(&k);
        if follow_up.is_some() {
            q.record["meta"]["session_id"] = q.record["id"].clone();
            q.record["meta"]["turn"] = json!(1);
        }
        out.push(q);
        out.extend(follow_up.map(|record| Question { record }));
    }
    out
}

/// `easy`, `medium` or `hard`: a base by type (factual and yes/no 1, multiple choice, inference,
/// unanswerable and follow-up 2, multi-hop 3), one more when fewer than half of the question's words occur
/// in its sources (the question paraphrases rather than copies).
pub fn difficulty(query_type: QueryType, question: &str, sources: &[String]) -> &'static str {
    let base = match query_type {
        QueryType::Factual | QueryType::YesNo => 1,
        QueryType::MultipleChoice | QueryType::Inference | QueryType::Unanswerable | QueryType::FollowUp => 2,
        QueryType::MultiHop => 3,
    };
    let source: std::collections::HashSet<String> =
        sources.iter().flat_map(|s| words(s)).map(str::to_lowercase).collect();
    let q: Vec<String> = words(question).into_iter().map(str::to_lowercase).collect();
    let found = q.iter().filter(|w| source.contains(*w)).count();
    let level = base + usize::from(!q.is_empty() && found * 2 < q.len());
    match level {
        1 => "easy",
        2 => "medium",
        _ => "hard",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Map;

    #[test]
    fn letter_spread_p_values_match_scipy() {
        // scipy.stats.chisquare(counts).pvalue, scipy 1.14.1.
        for (counts, want) in [
            ([10, 0, 0, 0], 1.3800570312932553e-06),
            ([3, 2, 2, 3], 0.9402424948393607),
            ([4, 1, 0, 0], 0.03511011567598098),
        ] {
            let got = uniform_p(&counts).unwrap();
            assert!((got - want).abs() <= 1e-12 * want.max(1e-300) + 1e-15, "{counts:?}: {got} vs {want}");
        }
        assert_eq!(uniform_p(&[1, 1, 1, 0]), None);
    }

    fn generated(item: bool, failures: &[&str], applied: &[&'static str]) -> Generated {
        Generated {
            item: item.then(Map::new),
            attempts: failures.len() as u32 + u32::from(item),
            failures: failures.iter().map(|why| ("{...}".to_string(), why.to_string())).collect(),
            prompt_version: "gen-en-v4",
            verified: item.then(|| Verified {
                query_type: QueryType::Factual,
                sources: vec![0],
                applied: applied.to_vec(),
                retyped: None,
                values: Default::default(),
            }),
        }
    }

    fn candidate(question: &str) -> Candidate {
        Candidate {
            query_type: QueryType::Factual,
            question: question.into(),
            answer: "x".into(),
            lang: "en",
            topic: 0,
        }
    }

    fn verdict(v: Result<(), &str>) -> Checks {
        Checks { closed_book: None, verdict: v.map_err(String::from) }
    }

    #[test]
    fn the_quality_report_counts_each_check_by_hand() {
        let not_standalone = "the question is not self-contained: it refers to the source (\"the passage\")";
        let lost =
            "the question does not find its source in the collection (BM25 rank 9, embedding rank 7; at most 5 needed)";
        let answered = "the collection may answer it: d1:0 does (P(yes) 0.97)";
        let repeated = "near-duplicate of a kept question (cosine 0.950)";
        let yes_no = ["round_trip", "answerable", "reference"];
        let free = ["round_trip", "answerable", "grounded", "reference"];
        let mut retyped = generated(true, &["not JSON: eof", lost], &yes_no);
        retyped.verified.as_mut().unwrap().retyped = Some("multi_hop -> factual: d2:0 holds the answer alone".into());
        let gens = [
            generated(true, &[], &yes_no),             // passed at once
            generated(true, &[not_standalone], &free), // regenerated (self-contained)
            retyped,                                   // regenerated (format, round trip)
            generated(false, &["not JSON: eof", "answer: not a valid value: \"E\""], &[]), // dropped (format)
            generated(false, &["not JSON: eof", not_standalone], &[]), // dropped (self-contained)
            generated(false, &[answered, answered], &[]), // dropped (unanswerable)
            generated(true, &[repeated], &yes_no),     // regenerated (near-duplicate)
        ];
        let candidates = [candidate("Q1?"), candidate("Q2?"), candidate("Q3?"), candidate("Q7?")];
        let checks = [verdict(Ok(())), verdict(Ok(())), verdict(Err("topic already has 1 questions")), verdict(Ok(()))];
        let letters = ["A".to_string(), "A".into(), "C".into(), "A".into()];
        let q = QualityReport::of(&gens, &candidates, &checks, &letters);
        let counts = |name: &str| q.checks[name];
        let c = |passed, regenerated, dropped| CheckCounts { passed, regenerated, dropped };
        assert_eq!(counts("format"), c(3, 1, 1));
        assert_eq!(counts("self_contained"), c(3, 1, 1));
        assert_eq!(counts("near_duplicate"), c(3, 1, 0));
        assert_eq!(counts("round_trip"), c(3, 1, 0));
        assert_eq!(counts("answerable"), c(4, 0, 0));
        assert_eq!(counts("grounded"), c(1, 0, 0));
        assert_eq!(counts("reference"), c(4, 0, 0));
        assert_eq!(counts("unanswerable"), c(0, 0, 1));
        assert_eq!(counts("per_topic"), c(3, 0, 1));
        assert!(!q.checks.contains_key("model_call"));
        // No reply ran the other-answer check (it is off by default): no row for it.
        assert!(!q.checks.contains_key("unique_answer"));
        assert_eq!(q.retyped, 1);
        assert_eq!(q.examples["multi_hop_type"], [" -- multi_hop -> factual: d2:0 holds the answer alone"]);
        // Replies that reached the near-duplicate check: the four kept, and the failures after it
        // (one round trip, two unanswerable, the near-duplicate itself): 1 of 8.
        assert!((q.near_duplicate_rate - 1.0 / 8.0).abs() < 1e-12);
        assert_eq!(q.examples["self_contained"].len(), 2);
        assert_eq!(q.examples["unanswerable"], [format!("{{...}} -- {answered}"), format!("{{...}} -- {answered}")]);
        // Letters A A C A: counts 3, 0, 1, 0 against 1 each, chi-square 4 + 1 + 0 + 1 = 6 with 3
        // degrees of freedom (scipy.stats.chisquare: p 0.11161022509471268).
        assert_eq!(q.answer_letters.values().copied().collect::<Vec<_>>(), [3, 0, 1, 0]);
        let p = q.answer_letters_p.unwrap();
        assert!((p - 0.11161022509471268).abs() < 1e-12, "{p}");
    }
}
