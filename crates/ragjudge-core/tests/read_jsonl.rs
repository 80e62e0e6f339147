//! JSONL reader: records, defaults, and one-line errors naming file, line and field.

use ragjudge_core::{Context, Format, InputError, ReadOptions, Record, RecordReader, Step, Turn};
use std::io::Cursor;

fn read(name: &str, bytes: &[u8], opts: &ReadOptions) -> Vec<Result<Record, InputError>> {
    RecordReader::from_reader(name, Cursor::new(bytes.to_vec()), opts).unwrap().collect()
}

fn read_default(name: &str, text: &str) -> Vec<Result<Record, InputError>> {
    read(name, text.as_bytes(), &ReadOptions::default())
}

/// The single error of `items`, rendered, with its fatality.
fn only_error(items: &[Result<Record, InputError>]) -> (String, bool) {
    assert_eq!(items.len(), 1, "expected one item, got {items:?}");
    let e = items[0].as_ref().unwrap_err();
    (e.to_string(), e.fatal)
}

#[test]
fn empty_file_is_one_fatal_error() {
    let items = read_default("empty.jsonl", "");
    assert_eq!(only_error(&items), ("empty.jsonl: no records".to_string(), true));
    let items = read_default("blank.jsonl", "\n   \n\r\n\t\n");
    assert_eq!(only_error(&items), ("blank.jsonl: no records".to_string(), true));
}

#[test]
fn truncated_json_line() {
    let text = "{\"query\":\"q\",\"answer\":\"a\"}\n{\"id\":\"a\",\"query\":\"x";
    let items = read_default("runs.jsonl", text);
    assert_eq!(items.len(), 2);
    assert!(items[0].is_ok());
    let e = items[1].as_ref().unwrap_err();
    // The line is 20 characters long; serde_json reports the column of the last one read.
    assert_eq!(e.to_string(), "runs.jsonl:2: invalid JSON: EOF while parsing a string at column 20");
    assert!(!e.fatal);
    assert_eq!(e.line, Some(2));
    assert_eq!(e.field, None);
}

#[test]
fn missing_query_and_answer() {
    let items = read_default("runs.jsonl", "\n\n{\"answer\":\"a\"}\n{\"query\":\"q\"}\n");
    let msgs: Vec<String> = items.iter().map(|r| r.as_ref().unwrap_err().to_string()).collect();
    assert_eq!(msgs, vec!["runs.jsonl:3: field `query`: missing", "runs.jsonl:4: field `answer`: missing"]);
}

#[test]
fn wrong_field_types_name_the_field() {
    let text = concat!(
        "{\"query\": 5, \"answer\": \"a\"}\n",
        "{\"query\": \"q\", \"answer\": \"a\", \"contexts\": \"x\"}\n",
        "{\"query\": \"q\", \"answer\": \"a\", \"contexts\": [{\"text\": \"ok\"}, {\"text\": 3}]}\n",
        "{\"query\": \"q\", \"answer\": \"a\", \"contexts\": [\"ok\", true]}\n",
        "{\"query\": \"q\", \"answer\": \"a\", \"id\": [1]}\n",
        "{\"query\": \"q\", \"answer\": \"a\", \"run\": 1.5}\n",
        "{\"query\": \"q\", \"answer\": \"a\", \"meta\": []}\n",
        "[1, 2]\n",
        "{\"query\": \"q\", \"answer\": \"a\", \"steps\": [{\"name\": \"x\"}]}\n",
        "{\"query\": \"q\", \"answer\": \"a\", \"steps\": [{\"kind\": \"tool\", \"latency_ms\": \"slow\"}]}\n",
    );
    let items = read_default("t.jsonl", text);
    let errs: Vec<(String, bool)> = items
        .iter()
        .map(|r| {
            let e = r.as_ref().unwrap_err();
            (e.to_string(), e.fatal)
        })
        .collect();
    let want = [
        "t.jsonl:1: field `query`: expected a string, found number",
        "t.jsonl:2: field `contexts`: expected an array, found string",
        "t.jsonl:3: field `contexts[1].text`: expected a string, found number",
        "t.jsonl:4: field `contexts[1]`: expected a string or an object, found boolean",
        "t.jsonl:5: field `id`: expected a string or a number, found array",
        "t.jsonl:6: field `run`: expected a non-negative integer, found 1.5",
        "t.jsonl:7: field `meta`: expected an object, found array",
        "t.jsonl:8: expected a JSON object, found array",
        "t.jsonl:9: field `steps[0].kind`: missing",
        "t.jsonl:10: field `steps[0]`: invalid type: string \"slow\", expected f64",
    ];
    assert_eq!(errs, want.iter().map(|s| (s.to_string(), false)).collect::<Vec<_>>());
}

