//! Question generation with the judge model (HCAT section 2, step 5): for each sampled chunk (two
//! chunks of one topic for multi-hop questions) the model writes a question of a given type with
//! its reference answer, as a JSON object constrained by a grammar (local models) or a JSON
//! schema (HTTP backends). A reply is checked: its fields, that its question stands on its own
//! ([`crate::standalone`]: no "the passage", no "the movie" without a name), that it does not
//! repeat a question kept before it, then the checks against its sources and the collection the
//! caller gives ([`crate::verify`]). A reply that
//! fails is retried with a new seed and sampling, then recorded with its raw text and the reason;
//! it never reaches the output. A multiple-choice reply gives its right answer and three wrong
//! options, not four options and a letter (which a small model often gets wrong); the four are
//! shuffled by a seeded generator, so the right answer's letter is uniform.

use std::collections::HashMap;

use ragjudge_core::numeric::cosine_or_zero;
use ragjudge_core::text::split_sentences;
use ragjudge_models::{Embedder, GenParams, Judge, Prompt};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::chunk::Chunk;
use crate::schema::{distinct_texts, strip_option_label, FieldKind, ObjectSpec};
use crate::standalone::{asks_yes_or_no, is_question, shorthand_for_name, unresolved_reference};
use crate::verify::Verified;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The kinds of question (HCAT section 2: factual, multi-hop, reasoning, and the formats and
/// abstention cases a test set needs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum QueryType {
    /// A fact stated in one chunk.
    Factual,
    /// Facts of two chunks of one topic combined.
    MultiHop,
    /// A why/how question answered by reasoning from one chunk.
    Inference,
    /// Answered yes or no.
    YesNo,
    /// Four options, one right.
    MultipleChoice,
    /// Close to the collection but not answered by it (the system should abstain).
    Unanswerable,
    /// The second turn of a conversation: a question that leans on the first one ("And how long
    /// does it last?"), written for a kept question by [`crate::followup`], never a task type.
    FollowUp,
}

impl QueryType {
    /// Every type a generation task can have, in output order ([`QueryType::FollowUp`] comes
    /// with `--follow-ups` instead).
    pub const ALL: [QueryType; 6] = [
        QueryType::Factual,
        QueryType::MultiHop,
        QueryType::Inference,
        QueryType::YesNo,
        QueryType::MultipleChoice,
        QueryType::Unanswerable,
    ];

    /// The name used in prompts, `meta.query_type` and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            QueryType::Factual => "factual",
            QueryType::MultiHop => "multi_hop",
            QueryType::Inference => "inference",
            QueryType::YesNo => "yes_no",
            QueryType::MultipleChoice => "multiple_choice",
            QueryType::Unanswerable => "unanswerable",
            QueryType::FollowUp => "follow_up",
        }
    }

    /// The task type of a name (`multi-hop` and `multi_hop` both work).
    pub fn parse(name: &str) -> Option<Self> {
        let n = name.trim().replace('-', "_");
        Self::ALL.into_iter().find(|t| t.name() == n)
    }

    /// Chunks the question is written from.
    pub fn sources(self) -> usize {
        if self == QueryType::MultiHop {
            2
        } else {
            1
        }
    }

    /// The reply's fields.
    pub fn spec(self) -> ObjectSpec {
        let answer = match self {
            QueryType::YesNo => FieldKind::OneOf(&["yes", "no"]),
            _ => FieldKind::Text,
        };
        let mut fields = vec![("question", FieldKind::Text)];
        if self == QueryType::FollowUp {
            fields.push(("standalone", FieldKind::Text));
        }
        if self == QueryType::MultipleChoice {
            // The right answer first, then the wrong ones: a small model asked for four options
            // and a letter often letters an option it did not mean; the letters are ours.
            fields.push(("answer", FieldKind::Text));
            fields.push(("wrong_options", FieldKind::Texts(3)));
            return ObjectSpec { fields };
        }
        fields.push(("answer", answer));
        ObjectSpec { fields }
    }
}

