//! What the end-to-end tests of the `ragjudge` binary share: running it, writing input files,
//! and checking its one-line errors.
#![allow(dead_code)] // each test file uses some of these

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs the binary with `args`.
pub fn ragjudge(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ragjudge")).args(args).output().expect("run ragjudge")
}

/// Runs the binary with `args` judged by `openai:test-model` at `base_url`.
pub fn ragjudge_http(base_url: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ragjudge"))
        .args(args)
        .args(["--judge", "openai:test-model"])
        .env("OPENAI_BASE_URL", base_url)
        .env_remove("OPENAI_API_KEY")
        .output()
        .expect("run ragjudge")
}

/// The repository's root (for the bundled examples).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// The bundled example's four run files (oracle, partial, wrong, abstain), as strings.
pub fn example_runs() -> Vec<String> {
    ["oracle", "partial", "wrong", "abstain"]
        .iter()
        .map(|s| repo_root().join(format!("examples/runs/{s}.jsonl")).display().to_string())
        .collect()
}

/// Writes `contents` to `dir/name` and returns the path as a string.
pub fn write(dir: &Path, name: &str, contents: impl AsRef<[u8]>) -> String {
    let p = dir.join(name);
    std::fs::write(&p, contents).unwrap();
    p.display().to_string()
}

/// The run's stderr.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The stdout of a run that must have succeeded.
pub fn stdout(o: &Output) -> String {
    assert!(o.status.success(), "stderr: {}", stderr(o));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Asserts a failed run with exactly one stderr line that starts with `error: ` and contains `want`.
pub fn assert_one_line_error(o: &Output, want: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(1), "stderr: {err}");
    assert!(!err.contains("panicked"), "panic: {err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "expected one line, got: {err}");
    assert!(lines[0].starts_with("error: "), "{err}");
    assert!(lines[0].contains(want), "`{want}` not in: {err}");
}

/// Asserts that `ragjudge report` uses `path` (a file or run directory) and that `ragjudge gate`
/// reads it and passes `gate_args` (checks on the figures the artifact holds).
pub fn assert_report_and_gate_read(path: &Path, gate_args: &[&str]) {
    assert_eq!(report_and_gate(path, gate_args), Some(0));
}

/// Runs `ragjudge report` on `path` (asserting that it uses it) and then `ragjudge gate` with
/// `gate_args`; the gate's exit code (0 passed, 1 a check failed, 2 it could not run: asserted
/// not to be for want of reading the file).
pub fn report_and_gate(path: &Path, gate_args: &[&str]) -> Option<i32> {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("report.html");
    let o = ragjudge(&["report", path.to_str().unwrap(), "--output", html.to_str().unwrap(), "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["skipped"], serde_json::json!([]), "report left {} out", path.display());
    let mut args = vec!["gate", path.to_str().unwrap()];
    args.extend(gate_args);
    let o = ragjudge(&args);
    let out = format!("gate {gate_args:?} on {}: {}{}", path.display(), stderr(&o), String::from_utf8_lossy(&o.stdout));
    assert_ne!(o.status.code(), Some(2), "{out}");
    assert!(o.status.code() == Some(0) || o.status.code() == Some(1), "{out}");
    o.status.code()
}
