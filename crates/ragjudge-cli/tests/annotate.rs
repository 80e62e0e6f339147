//! `ragjudge annotate`: plans, exports and their one-line errors, and the page itself in headless
//! Chromium (`tests/browser/annotate_page.py`, Selenium). The browser test runs when python3
//! can import selenium and Debian's chromium and chromium-driver are installed
//! (`scripts/setup.sh` installs them); `RAGJUDGE_REQUIRE_BROWSER=1` makes their absence a failure.

mod common;

use common::{assert_one_line_error, example_runs, ragjudge, repo_root, stdout, write};
use std::path::Path;
use std::process::Command;

#[test]
fn a_plan_is_stratified_and_a_session_can_be_limited_to_it() {
    let dir = tempfile::tempdir().unwrap();
    let plan = dir.path().join("plan.json");
    let mut args = vec!["annotate", "plan"];
    let runs = example_runs();
    args.extend(runs.iter().map(String::as_str));
    args.extend(["--plan", "12", "--json", "-o", plan.to_str().unwrap()]);
    let out: serde_json::Value = serde_json::from_str(&stdout(&ragjudge(&args))).unwrap();
    let tasks = out["tasks"].as_array().unwrap();
    assert_eq!(tasks.len(), 12);
    // Four systems: six pairs, two tasks each.
    for pair in [
        "abstain vs oracle",
        "abstain vs partial",
        "abstain vs wrong",
        "oracle vs partial",
        "oracle vs wrong",
        "partial vs wrong",
    ] {
        let n = tasks.iter().filter(|t| t["stratum"].as_str().unwrap().starts_with(pair)).count();
        assert_eq!(n, 2, "{pair}");
    }
    let written: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&plan).unwrap()).unwrap();
    assert_eq!(written["kind"], "annotation-plan");
    // A graded session refuses a pairwise plan.
    let labels = dir.path().join("labels.json");
    let mut args = vec!["annotate", "serve"];
    args.extend(runs.iter().map(String::as_str));
    args.extend(["--view", "graded", "--plan", plan.to_str().unwrap(), "--labels", labels.to_str().unwrap()]);
    assert_one_line_error(&ragjudge(&args), "a plan for the pairwise view, not graded");
}

#[test]
fn bad_input_gets_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let runs = example_runs();
    let plan = dir.path().join("p.json").display().to_string();
    let mut args = vec!["annotate", "plan", runs[0].as_str(), runs[1].as_str(), "--plan", "0", "-o", plan.as_str()];
    assert_one_line_error(&ragjudge(&args), "--plan must be at least 1");
    args[5] = "5";
    args[2] = runs[0].as_str();
    args[3] = runs[0].as_str();
    assert_one_line_error(&ragjudge(&args), "appears twice in the runs");
    let bad = write(dir.path(), "bad.json", "{\"kind\": \"leaderboard\", \"schema_version\": 1}");
    let out = dir.path().join("out").display().to_string();
    assert_one_line_error(&ragjudge(&["annotate", "export", "--labels", &bad, "-o", &out]), "bad.json");
}

fn browser_available() -> bool {
    let selenium = Command::new("python3").args(["-c", "import selenium"]).output().is_ok_and(|o| o.status.success());
    let chromium = Path::new("/usr/bin/chromium").exists() && Path::new("/usr/bin/chromedriver").exists();
    let ok = selenium && chromium;
    if !ok && std::env::var("RAGJUDGE_REQUIRE_BROWSER").is_ok_and(|v| v == "1") {
        panic!("the browser test is required (RAGJUDGE_REQUIRE_BROWSER=1): selenium {selenium}, chromium + chromedriver {chromium}");
    }
    if !ok {
        eprintln!("skipped: no selenium or chromium-driver (run scripts/setup.sh)");
    }
    ok
}

