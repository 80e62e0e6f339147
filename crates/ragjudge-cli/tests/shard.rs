//! Fan-out end to end: `score --shard i/4` four times and `merge` give what one `score` run gives
//! on the bundled example runs: the same rows (compared as sets: a merged file holds shard 1's
//! rows first), the same means bit for bit, intervals and standard deviations within 1e-12
//! (relative), the same counts.

mod common;

use common::{assert_one_line_error, assert_report_and_gate_read, ragjudge, repo_root, stderr, stdout};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;

const METRICS: &str = "lexical,ciu,retrieval";

fn example_runs() -> Vec<String> {
    let dir = repo_root().join("examples/runs");
    let mut runs: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .map(|p| p.display().to_string())
        .collect();
    runs.sort();
    runs
}

/// `score` over the example runs with `extra` arguments; the `--json` summary.
fn score(out: &Path, extra: &[&str]) -> Value {
    let runs = example_runs();
    let out = out.display().to_string();
    let mut args = vec!["score", "--metrics", METRICS, "--bootstrap", "300", "--json", "-o", &out, "--input"];
    args.extend(runs.iter().map(String::as_str));
    args.extend(extra);
    serde_json::from_str(&stdout(&ragjudge(&args))).unwrap()
}

fn lines(path: &Path) -> (String, BTreeSet<String>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut it = text.lines();
    let first = it.next().unwrap().to_string();
    let mut rest: BTreeSet<String> = it.map(str::to_string).collect();
    if path.extension().is_some_and(|e| e == "jsonl") {
        // JSONL has no header: every line is a row.
        rest.insert(first);
        return (String::new(), rest);
    }
    (first, rest)
}

fn close(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => (x - y).abs() <= 1e-12 * x.abs().max(1.0),
        _ => a == b,
    }
}

/// The merged summary equals the single run's: counts and means exactly, the rest within 1e-12.
fn assert_same_summary(single: &Value, merged: &Value) {
    for k in ["records", "skipped", "failed", "level", "bootstrap"] {
        assert_eq!(single[k], merged[k], "{k}");
    }
    let (a, b) = (single["systems"].as_array().unwrap(), merged["systems"].as_array().unwrap());
    assert_eq!(a.len(), b.len());
    for sa in a {
        let sb = b.iter().find(|s| s["system"] == sa["system"]).unwrap();
        assert_eq!((&sa["records"], &sa["failed"]), (&sb["records"], &sb["failed"]));
        for (ma, mb) in sa["metrics"].as_array().unwrap().iter().zip(sb["metrics"].as_array().unwrap()) {
            assert_eq!((&ma["metric"], &ma["n"], &ma["mean"]), (&mb["metric"], &mb["n"], &mb["mean"]));
            for k in ["std", "ci_low", "ci_high"] {
                assert!(close(&ma[k], &mb[k]), "{} {} {k}: {} vs {}", sa["system"], ma["metric"], ma[k], mb[k]);
            }
        }
    }
}

fn shards_then_merge(dir: &Path, ext: &str) -> (Value, Value) {
    let single = score(&dir.join(format!("single.{ext}")), &[]);
    let mut outs = Vec::new();
    let mut records = 0;
    for i in 1..=4 {
        let out = dir.join(format!("shard{i}.{ext}"));
        let s = score(&out, &["--shard", &format!("{i}/4")]);
        assert_eq!(s["shard"], format!("{i}/4"));
        records += s["records"].as_u64().unwrap();
        outs.push(out.display().to_string());
    }
    assert_eq!(records, single["records"].as_u64().unwrap());
    let merged_path = dir.join(format!("merged.{ext}")).display().to_string();
    // Shards in another order than 1..4: the merge sorts them.
    let args = vec!["merge", "--json", "-o", &merged_path, &outs[2], &outs[0], &outs[3], &outs[1]];
    let merged: Value = serde_json::from_str(&stdout(&ragjudge(&args))).unwrap();
    assert_eq!(merged["shards"], 4);
    assert!(merged.get("shard").is_none());
    assert_same_summary(&single, &merged);
    (single, merged)
}

