//! Asking a [`Target`] every question: bounded concurrency, retries with exponential backoff
//! (or the target's `Retry-After`), every answer stored in the call cache the moment it arrives
//! (so a killed run resumes and asks no answered question again), and every question that
//! still fails recorded with its reason: the output never has a silent gap. The turns of a
//! conversation are asked in order, each with the conversation so far ([`crate::conversation`]).

use crate::conversation::{units, Transcript};
use crate::questions::Question;
use crate::target::{Answer, CallError, Target};
use ragjudge_core::Record;
use ragjudge_store::{cache_key, CallCache};
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Cache kind of stored answers (bump when [`Stored`] changes).
const KIND: &str = "collect-v1";

/// Longest wait between two attempts.
const MAX_BACKOFF: Duration = Duration::from_secs(60);

/// Relevance grade given to a passage known to answer the question (UMBRELA's top grade).
pub const KNOWN_RELEVANT: f64 = 3.0;

/// How a run is carried out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CollectSettings {
    /// `system` of the output records.
    pub system: String,
    /// Questions in flight at once.
    pub concurrency: usize,
    /// Further attempts after a retryable failure.
    pub retries: u32,
    /// Wait before the first retry; doubled for each further one.
    pub backoff: Duration,
    /// Ask every question again, ignoring (and replacing) cached answers.
    pub refresh: bool,
}

impl Default for CollectSettings {
    fn default() -> Self {
        Self {
            system: "target".into(),
            concurrency: 4,
            retries: 2,
            backoff: Duration::from_millis(500),
            refresh: false,
        }
    }
}

/// A question that got no answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    /// Question id.
    pub id: String,
    /// The question.
    pub query: String,
    /// Why the last attempt failed.
    pub error: String,
    /// Attempts made.
    pub attempts: u32,
}

/// What the cache holds per question.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Stored {
    answer: Answer,
    latency_ms: f64,
}

/// The outcome of one question.
#[derive(Debug, Clone)]
enum Outcome {
    /// The output record (with the history that was sent).
    Answered { record: Box<Record>, without_contexts: bool, cached: bool, attempts: u32, latency_ms: f64 },
    /// Asked, and failed after its retries.
    Failed(Failure),
    /// A later turn of a conversation whose earlier turn failed: not asked.
    NotAsked(Failure),
}

/// The answers and what it took to get them.
#[derive(Debug, Clone, Default)]
pub struct Collected {
    /// One record per answered question, in question order.
    pub records: Vec<Record>,
    /// The questions that got no answer, in question order (those not asked included).
    pub failures: Vec<Failure>,
    /// Turns of a conversation not asked because an earlier turn failed (in `failures`).
    pub not_asked: usize,
    /// Answers found in the cache (not asked again).
    pub from_cache: usize,
    /// Questions asked of the target in this run.
    pub asked: usize,
    /// Calls made, retries included.
    pub attempts: usize,
    /// Answers with no passages.
    pub without_contexts: usize,
    /// Answers that could not be stored in the cache (still in `records`).
    pub store_errors: usize,
    /// Latency of each question answered in this run (last attempt), in milliseconds.
    pub latencies_ms: Vec<f64>,
}

/// The cache key of `question`'s answer from `target`: the target's identity, the question
/// text and the conversation before it as sent (for a later turn, with the target's own earlier
/// answers, so a re-run that gets the same earlier answers from the cache finds this one too).
fn key(identity: &str, system: &str, q: &Question) -> String {
    cache_key(identity, KIND, &json!({"system": system, "query": q.record.query, "history": q.record.history}))
}

/// One question, with retries.
fn ask(target: &dyn Target, q: &Question, settings: &CollectSettings) -> (Result<Answer, CallError>, u32, f64) {
    let mut attempt = 0u32;
    loop {
        attempt += 1;
        let start = Instant::now();
        let result = target.answer(q);
        let ms = start.elapsed().as_secs_f64() * 1e3;
        match result {
            Err(e) if e.retryable && attempt <= settings.retries => {
                let backoff = settings.backoff.saturating_mul(1 << (attempt - 1).min(16)).min(MAX_BACKOFF);
                std::thread::sleep(e.retry_after.unwrap_or(backoff));
            }
            other => return (other, attempt, ms),
        }
    }
}

/// Whether the passage `id` is one the question is known to be answered by: listed itself, or a
/// chunk `DOC:N` (the built-in RAG's and testgen's chunk ids) of a listed document `DOC`, for
/// question sets that name the source document rather than the chunk.
fn known_relevant(relevant: &[String], id: &str) -> bool {
    relevant.iter().any(|r| r == id)
        || id.rsplit_once(':').is_some_and(|(doc, n)| {
            !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) && relevant.iter().any(|r| r == doc)
        })
}

/// The output record of an answered question. When the question names the passages it is
/// answered by, a returned passage without a grade gets [`KNOWN_RELEVANT`] if it is one of them
/// and 0 otherwise (TREC's unjudged = not relevant), so a question whose passages all miss scores
/// 0 rather than being left out as unjudged.
pub fn to_record(q: &Question, answer: Answer, system: &str) -> Record {
    let mut contexts = answer.contexts;
    if !q.relevant.is_empty() {
        for c in contexts.iter_mut().filter(|c| c.relevance.is_none()) {
            let hit = c.id.as_deref().is_some_and(|id| known_relevant(&q.relevant, id));
            c.relevance = Some(if hit { KNOWN_RELEVANT } else { 0.0 });
        }
    }
    Record { system: system.to_string(), contexts, answer: answer.answer, ..q.record.clone() }
}

