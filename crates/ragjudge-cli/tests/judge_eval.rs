//! `ragjudge judge-eval` end to end against a scripted OpenAI-compatible judge on loopback: the
//! table files, a judge with a pure position bias caught, the example runs with their pairwise
//! labels, and one-line errors.

mod common;

use common::*;
use ragjudge_testserver::{Behavior, Normal, Script, TestServer};
use serde_json::Value;
use std::process::{Command, Output};

const SET: &str = r#"[{"input": "Say hi.", "output_1": "Hi!", "output_2": "Hello there, friend.", "label": 1},
{"input": "Add 2 and 2.", "output_1": "5", "output_2": "4", "label": 2},
{"input": "Name a colour.", "output_1": "Blue.", "output_2": "A colour.", "label": 1}]"#;

fn run(base_url: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ragjudge"))
        .args(["judge-eval", "--judge", "openai:test-model", "--no-cache"])
        .args(args)
        .env("OPENAI_BASE_URL", base_url)
        .env_remove("OPENAI_API_KEY")
        .output()
        .expect("run ragjudge")
}

#[test]
fn a_first_position_judge_is_caught_and_the_table_written() {
    // P(a) = e^-0.2 / (e^-0.2 + e^-1.7) = 0.818 in every order: the orders cancel to 0.5, ties.
    let server = TestServer::start(Script::always(Behavior::Normal(
        Normal::text("a").with_top_logprobs(&[("a", -0.2), ("b", -1.7)]),
    )));
    let dir = tempfile::tempdir().unwrap();
    let set = write(dir.path(), "faireval.json", SET);
    let out = dir.path().join("out");
    let o = run(
        &server.base_url(),
        &["--set", &set, "--protocol", "two-label,pointwise", "-o", out.to_str().unwrap(), "--json"],
    );
    // Pointwise asks for digits the scripted judge never gives: each of its pairs fails, is
    // recorded, and the command exits 1 after writing everything.
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("3 pairs could not be judged"), "{}", stderr(&o));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let row = &doc["rows"][0];
    assert_eq!(row["protocol"], "two-label");
    assert_eq!((row["judged"].as_u64(), row["decided"].as_u64()), (Some(3), Some(0)));
    assert_eq!(row["order_consistency"].as_f64(), Some(0.0));
    assert_eq!(row["first_position"].as_f64(), Some(1.0));
    assert_eq!(row["accuracy_with_ties"].as_f64(), Some(0.5));
    // Longer output: pair 1 the second (gold first), pair 2 equal length (wrong), pair 3 the
    // second ("A colour." 9 > "Blue." 5; gold first): 0 of 3.
    assert_eq!(row["longer_baseline"].as_f64(), Some(0.0));
    assert_eq!(doc["rows"][1]["failed"].as_u64(), Some(3));
    let md = std::fs::read_to_string(out.join("judge-eval.md")).unwrap();
    assert!(
        md.contains("| faireval | two-label | 3 | 3 |") && md.contains("GPT-4 (LLMBar vanilla) (stored) | | | 72.7"),
        "{md}"
    );
    let csv = std::fs::read_to_string(out.join("judge-eval.csv")).unwrap();
    assert_eq!(csv.lines().count(), 3, "{csv}");
    let verdicts = std::fs::read_to_string(out.join("verdicts.jsonl")).unwrap();
    assert_eq!(verdicts.lines().count(), 6);
    assert!(verdicts.lines().nth(3).unwrap().contains("\"error\""));
    let two_label = ["--on", "mean", "--system", "faireval/two-label", "--min", "first_position=1"];
    assert_report_and_gate_read(
        &out.join("judge-eval.json"),
        &[&two_label[..], &["--max", "accuracy_with_ties=0.5"]].concat(),
    );
}

#[test]
fn the_example_runs_are_judged_through_their_pairwise_labels() {
    // A judge that always grades 5: every pair a tie.
    let server = TestServer::start(Script::always(Behavior::Normal(
        Normal::text("5").with_top_logprobs(&[("5", -0.01), ("4", -5.0)]),
    )));
    let root = repo_root();
    let runs: Vec<String> = ["oracle", "partial", "abstain", "wrong"]
        .iter()
        .map(|s| root.join(format!("examples/runs/{s}.jsonl")).display().to_string())
        .collect();
    let labels = root.join("examples/human/pairwise_labels.jsonl").display().to_string();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut args =
        vec!["--protocol", "pointwise", "--stack", "--batch", "72", "--pairs", &labels, "-o", out.to_str().unwrap()];
    args.extend(["--json", "--runs"]);
    args.extend(runs.iter().map(String::as_str));
    let o = run(&server.base_url(), &args);
    assert!(o.status.success(), "{}", stderr(&o));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let row = &doc["rows"][0];
    assert_eq!(row["set"], "pairwise_labels");
    assert_eq!(row["items"].as_u64(), Some(72));
    assert_eq!(row["decided"].as_u64(), Some(0));
    // One batch: each of the 48 answers (12 questions x 4 systems) graded once, not once per
    // pair it is in (144).
    assert_eq!(row["calls"].as_u64(), Some(48));
    // The stacker: the judge says nothing (every pair even), so only token F1 and length
    // differences can carry the labels; held out by question over 6 folds of the 12 questions.
    let stack = &doc["rows"][1];
    assert!(stack["protocol"].as_str().unwrap().starts_with("stack(pointwise+token_f1_diff+length_diff)"), "{stack}");
    assert_eq!(stack["judged"].as_u64(), Some(72));
    assert!(stack["accuracy_with_ties"].as_f64().unwrap() > 0.5, "{stack}");
    let curve = doc["stacks"][0]["result"]["learning_curve"].as_array().unwrap();
    assert_eq!(curve[0][0].as_u64(), Some(1));
}

