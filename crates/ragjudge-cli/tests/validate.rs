//! `ragjudge validate` on the bundled example: the example's human pairwise labels against its
//! lexical scores and the baselines; the report's Trust section; one-line errors.

mod common;

use common::{assert_one_line_error, example_runs, ragjudge, repo_root, stdout, write};

#[test]
fn the_example_labels_pick_a_scorer_and_the_report_shows_trust() {
    let dir = tempfile::tempdir().unwrap();
    let scores = dir.path().join("scores.csv").display().to_string();
    let runs = example_runs();
    let mut args = vec!["score", "--input"];
    args.extend(runs.iter().map(String::as_str));
    args.extend(["--metrics", "lexical", "--output", &scores]);
    stdout(&ragjudge(&args));
    let labels = repo_root().join("examples/human/pairwise_labels.jsonl").display().to_string();
    let out = dir.path().join("validation.json").display().to_string();
    let mut args = vec!["validate", "--labels", labels.as_str(), "--scores", scores.as_str(), "--runs"];
    args.extend(runs.iter().map(String::as_str));
    args.extend(["--json", "-o", out.as_str()]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&ragjudge(&args))).unwrap();
    assert_eq!(v["labels"], 72);
    assert_eq!(v["questions"], 12);
    let names: Vec<&str> = v["candidates"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    for want in ["rougeL_f", "length", "token_f1"] {
        assert!(names.contains(&want), "{names:?}");
    }
    assert!(v["picked"].is_string(), "{v}");
    // Six system pairs, each with labelled and unlabelled questions.
    assert_eq!(v["estimates"].as_array().unwrap().len(), 6, "{}", v["estimates"]);
    // Every candidate's interval holds its estimate.
    for c in v["candidates"].as_array().unwrap().iter().filter(|c| c["spearman"].is_number()) {
        let (r, lo, hi) = (c["spearman"].as_f64().unwrap(), c["low"].as_f64().unwrap(), c["high"].as_f64().unwrap());
        assert!(lo <= r && r <= hi, "{c}");
    }
    let html = dir.path().join("report.html").display().to_string();
    stdout(&ragjudge(&["report", out.as_str(), "--output", html.as_str()]));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("<section id=\"trust\">"), "no Trust section");
    assert!(page.contains("chart-trust-candidates"));
    assert!(page.contains("chart-trust-estimates"));
}

#[test]
fn bad_labels_get_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let runs = example_runs();
    let bad = write(
        dir.path(),
        "labels.jsonl",
        "{\"id\": \"q01\", \"system_a\": \"oracle\", \"system_b\": \"wrong\", \"label\": \"maybe\"}\n",
    );
    let mut args = vec!["validate", "--labels", bad.as_str(), "--runs"];
    args.extend(runs.iter().map(String::as_str));
    assert_one_line_error(&ragjudge(&args), "labels.jsonl:1: field `label`: expected A, B or tie");
    let few = write(
        dir.path(),
        "few.jsonl",
        "{\"id\": \"q01\", \"system_a\": \"oracle\", \"system_b\": \"wrong\", \"label\": \"A\"}\n",
    );
    let mut args = vec!["validate", "--labels", few.as_str(), "--runs"];
    args.extend(runs.iter().map(String::as_str));
    assert_one_line_error(&ragjudge(&args), "1 labelled tasks; at least 4 are needed");
}
