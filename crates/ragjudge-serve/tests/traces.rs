//! `POST /v1/traces` in process: OTLP exports in protobuf, JSON and gzip, partial successes,
//! the queue bound, and the traces still waiting scored at shutdown. The instrumented client
//! end to end is crates/ragjudge-cli/tests/traces.rs.

mod common;

use common::{send_with, until, Running};
use ragjudge_serve::{App, Limits, Scorer, TraceSettings};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

fn fixture(name: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../ragjudge-traces/tests/fixtures").join(name);
    std::fs::read(p).unwrap()
}

fn ciu() -> Scorer {
    Scorer::from_names(&["ciu"], Default::default(), Default::default(), Some(1)).unwrap()
}

fn app(settings: TraceSettings) -> Arc<App> {
    App::with_traces(ciu(), None, Limits::default(), Some(settings)).unwrap()
}

fn quick() -> TraceSettings {
    TraceSettings { settle: Duration::from_millis(50), ..TraceSettings::default() }
}

/// A counter of the app's trace metrics.
fn counter(app: &App, name: &str) -> u64 {
    let mut text = String::new();
    app.traces().unwrap().render(&mut text);
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("{name} ")))
        .map(|v| v.parse().unwrap())
        .unwrap_or_else(|| panic!("{name} not in\n{text}"))
}

async fn export(server: &Running, body: Vec<u8>, headers: &[(&str, &str)]) -> common::Answer {
    send_with("POST", &server.url("/v1/traces"), body, headers).await
}

#[tokio::test]
async fn without_traces_the_route_is_501() {
    let server = Running::start(App::new(ciu(), None, Limits::default()).unwrap()).await;
    let a = export(&server, fixture("genai.pb"), &[("content-type", "application/x-protobuf")]).await;
    assert_eq!(a.status, 501);
    assert!(a.body.contains("--traces"), "{}", a.body);
}

#[tokio::test]
async fn protobuf_json_and_gzip_exports_are_scored() {
    let app = app(quick());
    let server = Running::start(app.clone()).await;
    // Protobuf: an empty ExportTraceServiceResponse is zero bytes.
    let a = export(&server, fixture("openinference.pb"), &[("content-type", "application/x-protobuf")]).await;
    assert_eq!((a.status, a.content_type.as_deref(), a.bytes.len()), (200, Some("application/x-protobuf"), 0));
    // JSON with two unreadable spans: a partial success naming the first.
    let a = export(&server, fixture("bad_spans.json"), &[("content-type", "application/json")]).await;
    assert_eq!(a.status, 200);
    let v = a.json();
    assert_eq!(v["partialSuccess"]["rejectedSpans"], "2");
    assert!(v["partialSuccess"]["errorMessage"].as_str().unwrap().contains("invalid trace id"), "{v}");
    // Gzip.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&fixture("genai.pb")).unwrap();
    let a = export(
        &server,
        gz.finish().unwrap(),
        &[("content-type", "application/x-protobuf"), ("content-encoding", "gzip")],
    )
    .await;
    assert_eq!(a.status, 200);
    // 3 OpenInference traces, the readable span of bad_spans.json, the GenAI trace.
    until("5 records scored", || counter(&app, "ragjudge_trace_records_scored_total") == 5).await;
    assert_eq!(counter(&app, "ragjudge_trace_spans_received_total"), 12 + 3 + 3);
    assert_eq!(counter(&app, "ragjudge_trace_spans_invalid_total"), 2);
    assert_eq!(counter(&app, "ragjudge_trace_spans_dropped_total"), 0);
    let metrics = common::get(&server.url("/metrics")).await.body;
    assert!(metrics.contains("ragjudge_window_scores_total{system=\"genai-rag\",model=\"qwen2.5-1.5b-instruct\",route=\"\",column=\"ciu\"} 1\n"), "{metrics}");
    assert!(metrics.contains("ragjudge_http_requests_total{route=\"/v1/traces\",status=\"200\"} 3\n"));
}

#[tokio::test]
async fn bad_bodies_get_one_line_errors() {
    let server = Running::start(app(quick())).await;
    let a = export(&server, b"{\"resourceSpans\": 3}".to_vec(), &[("content-type", "application/json")]).await;
    assert_eq!(a.status, 400);
    assert!(a.json()["error"].as_str().unwrap().starts_with("not an OTLP/JSON trace request"), "{}", a.body);
    let a = export(&server, vec![0xff, 0x01], &[("content-type", "application/x-protobuf")]).await;
    assert_eq!(a.status, 400);
    let a = export(&server, fixture("genai.pb"), &[("content-encoding", "br")]).await;
    assert_eq!(a.status, 415);
    assert!(a.body.contains("Content-Encoding br is not supported"), "{}", a.body);
    let a = export(&server, b"not gzip".to_vec(), &[("content-encoding", "gzip")]).await;
    assert_eq!(a.status, 400);
}

#[tokio::test]
async fn a_full_queue_drops_and_counts_without_waiting() {
    // A bound of 2 spans: the 3 spans of one export do not fit, none is queued.
    let app = app(TraceSettings { queue: 2, ..quick() });
    let server = Running::start(app.clone()).await;
    let a = export(&server, fixture("genai.json"), &[("content-type", "application/json")]).await;
    assert_eq!(a.status, 200);
    let v = a.json();
    assert_eq!(v["partialSuccess"]["rejectedSpans"], "3");
    assert_eq!(v["partialSuccess"]["errorMessage"], "queue full (2 spans waiting): 3 spans dropped");
    assert_eq!(counter(&app, "ragjudge_trace_spans_dropped_total"), 3);
    // The next export fits (one readable span, two refused as unreadable).
    let a = export(&server, fixture("bad_spans.json"), &[("content-type", "application/json")]).await;
    assert_eq!(a.json()["partialSuccess"]["rejectedSpans"], "2");
    until("1 record scored", || counter(&app, "ragjudge_trace_records_scored_total") == 1).await;
    assert_eq!(counter(&app, "ragjudge_trace_spans_dropped_total"), 3);
}

#[tokio::test]
async fn traces_still_waiting_are_scored_when_the_server_stops() {
    // A settle far longer than the test: only the shutdown drain scores the trace.
    let app = app(TraceSettings { settle: Duration::from_secs(600), max_wait: Duration::from_secs(600), ..quick() });
    let mut server = Running::start(app.clone()).await;
    let a = export(&server, fixture("genai.json"), &[("content-type", "application/json")]).await;
    assert_eq!((a.status, a.body.as_str()), (200, "{}"));
    until("the spans queued", || counter(&app, "ragjudge_trace_queue_spans") == 0).await;
    assert_eq!(counter(&app, "ragjudge_trace_records_scored_total"), 0);
    server.shutdown();
    let app2 = app.clone();
    tokio::task::spawn_blocking(move || app2.finish_traces()).await.unwrap();
    assert_eq!(counter(&app, "ragjudge_trace_records_scored_total"), 1);
}
