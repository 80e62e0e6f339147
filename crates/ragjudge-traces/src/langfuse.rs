//! Langfuse exports: traces with their observations, as the public API and the UI's export give
//! them (a JSON array, an object with a `data` array, or one trace per line), or bare
//! observations (each with `traceId`). Observation types map to span kinds: GENERATION -> model
//! call, RETRIEVER, TOOL, AGENT, CHAIN, EMBEDDING as named, SPAN -> chain, others -> other.
//! The trace's own `input` / `output` / `sessionId` / `userId` / `metadata` make a root span.

use crate::convention::{document_of, message_of};
use crate::error::Issue;
use crate::span::{text_of, Message, Span, SpanKind};
use serde_json::Value;

/// The JSON items of a Langfuse file; `Err` holds the 1-based line of a bad JSON line.
pub fn items(text: &str) -> Result<Vec<Value>, (Option<u64>, String)> {
    if let Ok(v) = serde_json::from_str::<Value>(text) {
        return Ok(match v {
            Value::Array(a) => a,
            Value::Object(mut o) => match o.remove("data") {
                Some(Value::Array(a)) => a,
                Some(other) => {
                    o.insert("data".into(), other);
                    vec![Value::Object(o)]
                }
                None => vec![Value::Object(o)],
            },
            other => return Err((None, format!("expected Langfuse traces (a JSON array or object), found {other}"))),
        });
    }
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        out.push(serde_json::from_str(line).map_err(|e| (Some(i as u64 + 1), format!("invalid JSON: {e}")))?);
    }
    Ok(out)
}

/// Whether a JSON item looks like a Langfuse trace or observation.
pub fn looks_like(item: &Value) -> bool {
    item.get("observations").is_some_and(Value::is_array)
        || (item.get("traceId").is_some() && item.get("type").is_some())
}

/// Spans of the items; an observation or trace that cannot be read is reported and left out.
pub fn spans(items: &[Value]) -> (Vec<Span>, Vec<Issue>) {
    let mut spans = Vec::new();
    let mut issues = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let trace_id = str_of(item, "traceId").or_else(|| str_of(item, "id")).unwrap_or_else(|| format!("#{}", i + 1));
        let issue = |span_id: Option<String>, message: String| Issue {
            trace_id: trace_id.clone(),
            span_id,
            name: None,
            message,
        };
        if let Some(obs) = item.get("observations").and_then(Value::as_array) {
            let Some(id) = str_of(item, "id") else {
                issues.push(issue(None, "trace without an id".into()));
                continue;
            };
            let mut children = Vec::new();
            for o in obs {
                if o.is_string() {
                    issues.push(issue(None, "observations are ids only: export traces with their observations".into()));
                    break;
                }
                match observation(o, &id, Some(&id)) {
                    Ok(s) => children.push(s),
                    Err(e) => issues.push(issue(str_of(o, "id"), e)),
                }
            }
            match root(item, &id, &children) {
                Ok(r) => {
                    spans.push(r);
                    spans.extend(children);
                }
                Err(e) => issues.push(issue(None, e)),
            }
        } else if looks_like(item) {
            match observation(item, &trace_id, None) {
                Ok(s) => spans.push(s),
                Err(e) => issues.push(issue(str_of(item, "id"), e)),
            }
        } else {
            issues.push(issue(
                None,
                "neither a Langfuse trace (with observations) nor an observation (traceId, type)".into(),
            ));
        }
    }
    (spans, issues)
}

fn str_of(v: &Value, key: &str) -> Option<String> {
    match v.get(key) {
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    }
}

