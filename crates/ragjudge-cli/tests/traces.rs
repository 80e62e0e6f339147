//! `ragjudge import` on the trace fixtures, and `serve --traces` fed by a real client: a toy RAG
//! application instrumented with the OpenTelemetry Python SDK and its OTLP/HTTP exporter
//! (`tests/otel/toy_rag.py`, OpenInference attribute names), with a planted fall of
//! groundedness. The client test runs when python3 can import the SDK (`scripts/setup.sh`
//! installs it); `RAGJUDGE_REQUIRE_OTEL=1` makes its absence a failure.

mod common;

use common::{assert_one_line_error, ragjudge, repo_root, stdout};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn fixture(name: &str) -> String {
    repo_root().join("crates/ragjudge-traces/tests/fixtures").join(name).display().to_string()
}

#[test]
fn import_reads_every_convention_and_counts_what_it_leaves_out() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("records.jsonl");
    let files = ["openinference.pb", "genai.json", "langfuse.json", "bad_spans.json"].map(fixture);
    let mut args = vec!["import"];
    args.extend(files.iter().map(String::as_str));
    args.extend(["-o", out.to_str().unwrap(), "--json"]);
    let o = ragjudge(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    // 3 OpenInference traces + 1 GenAI + 2 Langfuse + 1 readable OTLP/JSON trace.
    assert_eq!(s["records"], 7, "{s}");
    assert_eq!(s["bad_spans"], 3);
    assert_eq!(s["skipped_traces"], 1);
    assert_eq!(s["sessions"], 3);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("import: left out: trace lf-trace-3: no answer"), "{stderr}");
    // The records feed `score` like any run.
    let scores = dir.path().join("scores.jsonl");
    let o = ragjudge(&["score", "--input", out.to_str().unwrap(), "--metrics", "ciu", "-o", scores.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read_to_string(&scores).unwrap().lines().count(), 7);
    // One-line errors.
    let bad = dir.path().join("x.json");
    std::fs::write(&bad, "{\"resourceSpans\": 7}").unwrap();
    let o = ragjudge(&["import", bad.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_one_line_error(&o, "x.json:1: not an OTLP/JSON trace request");
    let o = ragjudge(&["import", &fixture("genai.pb"), "--format", "zipkin", "-o", out.to_str().unwrap()]);
    assert_one_line_error(&o, "--format \"zipkin\": expected otlp-json, otlp-proto or langfuse");
}

fn otel_available() -> bool {
    let probe = "import opentelemetry.sdk, opentelemetry.exporter.otlp.proto.http, openinference.semconv";
    let ok = Command::new("python3").args(["-c", probe]).output().is_ok_and(|o| o.status.success());
    if !ok && std::env::var("RAGJUDGE_REQUIRE_OTEL").is_ok_and(|v| v == "1") {
        panic!("the OpenTelemetry client test is required (RAGJUDGE_REQUIRE_OTEL=1): python3 cannot import the SDK");
    }
    if !ok {
        eprintln!("skipped: python3 has no OpenTelemetry SDK (run scripts/setup.sh)");
    }
    ok
}

/// A GET on the server; the body.
fn get(addr: &str, path: &str) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    write!(s, "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    text.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default()
}

/// The value of a metric line starting with `prefix` (0 when absent).
fn metric(text: &str, prefix: &str) -> f64 {
    text.lines().find(|l| l.starts_with(prefix)).and_then(|l| l.rsplit(' ').next()?.parse().ok()).unwrap_or(0.0)
}

/// A webhook that accepts one POST and hands its body over.
fn webhook() -> (String, std::sync::mpsc::Receiver<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut length = 0;
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                length = v.trim().parse().unwrap();
            }
            if line == "\r\n" {
                break;
            }
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        let mut stream = stream;
        stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n").unwrap();
        tx.send(String::from_utf8(body).unwrap()).unwrap();
    });
    (url, rx)
}

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
    }
}

