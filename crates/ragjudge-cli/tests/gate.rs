//! `ragjudge gate` end to end on the bundled example: exit codes, reasons, JUnit XML, and a
//! per-record score file summarised again to the very intervals `score` printed.

mod common;

use common::*;

use serde_json::Value;
use std::path::Path;

/// Scores the four example systems with the lexical metrics: (per-record CSV, summary JSON).
fn scored(dir: &Path) -> (String, String) {
    let runs = repo_root().join("examples/runs");
    let csv = dir.join("scores.csv").display().to_string();
    let mut args = vec!["score".to_string(), "--metrics".into(), "lexical".into(), "--output".into(), csv.clone()];
    for s in ["oracle", "partial", "abstain", "wrong"] {
        args.push("--input".into());
        args.push(runs.join(format!("{s}.jsonl")).display().to_string());
    }
    args.push("--json".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = ragjudge(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary = dir.join("summary.json");
    std::fs::write(&summary, &o.stdout).unwrap();
    (csv, summary.display().to_string())
}

fn column<'a>(summary: &'a Value, system: &str, metric: &str) -> &'a Value {
    let s = summary["systems"].as_array().unwrap().iter().find(|s| s["system"] == system).unwrap();
    s["metrics"].as_array().unwrap().iter().find(|m| m["metric"] == metric).unwrap()
}

#[test]
fn the_gate_passes_fails_and_refuses_with_distinct_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let (csv, summary) = scored(dir.path());
    let v: Value = serde_json::from_slice(&std::fs::read(&summary).unwrap()).unwrap();
    let low = column(&v, "oracle", "rougeL_f")["ci_low"].as_f64().unwrap();
    let mean = column(&v, "oracle", "rougeL_f")["mean"].as_f64().unwrap();
    assert!(low < mean);

    // A threshold between the lower bound and the mean: fails on the bound, passes on the mean.
    let between = format!("rougeL_f={}", (low + mean) / 2.0);
    let junit = dir.path().join("gate.xml").display().to_string();
    let o = ragjudge(&["gate", &summary, "--system", "oracle", "--min", &between, "--junit", &junit]);
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.starts_with("FAIL min rougeL_f="), "{out}");
    assert_eq!(String::from_utf8_lossy(&o.stderr).trim(), "error: 1 of 1 gate checks failed");
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains("<testsuite name=\"ragjudge gate\" tests=\"1\" failures=\"1\""), "{xml}");
    let o = ragjudge(&["gate", &summary, "--system", "oracle", "--min", &between, "--on", "mean"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stdout));

    // The per-record file, summarised again with score's seed and replicates, gives the same bound:
    // a threshold just above it fails and just below it passes.
    let just_above = format!("rougeL_f={}", low + 1e-9);
    let just_below = format!("rougeL_f={}", low - 1e-9);
    assert_eq!(ragjudge(&["gate", &csv, "--system", "oracle", "--min", &just_above]).status.code(), Some(1));
    assert_eq!(ragjudge(&["gate", &csv, "--system", "oracle", "--min", &just_below]).status.code(), Some(0));

    // A column the summary does not have: exit 2 with the reason.
    let o = ragjudge(&["gate", &summary, "--min", "faithfulness=0.8"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.starts_with("error: no column `faithfulness` in the summary (columns: rouge1_p"), "{err}");
}