#[test]
fn bad_input_gets_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out").display().to_string();
    let set = write(dir.path(), "s.json", SET);
    let o = ragjudge(&["judge-eval", "--set", &set, "--protocol", "vibes", "-o", &out]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("unknown protocol `vibes`"), "{}", stderr(&o));
    let bad = write(dir.path(), "bad.json", r#"[{"input": "x", "output_1": "a", "output_2": "b", "label": 3}]"#);
    let o = ragjudge(&["judge-eval", "--set", &bad, "-o", &out]);
    let e = stderr(&o);
    assert!(!o.status.success() && e.contains("bad.json") && e.contains("item 0") && e.contains("label"), "{e}");
    let o = ragjudge(&["judge-eval", "--set", &set, "--tie-margin", "0.7", "-o", &out]);
    assert!(stderr(&o).contains("--tie-margin must be in [0, 0.5)"), "{}", stderr(&o));
    assert_eq!(stderr(&o).trim().lines().count(), 1, "{}", stderr(&o));
}

#[test]
fn consistency_sets_get_the_lexical_baseline_and_the_claim_judge() {
    // P(Yes) = 0.8 for every claim: every summary scores 0.8.
    let server = TestServer::start(Script::always(Behavior::Normal(
        Normal::text("Yes").with_top_logprobs(&[("Yes", 0.8f64.ln()), ("No", 0.2f64.ln())]),
    )));
    let dir = tempfile::tempdir().unwrap();
    let set = write(
        dir.path(),
        "qags.json",
        r#"[{"source": "The cat sat on the mat. It was warm.", "system_output": "The cat sat.", "scores": {"consistency": 1.0}},
{"source": "The cat sat on the mat. It was warm.", "system_output": "A dog ran. It barked.", "scores": {"consistency": 0.0}},
{"source": "The cat sat on the mat. It was warm.", "system_output": "The cat ran.", "scores": {"consistency": 0.5}}]"#,
    );
    let out = dir.path().join("out");
    let o = run(&server.base_url(), &["--consistency", &set, "-o", out.to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = doc["consistency"].as_array().unwrap();
    // ROUGE-2 precision against the source: 1 ("the cat", "cat sat"), 0, 1/2 ("the cat" only):
    // the labels' own order.
    assert!((rows[0]["spearman"].as_f64().unwrap() - 1.0).abs() < 1e-12);
    assert_eq!(rows[0]["auc"].as_f64(), Some(1.0));
    // The judge: 4 sentences, all 0.8; a constant has no Spearman, AUC 1/2, and "consistent"
    // for all: TPR 1, TNR 0.
    assert_eq!(rows[1]["sentences"].as_u64(), Some(4));
    assert!(rows[1]["spearman"].is_null());
    assert_eq!(rows[1]["auc"].as_f64(), Some(0.5));
    assert_eq!(rows[1]["balanced_accuracy"].as_f64(), Some(0.5));
    assert_eq!(server.request_count(), 4);
    // Mean aggregation (also 0.8 everywhere), then its average with ROUGE-2 precision:
    // (0.8 + (1, 0, 1/2)) / 2 keeps the labels' order.
    assert_eq!(rows.len(), 4);
    assert!(rows[2]["scorer"].as_str().unwrap().contains("mean over sentences"));
    assert!((rows[3]["spearman"].as_f64().unwrap() - 1.0).abs() < 1e-12);
    let per_item = std::fs::read_to_string(out.join("consistency-qags.jsonl")).unwrap();
    let first: Value = serde_json::from_str(per_item.lines().next().unwrap()).unwrap();
    assert_eq!((first["label"].as_f64(), first["rouge2_precision"].as_f64()), (Some(1.0), Some(1.0)));
    assert_eq!(first["sentences"].as_array().unwrap().len(), 1);
    let md = std::fs::read_to_string(out.join("judge-eval.md")).unwrap();
    assert!(md.contains("| qags | rouge2_precision (lexical baseline) | 3 | 0 | 1.000 | 1.000 |"), "{md}");
}