#[test]
fn four_shards_and_merge_equal_one_run_jsonl_and_csv() {
    let dir = tempfile::tempdir().unwrap();
    for ext in ["jsonl", "csv"] {
        shards_then_merge(dir.path(), ext);
        let (h1, rows1) = lines(&dir.path().join(format!("single.{ext}")));
        let (h2, rows2) = lines(&dir.path().join(format!("merged.{ext}")));
        assert_eq!(h1, h2);
        assert_eq!(rows1.len(), 124);
        assert_eq!(rows1, rows2, "{ext} rows differ");
        // The column definitions travel with the merged file.
        let defs = |p: &str| std::fs::read_to_string(dir.path().join(p)).unwrap();
        assert_eq!(defs(&format!("single.{ext}.columns.json")), defs(&format!("merged.{ext}.columns.json")));
    }
    // A shard's manifest and the column definitions, read back by report and gate.
    let shard = ["--on", "mean", "--system", "shard 1/4", "--min", "records=1", "--min", "columns=1"];
    assert_report_and_gate_read(&dir.path().join("shard1.csv.shard.json"), &shard);
    let defs = ["--on", "mean", "--system", "lexical", "--min", "columns=1"];
    assert_report_and_gate_read(&dir.path().join("single.csv.columns.json"), &defs);
}

#[test]
fn four_shards_and_merge_equal_one_run_parquet() {
    let dir = tempfile::tempdir().unwrap();
    shards_then_merge(dir.path(), "parquet");
    let a = ragjudge_eval::read_rows(&dir.path().join("single.parquet")).unwrap();
    let b = ragjudge_eval::read_rows(&dir.path().join("merged.parquet")).unwrap();
    assert_eq!(a.columns, b.columns);
    assert_eq!(a.rows.len(), 124);
    let set = |t: &ragjudge_eval::RowTable| {
        t.rows.iter().map(|r| serde_json::to_string(r).unwrap()).collect::<BTreeSet<String>>()
    };
    assert_eq!(set(&a), set(&b));
}

#[test]
fn merge_refuses_incomplete_or_mixed_shards() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str| dir.path().join(name);
    for i in 1..=4 {
        score(&p(&format!("s{i}.csv")), &["--shard", &format!("{i}/4")]);
    }
    score(&p("half.csv"), &["--shard", "1/2"]);
    score(&p("seed.csv"), &["--shard", "4/4", "--seed", "9"]);
    score(&p("plain.csv"), &[]);
    let s = |name: &str| p(name).display().to_string();
    let o = ragjudge(&["merge", &s("s1.csv"), &s("s3.csv"), &s("s2.csv")]);
    assert_one_line_error(&o, "merge: missing shard(s) 4/4");
    let o = ragjudge(&["merge", &s("s1.csv"), &s("s2.csv"), &s("s3.csv"), &s("s4.csv"), &s("s2.csv")]);
    assert_one_line_error(&o, "merge: shard 2/4 given twice");
    let o = ragjudge(&["merge", &s("s1.csv"), &s("s2.csv"), &s("s3.csv"), &s("half.csv")]);
    assert_one_line_error(&o, "shard count 2 differs from 4");
    let o = ragjudge(&["merge", &s("s1.csv"), &s("s2.csv"), &s("s3.csv"), &s("seed.csv")]);
    assert_one_line_error(&o, "seed 9");
    let o = ragjudge(&["merge", &s("s1.csv"), &s("plain.csv")]);
    assert_one_line_error(&o, "was it written by `score --shard i/n`?");
    // A truncated shard file no longer matches its manifest.
    let text = std::fs::read_to_string(p("s2.csv")).unwrap();
    let keep: Vec<&str> = text.lines().take(3).collect();
    std::fs::write(p("s2.csv"), keep.join("\n") + "\n").unwrap();
    let o = ragjudge(&["merge", &s("s1.csv"), &s("s2.csv"), &s("s3.csv"), &s("s4.csv")]);
    assert_one_line_error(&o, "truncated?");
}

#[test]
fn bad_shard_specifications_are_refused() {
    let runs = example_runs();
    for (spec, want) in [
        ("0/4", "the shard number must be between 1 and 4"),
        ("5/4", "the shard number must be between 1 and 4"),
        ("1/0", "the number of shards must be at least 1"),
    ] {
        let o = ragjudge(&["score", "--metrics", "ciu", "--shard", spec, "--input", &runs[0]]);
        assert!(!o.status.success());
        let err = stderr(&o);
        assert!(err.contains(want) && err.contains(spec), "{err}");
    }
}

