//! The server end to end on loopback: values, errors, back-pressure, timeouts, metrics, OpenAPI
//! and graceful shutdown.

mod common;

use common::{get, post, raw, read_until_closed, records_body, spawn_post, until, Gate, GatedMetric, Running};
use ragjudge_core::{Metric, MetricError, MetricOutput, ReadOptions, Record, RecordReader};
use ragjudge_eval::{EvalSettings, Evaluator, MemorySink, NoProgress};
use ragjudge_serve::{App, Limits, Scorer};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn lexical_ciu() -> Scorer {
    Scorer::from_names(&["lexical", "ciu"], Default::default(), Default::default(), Some(1)).unwrap()
}

fn gated(gate: &Arc<Gate>, limits: Limits) -> Arc<App> {
    let metrics: Vec<Box<dyn Metric>> = vec![Box::new(GatedMetric(gate.clone()))];
    App::new(Scorer::from_metrics(metrics, Some(1)).unwrap(), None, limits).unwrap()
}

#[tokio::test]
async fn scores_equal_the_engine_on_the_example_records() {
    // The first 6 records of each example system, sent as one request.
    let mut records: Vec<Record> = Vec::new();
    for name in ["oracle", "partial", "abstain", "wrong"] {
        let path = repo_root().join(format!("examples/runs/{name}.jsonl"));
        let reader = RecordReader::open(&path, &ReadOptions::default()).unwrap();
        records.extend(reader.take(6).map(Result::unwrap));
    }
    let body = json!({ "records": records }).to_string();
    let server = Running::start(App::new(lexical_ciu(), None, Limits::default()).unwrap()).await;
    let answer = post(&server.url("/v1/score"), body).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let got = answer.json();

    // The same records through the engine directly.
    let metrics = ragjudge_eval::families::build_metrics(
        &["lexical", "ciu"],
        &Default::default(),
        &ragjudge_eval::models::ModelSet::new(Default::default()),
    )
    .unwrap();
    let evaluator = Evaluator::new(metrics, EvalSettings::default()).unwrap();
    let mut sink = MemorySink::default();
    evaluator.evaluate_records(records.clone(), Some(&mut sink), Vec::new(), &NoProgress).unwrap();

    let columns: Vec<String> = serde_json::from_value(got["columns"].clone()).unwrap();
    assert_eq!(columns, sink.columns);
    assert!(columns.contains(&"token_f1".to_string()) && columns.contains(&"ciu".to_string()), "{columns:?}");
    assert_eq!((got["records"].as_u64(), got["failed"].as_u64()), (Some(24), Some(0)));
    let rows = got["rows"].as_array().unwrap();
    assert_eq!(rows.len(), sink.rows.len());
    for (row, want) in rows.iter().zip(&sink.rows) {
        assert_eq!(
            (row["id"].as_str().unwrap(), row["system"].as_str().unwrap()),
            (want.id.as_str(), want.system.as_str())
        );
        for (c, v) in columns.iter().zip(&want.values) {
            // Exactly equal: the same code on the same input, and JSON round-trips f64.
            assert_eq!(row[c].as_f64(), *v, "{} {} {c}", want.id, want.system);
        }
        assert_eq!(row["detail"], Value::Object(want.detail.clone()));
        assert!(row.get("error").is_none());
    }
}

