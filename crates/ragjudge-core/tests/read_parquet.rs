//! Parquet records: the JSONL field names as columns, nested contexts, meta as JSON text, and
//! errors that name the row and field. Values checked by hand against what was written.
#![cfg(feature = "parquet")]

use arrow_array::builder::{Float64Builder, ListBuilder, StringBuilder, StructBuilder};
use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Fields};
use parquet::arrow::ArrowWriter;
use ragjudge_core::{Format, ReadOptions, RecordReader};
use std::sync::Arc;

fn write(path: &std::path::Path) {
    let ctx_fields =
        Fields::from(vec![Field::new("text", DataType::Utf8, true), Field::new("relevance", DataType::Float64, true)]);
    let mut contexts = ListBuilder::new(StructBuilder::new(
        ctx_fields.clone(),
        vec![Box::new(StringBuilder::new()), Box::new(Float64Builder::new())],
    ));
    for (texts, rels) in [(vec!["p1", "p2"], vec![Some(3.0), None]), (vec![], vec![]), (vec!["p3"], vec![Some(0.0)])] {
        let s = contexts.values();
        for (t, r) in texts.iter().zip(&rels) {
            s.field_builder::<StringBuilder>(0).unwrap().append_value(t);
            s.field_builder::<Float64Builder>(1).unwrap().append_option(*r);
            s.append(true);
        }
        contexts.append(true);
    }
    let cols: Vec<(&str, ArrayRef)> = vec![
        ("id", Arc::new(StringArray::from(vec![Some("q1"), None, Some("q3")]))),
        ("query", Arc::new(StringArray::from(vec![Some("what?"), Some("who?"), None]))),
        ("answer", Arc::new(StringArray::from(vec!["a1", "a2", "a3"]))),
        ("run", Arc::new(Int64Array::from(vec![Some(2), None, None]))),
        ("contexts", Arc::new(contexts.finish())),
        ("meta", Arc::new(StringArray::from(vec![Some("{\"topic\": \"x\"}"), None, Some("{}")]))),
    ];
    let batch = RecordBatch::try_from_iter(cols).unwrap();
    let mut w = ArrowWriter::try_new(std::fs::File::create(path).unwrap(), batch.schema(), None).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
}

#[test]
fn parquet_records_read_like_jsonl() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bm25.parquet");
    write(&path);
    let mut reader = RecordReader::open(&path, &ReadOptions::default()).unwrap();
    assert_eq!(reader.format(), Format::Parquet);
    let first = reader.next().unwrap().unwrap();
    assert_eq!((first.id.as_str(), first.system.as_str(), first.run), ("q1", "bm25", Some(2)));
    assert_eq!(first.contexts.len(), 2);
    assert_eq!((first.contexts[0].text.as_str(), first.contexts[0].relevance), ("p1", Some(3.0)));
    assert_eq!(first.contexts[1].relevance, None);
    assert_eq!(first.meta["topic"], "x");
    // No id: the 1-based row, as JSONL's line ordinal.
    let second = reader.next().unwrap().unwrap();
    assert_eq!((second.id.as_str(), second.contexts.len()), ("2", 0));
    let third = reader.next().unwrap().unwrap_err();
    assert_eq!(third.to_string(), format!("{}:3: field `query`: missing", path.display()));
    assert!(reader.next().is_none());
}

#[test]
fn parquet_from_a_stream_is_refused_in_one_line() {
    let items: Vec<_> =
        RecordReader::from_reader("x.parquet", &b"PAR1"[..], &ReadOptions::default()).unwrap().collect();
    assert_eq!(items.len(), 1);
    assert_eq!(
        items[0].as_ref().unwrap_err().to_string(),
        "x.parquet: Parquet input must be a file (RecordReader::open)"
    );
}

#[test]
fn a_parquet_file_whose_decoder_panics_is_one_read_error() {
    // Found by fuzzing: fuzz/seeds/records_parquet/records.parquet (pyarrow 24) with a few bytes
    // changed, so that a page's definition levels run past its values; arrow-rs panicked.
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/corrupt_definition_levels.parquet");
    let items: Vec<_> = RecordReader::open(&path, &ReadOptions::default()).unwrap().collect();
    let e = items.last().unwrap().as_ref().unwrap_err();
    assert!(e.to_string().ends_with("read error: the Parquet decoder failed (a corrupt file?)"), "{e}");
    assert!(e.to_string().starts_with(&format!("{}:1:", path.display())), "{e}");
    assert!(!e.to_string().contains('\n'));
}

#[test]
fn a_page_header_that_skips_past_the_end_is_one_read_error() {
    // Found by a ten-minute fuzz run: fuzz/seeds/records_parquet/records.parquet with bytes
    // changed so that a page header declares a huge list of eight-byte fields after the end of
    // the file. arrow-rs skipped each field on zero bytes and spun for minutes; the reader now
    // ends at the first read past the end.
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/header_list_past_the_end.parquet");
    let items: Vec<_> = RecordReader::open(&path, &ReadOptions::default()).unwrap().collect();
    let e = items.last().unwrap().as_ref().unwrap_err();
    assert!(e.to_string().contains("past the end of the file"), "{e}");
    assert!(e.to_string().starts_with(&format!("{}:", path.display())), "{e}");
    assert!(!e.to_string().contains('\n'));
}

#[test]
fn a_file_decodes_no_more_rows_than_it_declares() {
    // Found by a ten-minute fuzz run: a corrupt page made arrow-rs's decoder produce rows without
    // end (past 20 GiB of memory for this 2,781-byte file, which declares 2 rows). Reading stops
    // at the declared count.
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rows_past_the_declared_count.parquet");
    let items: Vec<_> = RecordReader::open(&path, &ReadOptions::default()).unwrap().collect();
    assert!(!items.is_empty() && items.len() <= 2, "{} items", items.len());
}