#[test]
fn a_batch_schedulers_variables_select_the_same_shard_as_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let runs = example_runs();
    let run = |out: &Path, flag: &[&str], env: &[(&str, &str)]| {
        let out = out.display().to_string();
        let mut args = vec!["score", "--metrics", "ciu", "--bootstrap", "50", "--json", "-o", &out];
        args.extend(flag);
        args.push("--input");
        args.extend(runs.iter().map(String::as_str));
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_ragjudge"));
        cmd.args(&args).env_remove("RAGJUDGE_SHARD_INDEX").env_remove("RAGJUDGE_SHARD_COUNT");
        cmd.envs(env.iter().copied()).output().unwrap()
    };
    // Task index 2 (from 0) of 4 is shard 3/4.
    let (by_flag, by_env) = (dir.path().join("flag.jsonl"), dir.path().join("env.jsonl"));
    let o = run(&by_flag, &["--shard", "3/4"], &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(&by_env, &[], &[("RAGJUDGE_SHARD_INDEX", "2"), ("RAGJUDGE_SHARD_COUNT", "4")]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&by_flag).unwrap(), std::fs::read_to_string(&by_env).unwrap());
    let summary: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(summary["shard"], "3/4");
    // One variable without the other is refused, in one line naming both.
    let o = run(&dir.path().join("x.jsonl"), &[], &[("RAGJUDGE_SHARD_INDEX", "2")]);
    assert_one_line_error(&o, "set both RAGJUDGE_SHARD_INDEX and RAGJUDGE_SHARD_COUNT, or neither");
}

#[test]
fn perturb_shards_split_the_questions_and_add_up_to_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let questions = repo_root().join("examples/questions.jsonl").display().to_string();
    let run = |name: &str, shard: Option<&str>| {
        let out = dir.path().join(name).display().to_string();
        let mut args = vec!["perturb", "--questions", &questions, "--output", &out, "--seed", "3"];
        if let Some(s) = shard {
            args.extend(["--shard", s]);
        }
        stdout(&ragjudge(&args));
        std::fs::read_to_string(out).unwrap().lines().map(str::to_string).collect::<BTreeSet<String>>()
    };
    let all = run("all.jsonl", None);
    let (a, b) = (run("a.jsonl", Some("1/2")), run("b.jsonl", Some("2/2")));
    assert!(!a.is_empty() && !b.is_empty());
    assert!(a.is_disjoint(&b));
    assert_eq!(a.union(&b).cloned().collect::<BTreeSet<_>>(), all);
}

#[test]
fn merge_caches_adds_each_workers_calls_once_and_refuses_bad_inputs() {
    use ragjudge_store::CallCache;
    let dir = tempfile::tempdir().unwrap();
    let (w1, w2, all) = (dir.path().join("w1.sqlite"), dir.path().join("w2.sqlite"), dir.path().join("all.sqlite"));
    let c1 = CallCache::open(&w1).unwrap();
    c1.put("a", &serde_json::json!(1)).unwrap();
    c1.put("b", &serde_json::json!(2)).unwrap();
    let c2 = CallCache::open(&w2).unwrap();
    c2.put("b", &serde_json::json!(2)).unwrap();
    c2.put("c", &serde_json::json!(3)).unwrap();
    drop((c1, c2));
    let (p1, p2, pa) = (w1.to_str().unwrap(), w2.to_str().unwrap(), all.to_str().unwrap());
    let o = ragjudge(&["merge-caches", p1, p2, "--into", pa]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), format!("{p1}: 2 new entries\n{p2}: 1 new entries\n{pa}: 3 entries\n"));
    let o = ragjudge(&["merge-caches", p1, p2, "--into", pa]);
    assert!(stdout(&o).ends_with(&format!("{pa}: 3 entries\n")) && stdout(&o).contains(": 0 new entries"));
    let missing = dir.path().join("nope.sqlite");
    assert_one_line_error(&ragjudge(&["merge-caches", missing.to_str().unwrap(), "--into", pa]), "no such cache file");
    assert_one_line_error(&ragjudge(&["merge-caches", pa, "--into", pa]), "is the cache merged into");
}
