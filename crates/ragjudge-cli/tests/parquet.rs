//! Parquet in and out, checked against pyarrow: pyarrow writes the example records as Parquet,
//! `score` reads them and writes its scores as Parquet, and pyarrow reads those back and finds
//! the values `score` wrote as CSV for the JSONL records. Runs when `python3` can import pyarrow
//! (`scripts/setup.sh` installs it); `RAGJUDGE_REQUIRE_PYARROW=1` makes its absence a failure.

mod common;

use common::{assert_one_line_error, ragjudge, repo_root, stdout, write};
use std::process::Command;

fn pyarrow() -> bool {
    let ok = Command::new("python3").args(["-c", "import pyarrow"]).output().is_ok_and(|o| o.status.success());
    if !ok && std::env::var("RAGJUDGE_REQUIRE_PYARROW").is_ok_and(|v| v == "1") {
        panic!("pyarrow is required (RAGJUDGE_REQUIRE_PYARROW=1) but python3 cannot import it");
    }
    if !ok {
        eprintln!("skipped: python3 cannot import pyarrow (run scripts/setup.sh)");
    }
    ok
}

fn python(args: &[&str]) -> String {
    let script = repo_root().join("crates/ragjudge-cli/tests/fixtures/parquet_pyarrow.py");
    let o = Command::new("python3").arg(script).args(args).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn pyarrow_records_in_and_scores_out() {
    if !pyarrow() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = |n: &str| dir.path().join(n).display().to_string();
    // Two example systems in one file, with a repeated run of one record.
    let root = repo_root().join("examples/runs");
    let mut jsonl = std::fs::read_to_string(root.join("oracle.jsonl")).unwrap();
    jsonl += &std::fs::read_to_string(root.join("partial.jsonl")).unwrap();
    let mut again: serde_json::Value = serde_json::from_str(jsonl.lines().next().unwrap()).unwrap();
    again["run"] = 2.into();
    jsonl += &format!("{again}\n");
    let runs = write(dir.path(), "runs.jsonl", &jsonl);
    assert_eq!(python(&["write", &runs, &d("runs.parquet")]).trim(), "wrote 63 records");

    let metrics = "lexical,ciu,retrieval";
    let from_jsonl = stdout(&ragjudge(&["score", "--metrics", metrics, "--json", "-o", &d("a.csv"), "-i", &runs]));
    let from_parquet =
        stdout(&ragjudge(&["score", "--metrics", metrics, "--json", "-o", &d("b.parquet"), "-i", &d("runs.parquet")]));
    // The same records give the same summary whichever file they came from.
    let strip = |s: &str| {
        let mut v: serde_json::Value = serde_json::from_str(s).unwrap();
        v.as_object_mut().unwrap().remove("output");
        v
    };
    assert_eq!(strip(&from_jsonl), strip(&from_parquet));
    // pyarrow reads the score Parquet and finds the CSV's values, cell by cell.
    assert_eq!(python(&["check", &d("b.parquet"), &d("a.csv")]).trim(), "ok 63 rows");
    // And ragjudge reads its own Parquet back to the same rows.
    let a = ragjudge_eval::read_rows(std::path::Path::new(&d("a.csv"))).unwrap();
    let b = ragjudge_eval::read_rows(std::path::Path::new(&d("b.parquet"))).unwrap();
    assert_eq!(a, b);
}

#[test]
fn a_file_that_is_not_parquet_is_a_one_line_error() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "x.parquet", "not parquet");
    let o = ragjudge(&["score", "--metrics", "ciu", "-i", &p]);
    assert_one_line_error(&o, "x.parquet: not a readable Parquet file");
}
