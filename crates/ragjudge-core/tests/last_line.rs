//! `RecordReader::last_line`: where each record starts, counted by hand from the inputs below.

use ragjudge_core::{Format, ReadOptions, RecordReader};

fn lines(name: &str, text: &'static str, format: Format) -> Vec<(String, Option<u64>)> {
    let opts = ReadOptions { format, ..ReadOptions::default() };
    let mut reader = RecordReader::from_reader(name, text.as_bytes(), &opts).unwrap();
    let mut out = Vec::new();
    while let Some(item) = reader.next() {
        if let Ok(r) = item {
            out.push((r.id, reader.last_line()));
        }
    }
    out
}

#[test]
fn jsonl_lines_count_blank_and_bad_lines() {
    // Line 1 q1, line 2 blank, line 3 malformed, line 4 q2.
    let text =
        "{\"id\":\"q1\",\"query\":\"a\",\"answer\":\"b\"}\n\n{oops\n{\"id\":\"q2\",\"query\":\"a\",\"answer\":\"b\"}\n";
    assert_eq!(lines("r.jsonl", text, Format::Auto), [("q1".into(), Some(1)), ("q2".into(), Some(4))]);
}

#[test]
fn csv_rows_count_the_header_as_row_one() {
    // Header row 1, q1 row 2 (its quoted answer spans two physical lines), q2 row 3.
    let text = "id,query,answer\nq1,a,\"two\nlines\"\nq2,a,b\n";
    assert_eq!(lines("r.csv", text, Format::Auto), [("q1".into(), Some(2)), ("q2".into(), Some(3))]);
}

#[test]
fn open_rag_eval_records_start_at_their_first_row() {
    // Rows 2-3 are query 1 (two passages), row 4 is query 2.
    let text = "query_id,query,query_run,passage_id,passage,generated_answer\n\
                1,a,1,p1,x,ans\n1,a,1,p2,y,ans\n2,b,1,p1,z,ans2\n";
    assert_eq!(lines("r.csv", text, Format::OpenRagEval), [("1".into(), Some(2)), ("2".into(), Some(4))]);
}
