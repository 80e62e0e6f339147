//! `ragjudge annotate`: plans, exports and their one-line errors, and the page itself in headless
//! Chromium (`tests/browser/annotate_page.py`, Selenium). The browser test runs when python3
//! can import selenium and Debian's chromium and chromium-driver are installed
//! (`scripts/setup.sh` installs them); `RAGJUDGE_REQUIRE_BROWSER=1` makes their absence a failure.

mod common;

use common::{assert_one_line_error, ragjudge, repo_root, stdout, write};
use std::path::Path;
use std::process::Command;

fn runs() -> Vec<String> {
    ["oracle", "partial", "wrong", "abstain"]
        .iter()
        .map(|s| repo_root().join(format!("examples/runs/{s}.jsonl")).display().to_string())
        .collect()
}

#[test]
fn a_plan_is_stratified_and_a_session_can_be_limited_to_it() {
    let dir = tempfile::tempdir().unwrap();
    let plan = dir.path().join("plan.json");
    let mut args = vec!["annotate", "plan"];
    let runs = runs();
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
    let runs = runs();
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