/// The versioned prompt texts of one language (`prompts/gen-LANG-vN.txt`), by section.
#[derive(Debug, Clone)]
pub struct PromptSet {
    /// `gen-en-v4` or `gen-zh-v5`.
    pub version: &'static str,
    sections: HashMap<String, String>,
}

const EN_V4: &str = include_str!("../prompts/gen-en-v4.txt");
const ZH_V5: &str = include_str!("../prompts/gen-zh-v5.txt");

impl PromptSet {
    /// The prompts for a chunk language (`zh` gives Chinese prompts, anything else English).
    pub fn for_lang(lang: &str) -> Self {
        let (version, text) = if lang == "zh" { ("gen-zh-v5", ZH_V5) } else { ("gen-en-v4", EN_V4) };
        Self::parse(version, text)
    }

    /// Prompts from `text`: a section starts at a line `## NAME` and runs to the next one.
    pub fn parse(version: &'static str, text: &str) -> Self {
        let mut sections = HashMap::new();
        let mut name: Option<String> = None;
        let mut body = String::new();
        for line in text.lines() {
            if let Some(n) = line.strip_prefix("## ") {
                if let Some(prev) = name.take() {
                    sections.insert(prev, body.trim().to_string());
                }
                name = Some(n.trim().to_string());
                body.clear();
            } else {
                body.push_str(line);
                body.push('\n');
            }
        }
        if let Some(prev) = name {
            sections.insert(prev, body.trim().to_string());
        }
        Self { version, sections }
    }

    /// A section's text (empty when absent).
    pub fn section(&self, name: &str) -> &str {
        self.sections.get(name).map_or("", String::as_str)
    }
}

/// One generation task.
#[derive(Debug, Clone)]
pub struct GenTask {
    /// Type of question.
    pub query_type: QueryType,
    /// Indices of the source chunks (one, or two for multi-hop).
    pub sources: Vec<usize>,
    /// The stratum of the first source.
    pub topic: usize,
    /// The answer a yes/no question must have (`yes` or `no`): tasks alternate, so that a
    /// model's habit of asking questions whose answer is yes does not make "yes" always right.
    pub answer: Option<&'static str>,
}

impl GenTask {
    /// The reply's fields: the type's, with the answer fixed when the task fixes it.
    pub fn spec(&self) -> ObjectSpec {
        let mut spec = self.query_type.spec();
        if let Some(a) = self.answer {
            let only: &'static [&'static str] = if a == "no" { &["no"] } else { &["yes"] };
            for field in &mut spec.fields {
                if field.0 == "answer" {
                    field.1 = FieldKind::OneOf(only);
                }
            }
        }
        spec
    }

    /// The prompt section of its instruction (`yes_no_negative` for a yes/no question whose
    /// answer must be no).
    fn section(&self) -> &'static str {
        match (self.query_type, self.answer) {
            (QueryType::YesNo, Some("no")) => "yes_no_negative",
            (t, _) => t.name(),
        }
    }
}

/// The prompt of a task.
pub fn task_prompt(task: &GenTask, chunks: &[Chunk]) -> (Prompt, &'static str) {
    let lang = chunks[task.sources[0]].lang;
    let p = PromptSet::for_lang(lang);
    let mut user = String::new();
    for (k, &i) in task.sources.iter().enumerate() {
        user.push_str(&format!("{} {}:\n{}\n\n", p.section("passage_label"), k + 1, chunks[i].text.trim()));
    }
    user.push_str(p.section(task.section()));
    user.push_str("\n\nJSON: ");
    user.push_str(&task.spec().json_schema()["required"].to_string());
    (Prompt::chat(p.section("system"), user), p.version)
}

/// The texts of a task's source chunks.
fn source_texts<'c>(task: &GenTask, chunks: &'c [Chunk]) -> Vec<&'c str> {
    task.sources.iter().map(|&i| chunks[i].text.as_str()).collect()
}

/// Settings of generation.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct GenOptions {
    /// Most tokens of one reply.
    pub max_tokens: u32,
    /// Further attempts after a reply that fails its check.
    pub retries: u32,
    /// Base seed.
    pub seed: u64,
}

impl Default for GenOptions {
    fn default() -> Self {
        Self { max_tokens: 256, retries: 2, seed: 0 }
    }
}

