//! End-to-end tests of `ragjudge calibrate`: fit, save, apply and one-line input errors.

mod common;

use common::*;

use serde_json::Value;
use std::path::Path;
use std::process::Output;

/// `ragjudge calibrate` fitting `--score-col score_col` of `scores` to `--label-col rating` of
/// `labels`, with `extra` arguments.
fn fit(scores: &str, labels: &str, score_col: &str, extra: &[&str]) -> Output {
    let mut args =
        vec!["calibrate", "--scores", scores, "--labels", labels, "--score-col", score_col, "--label-col", "rating"];
    args.extend_from_slice(extra);
    ragjudge(&args)
}

/// 20 rows of system `s`: ids 0-9 score 0.25 with ratings 1 or 2, ids 10-19 score 0.75 with
/// ratings 4 or 5, so `--binarize 3` separates them perfectly.
fn separated(dir: &Path) -> (String, String) {
    let mut scores = String::from("id,system,s\n");
    let mut labels = String::from("id,system,rating\n");
    for i in 0..20 {
        let (s, r) = if i < 10 { (0.25, 1 + i % 2) } else { (0.75, 4 + i % 2) };
        scores.push_str(&format!("q{i},s,{s}\n"));
        labels.push_str(&format!("q{i},s,{r}\n"));
    }
    (write(dir, "scores.csv", &scores), write(dir, "labels.csv", &labels))
}

#[test]
fn isotonic_fit_save_and_apply_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    let (scores, labels) = separated(dir.path());
    let saved = dir.path().join("cal.json").display().to_string();
    let written = dir.path().join("report.json").display().to_string();
    let args =
        ["--binarize", "3", "--alpha", "0.2", "--save", &saved, "--method", "isotonic", "--json", "--report", &written];
    let report: Value = serde_json::from_str(&stdout(&fit(&scores, &labels, "s", &args))).unwrap();
    // Split of 20 rows: round(20 * 0.25) = 5 calibration, 5 test, 10 fit.
    assert_eq!(
        (report["fit"].as_u64(), report["calibration"].as_u64(), report["test"].as_u64()),
        (Some(10), Some(5), Some(5))
    );
    // Isotonic on the separated fit rows (if both groups are present): 0 at 0.25, 1 at 0.75, so every
    // calibration row gets P(true label) = 1 and LAC score 0. alpha = 0.2, n = 5:
    // ceil(6 * 0.8) = 5 <= 5, so q_hat = the 5th smallest score = 0; sets are {0} or {1}.
    let sets = &report["sets"][0];
    assert_eq!(sets["q_hat"].as_f64(), Some(0.0), "{report}");
    assert_eq!(sets["test"]["coverage"].as_f64(), Some(1.0));
    assert_eq!(sets["test"]["size_counts"], serde_json::json!([0, 5, 0]));
    let b = &sets["binary_sets"];
    assert_eq!(b["zero"].as_u64().unwrap() + b["one"].as_u64().unwrap(), 5);
    // Perfect probabilities: Brier 0 and ECE 0.
    assert_eq!(report["quality"]["brier"].as_f64(), Some(0.0));
    assert_eq!(report["quality"]["ece"].as_f64(), Some(0.0));

    let file: Value = serde_json::from_str(&std::fs::read_to_string(&saved).unwrap()).unwrap();
    assert_eq!(file["method"], "isotonic");
    assert_eq!(file["parameters"]["x_thresholds"], serde_json::json!([0.25, 0.75]));
    assert_eq!(file["parameters"]["y_thresholds"], serde_json::json!([0.0, 1.0]));
    assert_eq!(file["labels"], serde_json::json!([0.0, 1.0]));
    assert_eq!(file["alpha"].as_f64(), Some(0.2));
    assert_eq!(file["conformal"][0]["q_hat"].as_f64(), Some(0.0));
    // The report and the calibrator, read back by report and gate: coverage 1, Brier 0, q_hat 0.
    let quality = ["--on", "mean", "--min", "coverage_lac=1", "--max", "brier=0", "--max", "ece=0"];
    assert_report_and_gate_read(Path::new(&written), &quality);
    assert_report_and_gate_read(Path::new(&saved), &["--on", "mean", "--max", "q_hat_lac=0", "--min", "levels=2"]);

    // Apply: 0.5 lies halfway between 0.25 and 0.75, so P(1) = 0.5, and with q_hat = 0 no label
    // reaches probability 1 - 0 = 1: the empty set. 1.5 is clipped to 0.75. The row without a
    // score is left out.
    let new = write(dir.path(), "new.csv", "id,system,s\na,s,0.25\nb,s,0.5\nc,s,1.5\nd,s,\n");
    let out = dir.path().join("out.csv").display().to_string();
    let o = ragjudge(&["calibrate", "--apply", &saved, "--scores", &new, "--output", &out]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(text, "id,system,p_0,p_1,set_lac\na,s,1,0,{0}\nb,s,0.5,0.5,{}\nc,s,0,1,{1}\n");
}

