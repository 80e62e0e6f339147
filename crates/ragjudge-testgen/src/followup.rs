//! Follow-up questions: second turns of conversations, so that a test set also asks what a user
//! asks next. For a share of the kept answerable questions, drawn by a generator seeded with the
//! run's seed, the model writes the question a user would ask next in the same conversation: one
//! that leans on the first turn ("And how long does it last?") and is answered by the same
//! sources, with its reference answer and a standalone rewrite (the same question with what it
//! leans on spelled out). The rewrite carries the checks of a question on its own: it must stand
//! on its own ([`crate::standalone`]) and pass the checks of a factual question with the
//! reference ([`crate::verify`]: round trip, answerable, grounded, reference). The follow-up
//! itself may use a pronoun or leave things out, which is its point, but may not speak of "the
//! passage". A reply that fails is regenerated within the retry budget, then recorded with its
//! reason; a kept follow-up becomes turn 2 of a conversation whose turn 1 is its first question.

use ragjudge_core::text::words;
use ragjudge_models::{Judge, Prompt};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Map, Value};

use crate::chunk::Chunk;
use crate::error::TestgenError;
use crate::generate::{spec_params, GenOptions, Generated, PromptSet, QueryType, ReplyCheck};
use crate::pipeline::{difficulty, CheckCounts, Rejected, TestgenSettings};
use crate::select::{select, Candidate, SelectOptions};
use crate::standalone::{is_question, points_at_source, unresolved_reference};
use crate::verify::Verifier;

const EN_V1: &str = include_str!("../prompts/followup-en-v1.txt");
const ZH_V1: &str = include_str!("../prompts/followup-zh-v1.txt");

/// Mixed into the run's seed, so that the draw of follow-ups is not the draw of the sample.
const DRAW: u64 = 0x666f_6c6c_6f77_7570;

/// The prompts of follow-ups for a chunk language (`zh` gives Chinese prompts, anything else
/// English): `prompts/followup-LANG-v1.txt`.
pub fn prompts(lang: &str) -> PromptSet {
    if lang == "zh" {
        PromptSet::parse("followup-zh-v1", ZH_V1)
    } else {
        PromptSet::parse("followup-en-v1", EN_V1)
    }
}

/// A kept question that may get a follow-up.
#[derive(Debug, Clone)]
pub struct FirstTurn {
    /// Its place among the kept questions.
    pub index: usize,
    /// Its record (`id`, `query`, `reference`, `meta`).
    pub record: Value,
    /// Its source chunks.
    pub sources: Vec<usize>,
    /// Language of its first source.
    pub lang: &'static str,
}

impl FirstTurn {
    fn text(&self, field: &str) -> &str {
        self.record[field].as_str().unwrap_or_default()
    }
}

/// How many of `n` kept questions get a follow-up: `round(fraction * n)`, halves rounded up.
pub fn count(n: usize, fraction: f64) -> usize {
    ((fraction.clamp(0.0, 1.0) * n as f64).round() as usize).min(n)
}

/// Which of `n` kept questions get a follow-up: [`count`] of them, drawn without replacement by a
/// generator seeded with `seed`, in ascending order.
pub fn chosen(n: usize, fraction: f64, seed: u64) -> Vec<usize> {
    let k = count(n, fraction);
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ DRAW);
    let mut picked = rand::seq::index::sample(&mut rng, n, k).into_vec();
    picked.sort_unstable();
    picked
}

/// The prompt of the follow-up to `first`: its sources, the first turn, the instruction and the
/// reply's fields.
pub fn follow_up_prompt(first: &FirstTurn, chunks: &[Chunk]) -> (Prompt, &'static str) {
    let p = prompts(first.lang);
    let mut user = String::new();
    for (k, &i) in first.sources.iter().enumerate() {
        user.push_str(&format!("{} {}:\n{}\n\n", p.section("passage_label"), k + 1, chunks[i].text.trim()));
    }
    let turn =
        p.section("first_turn").replace("{question}", first.text("query")).replace("{answer}", first.text("reference"));
    user.push_str(&turn);
    user.push_str("\n\n");
    user.push_str(p.section("follow_up"));
    user.push_str("\n\nJSON: ");
    user.push_str(&QueryType::FollowUp.spec().json_schema()["required"].to_string());
    (Prompt::chat(p.section("system"), user), p.version)
}

/// Lower-cased words, to compare two questions regardless of case and punctuation.
fn wording(text: &str) -> Vec<String> {
    words(text).into_iter().map(str::to_lowercase).collect()
}

