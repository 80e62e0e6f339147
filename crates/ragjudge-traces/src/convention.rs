//! Span attributes read through the conventions instrumentations follow:
//!
//! - **OpenInference** (Arize; Phoenix): `openinference.span.kind`, `input.value` /
//!   `output.value`, `llm.input_messages.N.message.{role,content}` (and `message.contents.M.
//!   message_content.text`), `llm.output_messages...`, `retrieval.documents.N.document.{id,
//!   content,score}`, `reranker.output_documents...`, `llm.model_name`, `llm.token_count.*`,
//!   `llm.cost.total`, `tool.name`, `tool.parameters`, `session.id`, `user.id`, `metadata`.
//! - **OpenTelemetry GenAI** semantic conventions: `gen_ai.operation.name` (chat, retrieval,
//!   execute_tool, invoke_agent ...), `gen_ai.input.messages` / `gen_ai.output.messages` (JSON
//!   with `parts`), the older message events (`gen_ai.user.message`, `gen_ai.choice` ...),
//!   `gen_ai.request.model` / `gen_ai.response.model`, `gen_ai.usage.{input,output}_tokens`,
//!   `gen_ai.conversation.id`, `gen_ai.tool.{name,call.arguments,call.result}`,
//!   `gen_ai.retrieval.{query.text,documents}`.
//! - **OpenLLMetry**'s flat `gen_ai.prompt.N.{role,content}` / `gen_ai.completion.N...`.
//!
//! Where both conventions name a thing, OpenInference is read first.

use crate::otlp::RawSpan;
use crate::span::{text_of, Document, Message, Span, SpanKind};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Reads one raw span; `Err` names what makes it unusable (ids, times, malformed JSON in an
/// attribute that must hold JSON).
pub fn interpret(raw: RawSpan) -> Result<Span, String> {
    check_id(&raw.trace_id, 32, "trace id")?;
    check_id(&raw.span_id, 16, "span id")?;
    if !raw.parent_id.is_empty() {
        check_id(&raw.parent_id, 16, "parent span id")?;
    }
    if raw.end_ns < raw.start_ns {
        return Err(format!("ends ({}) before it starts ({})", raw.end_ns, raw.start_ns));
    }
    let a = &raw.attributes;
    let kind = kind_of(a);
    let mut span = Span {
        trace_id: raw.trace_id.clone(),
        span_id: raw.span_id.clone(),
        parent_id: (!raw.parent_id.is_empty()).then(|| raw.parent_id.clone()),
        name: raw.name.clone(),
        kind,
        start_ns: raw.start_ns,
        end_ns: raw.end_ns,
        error: raw.error.clone(),
        session_id: string(a, &["session.id", "gen_ai.conversation.id", "langfuse.session.id"]),
        user_id: string(a, &["user.id", "langfuse.user.id", "enduser.id"]),
        service: string(&raw.resource, &["service.name"]),
        model: string(a, &["llm.model_name", "gen_ai.response.model", "gen_ai.request.model"]),
        tokens_in: count(a, &["llm.token_count.prompt", "gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens"]),
        tokens_out: count(
            a,
            &["llm.token_count.completion", "gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens"],
        ),
        cost: a.get("llm.cost.total").and_then(Value::as_f64),
        tool_name: string(a, &["tool.name", "gen_ai.tool.name"]),
        ..Span::default()
    };
    span.input = a
        .get("input.value")
        .or_else(|| a.get("gen_ai.retrieval.query.text"))
        .or_else(|| a.get("reranker.query"))
        .or_else(|| a.get("gen_ai.tool.call.arguments"))
        .or_else(|| a.get("tool.parameters"))
        .and_then(text_of);
    span.output = a.get("output.value").or_else(|| a.get("gen_ai.tool.call.result")).and_then(text_of);
    span.input_messages = messages(a, &raw.events, Direction::Input)?;
    span.output_messages = messages(a, &raw.events, Direction::Output)?;
    span.documents = documents(a, kind)?;
    if let Some(m) = a.get("metadata") {
        match m {
            Value::Object(map) => span.metadata.extend(map.clone()),
            Value::String(s) => match serde_json::from_str::<Value>(s) {
                Ok(Value::Object(map)) => span.metadata.extend(map),
                _ => return Err("attribute metadata: not a JSON object".into()),
            },
            _ => {}
        }
    }
    if let Some(tags) = a.get("tag.tags").filter(|t| t.is_array()) {
        span.metadata.insert("tags".into(), tags.clone());
    }
    Ok(span)
}

fn check_id(id: &str, digits: usize, what: &str) -> Result<(), String> {
    if id.len() != digits || id.bytes().all(|b| b == b'0') {
        return Err(format!("invalid {what} {id:?} (expected {digits} hex digits, not all zero)"));
    }
    Ok(())
}

/// The span's kind: OpenInference's, else GenAI's operation, else OpenLLMetry's
/// `traceloop.span.kind`, else `Llm` when the span carries model messages.
fn kind_of(a: &Map<String, Value>) -> SpanKind {
    if let Some(k) = a.get("openinference.span.kind").and_then(Value::as_str) {
        return match k.to_ascii_uppercase().as_str() {
            "LLM" => SpanKind::Llm,
            "RETRIEVER" => SpanKind::Retriever,
            "RERANKER" => SpanKind::Reranker,
            "TOOL" => SpanKind::Tool,
            "AGENT" => SpanKind::Agent,
            "CHAIN" => SpanKind::Chain,
            "EMBEDDING" => SpanKind::Embedding,
            _ => SpanKind::Other,
        };
    }
    if let Some(op) = a.get("gen_ai.operation.name").and_then(Value::as_str) {
        return match op {
            "chat" | "text_completion" | "generate_content" => SpanKind::Llm,
            "retrieval" => SpanKind::Retriever,
            "execute_tool" => SpanKind::Tool,
            "invoke_agent" | "create_agent" => SpanKind::Agent,
            "invoke_workflow" => SpanKind::Chain,
            "embeddings" => SpanKind::Embedding,
            _ => SpanKind::Other,
        };
    }
    match a.get("traceloop.span.kind").and_then(Value::as_str) {
        Some("workflow" | "task") => return SpanKind::Chain,
        Some("agent") => return SpanKind::Agent,
        Some("tool") => return SpanKind::Tool,
        _ => {}
    }
    if a.keys().any(|k| k.starts_with("gen_ai.prompt.") || k.starts_with("gen_ai.completion.")) {
        return SpanKind::Llm;
    }
    SpanKind::Other
}

fn string(a: &Map<String, Value>, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|k| match a.get(*k) {
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    })
}

