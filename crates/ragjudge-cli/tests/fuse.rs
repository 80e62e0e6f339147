//! End-to-end tests of `ragjudge fuse` and of `score --metrics fused:FILE`: fit, save, apply,
//! the same scores through `score`, refusal of inputs computed differently, one-line errors.

mod common;

use common::*;

use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

/// Scores the bundled example runs with `lexical,ciu` into `dir/scores.csv` (with its
/// definitions beside it) and writes labels `1 + 2 ciu + 3 bleu` to `dir/labels.csv`.
fn scored(dir: &Path) -> (String, String) {
    let root = repo_root();
    let runs: Vec<String> = ["oracle", "partial", "abstain", "wrong"]
        .iter()
        .map(|s| root.join(format!("examples/runs/{s}.jsonl")).display().to_string())
        .collect();
    let scores = dir.join("scores.csv").display().to_string();
    let mut args = vec!["score", "--metrics", "lexical,ciu", "-o", &scores, "--input"];
    args.extend(runs.iter().map(String::as_str));
    stdout(&ragjudge(&args));
    assert!(Path::new(&format!("{scores}.columns.json")).exists());
    let rows = read_csv(&scores);
    let mut labels = String::from("id,system,rating\n");
    for r in &rows {
        let y = 1.0 + 2.0 * r["ciu"].parse::<f64>().unwrap() + 3.0 * r["bleu"].parse::<f64>().unwrap();
        labels.push_str(&format!("{},{},{y}\n", r["id"], r["system"]));
    }
    (scores, write(dir, "labels.csv", labels))
}

fn read_csv(path: &str) -> Vec<HashMap<String, String>> {
    let mut rdr = csv::Reader::from_path(path).unwrap();
    let headers = rdr.headers().unwrap().clone();
    rdr.records().map(|r| headers.iter().zip(r.unwrap().iter()).map(|(h, v)| (h.into(), v.into())).collect()).collect()
}

fn fused_by_id(path: &str, col: &str) -> HashMap<(String, String), f64> {
    read_csv(path).into_iter().map(|r| ((r["id"].clone(), r["system"].clone()), r[col].parse().unwrap())).collect()
}

#[test]
fn a_linear_fit_recovers_its_labels_and_score_gives_the_same_fused_column() {
    let dir = tempfile::tempdir().unwrap();
    let (scores, labels) = scored(dir.path());
    let model = dir.path().join("lin.json").display().to_string();
    let fit = ragjudge(&[
        "fuse",
        "fit",
        "--scores",
        &scores,
        "--labels",
        &labels,
        "--label-col",
        "rating",
        "--inputs",
        "ciu,bleu",
        "--model",
        "linear",
        "--save",
        &model,
        "--json",
    ]);
    let v: Value = serde_json::from_str(&stdout(&fit)).unwrap();
    assert_eq!(v["join"]["joined"], 124);
    assert_eq!(v["inputs_without_definition"].as_array().unwrap().len(), 0);
    assert_report_and_gate_read(
        Path::new(&model),
        &["--on", "mean", "--system", "rating", "--min", "inputs=2", "--max", "inputs=2"],
    );
    // The labels are an exact plane in the inputs: least squares reproduces every one.
    let applied = dir.path().join("applied.csv").display().to_string();
    stdout(&ragjudge(&["fuse", "apply", &model, "--scores", &scores, "-o", &applied]));
    let labels_by_key = fused_by_id(&labels, "rating");
    let fused = fused_by_id(&applied, "fused");
    assert_eq!(fused.len(), 124);
    for (k, y) in &labels_by_key {
        assert!((fused[k] - y).abs() < 1e-6, "{k:?}: {} vs {y}", fused[k]);
    }
    // The same model as a metric of `score`: the same values, with per-system intervals.
    let root = repo_root();
    let out = dir.path().join("scored.csv").display().to_string();
    let oracle = root.join("examples/runs/oracle.jsonl").display().to_string();
    let fused_metric = format!("fused:{model}");
    let s = ragjudge(&["score", "--metrics", &fused_metric, "-o", &out, "--input", &oracle, "--json"]);
    let summary: Value = serde_json::from_str(&stdout(&s)).unwrap();
    assert!(summary.to_string().contains("\"fused\""), "{summary}");
    for (k, v) in fused_by_id(&out, "fused") {
        assert!((v - fused[&k]).abs() < 1e-12, "{k:?}");
    }
    // Another C_char defines `ciu` differently: refused, naming the input and both settings.
    let s = ragjudge(&["score", "--metrics", &fused_metric, "--ciu-c-char", "0.01", "--input", &oracle]);
    assert_one_line_error(&s, "`ciu` was {\"family\":\"ciu\"");
    assert!(stderr(&s).contains("\"c_char\":0.01"), "{}", stderr(&s));
    // A score file whose recorded definitions differ is refused by `fuse apply` too.
    let other = dir.path().join("other.csv").display().to_string();
    stdout(&ragjudge(&["score", "--metrics", "ciu,lexical", "--ciu-c-char", "0.01", "-o", &other, "--input", &oracle]));
    let a = ragjudge(&["fuse", "apply", &model, "--scores", &other]);
    assert_one_line_error(&a, "the model was fitted on inputs computed differently");
}

