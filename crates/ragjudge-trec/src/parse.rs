//! Tolerant parsing of judge outputs: JSON inside prose or code fences, trailing commas, Python
//! literals (`['a', 'b']`, `True`, `None`), bare labels and bare grades.
//!
//! Open RAG Eval asks for structured output (a pydantic schema); backends that cannot enforce a
//! schema answer in free text, so every parser here first looks for the schema's JSON and then
//! falls back to the plain forms the prompts ask for (a single integer, a Pythonic list).

use crate::error::ParseError;
use regex::Regex;
use serde_json::Value;
use std::sync::OnceLock;

/// The first JSON value (object or array) found in `text`, after removing code fences and
/// rewriting Python literals; `None` when there is none.
pub fn extract_json(text: &str) -> Option<Value> {
    let text = strip_fences(text);
    let trimmed = text.trim();
    if let Ok(v) = serde_json::from_str::<Value>(trimmed) {
        return Some(v);
    }
    for (start, c) in trimmed.char_indices() {
        if c != '{' && c != '[' {
            continue;
        }
        let Some(end) = matching_close(&trimmed[start..]) else { continue };
        let candidate = &trimmed[start..start + end];
        if let Ok(v) = serde_json::from_str::<Value>(candidate) {
            return Some(v);
        }
        if let Some(v) = pythonic_to_json(candidate).and_then(|s| serde_json::from_str::<Value>(&s).ok()) {
            return Some(v);
        }
    }
    None
}

/// The text inside the first ```` ``` ```` fence, or the whole text when there is none.
fn strip_fences(text: &str) -> &str {
    let Some(open) = text.find("```") else { return text };
    let after = &text[open + 3..];
    // Skip a language tag such as `json` or `python` up to the end of the line.
    let body_start = after.find('\n').map_or(0, |i| i + 1);
    let body = &after[body_start..];
    match body.find("```") {
        Some(close) => &body[..close],
        None => body,
    }
}

/// Byte length of the bracketed value at the start of `s` (through its matching close bracket),
/// honouring single- and double-quoted strings.
fn matching_close(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => quote = Some(c),
            '[' | '{' => depth += 1,
            ']' | '}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + c.len_utf8());
                }
            }
            _ => {}
        }
    }
    None
}

/// Rewrites a Python literal (or sloppy JSON) into JSON: single-quoted strings become
/// double-quoted, `True`/`False`/`None` become `true`/`false`/`null`, trailing commas go.
/// `None` when a string is left open.
fn pythonic_to_json(s: &str) -> Option<String> {
    let mut out = String::with_capacity(s.len() + 8);
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' | '\'' => {
                out.push('"');
                let mut closed = false;
                while let Some(d) = chars.next() {
                    match d {
                        '\\' => match chars.next()? {
                            '\'' => out.push('\''),
                            e => {
                                out.push('\\');
                                out.push(e);
                            }
                        },
                        d if d == c => {
                            closed = true;
                            break;
                        }
                        '"' => out.push_str("\\\""),
                        '\n' => out.push_str("\\n"),
                        '\t' => out.push_str("\\t"),
                        d => out.push(d),
                    }
                }
                if !closed {
                    return None;
                }
                out.push('"');
            }
            ',' => {
                // Drop a comma that only precedes a closing bracket.
                let mut look = chars.clone();
                while look.peek().is_some_and(|x| x.is_whitespace()) {
                    look.next();
                }
                if !matches!(look.peek(), Some(']') | Some('}')) {
                    out.push(',');
                }
            }
            c if c.is_ascii_alphabetic() => {
                let mut word = String::from(c);
                while let Some(&d) = chars.peek() {
                    if d.is_ascii_alphanumeric() || d == '_' {
                        word.push(d);
                        chars.next();
                    } else {
                        break;
                    }
                }
                out.push_str(match word.as_str() {
                    "True" => "true",
                    "False" => "false",
                    "None" => "null",
                    w => w,
                });
            }
            c => out.push(c),
        }
    }
    Some(out)
}