fn count(a: &Map<String, Value>, keys: &[&str]) -> Option<u64> {
    keys.iter().find_map(|k| match a.get(*k) {
        Some(Value::Number(n)) => n.as_u64().or_else(|| n.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64)),
        Some(Value::String(s)) => s.parse().ok(),
        _ => None,
    })
}

#[derive(Clone, Copy, PartialEq)]
enum Direction {
    Input,
    Output,
}

/// The flat attributes `PREFIX.N.REST` grouped by N (in numeric order), each a map REST -> value.
fn indexed<'a>(a: &'a Map<String, Value>, prefix: &str) -> BTreeMap<u64, BTreeMap<&'a str, &'a Value>> {
    let mut out: BTreeMap<u64, BTreeMap<&str, &Value>> = BTreeMap::new();
    for (k, v) in a {
        let Some(rest) = k.strip_prefix(prefix).and_then(|r| r.strip_prefix('.')) else { continue };
        let (n, field) = rest.split_once('.').unwrap_or((rest, ""));
        if let Ok(n) = n.parse::<u64>() {
            out.entry(n).or_default().insert(field, v);
        }
    }
    out
}

/// Messages of one direction, from the first convention that has any.
fn messages(
    a: &Map<String, Value>,
    events: &[(String, Map<String, Value>)],
    dir: Direction,
) -> Result<Vec<Message>, String> {
    let (oi, genai_json, flat, default_role) = match dir {
        Direction::Input => ("llm.input_messages", "gen_ai.input.messages", "gen_ai.prompt", "user"),
        Direction::Output => ("llm.output_messages", "gen_ai.output.messages", "gen_ai.completion", "assistant"),
    };
    // OpenInference: llm.input_messages.N.message.role / .message.content / .message.contents.M...
    let grouped = indexed(a, oi);
    if !grouped.is_empty() {
        return Ok(grouped
            .values()
            .map(|fields| {
                let role = fields.get("message.role").and_then(|v| v.as_str()).unwrap_or(default_role).to_string();
                let text = match fields.get("message.content").and_then(|v| v.as_str()) {
                    Some(t) => t.to_string(),
                    None => fields
                        .iter()
                        .filter(|(k, _)| k.starts_with("message.contents.") && k.ends_with("message_content.text"))
                        .filter_map(|(_, v)| v.as_str())
                        .collect::<Vec<_>>()
                        .join("\n"),
                };
                Message { role, text }
            })
            .collect());
    }
    // GenAI: a JSON array of {role, parts: [{type: text, content}]} (or {role, content}).
    if let Some(v) = a.get(genai_json) {
        let parsed = match v {
            Value::String(s) => {
                serde_json::from_str::<Value>(s).map_err(|e| format!("attribute {genai_json}: invalid JSON: {e}"))?
            }
            other => other.clone(),
        };
        let items =
            parsed.as_array().ok_or_else(|| format!("attribute {genai_json}: expected a JSON array of messages"))?;
        return Ok(items.iter().map(|m| message_of(m, default_role)).collect());
    }
    // OpenLLMetry: gen_ai.prompt.N.role / .content.
    let grouped = indexed(a, flat);
    if !grouped.is_empty() {
        return Ok(grouped
            .values()
            .map(|f| Message {
                role: f.get("role").and_then(|v| v.as_str()).unwrap_or(default_role).to_string(),
                text: f.get("content").and_then(|v| text_of(v)).unwrap_or_default(),
            })
            .collect());
    }
    // GenAI events (older conventions).
    let mut out = Vec::new();
    for (name, attrs) in events {
        let role = match (dir, name.as_str()) {
            (Direction::Input, "gen_ai.system.message") => "system",
            (Direction::Input, "gen_ai.user.message") => "user",
            (Direction::Input, "gen_ai.assistant.message") => "assistant",
            (Direction::Input, "gen_ai.tool.message") => "tool",
            (Direction::Output, "gen_ai.choice") => "assistant",
            (Direction::Input, "gen_ai.content.prompt") => {
                if let Some(v) = attrs.get("gen_ai.prompt") {
                    out.push(Message { role: "user".into(), text: text_of(v).unwrap_or_default() });
                }
                continue;
            }
            (Direction::Output, "gen_ai.content.completion") => {
                if let Some(v) = attrs.get("gen_ai.completion") {
                    out.push(Message { role: "assistant".into(), text: text_of(v).unwrap_or_default() });
                }
                continue;
            }
            _ => continue,
        };
        let text = attrs.get("content").or_else(|| attrs.get("message")).and_then(text_of).unwrap_or_default();
        out.push(Message { role: role.into(), text });
    }
    Ok(out)
}

