//! End-to-end tests of fusion across data sets: the shift check of `fuse apply` and of
//! `score --metrics fused:FILE`, and the note for model files that predate it.

mod common;

use common::*;

use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

/// The bundled runs scored with `lexical,ciu` into `dir/scores.csv`; the oracle's rows labelled
/// `1 + 2 ciu + 3 bleu` in `dir/oracle_labels.csv`. Returns (scores, labels, rows).
fn scored(dir: &Path) -> (String, String, Vec<HashMap<String, String>>) {
    let root = repo_root();
    let runs: Vec<String> = ["oracle", "partial", "abstain", "wrong"]
        .iter()
        .map(|s| root.join(format!("examples/runs/{s}.jsonl")).display().to_string())
        .collect();
    let scores = dir.join("scores.csv").display().to_string();
    let mut args = vec!["score", "--metrics", "lexical,ciu", "-o", &scores, "--input"];
    args.extend(runs.iter().map(String::as_str));
    stdout(&ragjudge(&args));
    let mut rdr = csv::Reader::from_path(&scores).unwrap();
    let headers = rdr.headers().unwrap().clone();
    let rows: Vec<HashMap<String, String>> = rdr
        .records()
        .map(|r| headers.iter().zip(r.unwrap().iter()).map(|(h, v)| (h.into(), v.into())).collect())
        .collect();
    let mut labels = String::from("id,system,rating\n");
    for r in rows.iter().filter(|r| r["system"] == "oracle") {
        let y = 1.0 + 2.0 * num(r, "ciu") + 3.0 * num(r, "bleu");
        labels.push_str(&format!("{},{},{y}\n", r["id"], r["system"]));
    }
    (scores, write(dir, "oracle_labels.csv", labels), rows)
}

fn num(r: &HashMap<String, String>, col: &str) -> f64 {
    r[col].parse().unwrap()
}

/// Fits `model` on the oracle's rows with `extra` options; returns the model file.
fn fit(dir: &Path, scores: &str, labels: &str, name: &str, extra: &[&str]) -> String {
    let model = dir.join(name).display().to_string();
    let mut args = vec!["fuse", "fit", "--scores", scores, "--labels", labels, "--label-col", "rating"];
    args.extend(["--inputs", "ciu,bleu", "--save", &model]);
    args.extend(extra);
    stdout(&ragjudge(&args));
    model
}