#[test]
fn the_page_labels_with_the_keyboard_persists_and_exports() {
    if !browser_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let script = repo_root().join("crates/ragjudge-cli/tests/browser/annotate_page.py");
    let mut cmd = Command::new("python3");
    cmd.arg(script)
        .args(["--ragjudge", env!("CARGO_BIN_EXE_ragjudge")])
        .arg("--repo")
        .arg(repo_root())
        .arg("--work")
        .arg(dir.path());
    if let Ok(shots) = std::env::var("RAGJUDGE_SCREENSHOTS") {
        cmd.args(["--screenshots", &shots]);
    }
    let o = cmd.output().unwrap();
    assert!(o.status.success(), "{}\n{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    let exported = std::fs::read_to_string(dir.path().join("pairwise/export/pairwise.jsonl")).unwrap();
    assert_eq!(exported.lines().count(), 5);
    // `agree` reads the exported labels as gold labels.
    let gold = dir.path().join("pairwise/export/pairwise.jsonl");
    let agree = ragjudge(&["agree", "--pred", gold.to_str().unwrap(), "--gold", gold.to_str().unwrap(), "--json"]);
    let report: serde_json::Value = serde_json::from_str(&stdout(&agree)).unwrap();
    assert_eq!(report["n"], 5, "{report}");
}

#[test]
fn exported_grades_feed_calibrate_fuse_and_ppi() {
    // A label file as the page writes it: one grade per answer of the example (oracle 5,
    // partial 3, abstain 2, wrong 1), by one annotator.
    let dir = tempfile::tempdir().unwrap();
    let mut labels = Vec::new();
    for (system, grade) in [("oracle", 5.0), ("partial", 3.0), ("abstain", 2.0), ("wrong", 1.0)] {
        let path = repo_root().join(format!("examples/runs/{system}.jsonl"));
        for line in std::fs::read_to_string(path).unwrap().lines().take(20) {
            let r: serde_json::Value = serde_json::from_str(line).unwrap();
            labels.push(serde_json::json!({
                "annotator": "ann", "id": r["id"], "system": system, "view": "graded", "grade": grade,
                "verdict_seen": false, "time": 0
            }));
        }
    }
    let set = serde_json::json!({"kind": "human-labels", "schema_version": 1, "provenance": {"ragjudge": "test"},
        "view": "graded", "scale": "1-5", "labels": labels});
    let label_file = write(dir.path(), "labels.json", set.to_string());
    let export = dir.path().join("export");
    stdout(&ragjudge(&["annotate", "export", "--labels", &label_file, "-o", export.to_str().unwrap()]));
    let graded = export.join("graded.csv").display().to_string();
    assert_eq!(std::fs::read_to_string(&graded).unwrap().lines().count(), 81);

    let runs = example_runs();
    let scores = dir.path().join("scores.csv").display().to_string();
    let mut args = vec!["score", "--input"];
    args.extend(runs.iter().map(String::as_str));
    args.extend([
        "--metrics",
        "lexical",
        "--output",
        &scores,
        "--ppi-labels",
        &graded,
        "--ppi-metrics",
        "rougeL_f",
        "--json",
    ]);
    let summary: serde_json::Value = serde_json::from_str(&stdout(&ragjudge(&args))).unwrap();
    assert!(summary.to_string().contains("ppi"), "score --ppi-labels read the export: {summary}");
    let cal = ragjudge(&[
        "calibrate",
        "--scores",
        &scores,
        "--labels",
        &graded,
        "--label-col",
        "label",
        "--score-col",
        "rougeL_f",
        "--method",
        "isotonic",
        "--binarize",
        "3",
        "--json",
    ]);
    stdout(&cal);
    let model = dir.path().join("fused.json").display().to_string();
    let fit = ragjudge(&[
        "fuse",
        "fit",
        "--scores",
        &scores,
        "--labels",
        &graded,
        "--label-col",
        "label",
        "--inputs",
        "rougeL_f,bleu,chrf",
        "--model",
        "linear",
        "--save",
        &model,
    ]);
    stdout(&fit);
}
