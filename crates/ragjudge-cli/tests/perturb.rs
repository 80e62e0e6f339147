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
        "perturb",
        "--questions",
        &questions,
        "--kinds",
        "ood",
        "--ood",
        "6",
        "--collection",
        &collection,
        "-o",
        &out,
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

#[test]
fn contradictions_are_written_by_the_judge_and_kept_only_when_they_contradict() {
    use ragjudge_testserver::{Behavior, Normal, Script, TestServer};
    use serde_json::Value;
    // The judge rewrites passages by turning "97 percent" into "12 percent" (those without it
    // come back unchanged, and are rejected); the entailment check says Yes with 0.2 for a claim
    // holding "12 percent", else 0.9.
    let user = |req: &Value| -> String {
        let m = req["messages"].as_array().unwrap();
        m.iter().rev().find(|x| x["role"] == "user").unwrap()["content"].as_str().unwrap().to_string()
    };
    let rewrite = move |req: &Value| -> String {
        let u = user(req);
        u.split("Passage:\n").nth(1).unwrap_or_default().replace("97 percent", "12 percent")
    };
    let entail = move |req: &Value| -> Vec<(String, f64)> {
        let u = user(req);
        let p = if u.split("Claim:\n").nth(1).unwrap_or_default().contains("12 percent") { 0.2 } else { 0.9 };
        vec![("Yes".to_string(), f64::ln(p)), ("No".to_string(), f64::ln(1.0 - p))]
    };
    let server = TestServer::start(Script::always(Behavior::Normal(Normal::func(rewrite).with_logprobs_func(entail))));
    let dir = tempfile::tempdir().unwrap();
    let runs = repo_root().join("examples/runs/oracle.jsonl").display().to_string();
    let out = dir.path().join("c.jsonl").display().to_string();
    let o = ragjudge_http(
        &server.base_url(),
        &["perturb", "--input", &runs, "--kinds", "contradiction", "--no-cache", "--output", &out],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let variants: Vec<Value> =
        std::fs::read_to_string(&out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    // q01's most relevant passage (relevance 3) says "... about 97 percent of Earth's water ...":
    // its rewrite contradicts it and goes in.
    assert!(!variants.is_empty());
    for v in &variants {
        let ctx = v["contexts"].as_array().unwrap();
        let c: Vec<&Value> = ctx.iter().filter(|p| p["contradiction"] == true).collect();
        assert_eq!(c.len(), 1, "{v}");
        assert!(c[0]["text"].as_str().unwrap().contains("12 percent"));
        assert_eq!(v["meta"]["perturbation"], "contradiction");
    }
    let q01 = variants.iter().find(|v| v["meta"]["variant_of"] == "q01").expect("q01 has a contradiction");
    assert_eq!(q01["id"], "q01~contradiction");
    // The records whose passage lacks the phrase are skipped: the rewrite came back unchanged.
    assert!(stdout(&o).contains("contradiction:"), "{}", stdout(&o));
    assert!(stdout(&o).contains("the rewrite is the original"), "{}", stdout(&o));
}

#[test]
fn paraphrases_that_change_the_question_are_dropped() {
    use ragjudge_testserver::{Behavior, Normal, Script, TestServer};
    use serde_json::Value;
    // The judge rewords a question as "so, QUESTION" (lower case), except questions about Rust,
    // which become "tell me a joke"; the same-meaning check says Yes with 0.1 for a joke, else 0.9.
    let user = |req: &Value| -> String {
        let m = req["messages"].as_array().unwrap();
        m.iter().rev().find(|x| x["role"] == "user").unwrap()["content"].as_str().unwrap().to_string()
    };
    let reword = move |req: &Value| -> String {
        let q = user(req).split("Question:\n").nth(1).unwrap_or_default().to_string();
        if q.contains("Rust") {
            "tell me a joke".into()
        } else {
            format!("so, {}", q.to_lowercase())
        }
    };
    let same = move |req: &Value| -> Vec<(String, f64)> {
        let p = if user(req).contains("Question 2:\ntell me a joke") { 0.1 } else { 0.9 };
        vec![("Yes".to_string(), f64::ln(p)), ("No".to_string(), f64::ln(1.0 - p))]
    };
    let server = TestServer::start(Script::always(Behavior::Normal(Normal::func(reword).with_logprobs_func(same))));
    let dir = tempfile::tempdir().unwrap();
    let questions = repo_root().join("examples/questions.jsonl").display().to_string();
    let out = dir.path().join("p.jsonl").display().to_string();
    let args = ["perturb", "--questions", &questions, "--kinds", "colloquial", "--embedder", "none", "--no-cache"];
    let o = ragjudge_http(&server.base_url(), &[&args[..], &["--output", &out]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    let originals: Vec<Value> =
        std::fs::read_to_string(&questions).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let rust = originals.iter().filter(|q| q["query"].as_str().unwrap().contains("Rust")).count();
    assert!(rust > 0);
    let variants: Vec<Value> =
        std::fs::read_to_string(&out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(variants.len(), originals.len() - rust);
    for v in &variants {
        let of = v["meta"]["variant_of"].as_str().unwrap();
        let q = originals.iter().find(|q| q["id"] == of).unwrap();
        assert_eq!(v["id"], format!("{of}~colloquial"));
        assert_eq!(v["query"].as_str().unwrap(), format!("so, {}", q["query"].as_str().unwrap().to_lowercase()));
        // P(Yes) = 0.9 / (0.9 + 0.1), read back from logprobs.
        assert!((v["meta"]["same_meaning"].as_f64().unwrap() - 0.9).abs() < 1e-12);
        assert!(v["meta"]["similarity"].is_null());
        assert_eq!(v["reference"], q["reference"]);
    }
    // One generation per question, one check per non-empty paraphrase.
    assert_eq!(server.request_count(), 2 * originals.len());
    let note = stdout(&o);
    assert!(
        note.contains(&format!(
            "colloquial: {} kept, dropped: {rust} the judge finds the meaning changed",
            originals.len() - rust
        )),
        "{note}"
    );
}