/// The wording checks of a follow-up reply to the first turn (`first_question`, answered by
/// `first_answer`): the follow-up does not speak of the passage; the follow-up and its standalone
/// rewrite are questions (a small model tends to put an answer in the rewrite's place), neither is
/// the first question again, and the follow-up is not its own rewrite (then it would not lean on
/// the first turn); the rewrite stands on its own; and the answer asks for something new (not
/// every one of its words already in the first turn).
pub fn check_wording(first_question: &str, first_answer: &str, item: &Map<String, Value>) -> Result<(), String> {
    let text = |field: &str| item.get(field).and_then(Value::as_str).unwrap_or_default();
    let (follow_up, standalone, answer) = (text("question"), text("standalone"), text("answer"));
    if let Some(why) = points_at_source(follow_up) {
        return Err(format!("the follow-up is not self-contained: {why}"));
    }
    if !is_question(follow_up) || !is_question(standalone) {
        return Err("the follow-up and its standalone rewrite must both be questions".into());
    }
    if wording(follow_up) == wording(first_question) || wording(standalone) == wording(first_question) {
        return Err("the follow-up repeats the first question".into());
    }
    let known: std::collections::HashSet<String> =
        wording(first_question).into_iter().chain(wording(first_answer)).collect();
    let new_words = wording(answer).into_iter().filter(|w| !known.contains(w)).count();
    if new_words == 0 {
        return Err("the follow-up's answer is already in the first turn".into());
    }
    if wording(follow_up) == wording(standalone) {
        return Err("the follow-up does not lean on the first turn: it is its own standalone rewrite".into());
    }
    match unresolved_reference(standalone) {
        Some(why) => Err(format!("the standalone rewrite is not self-contained: {why}")),
        None => Ok(()),
    }
}

