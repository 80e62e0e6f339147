//! End-to-end tests of `ragjudge correlate FILE --with OTHER`: the join keys chosen when `--on`
//! is not given, and keys repeated in FILE.

mod common;

use common::*;

use serde_json::Value;
use std::process::Output;

/// The report of a successful `--json` run.
fn report(o: &Output) -> Value {
    assert!(o.status.success(), "stderr: {}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// Ratings of q1..q4 in another order: against m = 1, 2, 3, 4 they are h = 2, 1, 4, 3.
/// By hand: dx = (-1.5, -0.5, 0.5, 1.5), dy = (-0.5, -1.5, 1.5, 0.5), so r = 3 / 5 = 0.6.
const RATINGS: &str = "id,h\nq4,3\nq3,4\nq2,1\nq1,2\n";

fn pearson(v: &Value) -> f64 {
    v["pearson"]["coefficient"].as_f64().unwrap()
}

#[test]
fn files_with_only_id_columns_join_on_id() {
    let dir = tempfile::tempdir().unwrap();
    let scores = write(dir.path(), "scores.csv", "id,m\nq1,1\nq2,2\nq3,3\nq4,4\nq5,5\n");
    let ratings = write(dir.path(), "ratings.csv", RATINGS);
    let o = ragjudge(&["correlate", &scores, "--x", "m", "--with", &ratings, "--y", "h", "--json"]);
    let v = report(&o);
    // q5 has no rating: 4 of 5 rows.
    assert_eq!((v["n"].as_u64(), v["rows"].as_u64(), v["missing"].as_u64()), (Some(4), Some(5), Some(1)));
    assert!((pearson(&v) - 0.6).abs() < 1e-12);
    assert!(o.stderr.is_empty(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn a_system_column_in_one_file_only_is_left_out_of_the_keys_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let scores = write(dir.path(), "scores.csv", "id,system,m\nq1,a,1\nq2,a,2\nq3,a,3\nq4,a,4\n");
    let ratings = write(dir.path(), "ratings.csv", RATINGS);
    let o = ragjudge(&["correlate", &scores, "--x", "m", "--with", &ratings, "--y", "h", "--json"]);
    let v = report(&o);
    assert_eq!(v["n"].as_u64(), Some(4));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err, format!("note: {ratings} has no `system` column; joining on `id` alone\n"));
    // Named keys are used as given: `system` is then missing from the ratings.
    let o = ragjudge(&["correlate", &scores, "--x", "m", "--with", &ratings, "--y", "h", "--on", "id,system"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err, format!("error: {ratings}: missing column `system`\n"));
}

#[test]
fn a_key_repeated_in_the_first_file_is_joined_once_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    // q1 again on line 6 with m = 100: left out, so the pairs and r = 0.6 are those above.
    let scores = write(dir.path(), "scores.csv", "id,m\nq1,1\nq2,2\nq3,3\nq4,4\nq1,100\n");
    let ratings = write(dir.path(), "ratings.csv", RATINGS);
    let o = ragjudge(&["correlate", &scores, "--x", "m", "--with", &ratings, "--y", "h", "--json"]);
    let v = report(&o);
    assert_eq!((v["n"].as_u64(), v["rows"].as_u64()), (Some(4), Some(5)));
    assert!((pearson(&v) - 0.6).abs() < 1e-12);
    let err = String::from_utf8_lossy(&o.stderr);
    let want = format!("warning: {scores}:6: duplicate key [\"q1\"] (first on line 2); the first is used\n");
    assert_eq!(err, want);
    // Repeated in the ratings, a key is an error naming its line.
    let ratings = write(dir.path(), "dup.csv", "id,h\nq1,2\nq2,1\nq1,3\n");
    let o = ragjudge(&["correlate", &scores, "--x", "m", "--with", &ratings, "--y", "h"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err, format!("error: {ratings}:4: duplicate key [\"q1\"]\n"));
}
