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
    let slice = ["--on", "mean", "--system", "m/s/topic=A", "--max", "mean=0", "--min", "difference=-1"];
    assert_report_and_gate_read(&dir.path().join("weak/weakness.json"), &slice);
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

/// With the questions' relevant passages as qrels, the example's `partial` system is weak where
/// its retrieval is built to fail: it misses a multi-hop question's second passage.
#[test]
fn the_example_partial_system_misses_multi_hop_passages() {
    let dir = tempfile::tempdir().unwrap();
    let root = repo_root();
    let runs: Vec<String> = ["oracle", "partial", "abstain", "wrong"]
        .iter()
        .map(|s| root.join(format!("examples/runs/{s}.jsonl")).display().to_string())
        .collect();
    let questions = root.join("examples/questions.jsonl").display().to_string();
    let scores = dir.path().join("s.csv").display().to_string();
    let mut args = vec!["score", "--metrics", "retrieval", "--qrels", &questions, "--output", &scores, "--input"];
    args.extend(runs.iter().map(String::as_str));
    let o = ragjudge(&args);
    stdout(&o);
    // 31 questions x 4 systems; the 2 unanswerable questions have no relevant passage.
    assert!(stderr(&o).contains(": 116 of 124 records judged, 8 left empty"), "{}", stderr(&o));
    let mut args = vec!["weakness", "--scores", &scores, "--by", "query_type", "--metric", "qrels_recall", "--json"];
    args.push("--input");
    args.extend(runs.iter().map(String::as_str));
    let v: serde_json::Value = serde_json::from_str(&stdout(&ragjudge(&args))).unwrap();
    // The two unanswerable questions have nothing to recall: 2 rows per system left out.
    assert_eq!(v[0]["rows_left_out"], 8);
    let slice = |system: &str, stratum: &str| -> serde_json::Value {
        let all = v[0]["report"]["marginal"].as_array().unwrap();
        all.iter().find(|s| s["system"] == system && s["stratum"] == stratum).unwrap().clone()
    };
    // partial, multi-hop: recall 1/2 on q04, q12, q16, q18 and 1 on q22 (mean 0.6) against the
    // other 24 answerable questions (mean 0.951388...). p from scipy 1.17.1
    // `mannwhitneyu(a, b, alternative="two-sided")` on the same values.
    let p = slice("partial", "multi-hop");
    assert_eq!(p["n"], 5);
    assert!((p["mean"].as_f64().unwrap() - 0.6).abs() < 1e-12, "{p}");
    assert!((p["rest_mean"].as_f64().unwrap() - 0.951388888888889).abs() < 1e-12, "{p}");
    let rel = |a: f64, b: f64| (a - b).abs() / b;
    assert!(rel(p["p_value"].as_f64().unwrap(), 0.0009057582285723685) < 1e-9, "{p}");
    assert_eq!(p["significant"], true);
    // abstain retrieves the same single passage of each multi-hop question (mean 0.5).
    let a = slice("abstain", "multi-hop");
    assert!(rel(a["p_value"].as_f64().unwrap(), 5.594501303641939e-05) < 1e-9, "{a}");
    // oracle retrieves every relevant passage: nothing to flag.
    assert_eq!(slice("oracle", "multi-hop")["significant"], false);
    // The ranked weak slices (indices into `marginal`): abstain's multi-hop first, then partial's.
    let marginal = v[0]["report"]["marginal"].as_array().unwrap();
    let weakest: Vec<(&str, &str)> = v[0]["report"]["weakest"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| &marginal[i.as_u64().unwrap() as usize])
        .map(|s| (s["system"].as_str().unwrap(), s["stratum"].as_str().unwrap()))
        .collect();
    assert_eq!(weakest, [("abstain", "multi-hop"), ("partial", "multi-hop")]);

    // Judgments whose ids match no record: said, not silently empty.
    let other = write(dir.path(), "other.qrels", "x1 0 d01#1 1\n");
    let o = ragjudge(&["score", "--metrics", "retrieval", "--qrels", &other, "--input", &runs[0]]);
    stdout(&o);
    assert!(stderr(&o).contains("no record's question has a relevant passage there"), "{}", stderr(&o));

    let o = ragjudge(&["score", "--metrics", "lexical", "--qrels", &questions, "--input", &runs[0]]);
    assert_one_line_error(&o, "--qrels adds columns to the retrieval family");
}
