//! The structured outputs of generation: one description of the fields gives both the JSON
//! schema that HTTP backends receive as `response_format` and the GBNF grammar that constrains a
//! local model token by token, so that a small model cannot produce an unparseable item; a
//! reply is then checked against the same description.

use serde_json::{json, Map, Value};

/// What a field holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldKind {
    /// Any non-empty string on one line.
    Text,
    /// One of the given strings.
    OneOf(&'static [&'static str]),
    /// Exactly this many non-empty strings, no two the same (ignoring case and outer spaces).
    Texts(usize),
}

/// A flat JSON object with fields in a fixed order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectSpec {
    /// `(name, kind)` in output order.
    pub fields: Vec<(&'static str, FieldKind)>,
}

impl ObjectSpec {
    /// The JSON schema (every field required, no other field).
    pub fn json_schema(&self) -> Value {
        let mut props = Map::new();
        for (name, kind) in &self.fields {
            let p = match kind {
                FieldKind::Text => json!({"type": "string", "minLength": 1}),
                FieldKind::OneOf(values) => json!({"type": "string", "enum": values}),
                FieldKind::Texts(n) => json!({
                    "type": "array", "items": {"type": "string", "minLength": 1}, "minItems": n, "maxItems": n
                }),
            };
            props.insert((*name).to_string(), p);
        }
        let required: Vec<&str> = self.fields.iter().map(|(n, _)| *n).collect();
        json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
    }

