//! `ragjudge weakness` end to end: strata from the score file's own columns, and from records' meta.

mod common;

use common::*;

#[test]
fn a_weak_stratum_is_named_and_written() {
    let dir = tempfile::tempdir().unwrap();
    // Topic A: six 0s, topic B: seven 1s (the library test's data): A is the weak slice.
    let mut text = String::from("id,system,topic,m\n");
    for i in 0..6 {
        text.push_str(&format!("a{i},s,A,0\n"));
    }
    for i in 0..7 {
        text.push_str(&format!("b{i},s,B,1\n"));
    }
    let scores = write(dir.path(), "scores.csv", &text);
    let out = dir.path().join("weak").display().to_string();
    let o = ragjudge(&["weakness", "--scores", &scores, "--by", "topic", "--metric", "m", "--output", &out]);
    let text = stdout(&o);
    assert!(text.starts_with("m: 1 significant weak slices, 0 weak cells"), "{text}");
    // n 6, mean 0 against the rest's mean 1.
    assert!(text.contains("  s topic=A: n 6, mean 0.0000 [0.0000, 0.0000] vs 1.0000"), "{text}");
    let marginal = std::fs::read_to_string(dir.path().join("weak/marginal.csv")).unwrap();
    assert_eq!(marginal.lines().count(), 3, "{marginal}");
    assert!(dir.path().join("weak/weakness.json").exists() && dir.path().join("weak/bivariate.csv").exists());
    // Plots beside the tables: the slices of m and its distribution per topic, as SVG and PNG.
    for name in ["slices-m", "strata-m-topic"] {
        for ext in ["svg", "png"] {
            assert!(dir.path().join(format!("weak/plots/{name}.{ext}")).exists(), "{name}.{ext}");
        }
    }

    let o = ragjudge(&["weakness", "--scores", &scores, "--by", "nope"]);
    assert_one_line_error(&o, "missing column `nope`");
}

#[test]
fn strata_come_from_the_records_meta() {
    let dir = tempfile::tempdir().unwrap();
    let runs = repo_root().join("examples/runs/oracle.jsonl").display().to_string();
    let scores = dir.path().join("s.csv").display().to_string();
    let o = ragjudge(&["score", "--input", &runs, "--metrics", "lexical", "--output", &scores]);
    stdout(&o);
    let o = ragjudge(&[
        "weakness",
        "--scores",
        &scores,
        "--input",
        &runs,
        "--by",
        "query_type",
        "--metric",
        "rougeL_f",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    // The example has 5 query types over 31 questions: 14 factoid, 6 definition, 5 multi-hop,
    // 4 comparison, 2 unanswerable.
    let slices = v[0]["report"]["marginal"].as_array().unwrap();
    let n: Vec<(String, u64)> =
        slices.iter().map(|s| (s["stratum"].as_str().unwrap().to_string(), s["n"].as_u64().unwrap())).collect();
    assert_eq!(
        n,
        [
            ("comparison".into(), 4),
            ("definition".into(), 6),
            ("factoid".into(), 14),
            ("multi-hop".into(), 5),
            ("unanswerable".into(), 2)
        ]
    );
    assert_eq!(v[0]["rows_left_out"], 0);
}