#[test]
fn invalid_utf8_names_line_and_byte_offset() {
    let mut bytes = b"{\"query\":\"q\",\"answer\":\"a\"}\n".to_vec();
    // `{"query":"caf` is 13 bytes, so the bad byte is at offset 13.
    bytes.extend_from_slice(b"{\"query\":\"caf\xff\",\"answer\":\"a\"}\n");
    bytes.extend_from_slice(b"{\"query\":\"q3\",\"answer\":\"a\"}\n");
    let items = read("u.jsonl", &bytes, &ReadOptions::default());
    assert_eq!(items.len(), 3);
    let e = items[1].as_ref().unwrap_err();
    assert_eq!(e.to_string(), "u.jsonl:2: invalid UTF-8 at byte offset 13");
    assert!(!e.fatal);
    assert_eq!(items[2].as_ref().unwrap().query, "q3");
}

#[test]
fn long_line_with_small_limit_is_skipped() {
    let long = format!("{{\"query\":\"{}\",\"answer\":\"a\"}}", "x".repeat(5000));
    let text = format!("{{\"query\":\"q1\",\"answer\":\"a\"}}\n{long}\n{{\"query\":\"q3\",\"answer\":\"a\"}}\n");
    let opts = ReadOptions { max_line_bytes: 1024, ..ReadOptions::default() };
    let items = read("l.jsonl", text.as_bytes(), &opts);
    assert_eq!(items.len(), 3);
    assert_eq!(items[0].as_ref().unwrap().query, "q1");
    let e = items[1].as_ref().unwrap_err();
    assert_eq!(e.to_string(), "l.jsonl:2: line is longer than the 1 KiB limit");
    assert!(!e.fatal);
    let r = items[2].as_ref().unwrap();
    assert_eq!(r.query, "q3");
    // The skipped line still counts as a record for default ids.
    assert_eq!(r.id, "3");
}

#[test]
fn good_records_after_bad_ones_are_yielded() {
    let text = concat!(
        "{\"id\":\"a\",\"query\":\"x\n",
        "not json\n",
        "{\"id\":\"b\",\"query\":\"qb\",\"answer\":\"ab\"}\n",
        "{\"id\":\"c\",\"answer\":\"ac\"}\n",
        "{\"id\":\"d\",\"query\":\"qd\",\"answer\":\"ad\"}\n",
    );
    let items = read_default("s.jsonl", text);
    let ok: Vec<&str> = items.iter().filter_map(|r| r.as_ref().ok()).map(|r| r.id.as_str()).collect();
    assert_eq!(ok, vec!["b", "d"]);
    let bad_lines: Vec<u64> = items.iter().filter_map(|r| r.as_ref().err()).map(|e| e.line.unwrap()).collect();
    assert_eq!(bad_lines, vec![1, 2, 4]);
    assert!(items.iter().filter_map(|r| r.as_ref().err()).all(|e| !e.fatal));
}

#[test]
fn crlf_line_endings() {
    let text = "{\"id\":\"1\",\"query\":\"q\",\"answer\":\"a\"}\r\n\r\n{\"id\":\"2\",\"query\":\"q2\",\"answer\":\"a2\"}\r\n{\"answer\":1}\r\n";
    let items = read_default("c.jsonl", text);
    assert_eq!(items.len(), 3);
    assert_eq!(items[0].as_ref().unwrap().answer, "a");
    assert_eq!(items[1].as_ref().unwrap().answer, "a2");
    assert_eq!(items[2].as_ref().unwrap_err().to_string(), "c.jsonl:4: field `query`: missing");
}