#[test]
fn moe_fits_applies_and_reports_its_gate() {
    let dir = tempfile::tempdir().unwrap();
    let (scores, labels) = scored(dir.path());
    let model = dir.path().join("moe.json").display().to_string();
    let fit = ragjudge(&[
        "fuse",
        "fit",
        "--scores",
        &scores,
        "--labels",
        &labels,
        "--label-col",
        "rating",
        "--inputs",
        "ciu,bleu,rougeL_f",
        "--model",
        "moe",
        "--save",
        &model,
        "--json",
    ]);
    let v: Value = serde_json::from_str(&stdout(&fit)).unwrap();
    let weights: Vec<f64> = v["gate"]["mean_weight"].as_array().unwrap().iter().map(|w| w.as_f64().unwrap()).collect();
    assert_eq!(weights.len(), 3);
    assert!((weights.iter().sum::<f64>() - 1.0).abs() < 1e-9, "{weights:?}");
    assert!(v["training_spearman"].as_f64().unwrap() > 0.5, "{v}");
    let applied = dir.path().join("applied.csv").display().to_string();
    stdout(&ragjudge(&["fuse", "apply", &model, "--scores", &scores, "-o", &applied]));
    let rows = read_csv(&applied);
    assert_eq!(rows.len(), 124);
    for r in &rows {
        let g: f64 = ["gate_ciu", "gate_bleu", "gate_rougeL_f"].iter().map(|c| r[*c].parse::<f64>().unwrap()).sum();
        assert!((g - 1.0).abs() < 1e-6, "{r:?}");
    }
}

#[test]
fn bad_input_gets_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let (scores, labels) = scored(dir.path());
    let model = dir.path().join("m.json").display().to_string();
    let fit = |labels: &str, inputs: &str| {
        ragjudge(&[
            "fuse",
            "fit",
            "--scores",
            &scores,
            "--labels",
            labels,
            "--label-col",
            "rating",
            "--inputs",
            inputs,
            "--model",
            "linear",
            "--save",
            &model,
        ])
    };
    let other = write(dir.path(), "other.csv", "id,system,rating\nnope,x,3\n");
    assert_one_line_error(&fit(&other, "ciu"), "no row joins a label of");
    let flat = write(dir.path(), "flat.csv", "id,system,rating\nq01,oracle,3\nq02,oracle,3\n");
    assert_one_line_error(&fit(&flat, "ciu"), "every joined label is 3; a constant label cannot be learned");
    assert_one_line_error(&fit(&labels, "ciu,nope"), "missing column `nope`");
    // An empty metric cell in a labelled row names the file, line and column.
    let text = std::fs::read_to_string(&scores).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let header: Vec<&str> = lines[0].split(',').collect();
    let ciu_at = header.iter().position(|h| *h == "ciu").unwrap();
    let mut cells: Vec<String> = lines[3].split(',').map(String::from).collect();
    cells[ciu_at].clear();
    lines[3] = cells.join(",");
    let holed = write(dir.path(), "holed.csv", lines.join("\n") + "\n");
    let f = ragjudge(&[
        "fuse",
        "fit",
        "--scores",
        &holed,
        "--labels",
        &labels,
        "--label-col",
        "rating",
        "--inputs",
        "ciu",
        "--model",
        "linear",
        "--save",
        &model,
    ]);
    assert_one_line_error(&f, &format!("{holed}:4: field `ciu`: empty cell in a labelled row"));
    let s = ragjudge(&[
        "fuse",
        "study",
        "--scores",
        &scores,
        "--labels",
        &labels,
        "--label-col",
        "rating",
        "--inputs",
        "ciu,bleu",
        "--test-size",
        "120",
    ]);
    assert_one_line_error(&s, "124 joined rows cannot hold out 120 per split");
    let junk = write(dir.path(), "junk.json", "{\"format\": \"something-else/9\"}");
    assert_one_line_error(&ragjudge(&["fuse", "apply", &junk, "--scores", &scores]), "model format something-else/9");
    assert_one_line_error(
        &ragjudge(&["score", "--metrics", "ciu:x", "--input", &scores]),
        "only `fused` takes an argument",
    );
}