    /// The GBNF grammar (start rule `root`): the object on one line, fields in order.
    pub fn gbnf(&self) -> String {
        let mut root = String::from(r#"root ::= "{" "#);
        for (i, (name, kind)) in self.fields.iter().enumerate() {
            if i > 0 {
                root.push_str(r#"", " "#);
            }
            root.push_str(&format!(r#""\"{name}\": " "#));
            match kind {
                FieldKind::Text => root.push_str("string "),
                FieldKind::OneOf(values) => {
                    let alts: Vec<String> = values.iter().map(|v| format!(r#""\"{v}\"""#)).collect();
                    root.push_str(&format!("({}) ", alts.join(" | ")));
                }
                FieldKind::Texts(n) => {
                    let items = vec!["string"; *n].join(r#" ", " "#);
                    root.push_str(&format!(r#""[" {items} "]" "#));
                }
            }
        }
        root.push_str(r#""}""#);
        format!(
            "{root}\nstring ::= \"\\\"\" char+ \"\\\"\"\nchar ::= [^\"\\\\\\x7F\\x00-\\x1F] | \"\\\\\" ([\"\\\\/bfnrt] | \"u\" [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F])\n"
        )
    }

    /// Parses a reply and checks it against the fields: the object, or what is wrong.
    pub fn parse(&self, text: &str) -> Result<Map<String, Value>, String> {
        let value: Value = serde_json::from_str(text.trim()).map_err(|e| format!("not JSON: {e}"))?;
        let Value::Object(mut obj) = value else {
            return Err("not a JSON object".into());
        };
        for (name, kind) in &self.fields {
            let v = obj.get(*name).ok_or_else(|| format!("{name}: missing"))?;
            let mut cleaned = None;
            let ok = match (kind, v) {
                (FieldKind::Text, Value::String(s)) => !s.trim().is_empty(),
                (FieldKind::OneOf(values), Value::String(s)) => values.contains(&s.as_str()),
                (FieldKind::Texts(n), Value::Array(items)) => {
                    // Models often letter their options themselves ("A. ..."): the letters are
                    // ours to add, so they are removed before the options are compared.
                    let texts: Vec<String> = items
                        .iter()
                        .filter_map(|i| i.as_str())
                        .enumerate()
                        .map(|(k, s)| strip_option_label(s, k).to_string())
                        .collect();
                    let ok = texts.len() == *n && distinct_texts(&texts);
                    cleaned = Some(texts);
                    ok
                }
                _ => false,
            };
            if !ok {
                return Err(format!("{name}: not a valid value: {v}"));
            }
            if let Some(texts) = cleaned {
                obj.insert(name.to_string(), Value::Array(texts.into_iter().map(Value::String).collect()));
            }
        }
        if let Some(extra) = obj.keys().find(|k| !self.fields.iter().any(|(n, _)| n == k)) {
            return Err(format!("{extra}: unexpected field"));
        }
        Ok(obj)
    }
}

/// Whether every text is non-empty and no two are the same, case aside.
pub(crate) fn distinct_texts(texts: &[String]) -> bool {
    let distinct: std::collections::HashSet<String> = texts.iter().map(|t| t.to_lowercase()).collect();
    texts.iter().all(|t| !t.is_empty()) && distinct.len() == texts.len()
}

/// `text` trimmed, without a leading label of option `k` (`A. `, `A) `, `A: `, `(A) ` for k = 0).
pub(crate) fn strip_option_label(text: &str, k: usize) -> &str {
    let t = text.trim();
    let Some(letter) = u8::try_from(k).ok().and_then(|k| b'A'.checked_add(k)).filter(u8::is_ascii_uppercase) else {
        return t;
    };
    let b = t.as_bytes();
    if b.len() >= 3 && b[0] == b'(' && b[1] == letter && b[2] == b')' {
        return t[3..].trim_start();
    }
    if b.len() >= 2 && b[0] == letter && matches!(b[1], b'.' | b')' | b':') && (b.len() == 2 || b[2] == b' ') {
        return t[2..].trim_start();
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> ObjectSpec {
        ObjectSpec {
            fields: vec![
                ("question", FieldKind::Text),
                ("options", FieldKind::Texts(2)),
                ("answer", FieldKind::OneOf(&["A", "B"])),
            ],
        }
    }

    #[test]
    fn grammar_written_out_by_hand() {
        let want = concat!(
            r#"root ::= "{" "\"question\": " string ", " "\"options\": " "[" string ", " string "]" ", " "\"answer\": " ("\"A\"" | "\"B\"") "}""#,
            "\n",
            r#"string ::= "\"" char+ "\"""#,
            "\n",
            r#"char ::= [^"\\\x7F\x00-\x1F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F])"#,
            "\n"
        );
        assert_eq!(spec().gbnf(), want);
    }

    #[test]
    fn schema_and_checks() {
        let s = spec().json_schema();
        assert_eq!(s["required"], json!(["question", "options", "answer"]));
        assert_eq!(s["properties"]["answer"]["enum"], json!(["A", "B"]));
        assert_eq!(s["properties"]["options"]["minItems"], 2);
        let ok = spec().parse(r#"{"question": "Q?", "options": ["x", "y"], "answer": "B"}"#).unwrap();
        assert_eq!(ok["answer"], "B");
        let err = |t: &str| spec().parse(t).unwrap_err();
        assert!(err(r#"{"question": "Q?", "options": ["x"], "answer": "B"}"#).starts_with("options: not a valid value"));
        assert!(err(r#"{"question": "Q?", "options": ["Same", " same"], "answer": "B"}"#).starts_with("options:"));
        // The model's own option letters are removed, and options equal without them refused.
        let ok = spec().parse(r#"{"question": "Q?", "options": ["A. U.S. Navy", "(B) x"], "answer": "B"}"#).unwrap();
        assert_eq!(ok["options"], json!(["U.S. Navy", "x"]));
        let ok = spec().parse(r#"{"question": "Q?", "options": ["B. x", "A) y"], "answer": "B"}"#).unwrap();
        assert_eq!(ok["options"], json!(["B. x", "A) y"]), "only an option's own letter is a label");
        assert!(err(r#"{"question": "Q?", "options": ["A. same", "B) Same"], "answer": "B"}"#).starts_with("options:"));
        assert!(err(r#"{"question": "Q?", "options": ["A.", "y"], "answer": "B"}"#).starts_with("options:"));
        assert!(err(r#"{"question": "Q?", "options": ["x", "y"], "answer": "C"}"#).starts_with("answer:"));
        assert_eq!(err(r#"{"question": "Q?", "options": ["x", "y"]}"#), "answer: missing");
        assert!(err(r#"{"question": "Q?", "options": ["x", "y"], "answer": "A", "z": 1}"#).starts_with("z: unexpected"));
        assert!(err(r#"{"question": "Q?""#).starts_with("not JSON"));
    }
}
