//! Conversion of parsed JSON values into [`Record`]s, shared by the JSONL and CSV readers.

use crate::error::excerpt;
use crate::record::{Context, Record, Step, Turn};
use serde_json::{Map, Value};

/// A problem with one field of one record, before the file and line are attached.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FieldError {
    pub field: Option<String>,
    pub message: String,
}

impl FieldError {
    pub(crate) fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        FieldError { field: Some(field.into()), message: message.into() }
    }

    pub(crate) fn missing(field: &str) -> Self {
        FieldError::new(field, "missing")
    }

    pub(crate) fn expected(field: &str, what: &str, found: &Value) -> Self {
        FieldError::new(field, format!("expected {what}, found {}", type_name(found)))
    }
}

/// Values used when a record does not give its own `id` or `system`.
pub(crate) struct Defaults<'a> {
    pub id: String,
    pub system: &'a str,
}

/// JSON's name for the type of `v` (`null`, `boolean`, `number`, `string`, `array`, `object`),
/// for messages such as "expected a string, found number".
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn take_string(v: Value, field: &str) -> Result<String, FieldError> {
    match v {
        Value::String(s) => Ok(s),
        other => Err(FieldError::expected(field, "a string", &other)),
    }
}

/// A string, or `None` for `null`.
fn take_opt_string(v: Value, field: &str) -> Result<Option<String>, FieldError> {
    match v {
        Value::Null => Ok(None),
        other => take_string(other, field).map(Some),
    }
}

/// An identifier: a string, or a JSON number written as text; `None` for `null`.
fn take_id(v: Value, field: &str) -> Result<Option<String>, FieldError> {
    match v {
        Value::Null => Ok(None),
        Value::String(s) => Ok(Some(s)),
        Value::Number(n) => Ok(Some(n.to_string())),
        other => Err(FieldError::expected(field, "a string or a number", &other)),
    }
}

/// Parses the `run` value: a non-negative integer that fits in 32 bits.
fn take_run(v: Value, field: &str) -> Result<Option<u32>, FieldError> {
    match v {
        Value::Null => Ok(None),
        Value::Number(n) => match n.as_u64().and_then(|u| u32::try_from(u).ok()) {
            Some(u) => Ok(Some(u)),
            None => Err(FieldError::new(field, format!("expected a non-negative integer, found {n}"))),
        },
        other => Err(FieldError::expected(field, "an integer", &other)),
    }
}

