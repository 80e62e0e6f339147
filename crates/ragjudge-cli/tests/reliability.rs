//! Regression tests for faults a hostile user found: outputs that destroyed inputs, runs that
//! left half-written files, writers that interleaved, gates that passed on nothing, NaN options,
//! collinear or hand-edited fusion models, and wrong exit codes. Each test is named after its fault.

mod common;

use common::*;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn example(system: &str) -> String {
    repo_root().join(format!("examples/runs/{system}.jsonl")).display().to_string()
}

/// A run file of `n` records (each a copy of a small record with its own id), for runs long
/// enough to interrupt.
fn many_records(dir: &Path, n: usize) -> String {
    let path = dir.join("many.jsonl");
    let mut w = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    for i in 0..n {
        writeln!(
            w,
            r#"{{"id": "q{i}", "system": "s", "query": "What releases water vapour from leaves?", "answer": "Plants release water vapour through pores in their leaves, called transpiration.", "reference": "Transpiration releases water vapour through small pores in the leaves.", "contexts": [{{"id": "d{i}", "text": "Plants release water vapour through small pores.", "relevance": 2}}]}}"#
        )
        .unwrap();
    }
    w.flush().unwrap();
    path.display().to_string()
}

/// `score --metrics lexical` of `inputs` into `output`, which must succeed.
fn score_lexical(inputs: &[&str], output: &str, extra: &[&str]) {
    let args = [&["score", "--metrics", "lexical", "-o", output, "--input"][..], inputs, extra].concat();
    stdout(&ragjudge(&args));
}

fn spawn_score(input: &str, output: &str) -> Child {
    Command::new(env!("CARGO_BIN_EXE_ragjudge"))
        .args(["score", "--metrics", "lexical,ciu", "--input", input, "--output", output])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run ragjudge")
}

