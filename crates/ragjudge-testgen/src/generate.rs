//! Question generation with the judge model (HCAT section 2, step 5): for each sampled chunk (two
//! chunks of one topic for multi-hop questions) the model writes a question of a given type with
//! its reference answer, as a JSON object constrained by a grammar (local models) or a JSON
//! schema (HTTP backends). A reply that still fails its check is retried with a new seed and
//! sampling, then recorded with its raw text; it never reaches the output.

use std::collections::HashMap;

use ragjudge_models::{GenParams, Judge, Prompt};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::chunk::Chunk;
use crate::schema::{FieldKind, ObjectSpec};

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
}

impl QueryType {
    /// Every type, in output order.
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
        }
    }

    /// The type of a name (`multi-hop` and `multi_hop` both work).
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
            QueryType::MultipleChoice => FieldKind::OneOf(&["A", "B", "C", "D"]),
            _ => FieldKind::Text,
        };
        let mut fields = vec![("question", FieldKind::Text)];
        if self == QueryType::MultipleChoice {
            fields.push(("options", FieldKind::Texts(4)));
        }
        fields.push(("answer", answer));
        ObjectSpec { fields }
    }
}

/// The versioned prompt texts of one language (`prompts/gen-LANG-v1.txt`), by section.
#[derive(Debug, Clone)]
pub struct PromptSet {
    /// `gen-en-v1` or `gen-zh-v1`.
    pub version: &'static str,
    sections: HashMap<String, String>,
}

const EN_V1: &str = include_str!("../prompts/gen-en-v1.txt");
const ZH_V1: &str = include_str!("../prompts/gen-zh-v1.txt");

impl PromptSet {
    /// The prompts for a chunk language (`zh` gives Chinese prompts, anything else English).
    pub fn for_lang(lang: &str) -> Self {
        let (version, text) = if lang == "zh" { ("gen-zh-v1", ZH_V1) } else { ("gen-en-v1", EN_V1) };
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
}

/// The prompt of a task.
pub fn task_prompt(task: &GenTask, chunks: &[Chunk]) -> (Prompt, &'static str) {
    let lang = chunks[task.sources[0]].lang;
    let p = PromptSet::for_lang(lang);
    let mut user = String::new();
    for (k, &i) in task.sources.iter().enumerate() {
        user.push_str(&format!("{} {}:\n{}\n\n", p.section("passage_label"), k + 1, chunks[i].text.trim()));
    }
    user.push_str(p.section(task.query_type.name()));
    user.push_str("\n\nJSON: ");
    user.push_str(&task.query_type.spec().json_schema()["required"].to_string());
    (Prompt::chat(p.section("system"), user), p.version)
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
}

/// The generation parameters of attempt `attempt` (0: greedy; later: sampled with a new seed).
pub fn attempt_params(query_type: QueryType, options: &GenOptions, attempt: u32) -> GenParams {
    let spec = query_type.spec();
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

/// Runs every task: first attempts for all in one batch, then retries of those that failed.
pub fn generate(judge: &dyn Judge, tasks: &[GenTask], chunks: &[Chunk], options: &GenOptions) -> Vec<Generated> {
    let prompts: Vec<(Prompt, &'static str)> = tasks.iter().map(|t| task_prompt(t, chunks)).collect();
    let mut out: Vec<Generated> = prompts
        .iter()
        .map(|(_, v)| Generated { item: None, attempts: 0, failures: Vec::new(), prompt_version: v })
        .collect();
    for attempt in 0..=options.retries {
        let pending: Vec<usize> = (0..tasks.len()).filter(|&i| out[i].item.is_none()).collect();
        if pending.is_empty() {
            break;
        }
        let requests: Vec<(Prompt, GenParams)> = pending
            .iter()
            .map(|&i| (prompts[i].0.clone(), attempt_params(tasks[i].query_type, options, attempt)))
            .collect();
        for (&i, result) in pending.iter().zip(judge.generate_many(&requests)) {
            out[i].attempts += 1;
            match result {
                Ok(g) => match tasks[i].query_type.spec().parse(&g.text) {
                    Ok(item) => out[i].item = Some(item),
                    Err(why) => out[i].failures.push((g.text, why)),
                },
                Err(e) => out[i].failures.push((String::new(), format!("model call failed: {e}"))),
            }
        }
    }
    out
}

/// The reference answer of a checked item: the text, `yes`/`no`, or for multiple choice the
/// letter and its option (`B) ...`).
pub fn reference_answer(query_type: QueryType, item: &Map<String, Value>) -> String {
    let answer = item.get("answer").and_then(Value::as_str).unwrap_or_default().to_string();
    if query_type != QueryType::MultipleChoice {
        return answer;
    }
    let k = ["A", "B", "C", "D"].iter().position(|l| *l == answer).unwrap_or(0);
    let option = item.get("options").and_then(|o| o.get(k)).and_then(Value::as_str).unwrap_or_default();
    format!("{answer}) {option}")
}

/// The question text as a system under test receives it (options listed for multiple choice).
pub fn question_text(query_type: QueryType, item: &Map<String, Value>) -> String {
    let q = item.get("question").and_then(Value::as_str).unwrap_or_default().trim().to_string();
    if query_type != QueryType::MultipleChoice {
        return q;
    }
    let mut s = q;
    if let Some(Value::Array(options)) = item.get("options") {
        for (l, o) in ["A", "B", "C", "D"].iter().zip(options) {
            s.push_str(&format!("\n{l}) {}", o.as_str().unwrap_or_default()));
        }
    }
    s
}
