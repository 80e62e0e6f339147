//! The question set: JSONL records with `id`, `query` and optionally `reference`, `history`,
//! `meta` (what `ragjudge testgen` writes) and `relevant` (ids of passages known to answer it).
//! Questions sharing `meta.session_id` (or `meta.conversation_id`) are the turns of one
//! conversation, numbered by `meta.turn` ([`crate::conversation`]).

use crate::error::CollectError;
use ragjudge_core::{known_relevant, record_from_json, InputError, Record};
use serde_json::Value;
use std::collections::HashMap;
use std::io::BufRead;
use std::path::Path;

/// One question and the passages known to answer it.
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    /// The question as a record without answer or passages.
    pub record: Record,
    /// Ids of passages that answer it: the top-level `relevant` list, else testgen's
    /// `meta.source_ids` (none for unanswerable questions, whose source does not answer them).
    pub relevant: Vec<String>,
}

/// One question from one JSON line.
pub fn question_from_json(mut v: Value, file: &str, line: u64) -> Result<Question, InputError> {
    let at = |field: Option<String>, message: String| InputError::new(file, Some(line), field, message);
    let Some(map) = v.as_object_mut() else {
        return Err(at(None, "expected a JSON object".into()));
    };
    // A question has no answer yet.
    map.entry("answer").or_insert_with(|| Value::String(String::new()));
    let relevant = map.get("relevant").cloned();
    let record = record_from_json(v, file, format!("line{line}"), "questions").map_err(|mut e| {
        e.line = Some(line);
        e
    })?;
    if record.query.trim().is_empty() {
        return Err(at(Some("query".into()), "is empty".into()));
    }
    if let Some(conversation) = record.conversation() {
        if turn_number(&record).is_none() {
            let got = record.meta.get("turn").map_or_else(|| "missing".to_string(), |t| format!("got {t}"));
            let msg = format!("must be a positive integer in a turn of conversation {conversation:?} ({got})");
            return Err(at(Some("meta.turn".into()), msg));
        }
    }
    let relevant = known_relevant(relevant.as_ref(), &record.meta);
    Ok(Question { record, relevant })
}

/// `meta.turn` when it is a positive integer: the place of a question in its conversation.
pub fn turn_number(record: &Record) -> Option<u64> {
    record.meta.get("turn").and_then(Value::as_u64).filter(|&t| t > 0)
}

/// Reads a question file. Every problem is an error naming file, line and field: a question
/// set with holes would give scores over a different set than the one asked for.
pub fn read_questions(path: &Path) -> Result<Vec<Question>, CollectError> {
    let file = path.display().to_string();
    let f = std::fs::File::open(path).map_err(|e| InputError::fatal(&file, None, format!("cannot open: {e}")))?;
    let mut out = Vec::new();
    let mut lines_of: HashMap<String, u64> = HashMap::new();
    let mut turn_lines: HashMap<(String, u64), u64> = HashMap::new();
    for (i, line) in std::io::BufReader::new(f).lines().enumerate() {
        let n = i as u64 + 1;
        let line = line.map_err(|e| InputError::fatal(&file, Some(n), format!("not UTF-8 text or unreadable: {e}")))?;
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(line.trim_start_matches('\u{feff}'))
            .map_err(|e| InputError::new(&file, Some(n), None, format!("not JSON: {e}")))?;
        let q = question_from_json(v, &file, n)?;
        if let Some(first) = lines_of.insert(q.record.id.clone(), n) {
            let msg = format!("duplicate id {:?} (first on line {first})", q.record.id);
            return Err(InputError::new(&file, Some(n), Some("id".into()), msg).into());
        }
        if let (Some(conversation), Some(turn)) = (q.record.conversation(), turn_number(&q.record)) {
            if let Some(first) = turn_lines.insert((conversation.clone(), turn), n) {
                let msg = format!("duplicate turn {turn} of conversation {conversation:?} (first on line {first})");
                return Err(InputError::new(&file, Some(n), Some("meta.turn".into()), msg).into());
            }
        }
        out.push(q);
    }
    if out.is_empty() {
        return Err(InputError::fatal(&file, None, "no questions").into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn file(text: &str) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(text.as_bytes()).unwrap();
        f
    }

    #[test]
    fn testgen_questions_are_read_with_their_sources() {
        let f = file(concat!(
            r#"{"id": "tg1", "query": "Q1?", "reference": "R1", "meta": {"query_type": "factual", "source_ids": ["d1:0"]}}"#,
            "\n\n",
            r#"{"id": "tg2", "query": "Q2?", "meta": {"query_type": "unanswerable", "source_ids": ["d1:1"]}}"#,
            "\n",
            r#"{"id": "q3", "query": "Q3?", "relevant": ["d2#4", "d2#2"]}"#,
            "\n"
        ));
        let qs = read_questions(f.path()).unwrap();
        assert_eq!(qs.len(), 3);
        assert_eq!(qs[0].relevant, vec!["d1:0"]);
        assert_eq!(qs[0].record.reference.as_deref(), Some("R1"));
        assert!(qs[1].relevant.is_empty(), "an unanswerable question's source does not answer it");
        assert_eq!(qs[2].relevant, vec!["d2#4", "d2#2"]);
    }

    #[test]
    fn bad_questions_name_file_line_and_field() {
        let cases = [
            ("{\"id\": \"a\", \"query\": \"x\"}\n{\"id\": \"b\"}\n", "2", "query"),
            ("{\"id\": \"a\", \"query\": \"  \"}\n", "1", "field `query`: is empty"),
            (
                "{\"id\": \"a\", \"query\": \"x\"}\n{\"id\": \"a\", \"query\": \"y\"}\n",
                "2",
                "duplicate id \"a\" (first on line 1)",
            ),
            ("{\"id\": \"a\", \"query\": \"x\"\n", "1", "not JSON"),
            (
                "{\"id\": \"a\", \"query\": \"x\", \"meta\": {\"session_id\": \"c1\", \"turn\": 0}}\n",
                "1",
                "field `meta.turn`: must be a positive integer in a turn of conversation \"c1\" (got 0)",
            ),
            (
                "{\"id\": \"a\", \"query\": \"x\", \"meta\": {\"conversation_id\": 7}}\n",
                "1",
                "field `meta.turn`: must be a positive integer in a turn of conversation \"7\" (missing)",
            ),
            (
                concat!(
                    "{\"id\": \"a\", \"query\": \"x\", \"meta\": {\"session_id\": \"c1\", \"turn\": 1}}\n",
                    "{\"id\": \"b\", \"query\": \"y\", \"meta\": {\"session_id\": \"c2\", \"turn\": 1}}\n",
                    "{\"id\": \"c\", \"query\": \"z\", \"meta\": {\"session_id\": \"c1\", \"turn\": 1}}\n",
                ),
                "3",
                "field `meta.turn`: duplicate turn 1 of conversation \"c1\" (first on line 1)",
            ),
            ("\n\n", "", "no questions"),
        ];
        for (text, line, needle) in cases {
            let f = file(text);
            let e = read_questions(f.path()).unwrap_err().to_string();
            assert!(e.contains(needle), "{e}");
            assert!(e.contains(&f.path().display().to_string()), "{e}");
            if !line.is_empty() {
                assert!(e.contains(&format!(":{line}")), "{e}");
            }
        }
    }
}