/// A GenAI message object: `{role, parts: [{type, content}]}` or `{role, content}`.
pub(crate) fn message_of(m: &Value, default_role: &str) -> Message {
    let role = m.get("role").and_then(Value::as_str).unwrap_or(default_role).to_string();
    let text = match (m.get("parts"), m.get("content")) {
        (Some(Value::Array(parts)), _) => parts
            .iter()
            .filter(|p| p.get("type").and_then(Value::as_str).is_none_or(|t| t == "text"))
            .filter_map(|p| p.get("content").or_else(|| p.get("text")).and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        (_, Some(Value::Array(parts))) => parts
            .iter()
            .filter_map(|p| p.get("text").or_else(|| p.get("content")).and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        (_, Some(c)) => text_of(c).unwrap_or_default(),
        _ => String::new(),
    };
    Message { role, text }
}

/// Retrieved (or re-ranked) documents.
fn documents(a: &Map<String, Value>, kind: SpanKind) -> Result<Vec<Document>, String> {
    let prefix = if kind == SpanKind::Reranker { "reranker.output_documents" } else { "retrieval.documents" };
    let grouped = indexed(a, prefix);
    if !grouped.is_empty() {
        return Ok(grouped
            .values()
            .map(|f| Document {
                id: f.get("document.id").and_then(|v| text_of(v)),
                text: f.get("document.content").and_then(|v| text_of(v)).unwrap_or_default(),
                score: f.get("document.score").and_then(|v| v.as_f64()),
            })
            .collect());
    }
    match a.get("gen_ai.retrieval.documents") {
        None => Ok(Vec::new()),
        Some(v) => {
            let parsed = match v {
                Value::String(s) => serde_json::from_str::<Value>(s)
                    .map_err(|e| format!("attribute gen_ai.retrieval.documents: invalid JSON: {e}"))?,
                other => other.clone(),
            };
            let items =
                parsed.as_array().ok_or("attribute gen_ai.retrieval.documents: expected a JSON array of documents")?;
            Ok(items.iter().map(document_of).collect())
        }
    }
}

/// A document given as a string or an object (`id`, `content` | `text` | `page_content`,
/// `score`; LangChain's `metadata.id` / `metadata.source` for the id).
pub(crate) fn document_of(d: &Value) -> Document {
    match d {
        Value::String(s) => Document { text: s.clone(), ..Document::default() },
        Value::Object(o) => {
            let meta = o.get("metadata");
            let id = o
                .get("id")
                .or_else(|| meta.and_then(|m| m.get("id")))
                .or_else(|| meta.and_then(|m| m.get("source")))
                .and_then(text_of);
            let text = ["content", "text", "page_content", "pageContent", "document"]
                .iter()
                .find_map(|k| o.get(*k).and_then(text_of))
                .unwrap_or_default();
            Document { id, text, score: o.get("score").and_then(Value::as_f64) }
        }
        other => Document { text: other.to_string(), ..Document::default() },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn raw(attrs: Value) -> RawSpan {
        RawSpan {
            trace_id: "0af7651916cd43dd8448eb211c80319c".into(),
            span_id: "b7ad6b7169203331".into(),
            name: "s".into(),
            start_ns: 1_000_000,
            end_ns: 251_000_000,
            attributes: attrs.as_object().unwrap().clone(),
            ..RawSpan::default()
        }
    }

    #[test]
    fn openinference_llm_span() {
        let s = interpret(raw(json!({
            "openinference.span.kind": "LLM",
            "llm.input_messages.0.message.role": "system",
            "llm.input_messages.0.message.content": "Be brief.",
            "llm.input_messages.1.message.role": "user",
            "llm.input_messages.1.message.content": "What is X?",
            "llm.input_messages.10.message.role": "user",
            "llm.input_messages.10.message.contents.0.message_content.type": "text",
            "llm.input_messages.10.message.contents.0.message_content.text": "And Y?",
            "llm.output_messages.0.message.role": "assistant",
            "llm.output_messages.0.message.content": "Y is Z.",
            "llm.model_name": "qwen", "llm.token_count.prompt": 12, "llm.token_count.completion": 4,
            "llm.cost.total": 0.002, "session.id": "s1", "metadata": "{\"route\": \"faq\"}"
        })))
        .unwrap();
        assert_eq!(s.kind, SpanKind::Llm);
        let roles: Vec<_> = s.input_messages.iter().map(|m| (m.role.as_str(), m.text.as_str())).collect();
        // Index 10 sorts after 1 (numeric, not string, order).
        assert_eq!(roles, [("system", "Be brief."), ("user", "What is X?"), ("user", "And Y?")]);
        assert_eq!(s.output_messages[0].text, "Y is Z.");
        assert_eq!((s.tokens_in, s.tokens_out, s.cost), (Some(12), Some(4), Some(0.002)));
        assert_eq!(s.session_id.as_deref(), Some("s1"));
        assert_eq!(s.metadata["route"], "faq");
        assert_eq!(s.latency_ms(), 250.0);
    }

    #[test]
    fn openinference_retriever_and_reranker() {
        let s = interpret(raw(json!({
            "openinference.span.kind": "RETRIEVER", "input.value": "what is x",
            "retrieval.documents.1.document.id": "d2", "retrieval.documents.1.document.content": "two",
            "retrieval.documents.0.document.id": "d1", "retrieval.documents.0.document.content": "one",
            "retrieval.documents.0.document.score": 0.9
        })))
        .unwrap();
        assert_eq!(s.kind, SpanKind::Retriever);
        assert_eq!(s.input.as_deref(), Some("what is x"));
        assert_eq!(s.documents.iter().map(|d| d.id.as_deref().unwrap()).collect::<Vec<_>>(), ["d1", "d2"]);
        assert_eq!(s.documents[0].score, Some(0.9));
        let r = interpret(raw(json!({
            "openinference.span.kind": "RERANKER",
            "reranker.input_documents.0.document.id": "d1", "reranker.output_documents.0.document.id": "d2",
            "reranker.output_documents.0.document.content": "two"
        })))
        .unwrap();
        assert_eq!(r.documents.len(), 1);
        assert_eq!(r.documents[0].id.as_deref(), Some("d2"));
    }

    #[test]
    fn genai_messages_documents_and_tools() {
        let s = interpret(raw(json!({
            "gen_ai.operation.name": "chat", "gen_ai.request.model": "m-req", "gen_ai.response.model": "m-resp",
            "gen_ai.input.messages": "[{\"role\":\"user\",\"parts\":[{\"type\":\"text\",\"content\":\"Hi?\"}]}]",
            "gen_ai.output.messages": "[{\"role\":\"assistant\",\"parts\":[{\"type\":\"text\",\"content\":\"Hello.\"},{\"type\":\"tool_call\",\"name\":\"f\"}],\"finish_reason\":\"stop\"}]",
            "gen_ai.usage.input_tokens": 3, "gen_ai.usage.output_tokens": 2, "gen_ai.conversation.id": "c9"
        })))
        .unwrap();
        assert_eq!(s.kind, SpanKind::Llm);
        assert_eq!(s.model.as_deref(), Some("m-resp"));
        assert_eq!(s.input_messages, [Message { role: "user".into(), text: "Hi?".into() }]);
        assert_eq!(s.output_messages[0].text, "Hello.");
        assert_eq!(s.session_id.as_deref(), Some("c9"));
        let r = interpret(raw(json!({
            "gen_ai.operation.name": "retrieval", "gen_ai.retrieval.query.text": "q",
            "gen_ai.retrieval.documents": "[{\"id\":\"a\",\"score\":0.5,\"content\":\"A\"},{\"id\":\"b\"}]"
        })))
        .unwrap();
        assert_eq!(r.kind, SpanKind::Retriever);
        assert_eq!(r.input.as_deref(), Some("q"));
        assert_eq!(r.documents[1], Document { id: Some("b".into()), text: String::new(), score: None });
        let t = interpret(raw(json!({
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "weather",
            "gen_ai.tool.call.arguments": "{\"city\": \"Oslo\"}", "gen_ai.tool.call.result": "4 C"
        })))
        .unwrap();
        assert_eq!(
            (t.kind, t.tool_name.as_deref(), t.output.as_deref()),
            (SpanKind::Tool, Some("weather"), Some("4 C"))
        );
        assert_eq!(t.input.as_deref(), Some("{\"city\": \"Oslo\"}"));
    }

    #[test]
    fn genai_events_and_openllmetry_flat_prompts() {
        let mut r = raw(json!({"gen_ai.system": "openai"}));
        r.events = vec![
            ("gen_ai.user.message".into(), json!({"content": "Q?"}).as_object().unwrap().clone()),
            ("gen_ai.choice".into(), json!({"message": "{\"content\": \"A.\"}"}).as_object().unwrap().clone()),
        ];
        let s = interpret(r).unwrap();
        assert_eq!(s.input_messages[0].text, "Q?");
        assert_eq!(s.output_messages[0], Message { role: "assistant".into(), text: "A.".into() });
        let f = interpret(raw(json!({
            "gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": "Q",
            "gen_ai.completion.0.role": "assistant", "gen_ai.completion.0.content": "A"
        })))
        .unwrap();
        assert_eq!(
            (f.kind, f.input_messages[0].text.as_str(), f.output_messages[0].text.as_str()),
            (SpanKind::Llm, "Q", "A")
        );
    }

    #[test]
    fn unusable_spans_say_why() {
        let mut r = raw(json!({}));
        r.trace_id = "00000000000000000000000000000000".into();
        assert!(interpret(r).unwrap_err().starts_with("invalid trace id"));
        let mut r = raw(json!({}));
        r.end_ns = 0;
        assert!(interpret(r).unwrap_err().starts_with("ends (0) before it starts"));
        let e = interpret(raw(json!({"gen_ai.operation.name": "chat", "gen_ai.input.messages": "[{"}))).unwrap_err();
        assert!(e.starts_with("attribute gen_ai.input.messages: invalid JSON"), "{e}");
        let e = interpret(raw(json!({"gen_ai.retrieval.documents": "{}"}))).unwrap_err();
        assert!(e.contains("expected a JSON array"), "{e}");
    }
}
