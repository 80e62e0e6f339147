//! Per-record rows through Parquet and back: what the sink writes, `read_rows` and
//! `read_score_file` read unchanged (values compared bit for bit).
#![cfg(feature = "parquet")]

use ragjudge_eval::scores::read_score_file;
use ragjudge_eval::{commit_output, create_file_sink, read_rows, OwnedRow, Row};
use serde_json::Map;

#[test]
fn parquet_rows_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sub/scores.parquet");
    let columns = vec!["a".to_string(), "b".to_string()];
    // 20,000 rows: more than one batch.
    let rows: Vec<OwnedRow> = (0..20_000u32)
        .map(|i| OwnedRow {
            id: format!("q{i}"),
            system: if i % 2 == 0 { "s1".into() } else { "s2".into() },
            run: (i % 3 == 0).then_some(i % 7),
            values: vec![Some(f64::from(i) / 3.0), (i % 5 != 0).then_some(-0.1 * f64::from(i))],
            detail: Map::new(),
            errors: if i % 11 == 0 { vec!["ciu: boom".into()] } else { Vec::new() },
        })
        .collect();
    let mut sink = create_file_sink(&path).unwrap();
    sink.start(&columns).unwrap();
    for r in &rows {
        let row =
            Row { id: &r.id, system: &r.system, run: r.run, values: &r.values, detail: &r.detail, errors: &r.errors };
        sink.write(row).unwrap();
    }
    sink.finish().unwrap();
    commit_output(sink, Default::default()).unwrap();
    let back = read_rows(&path).unwrap();
    assert_eq!(back.columns, columns);
    assert_eq!(back.rows, rows);
    let file = read_score_file(&path).unwrap();
    assert_eq!(file.columns, columns);
    assert_eq!(file.rows[3].run, Some(3));
    assert_eq!(file.rows[5].values, [Some(5.0 / 3.0), None]);
}

#[test]
fn a_file_that_is_not_parquet_is_refused_with_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.parquet");
    std::fs::write(&path, "id,system\n").unwrap();
    let e = read_rows(&path).unwrap_err().to_string();
    assert!(e.starts_with(&format!("{}: not a readable Parquet file", path.display())), "{e}");
}

#[test]
fn a_parquet_score_file_whose_decoder_panics_is_one_read_error() {
    // The corrupt file found by fuzzing the record reader (ragjudge-core's fixture): it has `id`
    // and `system` columns, so reading reaches the page whose definition levels run past its values.
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../ragjudge-core/tests/fixtures/corrupt_definition_levels.parquet");
    let e = read_rows(&path).unwrap_err().to_string();
    assert!(e.ends_with("read error: the Parquet decoder failed (a corrupt file?)"), "{e}");
    assert!(!e.contains('\n'));
    assert!(read_score_file(&path).is_err());
}