/// An RFC 3339 time (`Z`, an offset, or none for UTC) in ns since the epoch.
fn time_ns(v: &Value, key: &str) -> Result<Option<u64>, String> {
    let Some(s) = v.get(key).and_then(Value::as_str) else { return Ok(None) };
    let t = chrono::DateTime::parse_from_rfc3339(s)
        .map(|d| d.to_utc())
        .or_else(|_| chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S%.f").map(|n| n.and_utc()))
        .map_err(|_| format!("{key}: {s:?} is not an RFC 3339 time"))?;
    let ns = t.timestamp_nanos_opt().filter(|n| *n >= 0).ok_or_else(|| format!("{key}: {s:?} out of range"))?;
    Ok(Some(ns as u64))
}

/// The trace's root span.
fn root(trace: &Value, id: &str, children: &[Span]) -> Result<Span, String> {
    let start = time_ns(trace, "timestamp")?.or_else(|| children.iter().map(|c| c.start_ns).min()).unwrap_or(0);
    let end = children.iter().map(|c| c.end_ns).max().unwrap_or(start).max(start);
    let mut metadata = trace.get("metadata").and_then(Value::as_object).cloned().unwrap_or_default();
    if let Some(tags) = trace.get("tags").filter(|t| t.as_array().is_some_and(|a| !a.is_empty())) {
        metadata.insert("tags".into(), tags.clone());
    }
    Ok(Span {
        trace_id: id.to_string(),
        span_id: id.to_string(),
        name: str_of(trace, "name").unwrap_or_default(),
        kind: SpanKind::Chain,
        start_ns: start,
        end_ns: end,
        session_id: str_of(trace, "sessionId"),
        user_id: str_of(trace, "userId"),
        input: trace.get("input").and_then(text_of),
        output: trace.get("output").and_then(text_of),
        metadata,
        ..Span::default()
    })
}

/// One observation; `root` is the trace's root span id (the parent of top-level observations).
fn observation(o: &Value, trace_id: &str, root: Option<&str>) -> Result<Span, String> {
    let id = str_of(o, "id").ok_or("observation without an id")?;
    let kind = match o.get("type").and_then(Value::as_str).unwrap_or("SPAN") {
        "GENERATION" => SpanKind::Llm,
        "RETRIEVER" => SpanKind::Retriever,
        "TOOL" => SpanKind::Tool,
        "AGENT" => SpanKind::Agent,
        "SPAN" | "CHAIN" => SpanKind::Chain,
        "EMBEDDING" => SpanKind::Embedding,
        _ => SpanKind::Other,
    };
    let start = time_ns(o, "startTime")?.ok_or("observation without a startTime")?;
    let end = time_ns(o, "endTime")?.unwrap_or(start);
    if end < start {
        return Err("endTime before startTime".into());
    }
    let usage = o.get("usageDetails").or_else(|| o.get("usage"));
    let tokens = |keys: &[&str]| {
        keys.iter().find_map(|k| usage.and_then(|u| u.get(*k)).or_else(|| o.get(*k)).and_then(Value::as_u64))
    };
    let mut span = Span {
        trace_id: trace_id.to_string(),
        span_id: id,
        parent_id: str_of(o, "parentObservationId").or_else(|| root.map(str::to_string)),
        name: str_of(o, "name").unwrap_or_default(),
        kind,
        start_ns: start,
        end_ns: end,
        error: (o.get("level").and_then(Value::as_str) == Some("ERROR"))
            .then(|| str_of(o, "statusMessage").unwrap_or_default()),
        model: str_of(o, "model"),
        tokens_in: tokens(&["input", "promptTokens"]),
        tokens_out: tokens(&["output", "completionTokens"]),
        cost: o
            .get("calculatedTotalCost")
            .or_else(|| o.get("costDetails").and_then(|c| c.get("total")))
            .or_else(|| o.get("totalCost"))
            .and_then(Value::as_f64),
        metadata: o.get("metadata").and_then(Value::as_object).cloned().unwrap_or_default(),
        ..Span::default()
    };
    if kind == SpanKind::Tool {
        span.tool_name = Some(span.name.clone());
    }
    let input = o.get("input").unwrap_or(&Value::Null);
    let output = o.get("output").unwrap_or(&Value::Null);
    if kind == SpanKind::Llm {
        span.input_messages = messages(input, "user");
        span.output_messages = messages(output, "assistant");
    }
    if kind == SpanKind::Retriever {
        let docs = output.get("documents").unwrap_or(output);
        if let Some(a) = docs.as_array() {
            span.documents = a.iter().map(document_of).collect();
        }
    } else {
        span.output = text_of(output);
    }
    span.input = text_of(input);
    Ok(span)
}

/// Chat messages: an array of `{role, content}`, an object with `messages`, one message object,
/// or a plain string (one message of `role`).
fn messages(v: &Value, role: &str) -> Vec<Message> {
    match v {
        Value::Array(a) => a.iter().map(|m| message_of(m, role)).collect(),
        Value::Object(o) if o.get("messages").is_some_and(Value::is_array) => messages(&o["messages"], role),
        Value::Object(o) if o.contains_key("content") || o.contains_key("role") => vec![message_of(v, role)],
        Value::Object(o) if o.get("choices").is_some_and(Value::is_array) => o["choices"]
            .as_array()
            .map(|c| c.iter().filter_map(|c| c.get("message")).map(|m| message_of(m, role)).collect())
            .unwrap_or_default(),
        Value::Null => Vec::new(),
        other => vec![Message { role: role.into(), text: text_of(other).unwrap_or_default() }],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_trace_with_observations() {
        let t = json!({"id": "tr1", "name": "rag", "timestamp": "2025-01-02T03:04:05.000Z",
        "input": {"question": "What is X?"}, "output": "X is Y.", "sessionId": "s1", "userId": "u",
        "metadata": {"route": "faq"}, "tags": ["prod"],
        "observations": [
            {"id": "o1", "type": "RETRIEVER", "name": "search", "startTime": "2025-01-02T03:04:05.100Z",
             "endTime": "2025-01-02T03:04:05.300Z", "input": "What is X?",
             "output": [{"id": "d1", "page_content": "X is Y."}, "plain passage"]},
            {"id": "o2", "type": "GENERATION", "name": "llm", "startTime": "2025-01-02T03:04:05.300Z",
             "endTime": "2025-01-02T03:04:06.000Z", "model": "gpt-x",
             "input": [{"role": "user", "content": "What is X?"}], "output": {"role": "assistant", "content": "X is Y."},
             "usageDetails": {"input": 20, "output": 5}, "calculatedTotalCost": 0.01}
        ]});
        let (spans, issues) = spans(&[t]);
        assert!(issues.is_empty(), "{issues:?}");
        assert_eq!(spans.len(), 3);
        let root = &spans[0];
        assert_eq!((root.input.as_deref(), root.session_id.as_deref()), (Some("What is X?"), Some("s1")));
        assert_eq!(root.start_ns, 1_735_787_045_000_000_000);
        assert_eq!(root.end_ns, 1_735_787_046_000_000_000);
        assert_eq!(root.metadata["tags"], json!(["prod"]));
        let ret = &spans[1];
        assert_eq!((ret.kind, ret.parent_id.as_deref()), (SpanKind::Retriever, Some("tr1")));
        assert_eq!(ret.documents[0].id.as_deref(), Some("d1"));
        assert_eq!(ret.documents[1].text, "plain passage");
        let gen = &spans[2];
        assert_eq!((gen.tokens_in, gen.tokens_out, gen.cost), (Some(20), Some(5), Some(0.01)));
        assert_eq!(gen.output_messages[0].text, "X is Y.");
        assert_eq!(gen.latency_ms(), 700.0);
    }

    #[test]
    fn files_in_three_layouts_and_bad_observations() {
        assert_eq!(items("[{\"a\":1},{\"a\":2}]").unwrap().len(), 2);
        assert_eq!(items("{\"data\":[{\"a\":1}],\"meta\":{}}").unwrap().len(), 1);
        assert_eq!(items("{\"a\":1}\n\n{\"a\":2}\n").unwrap().len(), 2);
        assert_eq!(items("{\"a\":1}\n{oops\n").unwrap_err().0, Some(2));
        let t = json!({"id": "t", "observations": [
            {"id": "o1", "type": "SPAN", "startTime": "yesterday"},
            {"id": "o2", "type": "SPAN", "startTime": "2025-01-02T03:04:05Z", "endTime": "2025-01-02T03:04:04Z"}]});
        let (spans, issues) = spans(&[t, json!({"x": 1})]);
        assert_eq!(spans.len(), 1, "the root stays");
        let msgs: Vec<String> = issues.iter().map(|i| i.to_string()).collect();
        assert_eq!(
            msgs,
            [
                "trace t span o1: startTime: \"yesterday\" is not an RFC 3339 time",
                "trace t span o2: endTime before startTime",
                "trace #2: neither a Langfuse trace (with observations) nor an observation (traceId, type)"
            ]
        );
    }
}
