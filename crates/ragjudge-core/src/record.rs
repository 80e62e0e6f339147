//! The evaluation record: one question answered by one system; the layout is in the README, "Records".

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One retrieved passage, in rank order within [`Record::contexts`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Context {
    /// Passage identifier (e.g. `doc3#2`), if the source gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Passage text.
    pub text: String,
    /// Relevance grade of the passage for the query (e.g. UMBRELA 0-3), if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relevance: Option<f64>,
}

/// One earlier conversation turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Turn {
    /// Speaker role, e.g. `user` or `assistant`.
    pub role: String,
    /// What was said.
    pub text: String,
}

/// One step of an agent's trajectory: a retrieval, a tool call or a model call, in the order
/// they started (imported from traces; see `ragjudge import`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Step {
    /// What the step did: `retrieval`, `rerank`, `tool`, `llm`, `agent` or `chain`.
    pub kind: String,
    /// The span's or tool's name.
    #[serde(default)]
    pub name: String,
    /// What went in (the retrieval query, the tool's arguments, the prompt), as text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<String>,
    /// What came out (the tool's result, the model's reply), as text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// Passages a retrieval or re-ranking step returned, in rank order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub contexts: Vec<Context>,
    /// Wall time of the step in milliseconds, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<f64>,
    /// The step's error, when it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One question answered by one system, with its retrieved evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Record {
    /// Question identifier; records of different systems are joined on it.
    pub id: String,
    /// System (run) name; defaults to the input file's stem when absent.
    #[serde(default)]
    pub system: String,
    /// The user's question.
    pub query: String,
    /// Retrieved passages in rank order; `[n]` in the answer cites `contexts[n-1]`.
    #[serde(default)]
    pub contexts: Vec<Context>,
    /// The generated answer.
    #[serde(default)]
    pub answer: String,
    /// Golden answer, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// Earlier conversation turns, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub history: Vec<Turn>,
    /// The agent's steps (retrievals, tool calls, model calls) that led to the answer, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<Step>,
    /// Repetition index when the same query was run several times (Open RAG Eval `query_run`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<u32>,
    /// Free-form strata (topic, query_type, ...) for weakness analysis.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub meta: Map<String, Value>,
}

impl Record {
    /// The grounding document of CIU and similar metrics: the reference if present, else the
    /// contexts joined by blank lines.
    pub fn grounding(&self) -> String {
        match &self.reference {
            Some(r) => r.clone(),
            None => self.contexts.iter().map(|c| c.text.as_str()).collect::<Vec<_>>().join("\n\n"),
        }
    }

    /// The conversation this record is a turn of: `meta.session_id` (what trace import writes),
    /// else `meta.conversation_id`; a number is taken as its decimal text. `None` for a record
    /// that is not part of a conversation.
    pub fn conversation(&self) -> Option<String> {
        ["session_id", "conversation_id"].iter().find_map(|k| match self.meta.get(*k)? {
            Value::String(s) if !s.is_empty() => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        })
    }

    /// The record's turn in its conversation: `meta.turn` when it is a positive integer, else the
    /// number of user turns in `history` plus one.
    pub fn turn(&self) -> u64 {
        match self.meta.get("turn").and_then(Value::as_u64) {
            Some(t) if t > 0 => t,
            _ => self.history.iter().filter(|t| t.role == "user").count() as u64 + 1,
        }
    }
}

/// Ids of the passages a question is known to be answered by: the top-level `relevant` list
/// (`relevant` in the example's `questions.jsonl`), else `meta.source_ids` (what `ragjudge testgen`
/// writes), except for an unanswerable question (`meta.query_type = "unanswerable"`), whose
/// source passage does not answer it.
pub fn known_relevant(relevant: Option<&Value>, meta: &Map<String, Value>) -> Vec<String> {
    let strings = |v: Option<&Value>| -> Vec<String> {
        v.and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
            .unwrap_or_default()
    };
    let listed = strings(relevant);
    if !listed.is_empty() {
        listed
    } else if meta.get("query_type").and_then(Value::as_str) == Some("unanswerable") {
        Vec::new()
    } else {
        strings(meta.get("source_ids"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn meta(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn known_relevant_prefers_the_list_then_testgen_sources_except_for_unanswerable() {
        let m = meta(json!({"source_ids": ["d1:0"], "query_type": "factual"}));
        assert_eq!(known_relevant(Some(&json!(["a", "b"])), &m), ["a", "b"]);
        assert_eq!(known_relevant(None, &m), ["d1:0"]);
        assert_eq!(known_relevant(Some(&json!([])), &m), ["d1:0"]);
        let u = meta(json!({"source_ids": ["d1:1"], "query_type": "unanswerable"}));
        assert!(known_relevant(None, &u).is_empty());
        assert_eq!(known_relevant(Some(&json!(["x"])), &u), ["x"]);
    }

    #[test]
    fn conversation_and_turn_come_from_meta_else_from_history() {
        let mut r = Record { meta: meta(json!({"session_id": "s1", "turn": 3})), ..Record::default() };
        assert_eq!((r.conversation().as_deref(), r.turn()), (Some("s1"), 3));
        r.meta = meta(json!({"conversation_id": 42, "turn": 0}));
        r.history =
            vec![Turn { role: "user".into(), text: "a".into() }, Turn { role: "assistant".into(), text: "b".into() }];
        assert_eq!((r.conversation().as_deref(), r.turn()), (Some("42"), 2));
        r.meta = meta(json!({"session_id": ""}));
        assert_eq!(r.conversation(), None);
    }
}