/// The list under `key` of a JSON object, a bare JSON list, or the only list-valued field of an
/// object. Elements are strings (numbers are written out as text).
fn list_of(v: &Value, key: &str) -> Option<Vec<String>> {
    let list = match v {
        Value::Array(a) => a,
        Value::Object(m) => match m.get(key) {
            Some(Value::Array(a)) => a,
            _ => {
                let mut arrays = m.values().filter_map(Value::as_array);
                let only = arrays.next()?;
                if arrays.next().is_some() {
                    return None;
                }
                only
            }
        },
        _ => return None,
    };
    list.iter()
        .map(|e| match e {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        })
        .collect()
}

/// A list of strings: the JSON (or Python) list in `text`, under `key` when it is an object.
/// Blank items are dropped. `None` when no list is found.
pub fn parse_string_list(text: &str, key: &str) -> Option<Vec<String>> {
    let v = extract_json(text)?;
    let items = list_of(&v, key)?;
    Some(items.into_iter().map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect())
}

/// Lower case, with spaces and hyphens turned into underscores: `Partial Support` ->
/// `partial_support`.
pub fn normalise_label(s: &str) -> String {
    let s = s.trim().trim_matches(|c: char| c == '"' || c == '\'' || c == '`' || c == '.' || c == '*');
    s.to_lowercase()
        .split(|c: char| c.is_whitespace() || c == '-')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join("_")
}

/// Exactly `n` labels from `allowed` (after [`normalise_label`]), from a JSON/Python list (under
/// `key` if an object) or, failing that, from the labels' occurrences in the text in order.
pub fn parse_labels(text: &str, key: &str, allowed: &[&str], n: usize) -> Result<Vec<String>, ParseError> {
    let mut json_error = None;
    if let Some(items) = extract_json(text).and_then(|v| list_of(&v, key)) {
        let labels: Vec<String> = items.iter().map(|s| normalise_label(s)).collect();
        match labels.iter().find(|l| !allowed.contains(&l.as_str())) {
            Some(bad) => json_error = Some(ParseError::UnknownLabel(bad.clone())),
            None if labels.len() != n => json_error = Some(ParseError::LabelCount { found: labels.len(), wanted: n }),
            None => return Ok(labels),
        }
    }
    let found = scan_labels(text, allowed);
    if found.len() == n && n > 0 {
        return Ok(found);
    }
    Err(json_error.unwrap_or(ParseError::NoLabelList(n)))
}

/// The allowed labels as they occur in `text`, in order, matching whole words and preferring the
/// longest label at each position (`not_support` before `support`).
fn scan_labels(text: &str, allowed: &[&str]) -> Vec<String> {
    let norm: String = text
        .to_lowercase()
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '_' {
                c
            } else if c == ' ' || c == '-' {
                '_'
            } else {
                ' '
            }
        })
        .collect();
    let mut sorted: Vec<&str> = allowed.to_vec();
    sorted.sort_by_key(|l| std::cmp::Reverse(l.len()));
    let bytes = norm.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < norm.len() {
        let boundary_before = i == 0 || !is_word_byte(bytes[i - 1]);
        let hit = boundary_before
            .then(|| {
                sorted.iter().find(|l| {
                    norm[i..].starts_with(**l) && norm.as_bytes().get(i + l.len()).is_none_or(|&b| !is_word_byte(b))
                })
            })
            .flatten();
        match hit {
            Some(l) => {
                out.push(l.to_string());
                i += l.len();
            }
            None => i += 1,
        }
        while i < norm.len() && !norm.is_char_boundary(i) {
            i += 1;
        }
    }
    out
}

/// Letters, digits and `_`, except that `_` joins words only inside a label, so a separator run
/// such as `support__okay` still splits.
fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b >= 0x80
}

/// One label from `allowed`: the `key` field of a JSON object, a bare label, or the only allowed
/// label named in the text. Several different labels in free text are ambiguous (`Err`).
pub fn parse_single_label(text: &str, key: &str, allowed: &[&str]) -> Result<String, ParseError> {
    if let Some(Value::Object(m)) = extract_json(text) {
        if let Some(Value::String(s)) = m.get(key) {
            let l = normalise_label(s);
            return if allowed.contains(&l.as_str()) { Ok(l) } else { Err(ParseError::UnknownLabel(l)) };
        }
    }
    let mut found = scan_labels(text, allowed);
    found.dedup();
    found.sort();
    found.dedup();
    match found.len() {
        1 => Ok(found.remove(0)),
        0 => Err(ParseError::NoLabel),
        _ => Err(ParseError::Ambiguous(found.join(", "))),
    }
}

