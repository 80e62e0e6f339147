//! CSV readers: our columns, RAGAS and Open RAG Eval layouts.

use ragjudge_core::{Context, Format, InputError, ReadOptions, Record, RecordReader};
use std::io::Cursor;

fn reader(name: &str, bytes: &[u8], format: Format) -> RecordReader {
    let opts = ReadOptions { format, ..ReadOptions::default() };
    RecordReader::from_reader(name, Cursor::new(bytes.to_vec()), &opts).unwrap()
}

fn read(name: &str, text: &str) -> Vec<Result<Record, InputError>> {
    reader(name, text.as_bytes(), Format::Auto).collect()
}

fn err(item: &Result<Record, InputError>) -> String {
    item.as_ref().unwrap_err().to_string()
}

#[test]
fn missing_answer_column_is_fatal() {
    let items = read("runs.csv", "id,query,contexts\n1,q,[]\n2,q,[]\n");
    assert_eq!(items.len(), 1);
    let e = items[0].as_ref().unwrap_err();
    assert_eq!(e.to_string(), "runs.csv: missing column `answer`");
    assert!(e.fatal);
}

#[test]
fn empty_and_header_only_files() {
    let items = read("e.csv", "");
    assert_eq!(items.len(), 1);
    assert_eq!(err(&items[0]), "e.csv: no records");
    assert!(items[0].as_ref().unwrap_err().fatal);
    let items = read("h.csv", "query,answer\n");
    assert_eq!(items.len(), 1);
    assert_eq!(err(&items[0]), "h.csv: no records");
}

#[test]
fn our_columns() {
    let text = concat!(
        "id,system,query,contexts,answer,reference,run,meta.topic\r\n",
        "q1,S1,What?,\"[{\"\"id\"\":\"\"d1\"\",\"\"text\"\":\"\"Alpha.\"\"},\"\"Beta\"\"]\",It is [1].,,2,sports\r\n",
        ",,Why?,\"[\"\"only\"\"]\",Because.,Gold,,\r\n",
    );
    let items = read("dir/sys.csv", text);
    assert_eq!(items.len(), 2);
    let a = items[0].as_ref().unwrap();
    assert_eq!(a.id, "q1");
    assert_eq!(a.system, "S1");
    assert_eq!(a.query, "What?");
    assert_eq!(
        a.contexts,
        vec![
            Context { id: Some("d1".into()), text: "Alpha.".into(), relevance: None },
            Context { id: None, text: "Beta".into(), relevance: None },
        ]
    );
    assert_eq!(a.answer, "It is [1].");
    assert_eq!(a.reference, None);
    assert_eq!(a.run, Some(2));
    assert_eq!(a.meta.get("topic").and_then(|v| v.as_str()), Some("sports"));
    let b = items[1].as_ref().unwrap();
    // Defaults: the data-row ordinal and the file stem.
    assert_eq!((b.id.as_str(), b.system.as_str()), ("2", "sys"));
    assert_eq!(b.reference.as_deref(), Some("Gold"));
    assert_eq!(b.run, None);
    assert!(b.meta.is_empty());
}

#[test]
fn row_errors_name_row_and_field_and_reading_goes_on() {
    let mut bytes = b"query,answer,contexts,run\n".to_vec();
    bytes.extend_from_slice(b"q1,a1,,\n"); // row 2: fine
    bytes.extend_from_slice(b"q2,a\xffb,,\n"); // row 3: invalid UTF-8 at byte 1 of the cell
    bytes.extend_from_slice(b"q3,a3,\"[\"\"x\"\", 5]\",\n"); // row 4: bad context
    bytes.extend_from_slice(b"q4,a4,\"[\"\"x\"\"\",\n"); // row 5: truncated JSON
    bytes.extend_from_slice(b"q5,a5,,abc\n"); // row 6: bad run
    bytes.extend_from_slice(b"q6,a6\n"); // row 7: short row
    bytes.extend_from_slice(b"q7,a7,,1\n"); // row 8: fine
    let items: Vec<_> = reader("r.csv", &bytes, Format::Auto).collect();
    let got: Vec<String> = items
        .iter()
        .map(|i| match i {
            Ok(r) => format!("ok {}", r.query),
            Err(e) => {
                assert!(!e.fatal);
                e.to_string()
            }
        })
        .collect();
    assert_eq!(
        got,
        vec![
            "ok q1",
            "r.csv:3: field `answer`: invalid UTF-8 at byte offset 1",
            "r.csv:4: field `contexts[1]`: expected a string or an object, found number",
            "r.csv:5: field `contexts`: invalid JSON: EOF while parsing a list at column 4",
            "r.csv:6: field `run`: expected a non-negative integer, found `abc`",
            "r.csv:7: row has 2 fields, the header has 4",
            "ok q7",
        ]
    );
}

