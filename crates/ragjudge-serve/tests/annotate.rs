//! The annotation API on loopback: labels written as given and read back after a restart,
//! progress per annotator, the machine verdict on request, export, and the requests it refuses.

mod common;

use common::{get, post, raw, read_until_closed};
use ragjudge_artifacts::Provenance;
use ragjudge_core::Record;
use ragjudge_human::store::{read_labels, LabelStore};
use ragjudge_human::task::{MachineVerdict, Scale, TaskKey, TaskSet, View};
use ragjudge_serve::annotate::{annotate_router, Annotate, CSP};
use ragjudge_serve::{serve_router, Limits};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::oneshot;

fn records() -> Vec<Record> {
    let rec = |id: &str, system: &str, answer: &str| Record {
        id: id.into(),
        system: system.into(),
        query: format!("question {id}"),
        answer: answer.into(),
        reference: Some("the reference".into()),
        ..Default::default()
    };
    vec![
        rec("q1", "S1", "Paris is big."),
        rec("q1", "S2", "Paris is small."),
        rec("q2", "S1", "Yes."),
        rec("q2", "S2", "No."),
    ]
}

struct Server {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<()>,
}

impl Server {
    async fn start(labels: &Path, export: &Path) -> Server {
        let mut tasks = TaskSet::build(records(), View::Pairwise).unwrap();
        let verdict = MachineVerdict { source: "judge".into(), verdict: "A".into(), detail: "P(A) 0.90".into() };
        tasks.set_verdicts(HashMap::from([(TaskKey::pair("q1", "S1", "S2"), verdict)]));
        let store = LabelStore::open(labels, View::Pairwise, Scale::Likert5, Provenance::default()).unwrap();
        let app = Arc::new(Annotate::new(tasks, Scale::Likert5, store, Some(export.into()), Some("ann".into())));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (tx, rx) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            serve_router(listener, annotate_router(app), &Limits::default(), async move {
                let _ = rx.await;
            })
            .await
            .unwrap();
        });
        Server { addr, stop: Some(tx), task }
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    async fn stop(mut self) {
        let _ = self.stop.take().unwrap().send(());
        self.task.await.unwrap();
    }
}

fn label_body(annotator: &str, index: usize, label: &str, strength: u8) -> String {
    format!(
        r#"{{"annotator":"{annotator}","index":{index},"value":{{"view":"pairwise","label":"{label}","strength":{strength}}},"shown_left":"S2","seconds":2.5}}"#
    )
}

#[tokio::test]
async fn labels_persist_across_a_restart_and_export() {
    let dir = tempfile::tempdir().unwrap();
    let (labels, export) = (dir.path().join("labels.json"), dir.path().join("export"));
    let server = Server::start(&labels, &export).await;

    let page = get(&server.url("/")).await;
    assert_eq!(page.status, 200);
    assert!(
        page.body.contains("default-src 'none'") && page.body.contains("connect-src 'self'"),
        "the page carries its policy"
    );
    let _ = CSP;
    let session = get(&server.url("/api/session")).await.json();
    assert_eq!((session["view"].as_str(), session["total"].as_u64()), (Some("pairwise"), Some(2)));

    let task = get(&server.url("/api/tasks/0?annotator=ann")).await.json();
    assert_eq!(task["task"]["key"]["id"], "q1");
    assert_eq!(task["has_verdict"], true);
    assert!(task["label"].is_null());

    let p = post(&server.url("/api/labels"), label_body("ann", 0, "B", 2)).await;
    assert_eq!(p.status, 200, "{}", p.body);
    assert_eq!((p.json()["done"].as_u64(), p.json()["next"].as_u64()), (Some(1), Some(1)));
    // Another annotator's progress is their own.
    assert_eq!(get(&server.url("/api/progress?annotator=bob")).await.json()["done"], 0);
    assert_eq!(post(&server.url("/api/labels"), label_body("bob", 0, "A", 1)).await.status, 200);
    // The label is on disk at once.
    let on_disk = read_labels(&labels).unwrap();
    assert_eq!(on_disk.labels.len(), 2);
    assert_eq!(on_disk.labels[0].value.preference(), Some(2.0));
    assert_eq!(on_disk.labels[0].shown_left.as_deref(), Some("S2"));
    server.stop().await;

    // A restart on the same file continues.
    let server = Server::start(&labels, &export).await;
    let p = get(&server.url("/api/progress?annotator=ann")).await.json();
    assert_eq!((p["done"].as_u64(), p["next"].as_u64()), (Some(1), Some(1)));
    let task = get(&server.url("/api/tasks/0?annotator=ann")).await.json();
    assert_eq!(task["label"]["label"], "B");
    let v = get(&server.url("/api/tasks/0/verdict")).await.json();
    assert_eq!(v["verdict"], "A");
    assert_eq!(get(&server.url("/api/tasks/1/verdict")).await.status, 404);

    let summary = post(&server.url("/api/export"), "{}").await;
    assert_eq!(summary.status, 200, "{}", summary.body);
    let pairwise = std::fs::read_to_string(export.join("pairwise.jsonl")).unwrap();
    // ann: B much better (+2), bob: A better (-1): mean +0.5 -> B.
    assert_eq!(
        pairwise.trim(),
        r#"{"id":"q1","system_a":"S1","system_b":"S2","label":"B","preference":0.5,"annotators":2}"#
    );
    assert!(export.join("agreement.json").exists());
    server.stop().await;
}

#[tokio::test]
async fn bad_requests_get_one_line_reasons() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("labels.json"), &dir.path().join("export")).await;
    let cases = [
        (label_body("ann", 7, "A", 1), 404, "no task 7"),
        (label_body("", 0, "A", 1), 422, "annotator"),
        (label_body("ann", 0, "tie", 2), 422, "a tie has strength 1"),
        (r#"{"annotator":"ann","index":0,"value":{"view":"graded","grade":3}}"#.to_string(), 422, "a graded label"),
        ("{not json".to_string(), 400, ""),
    ];
    for (body, status, why) in cases {
        let a = post(&server.url("/api/labels"), body.clone()).await;
        assert_eq!(a.status, status, "{body}: {}", a.body);
        assert!(a.json()["error"].as_str().unwrap().contains(why), "{}", a.body);
    }
    assert_eq!(get(&server.url("/api/tasks/9")).await.status, 404);
    assert_eq!(get(&server.url("/api/progress")).await.status, 422);
    assert!(!dir.path().join("labels.json").exists(), "nothing refused was written");

    // A page of another site reaching the port through its own name is refused.
    let mut stream =
        raw(server.addr, b"GET /api/session HTTP/1.1\r\nHost: evil.example:80\r\nConnection: close\r\n\r\n").await;
    let answer = read_until_closed(&mut stream, Duration::from_secs(10)).await;
    assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");
    server.stop().await;
}
