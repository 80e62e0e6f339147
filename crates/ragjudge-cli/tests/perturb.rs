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

#[test]
fn out_of_distribution_questions_share_few_words_with_the_collection() {
    let dir = tempfile::tempdir().unwrap();
    let root = repo_root();
    let questions = root.join("examples/questions.jsonl").display().to_string();
    let collection = root.join("examples/runs/oracle.jsonl").display().to_string();
    let out = dir.path().join("ood.jsonl").display().to_string();
    let o = ragjudge(&[
        "perturb", "--questions", &questions, "--kinds", "ood", "--ood", "6", "--collection", &collection, "-o", &out,
    ]);
    assert!(stdout(&o).contains("6 out-of-distribution questions"), "{}", stdout(&o));
    let lines: Vec<serde_json::Value> =
        std::fs::read_to_string(&out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 6);
    // The collection's words: every question and passage of the example.
    let mut words = HashSet::new();
    for path in [&questions, &collection] {
        for l in std::fs::read_to_string(path).unwrap().lines() {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let mut text = v["query"].as_str().unwrap_or_default().to_string();
            text.push(' ');
            text.push_str(v["reference"].as_str().unwrap_or_default());
            text.push(' ');
            text.push_str(v["answer"].as_str().unwrap_or_default());
            for c in v["contexts"].as_array().into_iter().flatten() {
                text.push(' ');
                text.push_str(c["text"].as_str().unwrap_or_default());
            }
            words.extend(ragjudge_analysis::ood::content_words(&text));
        }
    }
    for q in &lines {
        assert!(q["id"].as_str().unwrap().starts_with("ood-"));
        assert_eq!((q["meta"]["perturbation"].as_str(), q["meta"].get("variant_of")), (Some("ood"), None));
        let w = ragjudge_analysis::ood::content_words(q["query"].as_str().unwrap());
        let shared = w.iter().filter(|x| words.contains(*x)).count();
        assert!(shared as f64 <= 0.25 * w.len() as f64, "{q}: {shared} of {w:?}");
        assert_eq!(q["meta"]["overlap"].as_f64().unwrap(), shared as f64 / w.len() as f64);
    }
    let o = ragjudge(&["perturb", "--input", &collection, "--kinds", "ood", "-o", &out]);
    assert_one_line_error(&o, "--kinds ood writes new questions");
}