/// The outcome of one task.
#[derive(Debug, Clone, Serialize)]
pub struct Generated {
    /// The checked reply, or `None` when every attempt failed.
    pub item: Option<Map<String, Value>>,
    /// Attempts made.
    pub attempts: u32,
    /// Raw text and reason of each failed attempt.
    pub failures: Vec<(String, String)>,
    /// The prompt version used.
    pub prompt_version: &'static str,
    /// What the caller's checks found on the kept reply.
    pub verified: Option<Verified>,
}

/// The generation parameters of attempt `attempt` (0: greedy; later: sampled with a new seed).
pub fn attempt_params(task: &GenTask, options: &GenOptions, attempt: u32) -> GenParams {
    spec_params(&task.spec(), options, attempt)
}

/// The generation parameters of attempt `attempt` of a reply with the fields `spec`.
pub fn spec_params(spec: &ObjectSpec, options: &GenOptions, attempt: u32) -> GenParams {
    GenParams {
        max_tokens: options.max_tokens,
        temperature: if attempt == 0 { 0.0 } else { 0.8 },
        top_p: if attempt == 0 { 1.0 } else { 0.95 },
        seed: options.seed.wrapping_add(u64::from(attempt)),
        stop: Vec::new(),
        json_schema: Some(spec.json_schema()),
        grammar: Some(spec.gbnf()),
    }
}

/// The check of a well-formed reply to task `i`: what it found, or why the reply fails.
pub type ReplyCheck<'a> = dyn Fn(usize, &Map<String, Value>) -> Result<Verified, String> + 'a;

/// The near-duplicate check of replies: an embedder of questions and the cosine at which a
/// question repeats one kept before it.
#[derive(Clone, Copy)]
pub struct NearDuplicates<'a> {
    /// Embeds question stems (without multiple-choice options).
    pub embedder: &'a dyn Embedder,
    /// Cosine at or above which a question is a near-duplicate.
    pub max_similarity: f64,
}

impl std::fmt::Debug for NearDuplicates<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NearDuplicates").field("max_similarity", &self.max_similarity).finish_non_exhaustive()
    }
}