#[test]
fn explicit_csv_format_does_not_guess_ragas() {
    let items: Vec<_> = reader("x.csv", b"user_input,response\nq,a\n", Format::Csv).collect();
    assert_eq!(items.len(), 1);
    assert_eq!(err(&items[0]), "x.csv: missing column `query`");
}

#[test]
fn ragas_csv_with_python_list_literals() {
    let text = concat!(
        "user_input,retrieved_contexts,response,reference\n",
        "What is the capital of France?,\"['Paris is the capital of France.', 'It\\'s on the Seine.']\",Paris.,Paris\n",
        "Q2,\"[\"\"json works too\"\"]\",A2,\n",
        "Q3,\"['unterminated]\",A3,\n",
    );
    let r = reader("ragas.csv", text.as_bytes(), Format::Auto);
    assert_eq!(r.format(), Format::Ragas);
    let items: Vec<_> = r.collect();
    assert_eq!(items.len(), 3);
    let a = items[0].as_ref().unwrap();
    assert_eq!(a.query, "What is the capital of France?");
    let texts: Vec<&str> = a.contexts.iter().map(|c| c.text.as_str()).collect();
    assert_eq!(texts, vec!["Paris is the capital of France.", "It's on the Seine."]);
    assert_eq!(a.answer, "Paris.");
    assert_eq!(a.reference.as_deref(), Some("Paris"));
    assert_eq!(a.id, "1");
    let b = items[1].as_ref().unwrap();
    assert_eq!(b.contexts[0].text, "json works too");
    assert_eq!(b.reference, None);
    assert_eq!(
        err(&items[2]),
        "ragas.csv:4: field `retrieved_contexts`: expected a JSON array or a Python list of strings: unterminated string"
    );
}

const OPEN_RAG: &str = "\
query_id,query,query_run,passage_id,passage,generated_answer,golden_answer
q1,What is RAG?,1,d1,P1,Answer q1 r1 [1],Gold 1
q1,What is RAG?,1,d2,P2,Answer q1 r1 [1],Gold 1
q1,What is RAG?,1,d3,P3,Answer q1 r1 [1],Gold 1
q1,What is RAG?,2,d4,P4,Answer q1 r2,Gold 1
q1,What is RAG?,2,d5,P5,Answer q1 r2,Gold 1
q1,What is RAG?,2,d6,P6,Answer q1 r2,Gold 1
q2,Why?,1,e1,R1,Answer q2 r1,
q2,Why?,1,e2,R2,Answer q2 r1,
q2,Why?,1,e3,R3,Answer q2 r1,
q2,Why?,2,e4,R4,Answer q2 r2,
q2,Why?,2,e5,R5,Answer q2 r2,
q2,Why?,2,e6,R6,Answer q2 r2,
";