#[test]
fn serve_scores_traces_from_an_instrumented_client_and_alerts_on_a_planted_fall() {
    if !otel_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("traces");
    let (hook, hook_rx) = webhook();
    let mut child = Command::new(env!("CARGO_BIN_EXE_ragjudge"))
        .args(["serve", "--metrics", "ciu", "--addr", "127.0.0.1:0", "--traces", "--trace-settle", "0.2"])
        .args(["--drift-window", "20", "--drift-baseline", "30", "--drift-columns", "ciu"])
        .arg("--trace-output")
        .arg(&out)
        .args(["--alert-webhook", &hook])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    let server = Server(child);
    let addr = first.trim().rsplit("http://").next().unwrap().to_string();
    // 90 questions in conversations of three turns; grounded answers until the 60th.
    let script = repo_root().join("crates/ragjudge-cli/tests/otel/toy_rag.py");
    let o = Command::new("python3")
        .arg(script)
        .args(["--endpoint", &format!("http://{addr}/v1/traces"), "--questions", "90", "--drop-after", "60"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let deadline = Instant::now() + Duration::from_secs(60);
    let text = loop {
        let text = get(&addr, "/metrics");
        if metric(&text, "ragjudge_trace_records_scored_total ") >= 90.0 || Instant::now() > deadline {
            break text;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(metric(&text, "ragjudge_trace_records_scored_total "), 90.0, "{text}");
    assert_eq!(metric(&text, "ragjudge_trace_spans_received_total "), 270.0);
    assert_eq!(metric(&text, "ragjudge_trace_spans_dropped_total "), 0.0);
    assert_eq!(metric(&text, "ragjudge_trace_spans_invalid_total "), 0.0);
    assert_eq!(metric(&text, "ragjudge_traces_total "), 90.0);
    let labels = "system=\"toy-rag\",model=\"toy-llm\",route=\"\",column=\"ciu\"";
    assert!(metric(&text, &format!("ragjudge_drift_alerts_total{{kind=\"shift\",{labels}}}")) >= 1.0, "{text}");
    // The first alert comes after the fall, within 20 answers of it.
    let alerts = std::fs::read_to_string(out.join("alerts.jsonl")).unwrap();
    let first_alert: serde_json::Value = serde_json::from_str(alerts.lines().next().unwrap()).unwrap();
    let at = first_alert["scores"].as_u64().unwrap();
    assert!((61..=80).contains(&at), "first alert at score {at}: {first_alert}");
    assert!(first_alert["baseline_mean"].as_f64().unwrap() > first_alert["window_mean"].as_f64().unwrap());
    let posted: serde_json::Value =
        serde_json::from_str(&hook_rx.recv_timeout(Duration::from_secs(10)).unwrap()).unwrap();
    assert_eq!(posted["kind"], "shift");
    assert_eq!(posted["column"], "ciu");
    // Scored rows and records on disk; later turns carry the conversation.
    let scores = std::fs::read_to_string(out.join("scores-000001.jsonl")).unwrap();
    assert_eq!(scores.lines().count(), 90);
    let records = std::fs::read_to_string(out.join("records-000001.jsonl")).unwrap();
    let third: Vec<serde_json::Value> = records
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|r| r["meta"]["turn"] == 3)
        .collect();
    assert_eq!(third.len(), 30);
    assert!(third.iter().all(|r| r["history"].as_array().unwrap().len() == 4));
    // The report reads the rotated files.
    let report = dir.path().join("report.html");
    let o = ragjudge(&[
        "report",
        out.join("scores-000001.jsonl").to_str().unwrap(),
        out.join("records-000001.jsonl").to_str().unwrap(),
        "-o",
        report.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    drop(server);
}

#[test]
fn trace_options_are_checked_before_the_server_starts() {
    let o = ragjudge(&["serve", "--metrics", "ciu", "--addr", "127.0.0.1:0", "--trace-output", "x"]);
    assert_one_line_error(&o, "--trace-output, --alert-below and --alert-webhook need --traces");
    let o = ragjudge(&["serve", "--metrics", "ciu", "--addr", "127.0.0.1:0", "--traces", "--trace-sample", "0"]);
    assert_one_line_error(&o, "--trace-sample must be in (0, 1], got 0");
    let o = ragjudge(&["serve", "--metrics", "ciu", "--addr", "127.0.0.1:0", "--traces", "--alert-below", "ciu"]);
    assert_one_line_error(&o, "--alert-below \"ciu\": expected COLUMN=VALUE");
    let o = ragjudge(&["serve", "--metrics", "ciu", "--addr", "127.0.0.1:0", "--traces", "--drift-baseline", "1"]);
    assert_one_line_error(&o, "--drift-baseline must be at least 2");
}