#[tokio::test]
async fn token_f1_of_a_tiny_pair_by_hand() {
    // SQuAD normalisation drops articles and punctuation: answer {cat, sat, on, mat}, reference
    // {cat, sat}; 2 shared tokens: P = 2/4, R = 2/2, F1 = 2 * 0.5 * 1 / 1.5 = 2/3. No reference
    // in the second record: every lexical column is null.
    let server = Running::start(App::new(lexical_ciu(), None, Limits::default()).unwrap()).await;
    let body = r#"{"records": [{"id": "t1", "query": "Where did the cat sit?", "answer": "The cat sat on the mat.", "reference": "A cat sat."},
                               {"id": "t2", "query": "q", "answer": "a"}], "detail": false}"#;
    let answer = post(&server.url("/v1/score"), body).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let v = answer.json();
    let f1 = v["rows"][0]["token_f1"].as_f64().unwrap();
    assert!((f1 - 2.0 / 3.0).abs() < 1e-12, "{f1}");
    assert_eq!(v["rows"][0]["exact_match"].as_f64(), Some(0.0));
    assert_eq!(v["rows"][0]["system"], "request");
    assert!(v["rows"][0].get("detail").is_none(), "detail: false drops the evidence");
    assert_eq!(v["rows"][1]["token_f1"], Value::Null);
}

/// Fails on records whose query is `fail`, panics on `panic`, else scores 0.5.
struct Picky;

impl Metric for Picky {
    fn name(&self) -> &str {
        "picky"
    }
    fn columns(&self) -> Vec<String> {
        vec!["picky".into()]
    }
    fn score(&self, record: &Record) -> Result<MetricOutput, MetricError> {
        match record.query.as_str() {
            "fail" => Err(MetricError::Record("no good".into())),
            "panic" => panic!("picky metric panicked"),
            _ => Ok(MetricOutput { values: vec![Some(0.5)], detail: None }),
        }
    }
}