#[test]
fn platt_reaches_the_smoothed_targets() {
    // All negatives score 0.25 and all positives 0.75, so the two Platt parameters reproduce
    // the smoothed targets exactly: P(1 | 0.75) = (N+ + 1)/(N+ + 2), P(1 | 0.25) = 1/(N- + 2),
    // with N+ + N- = 10 fitting rows.
    let dir = tempfile::tempdir().unwrap();
    let (scores, labels) = separated(dir.path());
    let saved = dir.path().join("platt.json").display().to_string();
    let o = fit(&scores, &labels, "s", &["--binarize", "3", "--method", "platt", "--save", &saved, "--seed", "7"]);
    let text = stdout(&o);
    assert!(text.contains("platt calibration of s -> rating >= 3"), "{text}");
    let new = write(dir.path(), "new.csv", "id,system,s\nlo,s,0.25\nhi,s,0.75\n");
    let o = ragjudge(&["calibrate", "--apply", &saved, "--scores", &new, "--json"]);
    let rows: Vec<Value> = stdout(&o).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let (p_lo, p_hi) = (rows[0]["p_1"].as_f64().unwrap(), rows[1]["p_1"].as_f64().unwrap());
    // Solve p = (N+ + 1)/(N+ + 2) for N+ = (2p - 1)/(1 - p), and p = 1/(N- + 2) for N- = 1/p - 2.
    let n_pos = (2.0 * p_hi - 1.0) / (1.0 - p_hi);
    let n_neg = 1.0 / p_lo - 2.0;
    assert!((n_pos - n_pos.round()).abs() < 1e-6 && (n_neg - n_neg.round()).abs() < 1e-6, "{n_pos} {n_neg}");
    assert_eq!(n_pos.round() + n_neg.round(), 10.0);
    assert_eq!(rows[0]["id"], "lo");
    assert!(rows[0]["set_lac"].is_string());
}

#[test]
fn bad_inputs_give_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let (_, labels) = separated(dir.path());
    let scores = write(dir.path(), "bad.csv", "id,system,s\nq0,s,0.25\nq1,s,high\n");
    let o = fit(&scores, &labels, "s", &["--binarize", "3"]);
    assert_one_line_error(&o, "bad.csv:3: field `s`: not a finite number: high");

    let (scores, labels) = separated(dir.path());
    let o = fit(&scores, &labels, "s", &[]);
    assert_one_line_error(&o, "platt needs binary labels, but `rating` has 4 levels; use --binarize T");

    let o = fit(&scores, &labels, "nope", &[]);
    assert_one_line_error(&o, "scores.csv: missing column `nope`");

    let junk = write(dir.path(), "junk.json", "{\"method\": \"platt\"}");
    let o = ragjudge(&["calibrate", "--apply", &junk, "--scores", &scores]);
    assert_one_line_error(&o, "junk.json: not a calibrator file");
}

#[test]
fn files_with_only_id_columns_join_on_id() {
    // The scores and labels of `separated`, without the `system` column in either file.
    let dir = tempfile::tempdir().unwrap();
    let mut scores = String::from("id,score\n");
    let mut labels = String::from("id,label\n");
    for i in 0..20 {
        let (s, r) = if i < 10 { (0.25, 1 + i % 2) } else { (0.75, 4 + i % 2) };
        scores.push_str(&format!("q{i},{s}\n"));
        labels.push_str(&format!("q{i},{r}\n"));
    }
    let scores = write(dir.path(), "s.csv", &scores);
    let labels = write(dir.path(), "l.csv", &labels);
    let saved = dir.path().join("cal.json").display().to_string();
    let args = [
        "calibrate",
        "--scores",
        &scores,
        "--labels",
        &labels,
        "--score-col",
        "score",
        "--label-col",
        "label",
        "--binarize",
        "3",
        "--method",
        "isotonic",
        "--alpha",
        "0.2",
        "--save",
        &saved,
        "--json",
    ];
    let report: Value = serde_json::from_str(&stdout(&ragjudge(&args))).unwrap();
    // Every one of the 20 rows joins (by hand: 10 fit, 5 calibration, 5 test).
    assert_eq!((report["joined"].as_u64(), report["fit"].as_u64()), (Some(20), Some(10)));
    let saved_json: Value = serde_json::from_str(&std::fs::read_to_string(&saved).unwrap()).unwrap();
    assert_eq!(saved_json["on"], serde_json::json!(["id"]));
    let new = write(dir.path(), "new.csv", "id,score\nlo,0.25\nhi,0.75\n");
    let out = stdout(&ragjudge(&["calibrate", "--apply", &saved, "--scores", &new]));
    // Isotonic on perfectly separated fitting rows: P(1) = 0 at 0.25 and 1 at 0.75. With 5
    // calibration rows and alpha 0.2 the LAC threshold is the ceil(6 * 0.8) = 5th smallest of five
    // non-conformity scores, all 0, so each set holds the predicted label only.
    assert_eq!(out, "id,p_0,p_1,set_lac\nlo,1,0,{0}\nhi,0,1,{1}\n");
}

#[test]
fn a_duplicate_key_in_the_scores_is_reported_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let (scores, labels) = separated(dir.path());
    let mut text = std::fs::read_to_string(&scores).unwrap();
    text.push_str("q3,s,0.75\n");
    let scores = write(dir.path(), "dup.csv", &text);
    let o = fit(&scores, &labels, "s", &["--binarize", "3", "--json"]);
    let report: Value = serde_json::from_str(&stdout(&o)).unwrap();
    // The repeat on line 22 (header + 20 rows + 1) is left out: 20 rows join.
    assert_eq!(report["joined"].as_u64(), Some(20));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("dup.csv:22: duplicate key [\"q3\", \"s\"] (first on line 5)"), "{err}");
}

#[test]
fn labels_without_a_system_column_join_on_id_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let (scores, _) = separated(dir.path());
    // The ratings of `separated` keyed by id alone.
    let mut labels = String::from("id,rating\n");
    for i in 0..20 {
        labels.push_str(&format!("q{i},{}\n", if i < 10 { 1 + i % 2 } else { 4 + i % 2 }));
    }
    let labels = write(dir.path(), "ids.csv", &labels);
    let o = fit(&scores, &labels, "s", &["--binarize", "3", "--json"]);
    let report: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(report["joined"].as_u64(), Some(20));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err, format!("note: {labels} has no `system` column; joining on `id` alone\n"));
}
