//! `ragjudge robustness` end to end: hand-written score files with the variant columns, a bad
//! metric, and the model-free workflow on the example (perturb contexts -> score -> robustness).

mod common;

use common::*;

const ORIGINAL: &str = "id,system,m,f1\nq1,s,1.0,0.8\nq2,s,0.5,0.6\nq3,s,0.75,0.4\nq4,s,0.25,0.2\n";
const VARIANTS: &str = "id,system,variant_of,perturbation,severity,m,f1\n\
    q1~typo,s,q1,typo,0.05,0.5,0.8\n\
    q2~typo,s,q2,typo,0.05,0.5,0.2\n\
    q3~typo,s,q3,typo,0.05,0.25,0.4\n\
    q4~typo,s,q4,typo,0.05,0.5,\n\
    q9~typo,s,q9,typo,0.05,0.1,0.1\n";

#[test]
fn deltas_and_worst_pairs_are_written() {
    let dir = tempfile::tempdir().unwrap();
    let original = write(dir.path(), "original.csv", ORIGINAL);
    let variants = write(dir.path(), "variants.csv", VARIANTS);
    let out = dir.path().join("rob").display().to_string();
    let o = ragjudge(&[
        "robustness",
        "--original",
        &original,
        "--variants",
        &variants,
        "--metric",
        "m,f1",
        "--correct",
        "f1>=0.5",
        "--bootstrap",
        "200",
        "--output",
        &out,
    ]);
    let text = stdout(&o);
    assert!(text.starts_with("m: variant - original, 95% paired bootstrap (200 resamples)"), "{text}");
    // By hand: deltas of m: 0.5 - 1 = -0.5, 0, 0.25 - 0.75 = -0.5, 0.5 - 0.25 = +0.25: mean -0.1875.
    assert!(text.contains("-0.1875 ["), "{text}");
    assert!(text.contains("1 variant records in no pair: q9~typo (OriginalMissing)"), "{text}");
    let typo = ["--on", "mean", "--system", "s/typo/0.05", "--min", "m.delta=-0.1875", "--max", "m.delta=-0.1875"];
    assert_report_and_gate_read(&dir.path().join("rob/robustness.json"), &typo);

    let deltas = std::fs::read_to_string(dir.path().join("rob/deltas.csv")).unwrap();
    let mut rows = csv::Reader::from_reader(deltas.as_bytes());
    let header = rows.headers().unwrap().clone();
    let rows: Vec<csv::StringRecord> = rows.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 2, "{deltas}");
    let get = |r: &csv::StringRecord, c: &str| r[header.iter().position(|h| h == c).unwrap()].to_string();
    let m = &rows[0];
    assert_eq!(
        (get(m, "metric"), get(m, "perturbation"), get(m, "severity")),
        ("m".into(), "typo".into(), "0.05".into())
    );
    assert_eq!((get(m, "n"), get(m, "empty")), ("4".into(), "0".into()));
    assert_eq!(get(m, "delta").parse::<f64>().unwrap(), -0.1875);
    // Worse at tolerance 0 (delta < 0): q1, q3 -> 2 / 4.
    assert_eq!((get(m, "worse"), get(m, "worse_share")), ("2".into(), "0.5".into()));
    // f1: q4's variant cell is empty: 3 pairs; deltas 0, -0.4, 0 -> mean -0.4 / 3.
    let f = &rows[1];
    assert_eq!((get(f, "n"), get(f, "empty")), ("3".into(), "1".into()));
    assert!((get(f, "delta").parse::<f64>().unwrap() + 0.4 / 3.0).abs() < 1e-12);
    // Correct = f1 >= 0.5: originals q1, q2 correct, q3 not; variants q1 correct, q2 not, q3 not.
    // One flip of 3 pairs with both values; none the other way.
    assert_eq!(
        (get(f, "flip_n"), get(f, "original_correct"), get(f, "correct_to_incorrect"), get(f, "incorrect_to_correct")),
        ("3".into(), "2".into(), "1".into(), "0".into())
    );
    assert!(!deltas.contains("NaN"));

    // The worst pairs of m: q1 and q3 drop by 0.5 (ties by variant id); of f1: q2 by 0.4.
    let worst = std::fs::read_to_string(dir.path().join("rob/worst.csv")).unwrap();
    let ids: Vec<&str> = worst.lines().skip(1).map(|l| l.split(',').nth(5).unwrap()).collect();
    assert_eq!(ids, ["q1~typo", "q3~typo", "q2~typo"], "{worst}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("rob/robustness.json")).unwrap()).unwrap();
    assert_eq!(json["exclusions"][0]["id"], "q9~typo");
    assert_eq!(json["exclusions"][0]["reason"], "original_missing");
    assert!(dir.path().join("rob/ood.csv").exists());
}

