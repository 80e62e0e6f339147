//! Reading the runs of a DICE run.

use ragjudge_dice::run::read_run;

#[test]
fn a_repeated_record_key_in_a_run_is_an_error_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sys.jsonl");
    std::fs::write(
        &path,
        "{\"id\":\"q1\",\"query\":\"a\",\"answer\":\"b\"}\n{\"id\":\"q2\",\"query\":\"a\",\"answer\":\"b\"}\n{\"id\":\"q1\",\"query\":\"a\",\"answer\":\"c\"}\n",
    )
    .unwrap();
    let e = read_run(&path).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "{}:3: duplicate record: id `q1`, system `sys` (first on line 1); pairing by question would be ambiguous",
            path.display()
        )
    );
}