/// Removes the first of `keys` present in `map`, returning the key used and its value.
fn take_any(map: &mut Map<String, Value>, keys: &[&'static str]) -> Option<(&'static str, Value)> {
    keys.iter().find_map(|&k| map.remove(k).map(|v| (k, v)))
}

/// The items of an array field; `null` is an empty array.
fn array_items(v: Value, field: &str) -> Result<Vec<Value>, FieldError> {
    match v {
        Value::Null => Ok(Vec::new()),
        Value::Array(items) => Ok(items),
        other => Err(FieldError::expected(field, "an array", &other)),
    }
}

/// Parses a contexts array: strings, or objects `{id?, text|passage, relevance|grade|score?}`.
/// `field` names the array in errors (`contexts`, `retrieved_contexts`); `null` is no contexts.
pub(crate) fn contexts_from_value(v: Value, field: &str) -> Result<Vec<Context>, FieldError> {
    let items = array_items(v, field)?;
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.into_iter().enumerate() {
        let at = format!("{field}[{i}]");
        match item {
            Value::String(text) => out.push(Context { id: None, text, relevance: None }),
            Value::Object(mut obj) => {
                let text = match take_any(&mut obj, &["text", "passage"]) {
                    Some((k, v)) => take_string(v, &format!("{at}.{k}"))?,
                    None => return Err(FieldError::missing(&format!("{at}.text"))),
                };
                let id = match obj.remove("id") {
                    Some(v) => take_id(v, &format!("{at}.id"))?,
                    None => None,
                };
                let relevance = match take_any(&mut obj, &["relevance", "grade", "score"]) {
                    Some((_, Value::Null)) | None => None,
                    Some((_, Value::Number(n))) => n.as_f64(),
                    Some((k, other)) => return Err(FieldError::expected(&format!("{at}.{k}"), "a number", &other)),
                };
                out.push(Context { id, text, relevance });
            }
            other => return Err(FieldError::expected(&at, "a string or an object", &other)),
        }
    }
    Ok(out)
}

/// Parses a history array of `{role, text|content}` objects; `null` is no history.
pub(crate) fn history_from_value(v: Value, field: &str) -> Result<Vec<Turn>, FieldError> {
    let items = array_items(v, field)?;
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.into_iter().enumerate() {
        let at = format!("{field}[{i}]");
        let mut obj = match item {
            Value::Object(obj) => obj,
            other => return Err(FieldError::expected(&at, "an object", &other)),
        };
        let role = match obj.remove("role") {
            Some(v) => take_string(v, &format!("{at}.role"))?,
            None => return Err(FieldError::missing(&format!("{at}.role"))),
        };
        let text = match take_any(&mut obj, &["text", "content"]) {
            Some((k, v)) => take_string(v, &format!("{at}.{k}"))?,
            None => return Err(FieldError::missing(&format!("{at}.text"))),
        };
        out.push(Turn { role, text });
    }
    Ok(out)
}

/// Parses an agent trajectory: a list of step objects (`kind` required), or `null`.
pub(crate) fn steps_from_value(v: Value, field: &str) -> Result<Vec<Step>, FieldError> {
    if v.is_null() {
        return Ok(Vec::new());
    }
    let items = array_items(v, field)?;
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.into_iter().enumerate() {
        let at = format!("{field}[{i}]");
        if !item.is_object() {
            return Err(FieldError::expected(&at, "an object", &item));
        }
        if item.get("kind").is_none() {
            return Err(FieldError::missing(&format!("{at}.kind")));
        }
        let step =
            serde_json::from_value(item).map_err(|e| FieldError { field: Some(at.clone()), message: e.to_string() })?;
        out.push(step);
    }
    Ok(out)
}

/// Parses a meta object; `null` is an empty one.
pub(crate) fn meta_from_value(v: Value, field: &str) -> Result<Map<String, Value>, FieldError> {
    match v {
        Value::Null => Ok(Map::new()),
        Value::Object(m) => Ok(m),
        other => Err(FieldError::expected(field, "an object", &other)),
    }
}

/// Builds a record from one JSON value of a JSONL file.
///
/// Our layout needs `query` and `answer`; when `query` is absent and `user_input` present the
/// line is read in the RAGAS layout (`user_input`, `retrieved_contexts`, `response`,
/// `reference`). Unknown keys are ignored.
pub(crate) fn record_from_value(v: Value, defaults: Defaults<'_>) -> Result<Record, FieldError> {
    let mut map = match v {
        Value::Object(map) => map,
        other => {
            return Err(FieldError {
                field: None,
                message: format!("expected a JSON object, found {}", type_name(&other)),
            })
        }
    };
    let ragas = !map.contains_key("query") && map.contains_key("user_input");
    let (query_key, answer_key, contexts_key) =
        if ragas { ("user_input", "response", "retrieved_contexts") } else { ("query", "answer", "contexts") };
    let query = match map.remove(query_key) {
        Some(v) => take_string(v, query_key)?,
        None => return Err(FieldError::missing(query_key)),
    };
    let answer = match map.remove(answer_key) {
        Some(v) => take_string(v, answer_key)?,
        None => return Err(FieldError::missing(answer_key)),
    };
    let id = match map.remove("id") {
        Some(v) => take_id(v, "id")?,
        None => None,
    }
    .unwrap_or(defaults.id);
    let system = match map.remove("system") {
        Some(v) => take_opt_string(v, "system")?,
        None => None,
    }
    .unwrap_or_else(|| defaults.system.to_string());
    let contexts = match map.remove(contexts_key) {
        Some(v) => contexts_from_value(v, contexts_key)?,
        None => Vec::new(),
    };
    let reference = match map.remove("reference") {
        Some(v) => take_opt_string(v, "reference")?,
        None => None,
    };
    let history = match map.remove("history") {
        Some(v) => history_from_value(v, "history")?,
        None => Vec::new(),
    };
    let steps = match map.remove("steps") {
        Some(v) => steps_from_value(v, "steps")?,
        None => Vec::new(),
    };
    let run = match map.remove("run") {
        Some(v) => take_run(v, "run")?,
        None => None,
    };
    let meta = match map.remove("meta") {
        Some(v) => meta_from_value(v, "meta")?,
        None => Map::new(),
    };
    Ok(Record { id, system, query, contexts, answer, reference, history, steps, run, meta })
}

/// Renders a `serde_json` syntax error as `invalid JSON: MESSAGE at column N` (the line is
/// reported by the caller).
pub(crate) fn json_error_message(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let msg = full.strip_suffix(&suffix).unwrap_or(&full);
    format!("invalid JSON: {} at column {}", excerpt(msg), e.column())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn defaults() -> Defaults<'static> {
        Defaults { id: "1".into(), system: "sys" }
    }

    #[test]
    fn full_record() {
        let v = json!({
            "id": 17, "system": "S1", "query": "q", "answer": "a [1]",
            "contexts": ["p0", {"id": "d#1", "passage": "p1", "grade": 2}, {"text": "p2", "score": 0.5, "id": 3}],
            "reference": null, "history": [{"role": "user", "content": "hi"}],
            "run": 2, "meta": {"topic": "t"}, "extra": [1, 2]
        });
        let r = record_from_value(v, defaults()).unwrap();
        assert_eq!(r.id, "17");
        assert_eq!(r.system, "S1");
        assert_eq!(r.contexts.len(), 3);
        assert_eq!(r.contexts[0], Context { id: None, text: "p0".into(), relevance: None });
        assert_eq!(r.contexts[1], Context { id: Some("d#1".into()), text: "p1".into(), relevance: Some(2.0) });
        assert_eq!(r.contexts[2], Context { id: Some("3".into()), text: "p2".into(), relevance: Some(0.5) });
        assert_eq!(r.reference, None);
        assert_eq!(r.history, vec![Turn { role: "user".into(), text: "hi".into() }]);
        assert_eq!(r.run, Some(2));
        assert_eq!(r.meta.get("topic"), Some(&json!("t")));
    }

    #[test]
    fn field_errors() {
        let e = record_from_value(json!({"query": "q", "answer": "a", "run": -1}), defaults()).unwrap_err();
        assert_eq!(e, FieldError::new("run", "expected a non-negative integer, found -1"));
        let e = record_from_value(json!({"query": "q", "answer": "a", "history": [{"role": "u"}]}), defaults())
            .unwrap_err();
        assert_eq!(e, FieldError::new("history[0].text", "missing"));
        let e = record_from_value(
            json!({"query": "q", "answer": "a", "contexts": [{"text": "x", "grade": "high"}]}),
            defaults(),
        )
        .unwrap_err();
        assert_eq!(e, FieldError::new("contexts[0].grade", "expected a number, found string"));
        let e = record_from_value(json!([1]), defaults()).unwrap_err();
        assert_eq!(e.message, "expected a JSON object, found array");
        assert_eq!(e.field, None);
    }
}
