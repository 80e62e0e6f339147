//! Test support: a server on 127.0.0.1:0 in this process and a small HTTP client.
#![allow(dead_code)]

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use ragjudge_core::{Metric, MetricError, MetricOutput, Record};
use ragjudge_serve::{serve, App, ServeError};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// A server running in this process.
pub struct Running {
    pub addr: SocketAddr,
    pub app: Arc<App>,
    stop: Option<oneshot::Sender<()>>,
    pub task: JoinHandle<Result<(), ServeError>>,
}

impl Running {
    /// Starts `app` on an ephemeral loopback port.
    pub async fn start(app: Arc<App>) -> Running {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (tx, rx) = oneshot::channel::<()>();
        let task = tokio::spawn(serve(listener, app.clone(), async move {
            let _ = rx.await;
        }));
        Running { addr, app, stop: Some(tx), task }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    /// Asks the server to shut down gracefully.
    pub fn shutdown(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
    }
}

/// An answer: status, `Retry-After` if any, body as text.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub retry_after: Option<String>,
    pub content_type: Option<String>,
    pub body: String,
    pub bytes: Vec<u8>,
}

impl Answer {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }
}

/// Sends one request (a fresh connection each time).
pub async fn send(method: &str, url: &str, body: Option<Vec<u8>>) -> Answer {
    send_with(method, url, body.unwrap_or_default(), &[("content-type", "application/json")]).await
}

/// Sends one request with `headers`; a body that is not UTF-8 is in `bytes` only.
pub async fn send_with(method: &str, url: &str, body: Vec<u8>, headers: &[(&str, &str)]) -> Answer {
    let client: Client<_, Full<Bytes>> = Client::builder(TokioExecutor::new()).pool_max_idle_per_host(0).build_http();
    let mut req = hyper::Request::builder().method(method).uri(url);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let req = req.body(Full::new(Bytes::from(body))).unwrap();
    let res = client.request(req).await.unwrap();
    let status = res.status().as_u16();
    let header = |name: &str| res.headers().get(name).map(|v| v.to_str().unwrap().to_string());
    let retry_after = header("retry-after");
    let content_type = header("content-type");
    let bytes = res.into_body().collect().await.unwrap().to_bytes().to_vec();
    let body = String::from_utf8(bytes.clone()).unwrap_or_default();
    Answer { status, retry_after, content_type, body, bytes }
}

pub async fn post(url: &str, body: impl Into<Vec<u8>>) -> Answer {
    send("POST", url, Some(body.into())).await
}

pub async fn get(url: &str) -> Answer {
    send("GET", url, None).await
}

/// Opens a raw connection to `addr` and writes `bytes` on it (a client that may stop halfway).
pub async fn raw(addr: SocketAddr, mut bytes: &[u8]) -> tokio::net::TcpStream {
    let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    while !bytes.is_empty() {
        stream.writable().await.unwrap();
        match stream.try_write(bytes) {
            Ok(n) => bytes = &bytes[n..],
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) => panic!("writing the connection: {e}"),
        }
    }
    stream
}

/// Reads `stream` until the server closes it and returns what it sent; fails if it is still open
/// after `bound` (a generous bound: it proves "not held forever", not a speed).
pub async fn read_until_closed(stream: &mut tokio::net::TcpStream, bound: Duration) -> String {
    let mut got = Vec::new();
    let read = async {
        let mut buf = [0u8; 4096];
        loop {
            stream.readable().await.unwrap();
            match stream.try_read(&mut buf) {
                Ok(0) => break,
                Ok(n) => got.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                // A reset closes the connection as well.
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => break,
                Err(e) => panic!("reading the connection: {e}"),
            }
        }
    };
    tokio::time::timeout(bound, read).await.unwrap_or_else(|_| panic!("the connection is still open after {bound:?}"));
    String::from_utf8(got).unwrap()
}

/// A metric that blocks every record until the gate opens, counting the records it started.
#[derive(Default)]
pub struct Gate {
    open: Mutex<bool>,
    cv: Condvar,
    pub started: AtomicUsize,
}

impl Gate {
    pub fn open(&self) {
        *self.open.lock().unwrap() = true;
        self.cv.notify_all();
    }

    fn wait(&self) {
        let mut open = self.open.lock().unwrap();
        while !*open {
            open = self.cv.wait(open).unwrap();
        }
    }

    pub fn started(&self) -> usize {
        self.started.load(Ordering::SeqCst)
    }
}

/// Opens its gate when dropped: a failing test does not leave a job blocked (the runtime waits for
/// its blocking threads before the failure is reported).
pub struct OpenOnDrop(pub Arc<Gate>);

impl Drop for OpenOnDrop {
    fn drop(&mut self) {
        self.0.open();
    }
}

/// Scores 1 once its gate is open.
pub struct GatedMetric(pub Arc<Gate>);

impl Metric for GatedMetric {
    fn name(&self) -> &str {
        "gated"
    }
    fn columns(&self) -> Vec<String> {
        vec!["gated".into()]
    }
    fn score(&self, _record: &Record) -> Result<MetricOutput, MetricError> {
        self.0.started.fetch_add(1, Ordering::SeqCst);
        self.0.wait();
        Ok(MetricOutput { values: vec![Some(1.0)], detail: None })
    }
}

/// Waits (polling) until `cond` holds, failing after 20 s.
pub async fn until(what: &str, mut cond: impl FnMut() -> bool) {
    for _ in 0..2000 {
        if cond() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("timed out waiting for {what}");
}

/// `{"records": [...]}` of `n` small records.
pub fn records_body(n: usize) -> String {
    let records: Vec<serde_json::Value> = (0..n)
        .map(|i| serde_json::json!({"id": format!("q{i}"), "query": "What colour is the sky?", "answer": "blue", "reference": "Blue."}))
        .collect();
    serde_json::json!({ "records": records }).to_string()
}

/// Posts `body` to `url` on a task of its own.
pub fn spawn_post(url: &str, body: String) -> tokio::task::JoinHandle<Answer> {
    let url = url.to_string();
    tokio::spawn(async move { post(&url, body).await })
}

/// An OpenAI-compatible judge backed by the scripted `model`, uncached, one request at a time
/// (so that the script's order is the order of the calls). Sets `OPENAI_BASE_URL`: one such judge
/// per test binary.
pub fn scripted_judge(model: &ragjudge_testserver::TestServer) -> Arc<dyn ragjudge_models::Judge> {
    use ragjudge_eval::models::{backends, CacheChoice, JudgeSettings};
    std::env::set_var("OPENAI_BASE_URL", model.base_url());
    let backend = JudgeSettings {
        spec: "openai:scripted".into(),
        cache: CacheChoice::Disabled,
        concurrency: 1,
        ..JudgeSettings::default()
    };
    Arc::from(backends::judge(&backend).unwrap())
}