/// Waits until a partial file of `output` exists in its folder (the run has started writing).
fn wait_for_partial(output: &Path) -> bool {
    let name = output.file_name().unwrap().to_string_lossy().into_owned();
    let dir = output.parent().unwrap();
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(60) {
        if partial_files(dir, &name) > 0 {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

fn partial_files(dir: &Path, name: &str) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .filter(|e| {
            let n = e.as_ref().unwrap().file_name().to_string_lossy().into_owned();
            n.starts_with(&format!(".{name}.")) && n.ends_with(".partial")
        })
        .count()
}

fn signal(child: &Child, sig: &str) {
    let ok = Command::new("kill").args([sig, &child.id().to_string()]).status().unwrap().success();
    assert!(ok, "kill {sig} failed");
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

#[test]
fn fault_1_an_output_equal_to_an_input_is_refused_and_the_input_kept() {
    let dir = tempfile::tempdir().unwrap();
    let same = dir.path().join("same.jsonl");
    std::fs::copy(example("oracle"), &same).unwrap();
    let before = std::fs::read(&same).unwrap();
    let s = same.display().to_string();
    let o = ragjudge(&["score", "--metrics", "lexical", "--input", &s, "--output", &s]);
    assert_one_line_error(&o, "the output is also the input");
    assert_eq!(std::fs::read(&same).unwrap(), before);
    // The same file by another path.
    let dotted = dir.path().join(".").join("same.jsonl").display().to_string();
    let o = ragjudge(&["score", "--metrics", "lexical", "--input", &s, "--output", &dotted]);
    assert_one_line_error(&o, "the output is also the input");
    assert_eq!(std::fs::read(&same).unwrap(), before);

    // merge a.csv b.csv --output a.csv
    let a = dir.path().join("a.csv").display().to_string();
    let b = dir.path().join("b.csv").display().to_string();
    for (out, shard) in [(&a, "1/2"), (&b, "2/2")] {
        score_lexical(&[&example("oracle")], out, &["--shard", shard]);
    }
    let shard_a = std::fs::read(&a).unwrap();
    let o = ragjudge(&["merge", &a, &b, "--output", &a]);
    assert_one_line_error(&o, "the output is also the input");
    assert_eq!(std::fs::read(&a).unwrap(), shard_a);

    // perturb --questions q.jsonl --output q.jsonl
    let q = dir.path().join("q.jsonl");
    std::fs::copy(repo_root().join("examples/questions.jsonl"), &q).unwrap();
    let questions = std::fs::read(&q).unwrap();
    let qs = q.display().to_string();
    let o = ragjudge(&["perturb", "--questions", &qs, "--output", &qs]);
    assert_one_line_error(&o, "the output is also the input");
    assert_eq!(std::fs::read(&q).unwrap(), questions);
}

#[test]
fn fault_2_an_interrupted_score_keeps_the_previous_output_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("scores.csv");
    let outs = out.display().to_string();
    stdout(&ragjudge(&["score", "--metrics", "lexical,ciu", "--input", &example("oracle"), "-o", &outs]));
    let previous = std::fs::read(&out).unwrap();
    let previous_columns = std::fs::read(dir.path().join("scores.csv.columns.json")).unwrap();
    let input = many_records(dir.path(), 60_000);

    // SIGINT: the run stops between batches, says what it kept, exits 130.
    let child = spawn_score(&input, &outs);
    assert!(wait_for_partial(&out), "the run never started writing");
    signal(&child, "-INT");
    let o = child.wait_with_output().unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted"), "{err}");
    assert!(err.contains("previous output") || err.contains("earlier outputs are unchanged"), "{err}");
    assert_eq!(std::fs::read(&out).unwrap(), previous, "the previous output was changed");
    assert_eq!(std::fs::read(dir.path().join("scores.csv.columns.json")).unwrap(), previous_columns);
    assert_eq!(partial_files(dir.path(), "scores.csv"), 0, "{:?}", files_in(dir.path()));

    // SIGKILL: nothing runs at all, yet the output path holds the previous complete file; the
    // next run removes the hidden partial file and replaces the output whole.
    let mut child = spawn_score(&input, &outs);
    assert!(wait_for_partial(&out), "the run never started writing");
    signal(&child, "-KILL");
    let _ = child.wait();
    assert_eq!(std::fs::read(&out).unwrap(), previous, "the previous output was changed");
    let small = example("wrong");
    score_lexical(&[&small], &outs, &[]);
    assert_eq!(partial_files(dir.path(), "scores.csv"), 0, "{:?}", files_in(dir.path()));
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(text.lines().count(), 32, "a header and the 31 records of `wrong`");
    assert!(text.lines().skip(1).all(|l| l.contains(",wrong,")));
}

#[test]
fn fault_3_a_second_writer_of_the_same_output_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("scores.csv");
    let outs = out.display().to_string();
    let input = many_records(dir.path(), 60_000);
    let mut first = spawn_score(&input, &outs);
    assert!(wait_for_partial(&out), "the first run never started writing");
    let second = ragjudge(&["score", "--metrics", "lexical", "--input", &example("oracle"), "-o", &outs]);
    signal(&first, "-KILL");
    let _ = first.wait();
    assert_one_line_error(&second, "another ragjudge process is writing this output");
    assert!(!out.exists(), "neither run completed, so nothing is at the output path");
}

#[test]
fn fault_4_a_gate_on_a_summary_without_records_cannot_pass() {
    let dir = tempfile::tempdir().unwrap();
    let empty = write(dir.path(), "empty.jsonl", "");
    let o = ragjudge(&["gate", &empty, "--min", "rougeL_f=0.1"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("no record to check"), "{}", stderr(&o));
    let header = write(dir.path(), "header.csv", "id,system,run,rougeL_f,error\n");
    let o = ragjudge(&["gate", &header, "--min", "nosuch=0.1"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn weak_spot_a_nan_cell_is_the_same_error_for_gate_weakness_and_correlate() {
    // Once counted as missing by `gate` and `weakness` and refused by `correlate`: now refused by
    // every reader, naming file, line and column.
    let dir = tempfile::tempdir().unwrap();
    let scores = write(dir.path(), "s.csv", "id,system,topic,a,b\nq1,s,x,0.5,1\nq2,s,y,NaN,2\nq3,s,x,0.7,3\n");
    let want = format!("{scores}:3: field `a`: not a finite number: NaN");
    let gate = ragjudge(&["gate", &scores, "--min", "a=0.1"]);
    assert_eq!(gate.status.code(), Some(2), "{}", stderr(&gate));
    assert!(stderr(&gate).contains(&want), "{}", stderr(&gate));
    let out = dir.path().join("weak").display().to_string();
    let weakness = ragjudge(&["weakness", "--scores", &scores, "--by", "topic", "--metric", "a", "--output", &out]);
    assert!(!weakness.status.success());
    assert!(stderr(&weakness).contains(&want), "{}", stderr(&weakness));
    let correlate = ragjudge(&["correlate", &scores, "--x", "a", "--y", "b"]);
    assert!(!correlate.status.success());
    assert!(stderr(&correlate).contains(&want), "{}", stderr(&correlate));
}

#[test]
fn fault_5_a_nan_relevance_threshold_is_refused() {
    let o =
        ragjudge(&["score", "--metrics", "retrieval", "--input", &example("oracle"), "--relevance-threshold", "NaN"]);
    assert_one_line_error(&o, "--relevance-threshold must be a finite number, got NaN");
}

/// Scores the example with lexical metrics and writes labels `rating = 1 + 2 rougeL_f`.
fn fusion_inputs(dir: &Path) -> (String, String) {
    let scores = dir.join("scores.csv").display().to_string();
    score_lexical(&[&example("oracle"), &example("wrong")], &scores, &[]);
    let mut rdr = csv::Reader::from_path(&scores).unwrap();
    let h = rdr.headers().unwrap().clone();
    let col = h.iter().position(|c| c == "rougeL_f").unwrap();
    let mut labels = String::from("id,system,rating\n");
    for r in rdr.records() {
        let r = r.unwrap();
        let y = 1.0 + 2.0 * r[col].parse::<f64>().unwrap();
        labels.push_str(&format!("{},{},{y}\n", &r[0], &r[1]));
    }
    (scores, write(dir, "labels.csv", labels))
}

/// A change to a model file.
type Edit = fn(&mut serde_json::Value);

/// `fuse fit` of a linear model on `inputs`, saved to `model`.
fn fit_linear(scores: &str, labels: &str, inputs: &str, model: &str) -> std::process::Output {
    let args = ["fuse", "fit", "--scores", scores, "--labels", labels, "--label-col", "rating", "--inputs", inputs];
    ragjudge(&[&args[..], &["--model", "linear", "--save", model]].concat())
}

#[test]
fn fault_6_a_repeated_fusion_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (scores, labels) = fusion_inputs(dir.path());
    let model = dir.path().join("m.json").display().to_string();
    let o = fit_linear(&scores, &labels, "rougeL_f,rougeL_f", &model);
    assert_one_line_error(&o, "input column `rougeL_f` is named twice");
    assert!(!Path::new(&model).exists());
}

#[test]
fn fault_7_a_hand_edited_fusion_model_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (scores, labels) = fusion_inputs(dir.path());
    let model = dir.path().join("m.json");
    let models = model.display().to_string();
    stdout(&fit_linear(&scores, &labels, "rougeL_f,bleu", &models));
    let fitted: serde_json::Value = serde_json::from_slice(&std::fs::read(&model).unwrap()).unwrap();
    let edits: [(&str, Edit); 2] = [
        ("deviation of input 1 is 0", |m| m["model"]["scaler"]["sd"][0] = 0.0.into()),
        ("1 weights for 2 inputs", |m| {
            m["model"]["linear"]["coef"].as_array_mut().unwrap().pop();
        }),
    ];
    for (want, edit) in edits {
        let mut m = fitted.clone();
        edit(&mut m);
        let edited = write(dir.path(), "edited.json", serde_json::to_vec(&m).unwrap());
        let o = ragjudge(&["fuse", "apply", &edited, "--scores", &scores]);
        assert_one_line_error(&o, want);
        let o = ragjudge(&["score", "--input", &example("oracle"), "--metrics", &format!("lexical,fused:{edited}")]);
        assert_one_line_error(&o, want);
    }
}

#[test]
fn fault_9_an_unwritable_junit_report_exits_2_not_1() {
    let dir = tempfile::tempdir().unwrap();
    let scores = dir.path().join("s.csv").display().to_string();
    score_lexical(&[&example("oracle")], &scores, &[]);
    let o = ragjudge(&["gate", &scores, "--min", "rougeL_f=0", "--junit", "/nonexistent-ragjudge-dir/x.xml"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("/nonexistent-ragjudge-dir/x.xml"), "{}", stderr(&o));
}

#[test]
fn a_file_given_twice_is_warned_about() {
    let o = ragjudge(&["score", "--metrics", "lexical", "--input", &example("oracle"), &example("oracle")]);
    let err = stderr(&o);
    assert!(err.contains("is the same file as"), "{err}");
}

#[test]
fn an_empty_question_file_is_not_zero_variants() {
    let dir = tempfile::tempdir().unwrap();
    let empty = write(dir.path(), "q.jsonl", "");
    let out = dir.path().join("v.jsonl").display().to_string();
    let o = ragjudge(&["perturb", "--questions", &empty, "--output", &out]);
    assert_one_line_error(&o, "no questions or records to vary");
    assert!(!PathBuf::from(&out).exists());
}

#[test]
fn a_newer_or_unknown_artifact_is_a_one_line_refusal() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("t");
    std::fs::create_dir(&run).unwrap();
    let newer = run.join("leaderboard.json");
    std::fs::write(&newer, r#"{"kind": "leaderboard", "schema_version": 99, "systems": [], "matches": []}"#).unwrap();
    let o = ragjudge(&["gate", newer.to_str().unwrap(), "--beats", "x"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("schema version 99 was written by a newer ragjudge"), "{}", stderr(&o));
    let out = dir.path().join("r.html").display().to_string();
    let o = ragjudge(&["report", run.to_str().unwrap(), "--output", &out]);
    assert!(stderr(&o).contains("schema version 99 was written by a newer ragjudge"), "{}", stderr(&o));
    assert!(!o.status.success());
    let unknown = write(dir.path(), "x.json", r#"{"kind": "hologram", "schema_version": 1}"#);
    let o = ragjudge(&["gate", &unknown, "--min", "a=1"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("a `hologram` file"), "{}", stderr(&o));
}

#[test]
fn perturb_refuses_repeated_question_ids_whose_variants_would_collide() {
    let dir = tempfile::tempdir().unwrap();
    let q = write(
        dir.path(),
        "q.jsonl",
        "{\"id\": \"q1\", \"query\": \"What is rain?\"}\n{\"id\": \"q1\", \"query\": \"What is snow?\"}\n",
    );
    let out = dir.path().join("v.jsonl").display().to_string();
    let o = ragjudge(&["perturb", "--questions", &q, "--output", &out]);
    assert_one_line_error(&o, "q.jsonl:2: field `id`: \"q1\" repeats line 1");
}