#[test]
fn open_rag_eval_rows_are_grouped() {
    let r = reader("openrag_results.csv", OPEN_RAG.as_bytes(), Format::Auto);
    assert_eq!(r.format(), Format::OpenRagEval);
    let recs: Vec<Record> = r.map(|x| x.unwrap()).collect();
    assert_eq!(recs.len(), 4);
    let keys: Vec<(&str, Option<u32>, &str)> = recs.iter().map(|r| (r.id.as_str(), r.run, r.answer.as_str())).collect();
    assert_eq!(
        keys,
        vec![
            ("q1", Some(1), "Answer q1 r1 [1]"),
            ("q1", Some(2), "Answer q1 r2"),
            ("q2", Some(1), "Answer q2 r1"),
            ("q2", Some(2), "Answer q2 r2"),
        ]
    );
    let ids: Vec<Vec<&str>> =
        recs.iter().map(|r| r.contexts.iter().map(|c| c.id.as_deref().unwrap()).collect()).collect();
    assert_eq!(
        ids,
        vec![vec!["d1", "d2", "d3"], vec!["d4", "d5", "d6"], vec!["e1", "e2", "e3"], vec!["e4", "e5", "e6"]]
    );
    assert_eq!(recs[0].contexts[1].text, "P2");
    assert_eq!(recs[0].query, "What is RAG?");
    assert_eq!(recs[0].reference.as_deref(), Some("Gold 1"));
    assert_eq!(recs[2].reference, None);
    assert!(recs.iter().all(|r| r.system == "openrag_results"));
}

#[test]
fn open_rag_eval_group_that_reappears_is_an_error() {
    let text = "\
query_id,query,query_run,passage_id,passage,generated_answer
q1,Q,1,d1,P1,A
q2,Q2,1,d2,P2,B
q1,Q,1,d3,P3,A
q2,Q2,2,d4,P4,C
";
    let items: Vec<_> = reader("o.csv", text.as_bytes(), Format::OpenRagEval).collect();
    let got: Vec<String> = items
        .iter()
        .map(|i| match i {
            Ok(r) => format!("ok {} {:?} {}", r.id, r.run, r.contexts.len()),
            Err(e) => e.to_string(),
        })
        .collect();
    assert_eq!(
        got,
        vec![
            "ok q1 Some(1) 1",
            "ok q2 Some(1) 1",
            "o.csv:4: rows of query_id `q1` query_run `1` are not consecutive: this row comes after the group ended",
            "ok q2 Some(2) 1",
        ]
    );
}

#[test]
fn open_rag_eval_bad_row_drops_its_group_only() {
    let text = "\
query_id,query,query_run,passage_id,passage,generated_answer
q1,Q,x,d1,P1,A
q1,Q,x,d2,P2,A
q2,Q2,1,d3,P3,B
";
    let items: Vec<_> = reader("o.csv", text.as_bytes(), Format::Auto).collect();
    assert_eq!(items.len(), 2);
    assert_eq!(err(&items[0]), "o.csv:2: field `query_run`: expected a non-negative integer, found `x`");
    assert_eq!(items[1].as_ref().unwrap().id, "q2");
}

#[test]
fn long_rows() {
    let opts = ReadOptions { max_line_bytes: 1024, ..ReadOptions::default() };
    // Over the limit but within the parser's read-ahead slack: reported and skipped.
    let text = format!("query,answer\nq1,a1\nq2,{}\nq3,a3\n", "x".repeat(5000));
    let items: Vec<_> = RecordReader::from_reader("r.csv", Cursor::new(text.into_bytes()), &opts).unwrap().collect();
    assert_eq!(items.len(), 3);
    assert_eq!(err(&items[1]), "r.csv:3: row is longer than the 1 KiB limit");
    assert!(!items[1].as_ref().unwrap_err().fatal);
    assert_eq!(items[2].as_ref().unwrap().query, "q3");
    // Far over the limit: reading stops with a fatal error instead of buffering the row.
    let text = format!("query,answer\nq1,a1\nq2,\"{}\"\nq3,a3\n", "x".repeat(1 << 20));
    let items: Vec<_> = RecordReader::from_reader("r.csv", Cursor::new(text.into_bytes()), &opts).unwrap().collect();
    assert_eq!(items.len(), 2);
    assert_eq!(items[0].as_ref().unwrap().query, "q1");
    let e = items[1].as_ref().unwrap_err();
    assert_eq!(e.to_string(), "r.csv:3: row is longer than the 1 KiB limit; cannot read past it");
    assert!(e.fatal);
}
