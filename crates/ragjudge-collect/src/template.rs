//! The request sent to an HTTP or command target: a JSON template whose strings may hold
//! placeholders, and JSON paths (RFC 9535) that find the answer and the passages in the reply.
//!
//! Placeholders: `{{id}}`, `{{query}}`, `{{history}}`, `{{meta}}` and `{{meta.KEY}}`. A string
//! that is exactly one placeholder becomes the value itself (so `"{{history}}"` becomes the
//! array of turns); inside a longer string a placeholder becomes text (JSON for non-strings).
//! The reference answer is never sent.

use crate::error::CollectError;
use crate::target::{Answer, CallError};
use ragjudge_core::read::type_name;
use ragjudge_core::{Context, Record};
use serde_json::{json, Map, Value};
use serde_json_path::JsonPath;

/// The body sent when no template is given. `meta` is left out: testgen's `meta` names the
/// source passages, which a system under test must find by itself.
pub fn default_template() -> Value {
    json!({"id": "{{id}}", "query": "{{query}}", "history": "{{history}}"})
}

/// Keys an object passage's text is read from, in order of preference.
const TEXT_KEYS: [&str; 5] = ["text", "content", "page_content", "passage", "chunk"];
/// Keys an object passage's id is read from.
const ID_KEYS: [&str; 4] = ["id", "doc_id", "passage_id", "docid"];

/// A request template with the paths of the reply's fields.
#[derive(Debug, Clone)]
pub struct Exchange {
    template: Value,
    answer_path: (String, JsonPath),
    contexts_path: (String, JsonPath),
}

/// Placeholder names in every string of `v`.
fn placeholders(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => {
            let mut rest = s.as_str();
            while let Some(start) = rest.find("{{") {
                let Some(len) = rest[start + 2..].find("}}") else { break };
                out.push(rest[start + 2..start + 2 + len].trim().to_string());
                rest = &rest[start + 2 + len + 2..];
            }
        }
        Value::Array(a) => a.iter().for_each(|x| placeholders(x, out)),
        Value::Object(o) => o.values().for_each(|x| placeholders(x, out)),
        _ => {}
    }
}

fn parse_path(what: &str, path: &str) -> Result<(String, JsonPath), CollectError> {
    JsonPath::parse(path)
        .map(|p| (path.to_string(), p))
        .map_err(|e| CollectError::Settings(format!("{what} path {path:?} is not a JSON path: {e}")))
}

impl Exchange {
    /// Checks the template's placeholders and parses the paths.
    pub fn new(template: Value, answer_path: &str, contexts_path: &str) -> Result<Self, CollectError> {
        let mut names = Vec::new();
        placeholders(&template, &mut names);
        for n in &names {
            let known = matches!(n.as_str(), "id" | "query" | "history" | "meta") || n.starts_with("meta.");
            if !known {
                return Err(CollectError::Settings(format!(
                    "request template: unknown placeholder {{{{{n}}}}} (known: id, query, history, meta, meta.KEY)"
                )));
            }
        }
        if !names.iter().any(|n| n == "query") {
            return Err(CollectError::Settings("request template: no {{query}} placeholder".into()));
        }
        Ok(Self {
            template,
            answer_path: parse_path("answer", answer_path)?,
            contexts_path: parse_path("contexts", contexts_path)?,
        })
    }

    /// What decides the answers besides the endpoint: template and paths.
    pub fn identity(&self) -> String {
        format!("{}|{}|{}", self.template, self.answer_path.0, self.contexts_path.0)
    }

    /// The request body for `question`.
    pub fn render(&self, question: &Record) -> Value {
        render(&self.template, question)
    }

    /// The answer and passages in a reply body.
    pub fn extract(&self, reply: &Value) -> Result<Answer, CallError> {
        let (apath, ap) = &self.answer_path;
        let nodes = ap.query(reply).all();
        let answer = match nodes.first() {
            None => return Err(CallError::fatal(format!("reply has no answer at {apath}"))),
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            Some(Value::Bool(b)) => b.to_string(),
            Some(other) => {
                return Err(CallError::fatal(format!("answer at {apath} is {}, expected a string", a_type(other))))
            }
        };
        let (cpath, cp) = &self.contexts_path;
        let found = cp.query(reply).all();
        // A path to an array yields the array; a path with a wildcard yields its elements.
        let items: Vec<&Value> = match found.as_slice() {
            [Value::Array(a)] => a.iter().collect(),
            [Value::Null] => Vec::new(),
            other => other.to_vec(),
        };
        let mut contexts = Vec::with_capacity(items.len());
        for (i, item) in items.into_iter().enumerate() {
            contexts.push(context(item).ok_or_else(|| {
                CallError::fatal(format!(
                    "passage {i} at {cpath} is {}, expected a string or an object with one of {}",
                    a_type(item),
                    TEXT_KEYS.join(", ")
                ))
            })?);
        }
        Ok(Answer { answer, contexts })
    }
}

/// `an object`, `a number`, `null`...: the JSON type of `v` with its article.
fn a_type(v: &Value) -> String {
    match type_name(v) {
        "null" => "null".to_string(),
        t @ ("object" | "array") => format!("an {t}"),
        t => format!("a {t}"),
    }
}

/// A passage from a string or an object with a text key.
fn context(v: &Value) -> Option<Context> {
    match v {
        Value::String(s) => Some(Context { id: None, text: s.clone(), relevance: None }),
        Value::Object(o) => {
            let text = TEXT_KEYS.iter().find_map(|k| o.get(*k).and_then(Value::as_str))?;
            let id = ID_KEYS.iter().find_map(|k| match o.get(*k) {
                Some(Value::String(s)) => Some(s.clone()),
                Some(Value::Number(n)) => Some(n.to_string()),
                _ => None,
            });
            Some(Context { id, text: text.to_string(), relevance: None })
        }
        _ => None,
    }
}

