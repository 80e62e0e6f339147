//! A small scripted OpenAI-compatible HTTP server on loopback, for tests of the HTTP judge.
//!
//! [`TestServer::start`] listens on `127.0.0.1` at an ephemeral port and answers
//! `POST /v1/chat/completions` (and `GET /v1/models`; any other `POST` path too, for generic JSON
//! endpoints scripted with [`Behavior::Reply`]). What each request gets comes from a
//! [`Script`]: a queue of [`Behavior`]s taken in arrival order, then a default. Every request is
//! recorded with its JSON body and arrival time, and the server tracks how many requests were in
//! flight at once, so tests can check retries, caching and concurrency bounds.
//!
//! Every response carries `Connection: close`: one request per connection keeps the server simple
//! and makes fault modes (stalls, truncated bodies) affect exactly one request.
#![deny(missing_docs)]

use serde_json::{json, Value};
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Most connections served at once; further connections wait in the listen backlog.
pub const MAX_CONNECTIONS: usize = 64;

/// How long a connection may take to send its request before the server gives up on it.
const READ_TIMEOUT: Duration = Duration::from_secs(5);

/// Largest request body accepted (bytes).
const MAX_BODY: usize = 16 << 20;

/// A function from the request's JSON body to the answer text.
pub type ContentFn = Arc<dyn Fn(&Value) -> String + Send + Sync>;

/// A function from the request's JSON body to top logprobs `(token, logprob)`.
pub type TopLogprobs = Arc<dyn Fn(&Value) -> Vec<(String, f64)> + Send + Sync>;

/// Top logprobs computed from the request body (a judge whose verdict depends on the prompt).
#[derive(Clone)]
pub struct LogprobsFn(pub TopLogprobs);

impl std::fmt::Debug for LogprobsFn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LogprobsFn(..)")
    }
}

/// The answer text of a [`Behavior::Normal`] response.
#[derive(Clone)]
pub enum Content {
    /// The same text for every request.
    Fixed(String),
    /// Text computed from the request body.
    Func(ContentFn),
}

impl std::fmt::Debug for Content {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Content::Fixed(s) => f.debug_tuple("Fixed").field(s).finish(),
            Content::Func(_) => f.write_str("Func(..)"),
        }
    }
}

/// A successful chat-completion answer.
#[derive(Debug, Clone)]
pub struct Normal {
    /// `choices[0].message.content`.
    pub content: Content,
    /// `choices[0].logprobs.content[0].top_logprobs` as (token, logprob); also the first token's
    /// own `token` / `logprob` (the first entry). Empty: the `logprobs` field is `null`.
    pub top_logprobs: Vec<(String, f64)>,
    /// When set, computes the top logprobs from the request instead.
    pub logprobs_fn: Option<LogprobsFn>,
    /// `usage.prompt_tokens`.
    pub prompt_tokens: u64,
    /// `usage.completion_tokens`.
    pub completion_tokens: u64,
    /// Wait this long before answering.
    pub delay: Duration,
}

impl Default for Normal {
    fn default() -> Self {
        Self {
            content: Content::Fixed("A".to_string()),
            top_logprobs: vec![("A".to_string(), -0.1), ("B".to_string(), -2.5)],
            logprobs_fn: None,
            prompt_tokens: 10,
            completion_tokens: 1,
            delay: Duration::ZERO,
        }
    }
}

impl Normal {
    /// An answer with fixed `content` and the default top logprobs.
    pub fn text(content: &str) -> Self {
        Self { content: Content::Fixed(content.to_string()), ..Self::default() }
    }

    /// An answer whose text is computed from the request body.
    pub fn func(f: impl Fn(&Value) -> String + Send + Sync + 'static) -> Self {
        Self { content: Content::Func(Arc::new(f)), ..Self::default() }
    }

    /// The same answer with these top logprobs.
    pub fn with_top_logprobs(mut self, top: &[(&str, f64)]) -> Self {
        self.top_logprobs = top.iter().map(|(t, l)| (t.to_string(), *l)).collect();
        self
    }