#[test]
fn the_shift_check_warns_when_the_inputs_moved_and_notes_old_models() {
    let dir = tempfile::tempdir().unwrap();
    let (scores, labels, rows) = scored(dir.path());
    let model = fit(dir.path(), &scores, &labels, "lin.json", &["--model", "linear"]);
    let root = repo_root();
    let run = |name: &str| root.join(format!("examples/runs/{name}.jsonl")).display().to_string();

    // The very rows it was fitted on: every bin share as in training, nothing outside the range.
    let metric = format!("fused:{model}");
    let s = ragjudge(&["score", "--metrics", &metric, "--input", &run("oracle"), "--json"]);
    let v: Value = serde_json::from_str(&stdout(&s)).unwrap();
    let report = &v["fused_shift"][0]["report"];
    assert_eq!((report["rows"].as_u64(), report["warned"].as_bool()), (Some(31), Some(false)), "{v}");
    for i in report["inputs"].as_array().unwrap() {
        assert_eq!((i["psi"].as_f64(), i["outside"].as_f64()), (Some(0.0), Some(0.0)), "{i}");
    }
    assert_eq!(stderr(&s), "", "nothing to say on stderr under --json when nothing warns");

    // The wrong answers: their share below the oracle's smallest BLEU, counted here from the scores.
    let oracle_min = rows.iter().filter(|r| r["system"] == "oracle").map(|r| num(r, "bleu")).fold(f64::MAX, f64::min);
    let oracle_max = rows.iter().filter(|r| r["system"] == "oracle").map(|r| num(r, "bleu")).fold(f64::MIN, f64::max);
    let wrong: Vec<f64> = rows.iter().filter(|r| r["system"] == "wrong").map(|r| num(r, "bleu")).collect();
    let outside = wrong.iter().filter(|&&b| b < oracle_min || b > oracle_max).count() as f64 / wrong.len() as f64;
    let s = ragjudge(&["score", "--metrics", &metric, "--input", &run("wrong"), "--json"]);
    let v: Value = serde_json::from_str(&stdout(&s)).unwrap();
    let report = &v["fused_shift"][0]["report"];
    let bleu = report["inputs"].as_array().unwrap().iter().find(|i| i["input"] == "bleu").unwrap();
    assert!((bleu["outside"].as_f64().unwrap() - outside).abs() < 1e-12, "{bleu} vs {outside}");
    assert_eq!(report["warned"], true, "{report}");
    let err = stderr(&s);
    assert!(err.contains(&format!("warning: fused:{model}: input `bleu` moved: ")), "{err}");
    assert!(err.contains("inputs are distributed unlike the 31 rows the model was fitted on"), "{err}");

    // `fuse apply` on the wrong answers' rows: the same figures, in its summary.
    let wrong_scores = dir.path().join("wrong.csv").display().to_string();
    stdout(&ragjudge(&["score", "--metrics", "lexical,ciu", "-o", &wrong_scores, "--input", &run("wrong")]));
    let a = ragjudge(&["fuse", "apply", &model, "--scores", &wrong_scores, "-o", "/dev/null", "--json"]);
    let v: Value = serde_json::from_str(&stdout(&a)).unwrap();
    assert_eq!(v["shift"], *report, "fuse apply and score agree");
    assert!(stderr(&a).contains("input `bleu` moved"), "{}", stderr(&a));
    // A higher threshold is taken as given (the small-sample limit may raise it, never lower it).
    let base = v;
    let a = ragjudge(&[
        "fuse",
        "apply",
        &model,
        "--scores",
        &wrong_scores,
        "-o",
        "/dev/null",
        "--json",
        "--shift-threshold",
        "1000",
        "--outside-threshold",
        "1",
    ]);
    let v: Value = serde_json::from_str(&stdout(&a)).unwrap();
    assert_eq!(v["shift"]["warned"], false, "{v}");
    assert_eq!(v["shift"]["inputs"][0]["psi_limit"], 1000.0);
    assert_eq!(v["shift"]["inputs"][0]["psi"], base["shift"]["inputs"][0]["psi"]);
    let a = ragjudge(&["fuse", "apply", &model, "--scores", &wrong_scores, "--shift-threshold=-1"]);
    assert_one_line_error(&a, "shift threshold must be a number >= 0, got -1");

    // The same model as schema 1 wrote it: applied, with a one-line note instead of the check.
    let mut old: Value = serde_json::from_str(&std::fs::read_to_string(&model).unwrap()).unwrap();
    old.as_object_mut().unwrap().remove("shift");
    old["schema_version"] = 1.into();
    let old_model = write(dir.path(), "old.json", old.to_string());
    let a = ragjudge(&["fuse", "apply", &old_model, "--scores", &wrong_scores, "-o", "/dev/null", "--json"]);
    let v: Value = serde_json::from_str(&stdout(&a)).unwrap();
    assert_eq!(v["shift"], Value::Null);
    let note = format!(
        "note: {old_model} records no training distribution (written before fusion-model schema 2): the shift check is unavailable; refit to get it\n"
    );
    assert_eq!(stderr(&a), note);
    let metric = format!("fused:{old_model}");
    let s = ragjudge(&["score", "--metrics", &metric, "--input", &run("wrong"), "--json"]);
    assert_eq!(stderr(&s), note.replace("note: ", "note: fused:"));
}

