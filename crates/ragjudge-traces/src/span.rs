//! The neutral span: what every trace format is read into before spans become records.

use serde_json::{Map, Value};

/// What a span did, in OpenInference's terms (`openinference.span.kind`), to which the GenAI
/// conventions' `gen_ai.operation.name` and Langfuse's observation types are mapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SpanKind {
    /// A call to a language model (chat, completion).
    Llm,
    /// A retrieval: passages found for a query.
    Retriever,
    /// A re-ranking of retrieved passages.
    Reranker,
    /// A tool call.
    Tool,
    /// An agent's invocation.
    Agent,
    /// A step that chains others (the pipeline's root, a workflow).
    Chain,
    /// An embedding call.
    Embedding,
    /// Anything else (guardrails, evaluators, untyped spans).
    #[default]
    Other,
}

impl SpanKind {
    /// The step kind written into a record's `steps` (`None`: not a step).
    pub fn step_kind(self) -> Option<&'static str> {
        match self {
            SpanKind::Llm => Some("llm"),
            SpanKind::Retriever => Some("retrieval"),
            SpanKind::Reranker => Some("rerank"),
            SpanKind::Tool => Some("tool"),
            SpanKind::Agent => Some("agent"),
            SpanKind::Chain | SpanKind::Embedding | SpanKind::Other => None,
        }
    }
}

/// One chat message.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Message {
    /// `system`, `user`, `assistant` or `tool`.
    pub role: String,
    /// Its text (text parts joined by newlines).
    pub text: String,
}

/// One retrieved passage.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Document {
    /// The passage id, when the span gives one.
    pub id: Option<String>,
    /// The passage text (empty when the span gives ids only).
    pub text: String,
    /// The retriever's score, when given.
    pub score: Option<f64>,
}

/// One span, read through its conventions.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Span {
    /// Trace id (lower-case hex for OTLP).
    pub trace_id: String,
    /// Span id.
    pub span_id: String,
    /// The parent span's id; `None` for a root.
    pub parent_id: Option<String>,
    /// The span's name.
    pub name: String,
    /// What it did.
    pub kind: SpanKind,
    /// Start, nanoseconds since the Unix epoch.
    pub start_ns: u64,
    /// End, nanoseconds since the Unix epoch.
    pub end_ns: u64,
    /// The error status message, when the span failed.
    pub error: Option<String>,
    /// The conversation (session) id.
    pub session_id: Option<String>,
    /// The end user's id.
    pub user_id: Option<String>,
    /// The service that emitted the span (resource `service.name`).
    pub service: Option<String>,
    /// The input as text (a question, a retrieval query, a tool's arguments).
    pub input: Option<String>,
    /// The output as text (an answer, a tool's result).
    pub output: Option<String>,
    /// Messages sent to a model, oldest first.
    pub input_messages: Vec<Message>,
    /// Messages the model returned.
    pub output_messages: Vec<Message>,
    /// Passages retrieved (or, for a re-ranker, kept), in rank order.
    pub documents: Vec<Document>,
    /// The model's name.
    pub model: Option<String>,
    /// Prompt tokens.
    pub tokens_in: Option<u64>,
    /// Completion tokens.
    pub tokens_out: Option<u64>,
    /// Cost of the call, in the unit the span gives.
    pub cost: Option<f64>,
    /// The tool's name, for a tool span.
    pub tool_name: Option<String>,
    /// Free-form metadata passed through to the record's `meta` (OpenInference `metadata`,
    /// Langfuse `metadata`, tags).
    pub metadata: Map<String, Value>,
}

impl Span {
    /// Wall time in milliseconds.
    pub fn latency_ms(&self) -> f64 {
        self.end_ns.saturating_sub(self.start_ns) as f64 / 1e6
    }

    /// The last message of `role` among `messages`.
    pub fn last_of<'a>(messages: &'a [Message], role: &str) -> Option<&'a Message> {
        messages.iter().rev().find(|m| m.role == role)
    }
}

/// The text of an input or output value: a string as is; for a JSON object, the first string
/// under a key that usually holds the text (`query`, `question`, `input`, ... `answer`,
/// `output`, `content`), else the JSON itself.
pub fn text_of(value: &Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::String(s) => {
            let t = s.trim();
            if t.starts_with('{') || t.starts_with("\"") {
                match serde_json::from_str::<Value>(t) {
                    Ok(v @ Value::Object(_)) => return keyed_text(&v).or_else(|| Some(s.clone())),
                    Ok(Value::String(inner)) => return Some(inner),
                    _ => {}
                }
            }
            Some(s.clone())
        }
        Value::Object(_) => keyed_text(value).or_else(|| Some(value.to_string())),
        other => Some(other.to_string()),
    }
}

/// The first string under one of [`text_of`]'s keys, looking into nested objects.
fn keyed_text(value: &Value) -> Option<String> {
    const KEYS: [&str; 12] = [
        "query",
        "question",
        "input",
        "user_input",
        "text",
        "content",
        "answer",
        "output",
        "response",
        "result",
        "completion",
        "message",
    ];
    let map = value.as_object()?;
    KEYS.iter().find_map(|k| match map.get(*k) {
        Some(Value::String(s)) => Some(s.clone()),
        Some(v @ Value::Object(_)) => keyed_text(v),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_of_takes_strings_and_the_usual_keys() {
        assert_eq!(text_of(&json!("What is X?")).as_deref(), Some("What is X?"));
        assert_eq!(text_of(&json!({"question": "Q?", "k": 3})).as_deref(), Some("Q?"));
        assert_eq!(text_of(&json!("{\"query\": \"Q2\"}")).as_deref(), Some("Q2"));
        assert_eq!(text_of(&json!({"output": {"content": "A"}})).as_deref(), Some("A"));
        assert_eq!(text_of(&json!({"k": 3})).as_deref(), Some("{\"k\":3}"));
        assert_eq!(text_of(&json!("{not json")).as_deref(), Some("{not json"));
        assert_eq!(text_of(&json!("{\"city\": \"Oslo\"}")).as_deref(), Some("{\"city\": \"Oslo\"}"));
        assert_eq!(text_of(&Value::Null), None);
    }
}