    /// An answer whose top logprobs (and text, their first token) are computed from the request.
    pub fn logprobs_func(f: impl Fn(&Value) -> Vec<(String, f64)> + Send + Sync + 'static) -> Self {
        let f: TopLogprobs = Arc::new(f);
        let first = Arc::clone(&f);
        let content: ContentFn =
            Arc::new(move |req: &Value| first(req).first().map(|t| t.0.clone()).unwrap_or_default());
        Self { content: Content::Func(content), logprobs_fn: Some(LogprobsFn(f)), ..Self::default() }
    }

    /// The same answer with top logprobs computed from the request (its text unchanged).
    pub fn with_logprobs_func(mut self, f: impl Fn(&Value) -> Vec<(String, f64)> + Send + Sync + 'static) -> Self {
        self.logprobs_fn = Some(LogprobsFn(Arc::new(f)));
        self
    }

    /// The same answer, sent after `delay`.
    pub fn with_delay(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }
}

/// What the server does with one chat-completion request.
#[derive(Debug, Clone)]
pub enum Behavior {
    /// 200 with a valid chat completion.
    Normal(Normal),
    /// 429 with a `Retry-After` header (seconds).
    RateLimited {
        /// Value of the `Retry-After` header.
        retry_after_s: u64,
    },
    /// 500 with a JSON error body.
    ServerError,
    /// An HTTP error with this status and a JSON error body (e.g. 400, 401, 503).
    Status(u16),
    /// Reads the request, waits `secs` seconds, then closes the connection without answering.
    Stall {
        /// How long to hold the connection.
        secs: f64,
    },
    /// 200 whose `Content-Length` exceeds the bytes sent; then the connection is closed.
    Truncated,
    /// 200 with a body that is not JSON.
    Garbage,
    /// A valid completion without the `logprobs` field (as servers that do not support it send).
    NoLogprobs(Normal),
    /// 200 with this JSON body computed from the request body, whatever the path: a generic
    /// JSON endpoint (a RAG service under test) rather than a chat completion.
    Reply(ReplyFn),
}

/// A function from the request's JSON body to a whole reply body.
#[derive(Clone)]
pub struct ReplyFn(pub Arc<dyn Fn(&Value) -> Value + Send + Sync>);

impl ReplyFn {
    /// Wraps `f`.
    pub fn new(f: impl Fn(&Value) -> Value + Send + Sync + 'static) -> Self {
        Self(Arc::new(f))
    }
}

impl std::fmt::Debug for ReplyFn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ReplyFn(..)")
    }
}

impl Behavior {
    /// A normal answer with the default text `A` and default top logprobs.
    pub fn normal() -> Self {
        Behavior::Normal(Normal::default())
    }
}

/// Per-request behaviours: first the queue, in arrival order, then the default for every later request.
#[derive(Debug, Clone)]
pub struct Script {
    /// Behaviours for the first requests.
    pub queue: VecDeque<Behavior>,
    /// Behaviour once the queue is empty.
    pub default: Behavior,
}

impl Default for Script {
    fn default() -> Self {
        Self { queue: VecDeque::new(), default: Behavior::normal() }
    }
}

impl Script {
    /// Every request gets `default`.
    pub fn always(default: Behavior) -> Self {
        Self { queue: VecDeque::new(), default }
    }

    /// The first requests get `queue` in order, later ones `default`.
    pub fn sequence(queue: Vec<Behavior>, default: Behavior) -> Self {
        Self { queue: queue.into(), default }
    }
}

/// One request as the server received it.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    /// HTTP method.
    pub method: String,
    /// Request path, e.g. `/v1/chat/completions`.
    pub path: String,
    /// Value of the `Authorization` header, if any.
    pub authorization: Option<String>,
    /// The body parsed as JSON (`Null` when empty or not JSON).
    pub body: Value,
    /// When the request had been read in full.
    pub at: Instant,
}

impl RecordedRequest {
    /// Text of the last `user` message of a chat-completion body, if any.
    pub fn last_user_message(&self) -> Option<String> {
        self.body["messages"]
            .as_array()?
            .iter()
            .rev()
            .find(|m| m["role"] == "user")
            .and_then(|m| m["content"].as_str())
            .map(str::to_string)
    }
}

struct State {
    script: Mutex<Script>,
    requests: Mutex<Vec<RecordedRequest>>,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
    connections: AtomicUsize,
    shutdown: AtomicBool,
    /// Set by [`TestServer::kill`]: requests being answered get no answer.
    killed: AtomicBool,
}