#[test]
fn an_unknown_metric_is_one_line_naming_file_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let original = write(dir.path(), "original.csv", ORIGINAL);
    let variants = write(dir.path(), "variants.csv", VARIANTS);
    let o = ragjudge(&["robustness", "--original", &original, "--variants", &variants, "--metric", "nope"]);
    assert_one_line_error(&o, "original.csv: no numeric column `nope`");
    // Variants without any variant information.
    let o = ragjudge(&["robustness", "--original", &original, "--variants", &original]);
    assert_one_line_error(&o, "original.csv: no variant");
    let o = ragjudge(&["robustness", "--original", &original, "--variants", &variants, "--correct", "f1=0.5"]);
    assert_one_line_error(&o, "--correct `f1=0.5`");
    // Context kinds need records, not questions.
    let q = write(dir.path(), "q.jsonl", "{\"id\": \"q1\", \"query\": \"Why?\"}\n");
    let out = dir.path().join("x.jsonl").display().to_string();
    let o = ragjudge(&["perturb", "--questions", &q, "--kinds", "shuffle", "--output", &out]);
    assert_one_line_error(&o, "give the records with --input");
    // A record of --input without an id cannot be named by its variants.
    let o = ragjudge(&["perturb", "--input", &q.replace("q.jsonl", "r.jsonl"), "--kinds", "shuffle", "--output", &out]);
    assert_eq!(o.status.code(), Some(1));
    let r = write(dir.path(), "r.jsonl", "{\"query\": \"Why?\", \"answer\": \"a\", \"contexts\": [\"x\", \"y\"]}\n");
    let o = ragjudge(&["perturb", "--input", &r, "--kinds", "shuffle", "--output", &out]);
    assert_one_line_error(&o, "r.jsonl:1: field `id`: missing");
}

#[test]
fn shuffled_and_distracted_contexts_of_the_example_pair_with_their_originals() {
    let dir = tempfile::tempdir().unwrap();
    let runs = repo_root().join("examples/runs/oracle.jsonl").display().to_string();
    let variants = dir.path().join("oracle.jsonl").display().to_string();
    let o = ragjudge(&[
        "perturb",
        "--input",
        &runs,
        "--kinds",
        "shuffle,distractor",
        "--distractors",
        "2",
        "--seed",
        "1",
        "--output",
        &variants,
    ]);
    let text = stdout(&o);
    let lines: Vec<serde_json::Value> =
        std::fs::read_to_string(&variants).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    // 31 questions; those with fewer than 2 contexts have no shuffle, and the line says so.
    let shuffles = lines.iter().filter(|v| v["meta"]["perturbation"] == "shuffle").count();
    let distractors = lines.iter().filter(|v| v["meta"]["perturbation"] == "distractor").count();
    assert_eq!(distractors, 31, "{text}");
    assert!(shuffles == 31 || text.contains("shuffle:"), "{text}");
    for v in &lines {
        assert_eq!(v["system"], "oracle");
        assert_eq!(
            v["id"],
            format!("{}~{}", v["meta"]["variant_of"].as_str().unwrap(), v["meta"]["perturbation"].as_str().unwrap())
        );
    }

    let (s0, s1) = (dir.path().join("o.csv").display().to_string(), dir.path().join("v.csv").display().to_string());
    stdout(&ragjudge(&["score", "--input", &runs, "--metrics", "retrieval", "--output", &s0]));
    stdout(&ragjudge(&["score", "--input", &variants, "--metrics", "retrieval", "--output", &s1]));
    let o = ragjudge(&[
        "robustness",
        "--original",
        &s0,
        "--variants",
        &s1,
        "--input",
        &runs,
        &variants,
        "--metric",
        "mrr",
        "--bootstrap",
        "100",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["pairs"].as_u64().unwrap() as usize, shuffles + distractors);
    assert_eq!(v["exclusions"].as_array().unwrap().len(), 0);
    let groups: Vec<(String, String)> = v["deltas"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["perturbation"].as_str().unwrap().to_string(), d["severity"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(groups, [("distractor".to_string(), "2".to_string()), ("shuffle".to_string(), "1".to_string())]);
}