#[allow(clippy::expect_used, reason = "literal patterns, compiled by the tests")]
fn grade_regexes() -> &'static [Regex; 2] {
    static RE: OnceLock<[Regex; 2]> = OnceLock::new();
    RE.get_or_init(|| {
        [
            // UMBRELA's own patterns (umbrela 0.0.7, `parse_fewshot_response`), with `:` or `=`.
            Regex::new(
                r#"(?i)["']?(?:o|overall_score|overall score|overall|final score|final_score|score|o_score)["']?\s*[:=]\s*["']?\(?([0-3])\b"#,
            )
            .expect("valid regex"),
            // A lone digit, possibly decorated: `2`, `2.`, `**2**`, `"2"`, `Score 2`.
            Regex::new(r"\b([0-3])\b").expect("valid regex"),
        ]
    })
}

/// An UMBRELA grade 0-3: the `score` field of the schema's JSON object, a `final score: N`-style
/// statement, or the only digit 0-3 in the text. `None` when none (never defaulted to 0, unlike
/// umbrela's `parse_fewshot_response`).
pub fn parse_grade(text: &str) -> Option<u8> {
    if let Some(Value::Object(m)) = extract_json(text) {
        for key in ["score", "O", "o", "final_score", "final score", "overall_score", "overall"] {
            match m.get(key) {
                Some(Value::String(s)) => {
                    if let Ok(g @ 0..=3) = s.trim().parse::<u8>() {
                        return Some(g);
                    }
                }
                Some(Value::Number(n)) => {
                    if let Some(g @ 0..=3) = n.as_u64() {
                        return Some(g as u8);
                    }
                }
                _ => {}
            }
        }
    }
    let [named, lone] = grade_regexes();
    // The last named score wins: M and T come before the final O.
    let mut last = None;
    for c in named.captures_iter(text) {
        last = c.get(1).and_then(|m| m.as_str().parse::<u8>().ok());
    }
    if last.is_some() {
        return last;
    }
    // Only a text whose digits are all one lone grade counts (no `M: 2, T: 1` guessing).
    if text.chars().any(|c| c.is_ascii_digit()) {
        let grades: Vec<u8> = lone.captures_iter(text).filter_map(|c| c[1].parse().ok()).collect();
        let digits = text.chars().filter(|c| c.is_ascii_digit()).count();
        if grades.len() == 1 && digits == 1 {
            return Some(grades[0]);
        }
    }
    None
}

/// A Python `repr` of a list of strings, as Open RAG Eval's prompts interpolate lists
/// (`['a', "b's"]`).
pub fn py_list_repr(items: &[String]) -> String {
    let parts: Vec<String> = items.iter().map(|s| py_str_repr(s)).collect();
    format!("[{}]", parts.join(", "))
}