#[test]
fn a_monotone_fit_keeps_every_weight_non_negative() {
    let dir = tempfile::tempdir().unwrap();
    let (scores, _, rows) = scored(dir.path());
    // Labels that fall with BLEU: 1 + 2 ciu - 3 bleu on the oracle's rows.
    let oracle: Vec<&HashMap<String, String>> = rows.iter().filter(|r| r["system"] == "oracle").collect();
    let y: Vec<f64> = oracle.iter().map(|r| 1.0 + 2.0 * num(r, "ciu") - 3.0 * num(r, "bleu")).collect();
    let mut labels = String::from("id,system,rating\n");
    for (r, v) in oracle.iter().zip(&y) {
        labels.push_str(&format!("{},{},{v}\n", r["id"], r["system"]));
    }
    let labels = write(dir.path(), "falling.csv", labels);
    let model = fit(dir.path(), &scores, &labels, "mono.json", &["--model", "linear", "--monotone"]);
    let m: Value = serde_json::from_str(&std::fs::read_to_string(&model).unwrap()).unwrap();
    assert_eq!((m["model"]["kind"].as_str(), m["model"]["monotone"].as_bool()), (Some("linear"), Some(true)));
    let coef: Vec<f64> = m["model"]["linear"]["coef"].as_array().unwrap().iter().map(|c| c.as_f64().unwrap()).collect();
    // By hand (Lawson-Hanson's optimality conditions): with bleu's weight at 0, the residual is
    // -3 (bleu minus its projection on ciu), whose gradient on bleu is negative, so bleu stays at 0
    // and ciu's weight is the one-input least-squares slope on standardised ciu, cov(ciu, y) / sd(ciu).
    let ciu: Vec<f64> = oracle.iter().map(|r| num(r, "ciu")).collect();
    let n = ciu.len() as f64;
    let (mc, my) = (ciu.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let sd = (ciu.iter().map(|c| (c - mc).powi(2)).sum::<f64>() / n).sqrt();
    let cov = ciu.iter().zip(&y).map(|(c, v)| (c - mc) * (v - my)).sum::<f64>() / n;
    assert_eq!(coef[1], 0.0, "{coef:?}");
    assert!((coef[0] - cov / sd).abs() < 1e-9, "{coef:?} vs {}", cov / sd);
    // Unconstrained least squares recovers the falling weight: -3 sd(bleu) < 0.
    let free = fit(dir.path(), &scores, &labels, "free.json", &["--model", "linear"]);
    let m: Value = serde_json::from_str(&std::fs::read_to_string(&free).unwrap()).unwrap();
    assert!(m["model"]["linear"]["coef"][1].as_f64().unwrap() < 0.0, "{m}");
    let a = ragjudge(&[
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
        "svr",
        "--monotone",
        "--save",
        &model,
    ]);
    assert_one_line_error(&a, "monotone applies to the linear model (least squares) only, not svr");
}

#[test]
fn a_shrunk_model_mixes_its_standardised_score_with_the_best_single_input() {
    let dir = tempfile::tempdir().unwrap();
    let (scores, labels, rows) = scored(dir.path());
    let oracle: Vec<&HashMap<String, String>> = rows.iter().filter(|r| r["system"] == "oracle").collect();
    let y: Vec<f64> = oracle.iter().map(|r| 1.0 + 2.0 * num(r, "ciu") + 3.0 * num(r, "bleu")).collect();
    let model = fit(dir.path(), &scores, &labels, "shrunk.json", &["--model", "linear", "--shrink", "0.25"]);
    let m: Value = serde_json::from_str(&std::fs::read_to_string(&model).unwrap()).unwrap();
    let best = m["shrink"]["input"].as_u64().unwrap() as usize;
    let col = ["ciu", "bleu"][best];
    assert_eq!(m["shrink"]["lambda"], 0.25);
    // The best single input by hand: the one whose ranks agree more with the labels'.
    let rank = |v: &[f64]| -> Vec<f64> {
        v.iter()
            .map(|a| v.iter().filter(|b| *b < a).count() as f64 + 0.5 * v.iter().filter(|b| *b == a).count() as f64)
            .collect()
    };
    let pearson = |a: &[f64], b: &[f64]| {
        let n = a.len() as f64;
        let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
        let cov: f64 = a.iter().zip(b).map(|(x, y)| (x - ma) * (y - mb)).sum();
        cov / (a.iter().map(|x| (x - ma).powi(2)).sum::<f64>() * b.iter().map(|y| (y - mb).powi(2)).sum::<f64>()).sqrt()
    };
    let spearman = |c: &str| pearson(&rank(&oracle.iter().map(|r| num(r, c)).collect::<Vec<_>>()), &rank(&y));
    assert!(spearman(col) >= spearman(["ciu", "bleu"][1 - best]), "{col}");
    // Least squares is exact here (fused = label on the training rows), so by hand the score is
    // ybar + sd(y) (0.25 (y - ybar) / sd(y) + 0.75 (x - xbar) / sd(x)), population deviations.
    let mean_sd = |v: &[f64]| {
        let m = v.iter().sum::<f64>() / v.len() as f64;
        (m, (v.iter().map(|a| (a - m).powi(2)).sum::<f64>() / v.len() as f64).sqrt())
    };
    let x: Vec<f64> = oracle.iter().map(|r| num(r, col)).collect();
    let ((mx, sx), (my, sy)) = (mean_sd(&x), mean_sd(&y));
    // The model is fitted on the oracle's rows and applied to every system's: the shift check
    // warns, so by default a shrunk model scores as its single input (`--on-shift keep`: as fitted).
    let applied_with = |model: &str, on_shift: &str| -> HashMap<String, f64> {
        let applied = dir.path().join("applied.csv").display().to_string();
        let out = ragjudge(&["fuse", "apply", model, "--scores", &scores, "-o", &applied, "--on-shift", on_shift]);
        assert!(out.status.success(), "{}", stderr(&out));
        let fell_back = stderr(&out).contains(&format!("is shrunk toward `{col}`: under this shift"));
        assert_eq!(fell_back, on_shift == "fallback", "{}", stderr(&out));
        csv::Reader::from_path(&applied)
            .unwrap()
            .deserialize::<HashMap<String, String>>()
            .map(|r| r.unwrap())
            .filter(|r| r["system"] == "oracle")
            .map(|r| (r["id"].clone(), r["fused"].parse().unwrap()))
            .collect()
    };
    let check = |got: &HashMap<String, f64>, lambda: f64| {
        for ((r, yi), xi) in oracle.iter().zip(&y).zip(&x) {
            let want = my + sy * (lambda * (yi - my) / sy + (1.0 - lambda) * (xi - mx) / sx);
            assert!((got[&r["id"]] - want).abs() < 1e-9, "{}: {} vs {want}", r["id"], got[&r["id"]]);
        }
    };
    let applied_by_id = |model: &str| applied_with(model, "keep");
    check(&applied_by_id(&model), 0.25);
    check(&applied_with(&model, "fallback"), 0.0);
    // `score --metrics fused:` writes its column before the run's shift is known: it keeps the
    // shrunk score and its warning names the input `fuse apply` falls back to.
    let wrong = repo_root().join("examples/runs/wrong.jsonl").display().to_string();
    let s = ragjudge(&["score", "--metrics", &format!("fused:{model}"), "--input", &wrong, "--json"]);
    assert!(s.status.success(), "{}", stderr(&s));
    assert!(
        stderr(&s)
            .contains(&format!("is shrunk toward `{col}`: under this shift `fuse apply` scores it as `{col}` alone")),
        "{}",
        stderr(&s)
    );
    let v: Value = serde_json::from_str(&stdout(&s)).unwrap();
    assert_eq!(v["fused_shift"][0]["shrunk_toward"], col);
    // auto: the weight comes from the inner folds, on the grid 0, 0.05, ..., 1, and is used as above.
    let auto = fit(dir.path(), &scores, &labels, "auto.json", &["--model", "linear", "--shrink", "auto"]);
    let m: Value = serde_json::from_str(&std::fs::read_to_string(&auto).unwrap()).unwrap();
    assert_eq!(m["shrink"]["cross_validated"], true);
    let lambda = m["shrink"]["lambda"].as_f64().unwrap();
    assert!((lambda * 20.0 - (lambda * 20.0).round()).abs() < 1e-12 && (0.0..=1.0).contains(&lambda), "{lambda}");
    check(&applied_by_id(&auto), lambda);
    let bad = ragjudge(&[
        "fuse",
        "fit",
        "--scores",
        &scores,
        "--labels",
        &labels,
        "--label-col",
        "rating",
        "--shrink",
        "2",
        "--save",
        &auto,
    ]);
    assert!(!bad.status.success());
    assert!(stderr(&bad).contains("shrink must be `auto` or a number in [0, 1], got `2`"), "{}", stderr(&bad));
}

/// Spearman's rho by hand: Pearson's r on average ranks.
fn spearman(a: &[f64], b: &[f64]) -> f64 {
    let rank = |v: &[f64]| -> Vec<f64> {
        v.iter()
            .map(|x| {
                v.iter().filter(|y| *y < x).count() as f64 + 0.5 * (v.iter().filter(|y| *y == x).count() as f64 + 1.0)
            })
            .collect()
    };
    let (ra, rb) = (rank(a), rank(b));
    let n = a.len() as f64;
    let (ma, mb) = (ra.iter().sum::<f64>() / n, rb.iter().sum::<f64>() / n);
    let cov: f64 = ra.iter().zip(&rb).map(|(x, y)| (x - ma) * (y - mb)).sum();
    cov / (ra.iter().map(|x| (x - ma).powi(2)).sum::<f64>() * rb.iter().map(|y| (y - mb).powi(2)).sum::<f64>()).sqrt()
}

#[test]
fn the_transfer_study_holds_out_each_group_and_reports_the_shift_check() {
    let dir = tempfile::tempdir().unwrap();
    let (scores, _, rows) = scored(dir.path());
    // Labels for every row: 1 + 2 ciu + 3 bleu.
    let mut labels = String::from("id,system,rating\n");
    for r in &rows {
        labels.push_str(&format!("{},{},{}\n", r["id"], r["system"], 1.0 + 2.0 * num(r, "ciu") + 3.0 * num(r, "bleu")));
    }
    let labels = write(dir.path(), "labels.csv", labels);
    let out = dir.path().join("study").display().to_string();
    let s = ragjudge(&[
        "fuse",
        "study",
        "--transfer",
        "--group-by",
        "system",
        "--scores",
        &scores,
        "--labels",
        &labels,
        "--label-col",
        "rating",
        "--inputs",
        "ciu,bleu,chrf",
        "-o",
        &out,
        "--json",
    ]);
    let v: Value = serde_json::from_str(&stdout(&s)).unwrap();
    let splits = v["splits"].as_array().unwrap();
    let held: Vec<&str> = splits.iter().map(|s| s["held_out"].as_str().unwrap()).collect();
    assert_eq!(held, ["oracle", "partial", "abstain", "wrong"]);
    for s in splits {
        assert_eq!((s["train_rows"].as_u64(), s["test_rows"].as_u64()), (Some(93), Some(31)), "{s}");
        // Each input alone on the held-out system, against a Spearman computed here.
        let test: Vec<&HashMap<String, String>> = rows.iter().filter(|r| r["system"] == s["held_out"]).collect();
        let y: Vec<f64> = test.iter().map(|r| 1.0 + 2.0 * num(r, "ciu") + 3.0 * num(r, "bleu")).collect();
        for col in ["ciu", "bleu", "chrf"] {
            let x: Vec<f64> = test.iter().map(|r| num(r, col)).collect();
            let got = s["scores"].as_array().unwrap().iter().find(|m| m["method"] == col).unwrap();
            assert!((got["spearman"].as_f64().unwrap() - spearman(&x, &y)).abs() < 1e-12, "{col}: {got}");
        }
        // The labels are an exact plane in ciu and bleu: least squares ranks every group perfectly.
        let lin = s["scores"].as_array().unwrap().iter().find(|m| m["method"] == "Linear").unwrap();
        assert!((lin["spearman"].as_f64().unwrap() - 1.0).abs() < 1e-9, "{lin}");
        assert!(s["shift"]["inputs"].as_array().unwrap().len() == 3 && s["shift"]["warned"].is_boolean());
    }
    for f in ["transfer.csv", "transfer.md", "transfer.json"] {
        assert!(Path::new(&out).join(f).exists(), "{f}");
    }
    let md = std::fs::read_to_string(Path::new(&out).join("transfer.md")).unwrap();
    assert!(md.contains("| Linear monotone + shrink |") && md.contains("| shift warning |"), "{md}");

    // Two score files: the oracle's rows and the wrong answers' rows, each held out once.
    let root = repo_root();
    let one = |name: &str| {
        let path = dir.path().join(format!("{name}.csv")).display().to_string();
        let run = root.join(format!("examples/runs/{name}.jsonl")).display().to_string();
        stdout(&ragjudge(&["score", "--metrics", "lexical,ciu", "-o", &path, "--input", &run]));
        path
    };
    let (oracle, wrong) = (one("oracle"), one("wrong"));
    let s = ragjudge(&[
        "fuse",
        "study",
        "--transfer",
        "--scores",
        &oracle,
        "--transfer-test",
        &wrong,
        "--labels",
        &labels,
        "--label-col",
        "rating",
        "--inputs",
        "ciu,bleu",
        "--json",
    ]);
    let v: Value = serde_json::from_str(&stdout(&s)).unwrap();
    let held: Vec<&str> = v["splits"].as_array().unwrap().iter().map(|s| s["held_out"].as_str().unwrap()).collect();
    assert_eq!(held, ["oracle", "wrong"], "each file's group is its stem");

    let bad = |extra: &[&str]| {
        let mut args = vec!["fuse", "study", "--transfer", "--scores", &scores, "--labels", &labels];
        args.extend(extra);
        ragjudge(&args)
    };
    assert_one_line_error(&bad(&["--label-col", "rating"]), "--transfer needs --group-by COL or --transfer-test FILE");
    assert_one_line_error(
        &bad(&["--label-col", "rating,rating", "--group-by", "system"]),
        "--transfer takes one --label-col, got rating,rating",
    );
    assert_one_line_error(
        &bad(&["--label-col", "rating", "--inputs", "ciu", "--group-by", "nope"]),
        "labels.csv: missing column `nope`",
    );
}