/// The value of one placeholder.
fn lookup(name: &str, q: &Record) -> Value {
    match name {
        "id" => Value::String(q.id.clone()),
        "query" => Value::String(q.query.clone()),
        "history" => serde_json::to_value(&q.history).unwrap_or(Value::Array(Vec::new())),
        "meta" => Value::Object(q.meta.clone()),
        _ => name.strip_prefix("meta.").and_then(|k| q.meta.get(k)).cloned().unwrap_or(Value::Null),
    }
}

fn render(v: &Value, q: &Record) -> Value {
    match v {
        Value::String(s) => {
            let t = s.trim();
            if t.starts_with("{{") && t.ends_with("}}") && t[2..].find("{{").is_none() {
                return lookup(t[2..t.len() - 2].trim(), q);
            }
            let mut out = String::with_capacity(s.len());
            let mut rest = s.as_str();
            while let Some(start) = rest.find("{{") {
                let Some(len) = rest[start + 2..].find("}}") else { break };
                out.push_str(&rest[..start]);
                match lookup(rest[start + 2..start + 2 + len].trim(), q) {
                    Value::String(x) => out.push_str(&x),
                    Value::Null => {}
                    other => out.push_str(&other.to_string()),
                }
                rest = &rest[start + 2 + len + 2..];
            }
            out.push_str(rest);
            Value::String(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(|x| render(x, q)).collect()),
        Value::Object(o) => Value::Object(o.iter().map(|(k, x)| (k.clone(), render(x, q))).collect::<Map<_, _>>()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ragjudge_core::Turn;

    fn question() -> Record {
        let mut meta = Map::new();
        meta.insert("topic".into(), json!("t3"));
        Record {
            id: "q1".into(),
            query: "Why is the sky \"blue\"?".into(),
            reference: Some("secret".into()),
            history: vec![Turn { role: "user".into(), text: "hi".into() }],
            meta,
            ..Record::default()
        }
    }

    #[test]
    fn whole_placeholders_become_values_and_inner_ones_text() {
        let t = json!({"q": "{{query}}", "h": "{{ history }}", "p": "Q: {{query}} ({{meta.topic}}, {{meta.none}})",
                       "n": 3, "m": ["{{meta}}"]});
        let x = Exchange::new(t, "$.answer", "$.contexts").unwrap();
        let body = x.render(&question());
        assert_eq!(body["q"], "Why is the sky \"blue\"?");
        assert_eq!(body["h"], json!([{"role": "user", "text": "hi"}]));
        assert_eq!(body["p"], "Q: Why is the sky \"blue\"? (t3, )");
        assert_eq!(body["n"], 3);
        assert_eq!(body["m"], json!([{"topic": "t3"}]));
        assert!(!body.to_string().contains("secret"), "the reference is never sent");
    }

    #[test]
    fn the_default_request_sends_neither_meta_nor_reference() {
        let x = Exchange::new(default_template(), "$.answer", "$.contexts").unwrap();
        let body = x.render(&question());
        let want =
            json!({"id": "q1", "query": "Why is the sky \"blue\"?", "history": [{"role": "user", "text": "hi"}]});
        assert_eq!(body, want);
    }

    #[test]
    fn bad_templates_and_paths_are_refused() {
        let e = Exchange::new(json!({"q": "{{query}}", "r": "{{reference}}"}), "$.a", "$.c").unwrap_err();
        assert!(e.to_string().contains("unknown placeholder {{reference}}"), "{e}");
        let e = Exchange::new(json!({"q": "x"}), "$.a", "$.c").unwrap_err();
        assert!(e.to_string().contains("no {{query}}"), "{e}");
        let e = Exchange::new(default_template(), "answer[", "$.c").unwrap_err();
        assert!(e.to_string().contains("answer path \"answer[\""), "{e}");
    }

    #[test]
    fn answers_and_passages_are_found_by_path() {
        let x = Exchange::new(default_template(), "$.data.output", "$.data.docs[*]").unwrap();
        let reply = json!({"data": {"output": "It scatters [1].", "docs": [
            {"page_content": "Rayleigh scattering", "doc_id": 7}, "plain passage"]}});
        let a = x.extract(&reply).unwrap();
        assert_eq!(a.answer, "It scatters [1].");
        assert_eq!(a.contexts.len(), 2);
        assert_eq!(a.contexts[0].id.as_deref(), Some("7"));
        assert_eq!(a.contexts[0].text, "Rayleigh scattering");
        assert_eq!(a.contexts[1].text, "plain passage");
        // The same passages through a path to the array itself.
        let y = Exchange::new(default_template(), "$.data.output", "$.data.docs").unwrap();
        assert_eq!(y.extract(&reply).unwrap().contexts, a.contexts);
    }

    #[test]
    fn a_reply_without_answer_or_with_odd_passages_fails_with_the_path() {
        let x = Exchange::new(default_template(), "$.answer", "$.contexts").unwrap();
        let e = x.extract(&json!({"result": "x"})).unwrap_err();
        assert_eq!(e.message, "reply has no answer at $.answer");
        assert!(!e.retryable);
        let e = x.extract(&json!({"answer": {"text": "x"}})).unwrap_err();
        assert_eq!(e.message, "answer at $.answer is an object, expected a string");
        let e = x.extract(&json!({"answer": "x", "contexts": [{"score": 1}]})).unwrap_err();
        assert!(e.message.starts_with("passage 0 at $.contexts is an object"), "{}", e.message);
        // No passages at all is an answer without passages.
        assert!(x.extract(&json!({"answer": "x"})).unwrap().contexts.is_empty());
    }
}