/// Asks for the follow-up to each of `firsts`: first attempts in one batch, then the replies that
/// failed their fields or `check` again (sampled, new seed), up to `options.retries` times.
pub fn generate_follow_ups(
    judge: &dyn Judge,
    firsts: &[FirstTurn],
    chunks: &[Chunk],
    options: &GenOptions,
    check: &ReplyCheck<'_>,
) -> Vec<Generated> {
    let spec = QueryType::FollowUp.spec();
    let prompts: Vec<(Prompt, &'static str)> = firsts.iter().map(|f| follow_up_prompt(f, chunks)).collect();
    let mut out: Vec<Generated> = prompts
        .iter()
        .map(|(_, v)| Generated { item: None, attempts: 0, failures: Vec::new(), prompt_version: v, verified: None })
        .collect();
    for attempt in 0..=options.retries {
        let pending: Vec<usize> = (0..firsts.len()).filter(|&i| out[i].item.is_none()).collect();
        if pending.is_empty() {
            break;
        }
        let params = spec_params(&spec, options, attempt);
        let requests: Vec<_> = pending.iter().map(|&i| (prompts[i].0.clone(), params.clone())).collect();
        for (&i, result) in pending.iter().zip(judge.generate_many(&requests)) {
            out[i].attempts += 1;
            let reply = match result {
                Ok(g) => {
                    spec.parse(&g.text).and_then(|item| check(i, &item).map(|v| (item, v))).map_err(|why| (g.text, why))
                }
                Err(e) => Err((String::new(), format!("model call failed: {e}"))),
            };
            match reply {
                Ok((item, v)) => {
                    out[i].item = Some(item);
                    out[i].verified = Some(v);
                }
                Err(failure) => out[i].failures.push(failure),
            }
        }
    }
    out
}

/// What the follow-ups of a run came to.
#[derive(Debug, Clone, Default)]
pub struct FollowUps {
    /// Follow-ups asked for.
    pub tasks: usize,
    /// Generation attempts, failed ones included.
    pub attempts: usize,
    /// Each kept follow-up's record, with the place of its first question among the kept ones.
    pub kept: Vec<(usize, Value)>,
    /// The follow-ups left out, with their reasons.
    pub rejected: Vec<Rejected>,
    /// Kept at once, kept after regenerating, dropped.
    pub counts: CheckCounts,
    /// Up to three failed replies with their reasons.
    pub examples: Vec<String>,
}

/// The record of a kept follow-up `item` to `first`: turn 2 of the conversation named by the first
/// question's id, with the first turn as its history (the first question and its reference), the
/// first question's topic and sources, and its own type, difficulty, checks and rewrite.
fn follow_up_record(
    first: &FirstTurn,
    item: &Map<String, Value>,
    checks: Value,
    needs_retrieval: bool,
    prompt_version: &str,
    chunks: &[Chunk],
) -> Value {
    let text = |field: &str| item.get(field).and_then(Value::as_str).unwrap_or_default().trim().to_string();
    let sources: Vec<String> = first.sources.iter().map(|&i| chunks[i].text.clone()).collect();
    let question = text("question");
    let mut meta = first.record["meta"].clone();
    meta["query_type"] = json!(QueryType::FollowUp.name());
    meta["difficulty"] = json!(difficulty(QueryType::FollowUp, &question, &sources));
    meta["needs_retrieval"] = json!(needs_retrieval);
    meta["checks"] = checks;
    meta["retyped"] = Value::Null;
    meta["prompt_version"] = json!(prompt_version);
    meta["standalone"] = json!(text("standalone"));
    meta["session_id"] = json!(first.text("id"));
    meta["turn"] = json!(2);
    let history = json!([
        {"role": "user", "text": first.text("query")},
        {"role": "assistant", "text": first.text("reference")},
    ]);
    json!({
        "id": format!("{}-f1", first.text("id")),
        "query": question,
        "reference": text("answer"),
        "history": history,
        "meta": meta,
    })
}

/// Writes, checks and selects the follow-ups of a share (`settings.follow_ups`) of `firsts`.
pub fn follow_ups(
    judge: &dyn Judge,
    verifier: &Verifier<'_>,
    firsts: &[FirstTurn],
    chunks: &[Chunk],
    settings: &TestgenSettings,
) -> Result<FollowUps, TestgenError> {
    let picked: Vec<FirstTurn> = chosen(firsts.len(), settings.follow_ups, settings.generation.seed)
        .into_iter()
        .map(|i| firsts[i].clone())
        .collect();
    let verify_reply = |i: usize, item: &Map<String, Value>| {
        let first = &picked[i];
        check_wording(first.text("query"), first.text("reference"), item)?;
        let standalone = json!({"question": item.get("standalone"), "answer": item.get("answer")});
        let standalone = standalone.as_object().cloned().unwrap_or_default();
        match verifier.verify(QueryType::Factual, &first.sources, &standalone) {
            Ok(verdict) => verdict,
            Err(e) => Err(format!("check failed: {e}")),
        }
    };
    let generated = generate_follow_ups(judge, &picked, chunks, &settings.generation, &verify_reply);
    let mut out = FollowUps {
        tasks: picked.len(),
        attempts: generated.iter().map(|g| g.attempts as usize).sum(),
        ..FollowUps::default()
    };
    let text = |item: &Map<String, Value>, field: &str| {
        item.get(field).and_then(Value::as_str).unwrap_or_default().trim().to_string()
    };
    let candidates: Vec<Candidate> = picked
        .iter()
        .zip(&generated)
        .filter_map(|(first, g)| {
            let item = g.item.as_ref()?;
            Some(Candidate {
                query_type: QueryType::FollowUp,
                question: text(item, "standalone"),
                answer: text(item, "answer"),
                lang: first.lang,
                topic: 0,
            })
        })
        .collect();
    // The closed-book flag of the rewrite; no cap per topic: a follow-up adds a turn, not a
    // question on another part of the topic.
    let mut checks = select(judge, &candidates, &SelectOptions { per_topic: 0, ..settings.selection }).into_iter();
    for (first, g) in picked.iter().zip(&generated) {
        for (raw, why) in &g.failures {
            if out.examples.len() < 3 {
                out.examples.push(format!("{} -- {why}", raw.chars().take(200).collect::<String>()));
            }
        }
        let source_ids = first.record["meta"]["source_ids"].as_array().cloned().unwrap_or_default();
        let source_ids: Vec<String> = source_ids.iter().filter_map(Value::as_str).map(str::to_string).collect();
        let reject = |question: Option<String>, reason: String| Rejected {
            query_type: QueryType::FollowUp,
            source_ids: source_ids.clone(),
            question,
            reason,
            raw: g.failures.clone(),
            follow_up_of: Some(first.text("id").to_string()),
        };
        let (Some(item), Some(v)) = (&g.item, &g.verified) else {
            let last = g.failures.last().map_or("no reply", |(_, why)| why.as_str());
            out.rejected.push(reject(None, format!("no valid follow-up in {} attempt(s): {last}", g.attempts)));
            out.counts.dropped += 1;
            continue;
        };
        let check = checks
            .next()
            .unwrap_or(crate::select::Checks { closed_book: None, verdict: Err("check failed: no verdict".into()) });
        if let Err(reason) = check.verdict {
            out.rejected.push(reject(Some(text(item, "question")), reason));
            out.counts.dropped += 1;
            continue;
        }
        if g.failures.is_empty() {
            out.counts.passed += 1;
        } else {
            out.counts.regenerated += 1;
        }
        let mut checks = serde_json::to_value(&v.values).map_err(TestgenError::Record)?;
        checks["closed_book"] = json!(check.closed_book);
        let needs_retrieval = check.closed_book.is_none_or(|p| p <= settings.selection.closed_book);
        let record = follow_up_record(first, item, checks, needs_retrieval, g.prompt_version, chunks);
        out.kept.push((first.index, record));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_draw_takes_the_rounded_share_and_depends_only_on_the_seed() {
        assert!(chosen(10, 0.0, 7).is_empty());
        assert_eq!(chosen(10, 1.0, 7), (0..10).collect::<Vec<_>>());
        // By hand: 0.25 * 10 = 2.5, rounded half away from zero: 3.
        let a = chosen(10, 0.25, 7);
        assert_eq!(a.len(), 3);
        assert!(a.windows(2).all(|w| w[0] < w[1]) && a.iter().all(|&i| i < 10), "{a:?}");
        assert_eq!(chosen(10, 0.25, 7), a);
        // The draw follows the seed: twenty seeds do not all draw the same three of ten.
        let sets: std::collections::BTreeSet<Vec<usize>> = (0..20).map(|s| chosen(10, 0.25, s)).collect();
        assert!(sets.len() > 1, "every seed drew {a:?}");
        assert!(chosen(0, 0.5, 1).is_empty());
    }

    fn item(question: &str, standalone: &str) -> Map<String, Value> {
        json!({"question": question, "standalone": standalone, "answer": "In Mainz."}).as_object().cloned().unwrap()
    }

    #[test]
    fn a_follow_up_must_lean_on_the_first_turn_and_its_rewrite_stand_alone() {
        let first = "When did Johannes Gutenberg build his printing press?";
        let answer = "Around 1440.";
        let ok = item("And where did he build it?", "Where did Johannes Gutenberg build his printing press?");
        assert_eq!(check_wording(first, answer, &ok), Ok(()));
        let cases = [
            (
                item("What else does the passage say about it?", "What else did Gutenberg build?"),
                "the follow-up is not self-contained: it refers to the source (\"the passage\")",
            ),
            (
                item("when did Johannes Gutenberg build his printing press?", "Where did Gutenberg print?"),
                "the follow-up repeats the first question",
            ),
            // Seen from a small model: the rewrite repeats the first question, or holds an answer.
            (
                item("What are the main reasons for it?", "When did Johannes Gutenberg build his printing press?"),
                "the follow-up repeats the first question",
            ),
            (
                item("What is the origin of the Gutenberg Bible?", "It was printed in Mainz."),
                "the follow-up and its standalone rewrite must both be questions",
            ),
            (
                json!({"question": "And when was that?", "standalone": "When did Gutenberg build his printing press?",
                       "answer": "around 1440"})
                .as_object()
                .cloned()
                .unwrap(),
                "the follow-up's answer is already in the first turn",
            ),
            (
                item("Where did Gutenberg print?", "Where did Gutenberg print?"),
                "the follow-up does not lean on the first turn: it is its own standalone rewrite",
            ),
            (
                item("And where did he build it?", "Where did he build the press?"),
                "the standalone rewrite is not self-contained: a pronoun with no one named before it (\"Where did he\")",
            ),
        ];
        for (reply, want) in cases {
            assert_eq!(check_wording(first, answer, &reply).unwrap_err(), want);
        }
    }

    #[test]
    fn the_prompt_shows_the_sources_and_the_first_turn_in_the_sources_language() {
        let chunk = |text: &str, lang| Chunk {
            id: "d:0".into(),
            doc_id: "d".into(),
            start: 0,
            end: 0,
            text: text.into(),
            tokens: 0,
            lang,
        };
        let chunks = [chunk("Vaccines train the immune system.", "en"), chunk("疫苗训练免疫系统。", "zh")];
        let first = |k: usize, lang| FirstTurn {
            index: 0,
            record: json!({"id": "tg0001", "query": "What do vaccines train?", "reference": "The immune system"}),
            sources: vec![k],
            lang,
        };
        let (p, version) = follow_up_prompt(&first(0, "en"), &chunks);
        assert_eq!(version, "followup-en-v1");
        let user = &p.messages.last().unwrap().content;
        assert!(user.starts_with("Passage 1:\nVaccines train the immune system.\n\nA user asked: What do vaccines train?\nThe system answered: The immune system\n\n"), "{user}");
        assert!(user.contains("ask next in the same conversation"));
        assert!(user.ends_with("JSON: [\"question\",\"standalone\",\"answer\"]"), "{user}");
        let (p, version) = follow_up_prompt(&first(1, "zh"), &chunks);
        assert_eq!(version, "followup-zh-v1");
        assert!(p.messages.last().unwrap().content.starts_with("段落 1:\n疫苗训练免疫系统。\n\n用户问："));
    }
}