#[tokio::test]
async fn a_failed_record_is_reported_in_its_row_and_a_panic_is_a_500_not_a_crash() {
    let metrics: Vec<Box<dyn Metric>> = vec![Box::new(Picky)];
    let server =
        Running::start(App::new(Scorer::from_metrics(metrics, Some(1)).unwrap(), None, Limits::default()).unwrap())
            .await;
    let url = server.url("/v1/score");
    let body = r#"{"records": [{"query": "ok", "answer": "a"}, {"query": "fail", "answer": "a"}]}"#;
    let answer = post(&url, body).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let v = answer.json();
    assert_eq!((v["records"].as_u64(), v["failed"].as_u64()), (Some(2), Some(1)));
    assert_eq!(v["rows"][0]["picky"].as_f64(), Some(0.5));
    assert_eq!(v["rows"][1]["picky"], Value::Null);
    assert_eq!(v["rows"][1]["error"], "picky: no good");

    let answer = post(&url, r#"{"records": [{"query": "panic", "answer": "a"}]}"#).await;
    assert_eq!(answer.status, 500);
    assert_eq!(answer.json()["error"], "the job failed unexpectedly (panic); see the server log");
    // Still serving.
    assert_eq!(post(&url, r#"{"records": [{"query": "ok", "answer": "a"}]}"#).await.status, 200);
    assert_eq!(get(&server.url("/metrics")).await.status, 200);
    let text = get(&server.url("/metrics")).await.body;
    assert!(text.contains("ragjudge_records_scored_total 3\n"), "{text}");
    assert!(text.contains("ragjudge_records_failed_total 1\n"), "{text}");
}

#[tokio::test]
async fn bad_requests_get_4xx_with_a_one_line_reason_and_the_server_goes_on() {
    let limits = Limits { max_body: 4096, ..Limits::default() };
    let server = Running::start(App::new(lexical_ciu(), None, limits).unwrap()).await;
    let url = server.url("/v1/score");
    let cases: Vec<(Vec<u8>, u16, &str)> = vec![
        (b"{\"records\": [".to_vec(), 400, "malformed JSON: EOF while parsing a list at line 1 column 13"),
        (b"not json".to_vec(), 400, "malformed JSON: expected ident at line 1 column 2"),
        (b"{\"records\": 5}".to_vec(), 422, "field `records`: expected an array, found number"),
        (
            br#"{"records": [{"query": "q", "answer": "a"}, {"query": "q", "answer": ["x"]}]}"#.to_vec(),
            422,
            "records[1]: field `answer`: expected a string, found array",
        ),
        (br#"{"records": [{"answer": "a"}]}"#.to_vec(), 422, "records[0]: field `query`: missing"),
        (
            br#"{"records": [{"query": "q", "answer": "a", "run": -2}]}"#.to_vec(),
            422,
            "records[0]: field `run`: expected a non-negative integer, found -2",
        ),
        (vec![b' '; 5000], 413, "request body larger than the limit of 4096 bytes"),
        (
            br#"{"records": [{"query": "q", "answer": "a"}], "metric": ["lexical"]}"#.to_vec(),
            422,
            "field `metric`: unknown; a request has `records`, `detail` and `metrics`",
        ),
    ];
    for (body, status, reason) in cases {
        let answer = post(&url, body).await;
        assert_eq!(answer.status, status, "{}", answer.body);
        assert_eq!(answer.content_type.as_deref(), Some("application/json"));
        let v = answer.json();
        assert_eq!(v["error"], reason);
        assert!(!answer.body.contains('\n'));
    }
    // Unknown routes and methods get JSON too.
    let answer = get(&server.url("/v2/nothing")).await;
    assert_eq!((answer.status, answer.json()["error"].as_str()), (404, Some("no route GET /v2/nothing")));
    assert_eq!(get(&url).await.status, 405);
    // Still answering.
    let answer = post(&url, records_body(2)).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(get(&server.url("/healthz")).await.status, 200);
}

#[tokio::test]
async fn a_full_queue_answers_429_with_retry_after() {
    // One job runs (blocked on the gate), one waits; the third request is refused at once.
    let gate = Arc::new(Gate::default());
    let limits = Limits { max_inflight: 1, queue: 1, retry_after: 7, ..Limits::default() };
    let server = Running::start(gated(&gate, limits)).await;
    let url = server.url("/v1/score");
    let first = spawn_post(&url, records_body(1));
    until("the first job to start", || gate.started() == 1).await;
    let second = spawn_post(&url, records_body(1));
    let app = server.app.clone();
    until("the second request to wait", || app.score_load().waiting == 1).await;
    assert_eq!(app.score_load().running, 1);

    let refused = post(&url, records_body(1)).await;
    assert_eq!(refused.status, 429, "{}", refused.body);
    assert_eq!(refused.retry_after.as_deref(), Some("7"));
    assert_eq!(refused.json()["error"], "server busy: 1 requests running and 1 waiting; retry after 7 s");
    // Health and metrics are not behind the queue.
    let metrics = get(&server.url("/metrics")).await;
    assert!(metrics.body.contains("ragjudge_queue_depth{route=\"/v1/score\"} 1\n"), "{}", metrics.body);
    assert!(metrics.body.contains("ragjudge_inflight_jobs{route=\"/v1/score\"} 1\n"), "{}", metrics.body);
    assert!(metrics.body.contains("ragjudge_rejected_total{route=\"/v1/score\"} 1\n"), "{}", metrics.body);

    gate.open();
    assert_eq!(first.await.unwrap().status, 200);
    assert_eq!(second.await.unwrap().status, 200);
    assert_eq!(post(&url, records_body(1)).await.status, 200, "room again once the jobs are done");
    until("the jobs to finish", || app.score_load().running == 0).await;
}

#[tokio::test]
async fn a_request_past_its_deadline_gets_503() {
    let gate = Arc::new(Gate::default());
    let limits = Limits { timeout: Duration::from_millis(300), ..Limits::default() };
    let server = Running::start(gated(&gate, limits)).await;
    let answer = post(&server.url("/v1/score"), records_body(1)).await;
    assert_eq!(answer.status, 503, "{}", answer.body);
    assert_eq!(answer.json()["error"], "request not answered within the timeout of 0.3 s");
    // The job keeps its slot until it ends.
    assert_eq!(server.app.score_load().running, 1);
    gate.open();
    let app = server.app.clone();
    until("the job to end", || app.score_load().running == 0).await;
    let text = get(&server.url("/metrics")).await.body;
    assert!(text.contains("ragjudge_timeouts_total{route=\"/v1/score\"} 1\n"), "{text}");
    assert!(text.contains("ragjudge_http_requests_total{route=\"/v1/score\",status=\"503\"} 1\n"), "{text}");
}

#[tokio::test]
async fn graceful_shutdown_finishes_the_request_in_flight() {
    let gate = Arc::new(Gate::default());
    let mut server = Running::start(gated(&gate, Limits::default())).await;
    let url = server.url("/v1/score");
    let in_flight = spawn_post(&url, records_body(1));
    until("the job to start", || gate.started() == 1).await;
    server.shutdown();
    // Give the server time to stop accepting; the request is still held by the gate.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!server.task.is_finished(), "the server waits for the request in flight");
    assert!(tokio::net::TcpStream::connect(server.addr).await.is_err(), "no new connections after shutdown");
    gate.open();
    let answer = in_flight.await.unwrap();
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(answer.json()["rows"][0]["gated"].as_f64(), Some(1.0));
    tokio::time::timeout(Duration::from_secs(10), &mut server.task).await.unwrap().unwrap().unwrap();
}

#[tokio::test]
async fn metrics_select_families_and_an_unknown_one_is_422() {
    let server = Running::start(App::new(lexical_ciu(), None, Limits::default()).unwrap()).await;
    let url = server.url("/v1/score");
    let record = r#"{"id": "t1", "query": "Where did the cat sit?", "answer": "The cat sat on the mat.", "reference": "A cat sat."}"#;
    let answer = post(&url, format!(r#"{{"records": [{record}], "metrics": ["lexical", "bleurt"]}}"#)).await;
    assert_eq!(answer.status, 422, "{}", answer.body);
    // The server was started with the families lexical and ciu.
    assert_eq!(answer.json()["error"], "field `metrics`: unknown metric `bleurt`; this server scores lexical, ciu");

    let answer = post(&url, format!(r#"{{"records": [{record}], "metrics": ["ciu"], "detail": false}}"#)).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let v = answer.json();
    // The ciu family has one column, `ciu`; nothing of lexical is sent.
    assert_eq!(v["columns"], json!(["ciu"]));
    let row = v["rows"][0].as_object().unwrap();
    let keys: Vec<&str> = row.keys().map(String::as_str).collect();
    assert_eq!(keys, ["id", "system", "ciu"]);

    let answer = post(&url, format!(r#"{{"records": [{record}], "metrics": ["lexical"]}}"#)).await;
    let v = answer.json();
    let columns: Vec<&str> = v["columns"].as_array().unwrap().iter().map(|c| c.as_str().unwrap()).collect();
    assert!(columns.contains(&"token_f1") && !columns.contains(&"ciu"), "{columns:?}");
    // By hand, as in token_f1_of_a_tiny_pair_by_hand: F1 = 2/3.
    let f1 = v["rows"][0]["token_f1"].as_f64().unwrap();
    assert!((f1 - 2.0 / 3.0).abs() < 1e-12, "{f1}");
    assert!(v["rows"][0]["detail"].get("ciu").is_none(), "{}", v["rows"][0]["detail"]);
}

#[tokio::test]
async fn a_client_that_stops_mid_header_is_disconnected_while_others_are_served() {
    let limits = Limits { header_timeout: Duration::from_secs(1), ..Limits::default() };
    let server = Running::start(App::new(lexical_ciu(), None, limits).unwrap()).await;
    let mut half = raw(server.addr, b"POST /v1/score HTTP/1.1\r\nHost: x\r\n").await;
    // A client that connects and sends nothing at all.
    let mut silent = raw(server.addr, b"").await;
    assert_eq!(get(&server.url("/healthz")).await.status, 200, "answered while the two are held");
    // Both are closed after the 1 s header timeout, without an answer.
    assert_eq!(read_until_closed(&mut half, Duration::from_secs(20)).await, "");
    assert_eq!(read_until_closed(&mut silent, Duration::from_secs(20)).await, "");
    assert_eq!(get(&server.url("/healthz")).await.status, 200);
}

#[tokio::test]
async fn a_body_not_sent_in_time_gets_408() {
    let limits = Limits { body_timeout: Duration::from_secs(1), ..Limits::default() };
    let server = Running::start(App::new(lexical_ciu(), None, limits).unwrap()).await;
    // 100 bytes announced, 12 sent.
    let head = "POST /v1/score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n";
    let mut stream = raw(server.addr, format!("{head}{{\"records\": ").as_bytes()).await;
    let answer = read_until_closed(&mut stream, Duration::from_secs(20)).await;
    assert!(answer.starts_with("HTTP/1.1 408 Request Timeout\r\n"), "{answer}");
    assert!(answer.ends_with(r#"{"error":"request body not received within the body timeout of 1 s"}"#), "{answer}");
    assert_eq!(get(&server.url("/healthz")).await.status, 200);
}

#[tokio::test]
async fn connections_beyond_the_bound_wait_for_a_free_one() {
    let limits = Limits { max_connections: 1, header_timeout: Duration::from_secs(600), ..Limits::default() };
    let server = Running::start(App::new(lexical_ciu(), None, limits).unwrap()).await;
    let holder = raw(server.addr, b"").await;
    let url = server.url("/healthz");
    let waiting = tokio::spawn(async move { get(&url).await });
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!waiting.is_finished(), "the only connection slot is taken");
    drop(holder);
    let answer = tokio::time::timeout(Duration::from_secs(20), waiting).await.expect("served once the slot is free");
    assert_eq!(answer.unwrap().status, 200);
}

#[tokio::test]
async fn shutdown_closes_connections_still_held_after_the_grace() {
    let gate = Arc::new(Gate::default());
    let limits = Limits {
        header_timeout: Duration::from_secs(600),
        timeout: Duration::from_secs(600),
        shutdown_grace: Duration::from_secs(1),
        ..Limits::default()
    };
    let mut server = Running::start(gated(&gate, limits)).await;
    let _release = common::OpenOnDrop(gate.clone());
    // A request whose job does not end (the gate stays shut) and a client stopped mid-header.
    let body = records_body(1);
    let request = format!("POST /v1/score HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n{body}", body.len());
    let mut in_flight = raw(server.addr, request.as_bytes()).await;
    until("the job to start", || gate.started() == 1).await;
    let mut half = raw(server.addr, b"POST /v1/score HTTP/1.1\r\nHost: x\r\n").await;
    // Connections are accepted in order: once this one is answered, `half` is open on the server.
    assert_eq!(get(&server.url("/healthz")).await.status, 200);

    server.shutdown();
    // The grace is 1 s; 20 s proves the server does not wait for its clients.
    let stopped = tokio::time::timeout(Duration::from_secs(20), &mut server.task).await;
    stopped.expect("the server exits after the grace").unwrap().unwrap();
    assert_eq!(read_until_closed(&mut in_flight, Duration::from_secs(20)).await, "", "closed without an answer");
    assert_eq!(read_until_closed(&mut half, Duration::from_secs(20)).await, "");
}

#[tokio::test]
async fn health_metrics_and_openapi() {
    let server = Running::start(App::new(lexical_ciu(), None, Limits::default()).unwrap()).await;
    let health = get(&server.url("/healthz")).await;
    assert_eq!(health.status, 200);
    let h = health.json();
    assert_eq!(h["status"], "ok");
    assert_eq!(h["judge"], Value::Null);
    assert!(h["columns"].as_array().unwrap().iter().any(|c| c == "ciu"));

    // Without a judge, /v1/judge says so.
    let answer = post(&server.url("/v1/judge"), r#"{"query": "q", "answer_a": "a", "answer_b": "b"}"#).await;
    assert_eq!(answer.status, 501);
    assert!(answer.json()["error"].as_str().unwrap().starts_with("no judge configured"));

    let _ = post(&server.url("/v1/score"), records_body(3)).await;
    let metrics = get(&server.url("/metrics")).await;
    assert_eq!(metrics.content_type.as_deref(), Some("text/plain; version=0.0.4; charset=utf-8"));
    check_prometheus_text(&metrics.body);
    assert!(metrics.body.contains("ragjudge_http_requests_total{route=\"/v1/score\",status=\"200\"} 1\n"));
    assert!(metrics.body.contains("ragjudge_http_requests_total{route=\"/v1/judge\",status=\"501\"} 1\n"));
    assert!(metrics.body.contains("ragjudge_records_scored_total 3\n"));
    assert!(metrics.body.contains("ragjudge_http_request_duration_seconds_count{route=\"/v1/score\"} 1\n"));

    let doc = get(&server.url("/openapi.json")).await;
    assert_eq!(doc.status, 200);
    let v = doc.json();
    assert!(v["openapi"].as_str().unwrap().starts_with("3."));
    for (path, method) in [
        ("/v1/score", "post"),
        ("/v1/judge", "post"),
        ("/v1/traces", "post"),
        ("/healthz", "get"),
        ("/metrics", "get"),
        ("/openapi.json", "get"),
    ] {
        assert!(v["paths"][path][method].is_object(), "{path} {method}");
    }
    assert_eq!(v["paths"].as_object().unwrap().len(), 6, "no route left undocumented or invented");
    // Every $ref resolves.
    let text = doc.body.as_str();
    for piece in text.split("\"$ref\": \"#/").skip(1) {
        let target = &piece[..piece.find('"').unwrap()];
        let mut node = &v;
        for part in target.split('/') {
            node = &node[part];
        }
        assert!(node.is_object(), "dangling $ref {target}");
    }
}

/// Checks the Prometheus text format 0.0.4: each family has HELP then TYPE before its samples;
/// every sample is `name{labels} value` with a float value and a name of its family.
fn check_prometheus_text(text: &str) {
    let mut family: Option<(String, String)> = None;
    let mut seen = std::collections::HashSet::new();
    let mut help: Option<String> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# HELP ") {
            help = Some(rest.split(' ').next().unwrap().to_string());
        } else if let Some(rest) = line.strip_prefix("# TYPE ") {
            let mut parts = rest.split(' ');
            let (name, kind) = (parts.next().unwrap(), parts.next().unwrap());
            assert_eq!(help.as_deref(), Some(name), "HELP before TYPE for {name}");
            assert!(["counter", "gauge", "histogram"].contains(&kind), "{line}");
            assert!(seen.insert(name.to_string()), "family {name} declared twice");
            family = Some((name.to_string(), kind.to_string()));
        } else {
            let (name_labels, value) = line.rsplit_once(' ').unwrap_or_else(|| panic!("{line}"));
            value.parse::<f64>().unwrap_or_else(|_| panic!("value of {line}"));
            let name = name_labels.split('{').next().unwrap();
            assert!(name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'), "{line}");
            if let Some(labels) = name_labels.strip_prefix(name) {
                if !labels.is_empty() {
                    assert!(labels.starts_with('{') && labels.ends_with('}'), "{line}");
                    for pair in labels[1..labels.len() - 1].split("\",") {
                        let (k, v) = pair.split_once('=').unwrap_or_else(|| panic!("{line}"));
                        assert!(k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'), "{line}");
                        assert!(v.starts_with('"'), "{line}");
                    }
                }
            }
            let (fname, kind) = family.as_ref().expect("a sample before any TYPE");
            let ok = match kind.as_str() {
                "histogram" => [format!("{fname}_bucket"), format!("{fname}_sum"), format!("{fname}_count")]
                    .contains(&name.to_string()),
                _ => name == fname,
            };
            assert!(ok, "sample {name} outside its family {fname}");
        }
    }
}
