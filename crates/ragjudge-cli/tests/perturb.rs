//! `ragjudge perturb` end to end on the bundled questions.

mod common;

use common::*;
use std::collections::HashSet;

#[test]
fn variants_are_reproducible_and_map_back_to_their_questions() {
    let dir = tempfile::tempdir().unwrap();
    let questions = repo_root().join("examples/questions.jsonl").display().to_string();
    let ids: HashSet<String> = std::fs::read_to_string(&questions)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["id"].as_str().unwrap().to_string())
        .collect();
    let run = |name: &str| {
        let out = dir.path().join(name).display().to_string();
        stdout(&ragjudge(&["perturb", "--questions", &questions, "--output", &out, "--rate", "0.1", "--seed", "3"]));
        std::fs::read_to_string(out).unwrap()
    };
    let (a, b) = (run("a.jsonl"), run("b.jsonl"));
    assert_eq!(a, b);
    assert!(!a.is_empty());
    for line in a.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let of = v["meta"]["variant_of"].as_str().unwrap();
        assert!(ids.contains(of), "{of}");
        assert_eq!(v["id"], format!("{of}~{}", v["meta"]["perturbation"].as_str().unwrap()));
    }
    let bad = write(dir.path(), "bad.jsonl", "{\"id\": \"q1\"}\n");
    let out = dir.path().join("x.jsonl").display().to_string();
    assert_one_line_error(&ragjudge(&["perturb", "--questions", &bad, "--output", &out]), "bad.jsonl:1: field `query`");
}