/// One question as sent (with the history of its conversation), from the cache or the target.
fn answer_one(
    q: &Question,
    target: &dyn Target,
    identity: &str,
    cache: &CallCache,
    settings: &CollectSettings,
    store_errors: &AtomicUsize,
) -> Outcome {
    let k = key(identity, &settings.system, q);
    let hit = if settings.refresh { None } else { cache.get(&k) };
    let answered = |answer: Answer, cached, attempts, latency_ms| Outcome::Answered {
        without_contexts: answer.contexts.is_empty(),
        record: Box::new(to_record(q, answer, &settings.system)),
        cached,
        attempts,
        latency_ms,
    };
    if let Some(s) = hit.and_then(|v| serde_json::from_value::<Stored>(v).ok()) {
        return answered(s.answer, true, 0, s.latency_ms);
    }
    match ask(target, q, settings) {
        (Ok(answer), attempts, latency_ms) => {
            let stored = Stored { answer, latency_ms };
            let value = serde_json::to_value(&stored).unwrap_or_default();
            if cache.put(&k, &value).is_err() {
                store_errors.fetch_add(1, Ordering::SeqCst);
            }
            answered(stored.answer, false, attempts, latency_ms)
        }
        (Err(e), attempts, _) => Outcome::Failed(Failure {
            id: q.record.id.clone(),
            query: q.record.query.clone(),
            error: e.message,
            attempts,
        }),
    }
}

/// Asks `target` every question; `progress(done, failed)` is called after each one. Independent
/// questions and conversations ([`crate::conversation`]) run concurrently; the turns of one
/// conversation run in order, each sent with the conversation so far, and when one fails the
/// later turns are recorded as failures without being asked.
pub fn collect(
    questions: &[Question],
    target: &dyn Target,
    cache: &CallCache,
    settings: &CollectSettings,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Collected {
    let identity = target.identity();
    let units = units(questions);
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let failed = AtomicUsize::new(0);
    let store_errors = AtomicUsize::new(0);
    let outcomes: Mutex<Vec<Option<Outcome>>> = Mutex::new(vec![None; questions.len()]);
    let worker = || loop {
        let u = next.fetch_add(1, Ordering::SeqCst);
        let Some(unit) = units.get(u) else { break };
        let mut transcript = Transcript::starting(&questions[unit.questions[0]]);
        // Why the later turns of this conversation are not asked, once one has failed.
        let mut broken: Option<String> = None;
        for &i in &unit.questions {
            let q = &questions[i];
            let outcome = match &broken {
                Some(why) => Outcome::NotAsked(Failure {
                    id: q.record.id.clone(),
                    query: q.record.query.clone(),
                    error: why.clone(),
                    attempts: 0,
                }),
                None => {
                    let outcome = answer_one(&transcript.sent(q), target, &identity, cache, settings, &store_errors);
                    match &outcome {
                        Outcome::Answered { record, .. } => transcript.answered(&record.query, &record.answer),
                        _ => {
                            broken = unit
                                .conversation
                                .as_ref()
                                .map(|c| format!("not asked: turn {} of conversation {c:?} failed", q.record.turn()));
                        }
                    }
                    outcome
                }
            };
            if !matches!(outcome, Outcome::Answered { .. }) {
                failed.fetch_add(1, Ordering::SeqCst);
            }
            outcomes.lock().unwrap_or_else(|p| p.into_inner())[i] = Some(outcome);
            progress(done.fetch_add(1, Ordering::SeqCst) + 1, failed.load(Ordering::SeqCst));
        }
    };
    let workers = settings.concurrency.clamp(1, units.len().max(1));
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(worker);
        }
    });
    let mut out = Collected { store_errors: store_errors.into_inner(), ..Collected::default() };
    let outcomes = outcomes.into_inner().unwrap_or_else(|p| p.into_inner());
    for (q, outcome) in questions.iter().zip(outcomes) {
        match outcome {
            Some(Outcome::Answered { record, without_contexts, cached, attempts, latency_ms }) => {
                if cached {
                    out.from_cache += 1;
                } else {
                    out.asked += 1;
                    out.attempts += attempts as usize;
                    out.latencies_ms.push(latency_ms);
                }
                out.without_contexts += usize::from(without_contexts);
                out.records.push(*record);
            }
            Some(Outcome::Failed(f)) => {
                out.asked += 1;
                out.attempts += f.attempts as usize;
                out.failures.push(f);
            }
            Some(Outcome::NotAsked(f)) => {
                out.not_asked += 1;
                out.failures.push(f);
            }
            // A worker that panicked left its question unanswered: say so rather than drop it.
            None => out.failures.push(Failure {
                id: q.record.id.clone(),
                query: q.record.query.clone(),
                error: "internal error: the question was not processed".into(),
                attempts: 0,
            }),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::known_relevant;

    #[test]
    fn a_listed_passage_or_a_chunk_of_a_listed_document_is_known_relevant() {
        let relevant = vec!["718524943".to_string(), "doc:2".to_string()];
        assert!(known_relevant(&relevant, "718524943"));
        assert!(known_relevant(&relevant, "718524943:0"));
        assert!(known_relevant(&relevant, "718524943:17"));
        assert!(known_relevant(&relevant, "doc:2"));
        // A listed id names a document as well: `doc:2:1` is its chunk 1.
        assert!(known_relevant(&relevant, "doc:2:1"));
        // Another document, a suffix that is not a chunk number, a prefix of a listed id.
        assert!(!known_relevant(&relevant, "718524944:0"));
        assert!(!known_relevant(&relevant, "718524943:a"));
        assert!(!known_relevant(&relevant, "718524943:"));
        assert!(!known_relevant(&relevant, "doc"));
    }
}