/// Python's `repr` of a string: single quotes unless the text holds `'` and no `"`.
fn py_str_repr(s: &str) -> String {
    let q = if s.contains('\'') && !s.contains('"') { '"' } else { '\'' };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(q);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == q => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out.push(q);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_inside_prose_and_fences() {
        assert_eq!(extract_json("Sure! Here it is: {\"score\": \"2\"} Hope it helps."), Some(json!({"score": "2"})));
        assert_eq!(extract_json("```json\n{\"nuggets\": [\"a\", \"b\"]}\n```"), Some(json!({"nuggets": ["a", "b"]})));
        assert_eq!(extract_json("```\n[\"x\",]\n```"), Some(json!(["x"])));
    }

    #[test]
    fn trailing_commas_and_python_literals() {
        assert_eq!(extract_json("{\"a\": [1, 2,], }"), Some(json!({"a": [1, 2]})));
        assert_eq!(
            extract_json("Updated Nugget List: ['Paris is the capital', \"France's seat\", 'a \"quote\"']"),
            Some(json!(["Paris is the capital", "France's seat", "a \"quote\""]))
        );
        assert_eq!(extract_json("{'ok': True, 'x': None}"), Some(json!({"ok": true, "x": null})));
        assert_eq!(extract_json("['it\\'s']"), Some(json!(["it's"])));
        assert_eq!(extract_json("no json here"), None);
        assert_eq!(extract_json("['unterminated"), None);
    }

    #[test]
    fn a_bracket_inside_a_string_does_not_end_the_value() {
        assert_eq!(extract_json("x ['a]b', 'c'] y"), Some(json!(["a]b", "c"])));
    }

    #[test]
    fn grades_from_messy_outputs() {
        assert_eq!(parse_grade("{\"score\": \"3\"}"), Some(3));
        assert_eq!(parse_grade("{\"score\": 1}"), Some(1));
        assert_eq!(parse_grade("2"), Some(2));
        assert_eq!(parse_grade("**2**."), Some(2));
        assert_eq!(parse_grade("M: 2, T: 1\n##final score: 1"), Some(1));
        assert_eq!(parse_grade("\"O\": 0"), Some(0));
        assert_eq!(parse_grade("```json\n{'score': '2',}\n```"), Some(2));
        // Unparseable: never a silent 0.
        assert_eq!(parse_grade("The passage is relevant."), None);
        assert_eq!(parse_grade("M: 2, T: 1"), None);
        assert_eq!(parse_grade("7"), None);
        assert_eq!(parse_grade("{\"score\": \"5\"}"), None);
        assert_eq!(parse_grade(""), None);
    }

    #[test]
    fn labels_from_lists_and_free_text() {
        let allowed = ["support", "partial_support", "not_support"];
        assert_eq!(
            parse_labels("{\"assignment\": [\"support\", \"Partial Support\"]}", "assignment", &allowed, 2).unwrap(),
            vec!["support", "partial_support"]
        );
        assert_eq!(
            parse_labels("Labels: ['not_support', 'support',]", "assignment", &allowed, 2).unwrap(),
            vec!["not_support", "support"]
        );
        // Free text: longest label first, in order.
        assert_eq!(
            parse_labels("1. not support\n2. partial-support\n3. support", "assignment", &allowed, 3).unwrap(),
            vec!["not_support", "partial_support", "support"]
        );
        assert!(parse_labels("['support']", "assignment", &allowed, 2)
            .unwrap_err()
            .to_string()
            .contains("1 labels for 2"));
        assert!(parse_labels("['supported']", "assignment", &allowed, 1)
            .unwrap_err()
            .to_string()
            .contains("unknown label"));
        assert!(parse_labels("I cannot tell.", "assignment", &allowed, 1).is_err());
    }

    #[test]
    fn single_labels() {
        let allowed = ["full_support", "partial_support", "no_support"];
        assert_eq!(parse_single_label("{\"support\": \"full_support\"}", "support", &allowed).unwrap(), "full_support");
        assert_eq!(parse_single_label("``partial_support''", "support", &allowed).unwrap(), "partial_support");
        assert_eq!(parse_single_label("No Support.", "support", &allowed).unwrap(), "no_support");
        assert!(parse_single_label("full_support or no_support", "support", &allowed)
            .unwrap_err()
            .to_string()
            .contains("ambiguous"));
        assert!(parse_single_label("supported", "support", &allowed).is_err());
    }

    #[test]
    fn string_lists() {
        assert_eq!(parse_string_list("{\"nuggets\": [\" a \", \"\", \"b\"]}", "nuggets").unwrap(), vec!["a", "b"]);
        assert_eq!(parse_string_list("[\"x\"]", "nuggets").unwrap(), vec!["x"]);
        assert_eq!(parse_string_list("{\"other\": 1}", "nuggets"), None);
    }

    #[test]
    fn python_repr_of_lists() {
        // Python 3: repr(['a', "b's", 'c"d']) == "['a', \"b's\", 'c\"d']"
        let items = vec!["a".to_string(), "b's".to_string(), "c\"d".to_string()];
        assert_eq!(py_list_repr(&items), "['a', \"b's\", 'c\"d']");
        assert_eq!(py_list_repr(&[]), "[]");
    }
}