/// A running test server; it stops when dropped.
pub struct TestServer {
    addr: SocketAddr,
    state: Arc<State>,
    accept: Option<JoinHandle<()>>,
}

impl TestServer {
    /// Starts a server on `127.0.0.1` at an ephemeral port, answering by `script`.
    ///
    /// # Panics
    /// If no loopback port can be bound (tests cannot run without one).
    pub fn start(script: Script) -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("local address");
        let state = Arc::new(State {
            script: Mutex::new(script),
            requests: Mutex::new(Vec::new()),
            in_flight: AtomicUsize::new(0),
            max_in_flight: AtomicUsize::new(0),
            connections: AtomicUsize::new(0),
            shutdown: AtomicBool::new(false),
            killed: AtomicBool::new(false),
        });
        let st = Arc::clone(&state);
        let accept = std::thread::Builder::new()
            .name("testserver-accept".into())
            .spawn(move || accept_loop(listener, st))
            .expect("spawn accept thread");
        TestServer { addr, state, accept: Some(accept) }
    }

    /// Base URL in the OpenAI convention, with the `/v1` suffix: `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// The socket address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stops the server as a crashed process would: no new connection is accepted and the
    /// requests being answered (e.g. waiting out their delay) are closed without an answer.
    /// Returns the requests it had received.
    pub fn kill(mut self) -> Vec<RecordedRequest> {
        self.state.killed.store(true, Ordering::SeqCst);
        self.stop();
        self.requests()
    }

    /// Stops accepting connections.
    fn stop(&mut self) {
        self.state.shutdown.store(true, Ordering::SeqCst);
        // Wake the blocking accept() with a connection of our own.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(h) = self.accept.take() {
            let _ = h.join();
        }
    }

    /// Adds behaviours to the end of the queue.
    pub fn push(&self, behaviors: impl IntoIterator<Item = Behavior>) {
        self.state.script.lock().unwrap().queue.extend(behaviors);
    }

    /// Replaces the default behaviour.
    pub fn set_default(&self, behavior: Behavior) {
        self.state.script.lock().unwrap().default = behavior;
    }

    /// All requests so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.state.requests.lock().unwrap().clone()
    }

    /// Number of requests so far (all paths).
    pub fn request_count(&self) -> usize {
        self.state.requests.lock().unwrap().len()
    }

    /// Largest number of chat-completion requests that were being answered at the same time.
    pub fn max_in_flight(&self) -> usize {
        self.state.max_in_flight.load(Ordering::SeqCst)
    }

    /// Waits until at least `n` requests arrived or `timeout` passed; returns the count then.
    pub fn wait_for_requests(&self, n: usize, timeout: Duration) -> usize {
        let end = Instant::now() + timeout;
        loop {
            let c = self.request_count();
            if c >= n || Instant::now() >= end {
                return c;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.stop();
    }
}

fn accept_loop(listener: TcpListener, state: Arc<State>) {
    for stream in listener.incoming() {
        if state.shutdown.load(Ordering::SeqCst) {
            break;
        }
        let Ok(stream) = stream else { continue };
        // Bound the number of connection threads: wait for a free slot (bounded by the read
        // timeout of the connections being served, so this never waits forever).
        let mut waited = Duration::ZERO;
        while state.connections.load(Ordering::SeqCst) >= MAX_CONNECTIONS && waited < READ_TIMEOUT * 4 {
            std::thread::sleep(Duration::from_millis(2));
            waited += Duration::from_millis(2);
        }
        state.connections.fetch_add(1, Ordering::SeqCst);
        let st = Arc::clone(&state);
        let spawned = std::thread::Builder::new().name("testserver-conn".into()).spawn(move || {
            let _ = serve(stream, &st);
            st.connections.fetch_sub(1, Ordering::SeqCst);
        });
        if spawned.is_err() {
            state.connections.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

struct Request {
    method: String,
    path: String,
    authorization: Option<String>,
    body: Vec<u8>,
}

fn read_request(stream: &TcpStream) -> std::io::Result<Option<Request>> {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let path = parts.next().unwrap_or("").to_string();
    let mut content_length = 0usize;
    let mut authorization = None;
    for _ in 0..200 {
        let mut h = String::new();
        if reader.read_line(&mut h)? == 0 {
            break;
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((name, value)) = h.split_once(':') {
            let name = name.trim().to_ascii_lowercase();
            let value = value.trim();
            if name == "content-length" {
                content_length = value.parse().unwrap_or(0).min(MAX_BODY);
            } else if name == "authorization" {
                authorization = Some(value.to_string());
            }
        }
    }
    let mut body = vec![0u8; content_length];
    reader.read_exact(&mut body)?;
    Ok(Some(Request { method, path, authorization, body }))
}

fn serve(mut stream: TcpStream, state: &State) -> std::io::Result<()> {
    stream.set_read_timeout(Some(READ_TIMEOUT))?;
    stream.set_write_timeout(Some(READ_TIMEOUT))?;
    let Some(req) = read_request(&stream)? else {
        return Ok(());
    };
    if state.shutdown.load(Ordering::SeqCst) {
        return Ok(());
    }
    let body: Value = serde_json::from_slice(&req.body).unwrap_or(Value::Null);
    state.requests.lock().unwrap().push(RecordedRequest {
        method: req.method.clone(),
        path: req.path.clone(),
        authorization: req.authorization,
        body: body.clone(),
        at: Instant::now(),
    });
    let path = req.path.split('?').next().unwrap_or("");
    match (req.method.as_str(), path) {
        ("GET", "/v1/models") => {
            let b =
                json!({"object": "list", "data": [{"id": "test-model", "object": "model", "owned_by": "ragjudge"}]});
            respond(&mut stream, 200, &[], b.to_string().as_bytes())
        }
        // Chat completions, and any other POST for the generic `Reply` endpoints.
        ("POST", _) => {
            let mut in_flight = InFlight::enter(&state.in_flight, &state.max_in_flight);
            let behavior = {
                let mut s = state.script.lock().unwrap();
                s.queue.pop_front().unwrap_or_else(|| s.default.clone())
            };
            answer(&mut stream, &behavior, &body, &mut in_flight, &state.killed)
        }
        _ => respond(&mut stream, 404, &[], error_body("not found").as_bytes()),
    }
}

fn error_body(message: &str) -> String {
    json!({"error": {"message": message, "type": "test_server"}}).to_string()
}

fn completion(n: &Normal, request: &Value, with_logprobs: bool) -> Value {
    let computed = n.logprobs_fn.as_ref().map(|f| (f.0)(request));
    let top_logprobs = computed.as_ref().unwrap_or(&n.top_logprobs);
    let text = match &n.content {
        Content::Fixed(s) => s.clone(),
        Content::Func(f) => f(request),
    };
    let logprobs = if with_logprobs && !top_logprobs.is_empty() {
        let top: Vec<Value> =
            top_logprobs.iter().map(|(t, l)| json!({"token": t, "logprob": l, "bytes": t.as_bytes()})).collect();
        let (t0, l0) = &top_logprobs[0];
        json!({"content": [{"token": t0, "logprob": l0, "bytes": t0.as_bytes(), "top_logprobs": top}]})
    } else {
        Value::Null
    };
    let mut choice = json!({
        "index": 0,
        "message": {"role": "assistant", "content": text},
        "finish_reason": "stop",
    });
    if with_logprobs {
        choice["logprobs"] = logprobs;
    }
    json!({
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": request["model"].as_str().unwrap_or("test-model"),
        "choices": [choice],
        "usage": {
            "prompt_tokens": n.prompt_tokens,
            "completion_tokens": n.completion_tokens,
            "total_tokens": n.prompt_tokens + n.completion_tokens,
        },
    })
}

/// Counts a request as in flight from its arrival until its answer starts to go out, so that a
/// client that sends its next request as soon as it has read an answer is not counted twice.
struct InFlight<'a> {
    count: &'a AtomicUsize,
    inside: bool,
}

impl<'a> InFlight<'a> {
    fn enter(count: &'a AtomicUsize, max: &AtomicUsize) -> Self {
        let now = count.fetch_add(1, Ordering::SeqCst) + 1;
        max.fetch_max(now, Ordering::SeqCst);
        Self { count, inside: true }
    }

    fn leave(&mut self) {
        if std::mem::take(&mut self.inside) {
            self.count.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.leave();
    }
}

fn answer(
    stream: &mut TcpStream,
    behavior: &Behavior,
    request: &Value,
    in_flight: &mut InFlight<'_>,
    killed: &AtomicBool,
) -> std::io::Result<()> {
    if let Behavior::Normal(n) | Behavior::NoLogprobs(n) = behavior {
        std::thread::sleep(n.delay);
    }
    if killed.load(Ordering::SeqCst) {
        in_flight.leave();
        return stream.shutdown(Shutdown::Both);
    }
    if let Behavior::Stall { secs } = behavior {
        std::thread::sleep(Duration::from_secs_f64(secs.max(0.0)));
    }
    in_flight.leave();
    match behavior {
        Behavior::Normal(n) => respond(stream, 200, &[], completion(n, request, true).to_string().as_bytes()),
        Behavior::NoLogprobs(n) => respond(stream, 200, &[], completion(n, request, false).to_string().as_bytes()),
        Behavior::RateLimited { retry_after_s } => {
            let ra = retry_after_s.to_string();
            respond(stream, 429, &[("Retry-After", ra.as_str())], error_body("rate limited").as_bytes())
        }
        Behavior::ServerError => respond(stream, 500, &[], error_body("internal error").as_bytes()),
        Behavior::Status(code) => respond(stream, *code, &[], error_body("scripted status").as_bytes()),
        Behavior::Stall { .. } => stream.shutdown(Shutdown::Both),
        Behavior::Truncated => {
            let body = completion(&Normal::default(), request, true).to_string();
            let half = &body.as_bytes()[..body.len() / 2];
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len() + 100
            );
            stream.write_all(head.as_bytes())?;
            stream.write_all(half)?;
            stream.flush()?;
            stream.shutdown(Shutdown::Both)
        }
        Behavior::Garbage => respond(stream, 200, &[], b"<html>this is not json</html>"),
        Behavior::Reply(f) => respond(stream, 200, &[], (f.0)(request).to_string().as_bytes()),
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

fn respond(stream: &mut TcpStream, status: u16, headers: &[(&str, &str)], body: &[u8]) -> std::io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {status} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        reason(status),
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    stream.write_all(body)?;
    stream.flush()?;
    let _ = stream.shutdown(Shutdown::Write);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn post(addr: SocketAddr, body: &str) -> String {
        let mut s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        write!(s, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n{}", body.len(), body)
            .unwrap();
        let mut out = String::new();
        let _ = s.read_to_string(&mut out);
        out
    }

    #[test]
    fn scripted_queue_then_default() {
        let server =
            TestServer::start(Script::sequence(vec![Behavior::RateLimited { retry_after_s: 3 }], Behavior::normal()));
        let first = post(server.addr(), r#"{"model":"m","messages":[{"role":"user","content":"hi"}]}"#);
        assert!(first.starts_with("HTTP/1.1 429"), "{first}");
        assert!(first.contains("Retry-After: 3"));
        let second = post(server.addr(), r#"{"model":"m","messages":[{"role":"user","content":"hi"}]}"#);
        assert!(second.starts_with("HTTP/1.1 200"));
        let body = second.split("\r\n\r\n").nth(1).unwrap();
        let v: Value = serde_json::from_str(body).unwrap();
        assert_eq!(v["choices"][0]["message"]["content"], "A");
        assert_eq!(v["choices"][0]["logprobs"]["content"][0]["top_logprobs"][1]["token"], "B");
        assert_eq!(server.request_count(), 2);
        assert_eq!(server.requests()[0].last_user_message().as_deref(), Some("hi"));
        assert_eq!(server.max_in_flight(), 1);
    }

    #[test]
    fn truncated_body_is_shorter_than_content_length() {
        let server = TestServer::start(Script::always(Behavior::Truncated));
        let out = post(server.addr(), "{}");
        let (head, body) = out.split_once("\r\n\r\n").unwrap();
        let len: usize = head.lines().find_map(|l| l.strip_prefix("Content-Length: ")).unwrap().parse().unwrap();
        assert!(body.len() < len);
    }

    #[test]
    fn models_endpoint_and_unknown_path() {
        let server = TestServer::start(Script::default());
        let mut s = TcpStream::connect(server.addr()).unwrap();
        write!(s, "GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        assert!(out.starts_with("HTTP/1.1 200") && out.contains("test-model"));
        let mut s = TcpStream::connect(server.addr()).unwrap();
        write!(s, "GET /nope HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        assert!(out.starts_with("HTTP/1.1 404"));
    }
}