#[test]
fn full_record_is_read() {
    let text = r#"{"id": 17, "system": "S1", "query": "Who?", "contexts": [{"id": "doc3#2", "text": "T", "relevance": 2}, "U"], "answer": "He [1].", "reference": "Him", "history": [{"role": "user", "text": "hi"}], "steps": [{"kind": "tool", "name": "calc", "input": "1+1", "output": "2", "latency_ms": 3.5}], "run": 3, "meta": {"topic": "x"}, "ignored": 1}"#;
    let items = read_default("f.jsonl", text);
    let r = items[0].as_ref().unwrap();
    let want = Record {
        id: "17".into(),
        system: "S1".into(),
        query: "Who?".into(),
        contexts: vec![
            Context { id: Some("doc3#2".into()), text: "T".into(), relevance: Some(2.0) },
            Context { id: None, text: "U".into(), relevance: None },
        ],
        answer: "He [1].".into(),
        reference: Some("Him".into()),
        history: vec![Turn { role: "user".into(), text: "hi".into() }],
        steps: vec![Step {
            kind: "tool".into(),
            name: "calc".into(),
            input: Some("1+1".into()),
            output: Some("2".into()),
            latency_ms: Some(3.5),
            ..Step::default()
        }],
        run: Some(3),
        meta: serde_json::from_str(r#"{"topic": "x"}"#).unwrap(),
    };
    assert_eq!(r, &want);
}

#[test]
fn default_id_and_system() {
    let text = "{\"query\":\"a\",\"answer\":\"x\"}\n\n{\"query\":\"b\",\"answer\":\"y\",\"system\":\"mine\"}\n";
    let items = read_default("runs/bm25.jsonl", text);
    let got: Vec<(String, String)> =
        items.iter().map(|r| r.as_ref().unwrap()).map(|r| (r.id.clone(), r.system.clone())).collect();
    assert_eq!(got, vec![("1".into(), "bm25".into()), ("2".into(), "mine".into())]);

    let opts = ReadOptions { default_system: Some("S9".into()), ..ReadOptions::default() };
    let items = read("runs/bm25.jsonl", text.as_bytes(), &opts);
    assert_eq!(items[0].as_ref().unwrap().system, "S9");
    assert_eq!(items[1].as_ref().unwrap().system, "mine");
}

#[test]
fn ragas_layout_per_line() {
    let text = concat!(
        r#"{"user_input": "What is the capital?", "retrieved_contexts": ["Paris is the capital.", "France"], "response": "Paris", "reference": "Paris"}"#,
        "\n",
        r#"{"id": "o", "query": "q", "answer": "a"}"#,
        "\n",
        r#"{"user_input": "q", "retrieved_contexts": [1], "response": "r"}"#,
        "\n",
    );
    let items = read_default("ragas.jsonl", text);
    let r = items[0].as_ref().unwrap();
    assert_eq!(r.query, "What is the capital?");
    assert_eq!(r.answer, "Paris");
    assert_eq!(r.reference.as_deref(), Some("Paris"));
    let texts: Vec<&str> = r.contexts.iter().map(|c| c.text.as_str()).collect();
    assert_eq!(texts, vec!["Paris is the capital.", "France"]);
    assert_eq!(r.id, "1");
    assert_eq!(items[1].as_ref().unwrap().id, "o");
    assert_eq!(
        items[2].as_ref().unwrap_err().to_string(),
        "ragas.jsonl:3: field `retrieved_contexts[0]`: expected a string or an object, found number"
    );
}

#[test]
fn format_detection_and_names() {
    let jsonl = "\n {\"query\":\"q\",\"answer\":\"a\"}\n";
    let r = RecordReader::from_reader("-", Cursor::new(jsonl.as_bytes().to_vec()), &ReadOptions::default()).unwrap();
    assert_eq!(r.format(), Format::Jsonl);
    let items: Vec<_> = r.collect();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0].as_ref().unwrap().system, "-");

    let csv = "query,answer\nq,a\n";
    let r = RecordReader::from_reader("stdin", Cursor::new(csv.as_bytes().to_vec()), &ReadOptions::default()).unwrap();
    assert_eq!(r.format(), Format::Csv);

    for (s, f) in [
        ("auto", Format::Auto),
        ("jsonl", Format::Jsonl),
        ("csv", Format::Csv),
        ("ragas", Format::Ragas),
        ("openrag", Format::OpenRagEval),
    ] {
        assert_eq!(s.parse::<Format>().unwrap(), f);
        assert_eq!(f.to_string(), s);
    }
    assert!("xml".parse::<Format>().is_err());
}

#[test]
fn open_reports_missing_file() {
    let err =
        RecordReader::open(std::path::Path::new("/nonexistent/dir/x.jsonl"), &ReadOptions::default()).unwrap_err();
    assert!(err.fatal);
    assert!(err.to_string().starts_with("/nonexistent/dir/x.jsonl: cannot open: "), "{err}");
}

#[test]
fn error_messages_do_not_echo_huge_input() {
    // A long invalid token: serde_json does not echo it, and our message stays short.
    let text = format!("{{\"query\": {}}}\n", "t".repeat(10_000));
    let items = read_default("h.jsonl", &text);
    let msg = items[0].as_ref().unwrap_err().to_string();
    assert!(msg.len() < 200, "{msg}");
    assert!(msg.starts_with("h.jsonl:1: invalid JSON: "), "{msg}");
}