/// Runs every task: first attempts for all in one batch, then retries of those that failed
/// their format, their wording, the near-duplicate check (against the questions kept so far, in
/// task order) or `check`.
pub fn generate(
    judge: &dyn Judge,
    tasks: &[GenTask],
    chunks: &[Chunk],
    options: &GenOptions,
    duplicates: Option<NearDuplicates<'_>>,
    check: &ReplyCheck<'_>,
) -> Vec<Generated> {
    let prompts: Vec<(Prompt, &'static str)> = tasks.iter().map(|t| task_prompt(t, chunks)).collect();
    let mut out: Vec<Generated> = prompts
        .iter()
        .map(|(_, v)| Generated { item: None, attempts: 0, failures: Vec::new(), prompt_version: v, verified: None })
        .collect();
    let mut kept: Vec<Vec<f32>> = Vec::new();
    for attempt in 0..=options.retries {
        let pending: Vec<usize> = (0..tasks.len()).filter(|&i| out[i].item.is_none()).collect();
        if pending.is_empty() {
            break;
        }
        let requests: Vec<(Prompt, GenParams)> =
            pending.iter().map(|&i| (prompts[i].0.clone(), attempt_params(&tasks[i], options, attempt))).collect();
        for (&i, result) in pending.iter().zip(judge.generate_many(&requests)) {
            out[i].attempts += 1;
            match result {
                Ok(g) => match checked(&tasks[i], &g.text, &source_texts(&tasks[i], chunks)) {
                    Ok(mut item) => {
                        if tasks[i].query_type == QueryType::MultipleChoice {
                            shuffle_options(&mut item, task_seed(options.seed, i));
                        }
                        let stem = item.get("question").and_then(Value::as_str).unwrap_or_default();
                        let vector = match duplicates {
                            Some(d) => match near_duplicate(d, stem, &kept) {
                                Ok(v) => v,
                                Err(why) => {
                                    out[i].failures.push((g.text, why));
                                    continue;
                                }
                            },
                            None => None,
                        };
                        match check(i, &item) {
                            Ok(v) => {
                                out[i].item = Some(item);
                                out[i].verified = Some(v);
                                kept.extend(vector);
                            }
                            Err(why) => out[i].failures.push((g.text, why)),
                        }
                    }
                    Err(why) => out[i].failures.push((g.text, why)),
                },
                Err(e) => out[i].failures.push((String::new(), format!("model call failed: {e}"))),
            }
        }
    }
    out
}

/// The embedding of `stem` when no kept question is as similar as `d.max_similarity`; why not
/// otherwise.
fn near_duplicate(d: NearDuplicates<'_>, stem: &str, kept: &[Vec<f32>]) -> Result<Option<Vec<f32>>, String> {
    let v = d.embedder.embed(&[stem]).map_err(|e| format!("check failed: {e}"))?.pop().unwrap_or_default();
    let mut nearest = 0.0f64;
    for k in kept {
        nearest = nearest.max(cosine_or_zero(&v, k).map_err(|e| format!("check failed: {e}"))?);
    }
    if nearest >= d.max_similarity {
        return Err(format!("near-duplicate of a kept question (cosine {nearest:.3})"));
    }
    Ok(Some(v))
}

/// Most sentences of a question: one of context before the question itself. A small model asked
/// for a question on a long Chinese passage sometimes returns the passage, or the passage with a
/// question after it.
const MAX_QUESTION_SENTENCES: usize = 2;

/// A reply's item when its fields are valid, its question is worded as one (a question mark at
/// the end, at most [`MAX_QUESTION_SENTENCES`] sentences) and stands on its own: no unresolved
/// reference, and no common noun for a name only its `sources` give ("the reef").
fn checked(task: &GenTask, text: &str, sources: &[&str]) -> Result<Map<String, Value>, String> {
    let mut item = task.spec().parse(text)?;
    if task.query_type == QueryType::MultipleChoice {
        item = lettered(item)?;
    }
    let question = item.get("question").and_then(Value::as_str).unwrap_or_default();
    if !is_question(question) {
        return Err("not a question: it does not end with a question mark".into());
    }
    let sentences = split_sentences(question).len();
    if sentences > MAX_QUESTION_SENTENCES {
        return Err(format!("not a question: {sentences} sentences (at most {MAX_QUESTION_SENTENCES})"));
    }
    if task.query_type == QueryType::YesNo && !asks_yes_or_no(question) {
        return Err("not a yes/no question: it asks for a thing, not for yes or no".into());
    }
    match unresolved_reference(question).or_else(|| shorthand_for_name(question, sources)) {
        Some(why) => Err(format!("the question is not self-contained: {why}")),
        None => Ok(item),
    }
}

/// A multiple-choice reply (`question`, `answer`, `wrong_options`) as the item every later step
/// reads: four `options`, the right one at `A` (the shuffle moves it), or why the options are not
/// four different ones.
fn lettered(mut reply: Map<String, Value>) -> Result<Map<String, Value>, String> {
    let text = |v: &Value| v.as_str().map(|s| strip_any_option_label(s).to_string()).unwrap_or_default();
    let mut options = vec![reply.get("answer").map(text).unwrap_or_default()];
    if let Some(Value::Array(wrong)) = reply.remove("wrong_options") {
        options.extend(wrong.iter().map(text));
    }
    if !distinct_texts(&options) {
        return Err(format!(
            "options: the answer and the wrong options are not {} different texts: {options:?}",
            options.len()
        ));
    }
    reply.insert("options".into(), Value::Array(options.into_iter().map(Value::String).collect()));
    reply.insert("answer".into(), Value::String(LETTERS[0].to_string()));
    Ok(reply)
}

/// `text` trimmed, without a leading option label of any letter (`B. `, `(C) `, ...).
fn strip_any_option_label(text: &str) -> &str {
    (0..LETTERS.len()).map(|k| strip_option_label(text, k)).min_by_key(|t| t.len()).unwrap_or(text)
}

/// The seed of task `i`'s shuffle: the run's seed mixed with the task's index.
fn task_seed(seed: u64, i: usize) -> u64 {
    seed ^ (i as u64).wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// The letters of the four multiple-choice options.
pub const LETTERS: [&str; 4] = ["A", "B", "C", "D"];

/// Puts a multiple-choice item's options in the order a generator seeded with `seed` draws, the
/// answer letter following the right option.
pub fn shuffle_options(item: &mut Map<String, Value>, seed: u64) {
    let Some(Value::Array(options)) = item.get("options").cloned() else { return };
    let right = item.get("answer").and_then(Value::as_str).and_then(|a| LETTERS.iter().position(|l| *l == a));
    let Some(right) = right.filter(|&k| k < options.len()) else { return };
    let mut order: Vec<usize> = (0..options.len()).collect();
    order.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    let shuffled: Vec<Value> = order.iter().map(|&k| options[k].clone()).collect();
    let at = order.iter().position(|&k| k == right).unwrap_or(right);
    item.insert("options".into(), Value::Array(shuffled));
    item.insert("answer".into(), Value::String(LETTERS[at].to_string()));
}

/// The reference answer of a checked item: the text, `yes`/`no`, or for multiple choice the
/// letter and its option (`B) ...`).
pub fn reference_answer(query_type: QueryType, item: &Map<String, Value>) -> String {
    let answer = item.get("answer").and_then(Value::as_str).unwrap_or_default().to_string();
    if query_type != QueryType::MultipleChoice {
        return answer;
    }
    format!("{answer}) {}", right_option(item))
}

/// The text of a checked multiple-choice item's right option.
pub fn right_option(item: &Map<String, Value>) -> &str {
    let answer = item.get("answer").and_then(Value::as_str).unwrap_or_default();
    let k = LETTERS.iter().position(|l| *l == answer).unwrap_or(0);
    item.get("options").and_then(|o| o.get(k)).and_then(Value::as_str).unwrap_or_default()
}

/// The question text as a system under test receives it (options listed for multiple choice).
pub fn question_text(query_type: QueryType, item: &Map<String, Value>) -> String {
    let q = item.get("question").and_then(Value::as_str).unwrap_or_default().trim().to_string();
    if query_type != QueryType::MultipleChoice {
        return q;
    }
    let mut s = q;
    if let Some(Value::Array(options)) = item.get("options") {
        for (l, o) in LETTERS.iter().zip(options) {
            s.push_str(&format!("\n{l}) {}", o.as_str().unwrap_or_default()));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(answer: &str) -> Map<String, Value> {
        let text = format!(
            r#"{{"question": "Which metal is liquid at room temperature?", "options": ["Mercury", "Iron", "Tin", "Lead"], "answer": "{answer}"}}"#
        );
        serde_json::from_str(&text).unwrap()
    }

    #[test]
    fn a_multiple_choice_reply_puts_its_answer_at_a_among_four_different_options() {
        let task = GenTask { query_type: QueryType::MultipleChoice, sources: vec![0], topic: 0, answer: None };
        let reply = r#"{"question": "Which metal is liquid at room temperature?", "answer": "Mercury", "wrong_options": ["B. Iron", "(C) Tin", "Lead"]}"#;
        let it = checked(&task, reply, &[]).unwrap();
        assert_eq!(it["options"], serde_json::json!(["Mercury", "Iron", "Tin", "Lead"]));
        assert_eq!(it["answer"], "A");
        assert!(!it.contains_key("wrong_options"));
        assert_eq!(reference_answer(QueryType::MultipleChoice, &it), "A) Mercury");
        // The answer again among the wrong options, in other case or behind a label.
        let reply = r#"{"question": "Which metal is liquid at room temperature?", "answer": "Mercury", "wrong_options": ["Iron", "MERCURY", "Lead"]}"#;
        assert!(checked(&task, reply, &[])
            .unwrap_err()
            .starts_with("options: the answer and the wrong options are not 4 different texts"));
        let reply = r#"{"question": "慧博云通的主营业务是什么？", "answer": "软件技术服务", "wrong_options": ["芯片测试服务", "硬件制造", "A. 软件技术服务"]}"#;
        assert!(checked(&task, reply, &[]).is_err());
        let reply = r#"{"question": "Which metal is liquid at room temperature?", "options": ["Mercury", "Iron", "Tin", "Lead"], "answer": "A"}"#;
        assert_eq!(checked(&task, reply, &[]).unwrap_err(), "wrong_options: missing");
    }

    #[test]
    fn shuffled_options_keep_the_right_text_and_spread_its_letter_evenly() {
        let mut counts = [0usize; 4];
        for seed in 0..400 {
            let mut it = item("A");
            shuffle_options(&mut it, task_seed(7, seed));
            let options: Vec<&str> = it["options"].as_array().unwrap().iter().map(|o| o.as_str().unwrap()).collect();
            let mut sorted = options.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, ["Iron", "Lead", "Mercury", "Tin"]);
            let letter = it["answer"].as_str().unwrap();
            let k = LETTERS.iter().position(|l| *l == letter).unwrap();
            assert_eq!(options[k], "Mercury", "seed {seed}");
            assert_eq!(reference_answer(QueryType::MultipleChoice, &it), format!("{letter}) Mercury"));
            counts[k] += 1;
        }
        // Written first every time, the right answer lands on each letter about 100 times in 400:
        // chi-square with 3 degrees of freedom below 7.815 (p > 0.05).
        let chi2: f64 = counts.iter().map(|&c| (c as f64 - 100.0).powi(2) / 100.0).sum();
        assert!(chi2 < 7.815, "{counts:?} chi2 {chi2}");
        // The same seed gives the same order.
        let (mut a, mut b) = (item("C"), item("C"));
        shuffle_options(&mut a, 3);
        shuffle_options(&mut b, 3);
        assert_eq!(a, b);
    }

    #[test]
    fn a_question_that_is_not_self_contained_fails_its_check() {
        let reply =
            r#"{"question": "What is the name of the golf course mentioned in the passage?", "answer": "Augusta"}"#;
        let task = GenTask { query_type: QueryType::Factual, sources: vec![0], topic: 0, answer: None };
        let why = checked(&task, reply, &[]).unwrap_err();
        assert_eq!(why, "the question is not self-contained: it refers to the source (\"the passage\")");
        let reply = r#"{"question": "Which golf course hosts the Masters Tournament?", "answer": "Augusta National"}"#;
        assert!(checked(&task, reply, &[]).is_ok());
    }

    #[test]
    fn a_question_must_be_worded_as_one() {
        let task = GenTask { query_type: QueryType::YesNo, sources: vec![0], topic: 0, answer: None };
        let reply = |q: &str| format!(r#"{{"question": "{q}", "answer": "yes"}}"#);
        // A passage returned in the question's place (seen on Chinese financial news).
        let why =
            checked(&task, &reply("A股：震荡过程需要耐心，中期趋势有支撑，上周市场是弱势震荡。"), &[]).unwrap_err();
        assert_eq!(why, "not a question: it does not end with a question mark");
        let why = checked(&task, &reply("Is the Great Barrier Reef the largest coral reef system"), &[]).unwrap_err();
        assert_eq!(why, "not a question: it does not end with a question mark");
        // The passage, then a question: three sentences.
        let copied = "浙商证券邱世梁认为，我国当前正从聚变反应向工程化转化。上市公司中，雪人股份已提供氦气螺杆压缩机。\
                      雪人股份是否为核心设备供应商？";
        assert_eq!(checked(&task, &reply(copied), &[]).unwrap_err(), "not a question: 3 sentences (at most 2)");
        // One sentence of context and the question; a question alone; a full-width mark.
        assert!(checked(&task, &reply("Apollo 11 landed in July 1969. Was Neil Armstrong its commander?"), &[]).is_ok());
        assert!(checked(&task, &reply("Is the Great Barrier Reef off the coast of Queensland? "), &[]).is_ok());
        assert!(checked(&task, &reply("马斯克是否创立了xAI？"), &[]).is_ok());
        let why = checked(&task, &reply("Musk认为xAI和X合并后，两家公司将能够共享什么？"), &[]).unwrap_err();
        assert_eq!(why, "not a yes/no question: it asks for a thing, not for yes or no");
    }
}
