//! The OpenAI-compatible HTTP judge of ragjudge: any server that speaks `POST /v1/chat/completions`
//! (vLLM, SGLang, llama.cpp server, Ollama, OpenAI, DeepSeek, ...).
//!
//! [`OpenAiJudge`] implements [`Judge`] with bounded concurrency, a per-request timeout, retries
//! with exponential backoff and full jitter, and token counters. Verdict probabilities come from
//! `logprobs` / `top_logprobs` of the first generated token; a server that returns none is detected
//! ([`ModelError::NoLogprobs`], [`OpenAiJudge::supports_logprobs`]) and
//! [`OpenAiJudge::label_probs_or_hard`] then falls back to the generated token as a hard label.
//!
//! HTTP client: `ureq` 2 (blocking, rustls for TLS, no OpenSSL). Requests run on a fixed pool of
//! worker threads, so a blocking client is all that is needed: it avoids an async runtime
//! (tokio + hyper behind `reqwest::blocking`), keeps the dependency tree and build time small,
//! and its 2.x API is stable and maintained.
//!
//! # Retry policy
//! A call is tried at most `1 + max_retries` times. Retried: HTTP 408, 429 and 5xx, timeouts,
//! connection errors and truncated or unreadable bodies. The wait before retry `k` (0-based) is
//! uniform in `[0, min(backoff_max, backoff_base * 2^k))` ("full jitter"), or the server's
//! `Retry-After` (seconds, capped at `retry_after_max`) when it sends one. Not retried: other 4xx
//! (a bad request or key does not get better) and a JSON answer without `choices`. A 200 whose body
//! is not JSON is retried once (a proxy or load balancer hiccup), then fails with
//! [`ModelError::Protocol`].
#![deny(missing_docs)]
// Library code returns errors instead of panicking (tests may unwrap: clippy.toml).
#![deny(clippy::unwrap_used, clippy::expect_used)]

mod config;
mod endpoints;
mod labels;
mod semaphore;

pub use config::{OpenAiConfig, DEFAULT_BASE_URL};
pub use endpoints::EndpointStats;
use endpoints::{Endpoint, Endpoints};
pub use labels::{hard_label, label_probs_from_top_logprobs};

use ragjudge_models::{GenParams, Generation, Judge, LabelProbs, ModelError, Prompt, Usage};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// Request counts of an [`OpenAiJudge`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HttpStats {
    /// HTTP requests sent (attempts, retries included).
    pub requests: u64,
    /// Retries made.
    pub retries: u64,
    /// Calls that failed after their retries (or at once, for errors not retried).
    pub failures: u64,
}

/// What one HTTP attempt gave.
enum Attempt {
    Done(Value),
    /// `down`: the endpoint failed (connection, time-out, 5xx) and is taken out of the pool.
    Retry {
        err: ModelError,
        retry_after: Option<Duration>,
        garbage: bool,
        down: bool,
    },
    Fatal(ModelError),
}

/// The parts of a chat completion the judge uses.
struct Completion {
    text: String,
    finish_reason: String,
    prompt_tokens: u64,
    completion_tokens: u64,
    top_logprobs: Option<Vec<(String, f64)>>,
}

/// A [`Judge`] backed by an OpenAI-compatible chat-completions server.
pub struct OpenAiJudge {
    cfg: OpenAiConfig,
    agent: ureq::Agent,
    endpoints: Endpoints,
    logprobs_ok: AtomicBool,
    calls: AtomicU64,
    prompt_tokens: AtomicU64,
    completion_tokens: AtomicU64,
    requests: AtomicU64,
    retries: AtomicU64,
    failures: AtomicU64,
    rng: AtomicU64,
}

impl std::fmt::Debug for OpenAiJudge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The API key is left out on purpose.
        let urls: Vec<&str> =
            std::iter::once(self.cfg.base_url.as_str()).chain(self.cfg.pool.iter().map(String::as_str)).collect();
        f.debug_struct("OpenAiJudge").field("base_urls", &urls).field("model", &self.cfg.model).finish()
    }
}

impl OpenAiJudge {
    /// A judge with `cfg`; no request is made until the first call.
    pub fn new(cfg: OpenAiConfig) -> Self {
        let base = cfg.base_url.trim_end_matches('/').to_string();
        let pool: Vec<String> = cfg.pool.iter().map(|u| u.trim_end_matches('/').to_string()).collect();
        let agent = ureq::AgentBuilder::new().timeout(cfg.timeout).user_agent("ragjudge").build();
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0x9E37_79B9_7F4A_7C15)
            ^ u64::from(std::process::id());
        Self {
            endpoints: Endpoints::new(&[vec![base.clone()], pool.clone()].concat(), cfg.concurrency),
            agent,
            cfg: OpenAiConfig { base_url: base, pool, ..cfg },
            logprobs_ok: AtomicBool::new(true),
            calls: AtomicU64::new(0),
            prompt_tokens: AtomicU64::new(0),
            completion_tokens: AtomicU64::new(0),
            requests: AtomicU64::new(0),
            retries: AtomicU64::new(0),
            failures: AtomicU64::new(0),
            rng: AtomicU64::new(seed),
        }
    }

    /// The configuration in use.
    pub fn config(&self) -> &OpenAiConfig {
        &self.cfg
    }

    /// False once a response came back without logprobs; label calls then fail with
    /// [`ModelError::NoLogprobs`] at once (or fall back to hard labels, see
    /// [`OpenAiJudge::label_probs_or_hard`]).
    pub fn supports_logprobs(&self) -> bool {
        self.logprobs_ok.load(Ordering::SeqCst)
    }

    /// Requests and failures of each server of the pool (the base URL first).
    pub fn endpoint_stats(&self) -> Vec<EndpointStats> {
        self.endpoints.stats()
    }

    /// Requests, retries and failures so far.
    pub fn http_stats(&self) -> HttpStats {
        HttpStats {
            requests: self.requests.load(Ordering::Relaxed),
            retries: self.retries.load(Ordering::Relaxed),
            failures: self.failures.load(Ordering::Relaxed),
        }
    }

    /// Like [`Judge::label_probs`], but when the server gives no logprobs the generated token
    /// becomes a hard label (probability 1, [`ragjudge_models::ProbSource::HardLabel`]).
    pub fn label_probs_or_hard(&self, prompt: &Prompt, labels: &[String]) -> Result<LabelProbs, ModelError> {
        self.labels_call(prompt, labels, true)
    }

    /// Model ids the server lists at `GET /models` (one attempt, no retries).
    pub fn list_models(&self) -> Result<Vec<String>, ModelError> {
        let mut req = self.agent.get(&format!("{}/models", self.cfg.base_url));
        if let Some(k) = &self.cfg.api_key {
            req = req.set("Authorization", &format!("Bearer {k}"));
        }
        let v: Value = match req.call() {
            Ok(r) => serde_json::from_str(&r.into_string()?).map_err(|e| ModelError::Protocol(e.to_string()))?,
            Err(ureq::Error::Status(code, r)) => {
                return Err(ModelError::Http {
                    status: code,
                    message: error_message(&r.into_string().unwrap_or_default()),
                })
            }
            Err(ureq::Error::Transport(t)) => return Err(ModelError::Http { status: 0, message: t.to_string() }),
        };
        let data = v["data"].as_array().ok_or_else(|| ModelError::Protocol("no `data` list in /models".into()))?;
        Ok(data.iter().filter_map(|m| m["id"].as_str().map(str::to_string)).collect())
    }

    fn messages(&self, prompt: &Prompt) -> Vec<Value> {
        let mut msgs: Vec<Value> =
            prompt.messages.iter().map(|m| json!({"role": m.role, "content": m.content})).collect();
        if let Some(prefix) = prompt.assistant_prefix.as_deref().filter(|p| !p.is_empty()) {
            msgs.push(json!({"role": "assistant", "content": prefix}));
        }
        msgs
    }

    fn base_body(&self, prompt: &Prompt) -> Value {
        let mut body = json!({"model": self.cfg.model, "messages": self.messages(prompt)});
        if self.cfg.continue_final_message && prompt.assistant_prefix.as_deref().is_some_and(|p| !p.is_empty()) {
            body["continue_final_message"] = json!(true);
            body["add_generation_prompt"] = json!(false);
        }
        body
    }

    /// The request body of [`Judge::generate`].
    pub fn generate_body(&self, prompt: &Prompt, params: &GenParams) -> Value {
        let mut body = self.base_body(prompt);
        body["max_tokens"] = json!(params.max_tokens);
        body["temperature"] = json!(f32_to_f64(params.temperature));
        body["top_p"] = json!(f32_to_f64(params.top_p));
        body["seed"] = json!(params.seed);
        if !params.stop.is_empty() {
            body["stop"] = json!(params.stop);
        }
        if let Some(schema) = &params.json_schema {
            // A full `{"name", "schema", ...}` object is passed as it is; a bare schema is wrapped.
            let js = if schema.get("schema").is_some() && schema.get("name").is_some() {
                schema.clone()
            } else {
                json!({"name": "ragjudge_output", "schema": schema})
            };
            body["response_format"] = json!({"type": "json_schema", "json_schema": js});
        }
        body
    }

    /// The request body of a label-probability call: one greedy token with its top logprobs.
    pub fn label_body(&self, prompt: &Prompt, with_logprobs: bool) -> Value {
        let mut body = self.base_body(prompt);
        body["max_tokens"] = json!(1);
        body["temperature"] = json!(0.0);
        if with_logprobs {
            body["logprobs"] = json!(true);
            body["top_logprobs"] = json!(self.cfg.top_logprobs);
        }
        body
    }

    fn labels_call(&self, prompt: &Prompt, labels: &[String], fallback: bool) -> Result<LabelProbs, ModelError> {
        if labels.is_empty() {
            return Err(ModelError::Inference("label_probs needs at least one label".into()));
        }
        let known_missing = !self.supports_logprobs();
        if known_missing && !fallback {
            return Err(ModelError::NoLogprobs);
        }
        let c = self.complete(&self.label_body(prompt, !known_missing))?;
        match c.top_logprobs {
            Some(top) if !known_missing => label_probs_from_top_logprobs(labels, &top),
            _ => {
                self.logprobs_ok.store(false, Ordering::SeqCst);
                if fallback {
                    hard_label(labels, &c.text)
                } else {
                    Err(ModelError::NoLogprobs)
                }
            }
        }
    }

    /// Sends `body` with retries and parses the completion; counts usage on success.
    fn complete(&self, body: &Value) -> Result<Completion, ModelError> {
        let r = self.post_with_retries(body).and_then(|v| parse_completion(&v));
        match &r {
            Ok(c) => {
                self.calls.fetch_add(1, Ordering::Relaxed);
                self.prompt_tokens.fetch_add(c.prompt_tokens, Ordering::Relaxed);
                self.completion_tokens.fetch_add(c.completion_tokens, Ordering::Relaxed);
            }
            Err(_) => {
                self.failures.fetch_add(1, Ordering::Relaxed);
            }
        }
        r
    }

    fn post_with_retries(&self, body: &Value) -> Result<Value, ModelError> {
        let text = body.to_string();
        let mut garbage_seen = 0u32;
        let mut attempt = 0u32;
        loop {
            let (outcome, failover) = {
                let slot = self.endpoints.acquire(|base, limit| self.health_check(base, limit));
                let outcome = self.attempt(slot.endpoint, &text);
                let failover = match &outcome {
                    Attempt::Retry { down: true, .. } if self.endpoints.len() > 1 => {
                        self.endpoints.failed(slot.endpoint);
                        self.endpoints.another_up(slot.endpoint)
                    }
                    _ => false,
                };
                (outcome, failover)
            };
            match outcome {
                Attempt::Done(v) => return Ok(v),
                Attempt::Fatal(e) => return Err(e),
                Attempt::Retry { err, retry_after, garbage, .. } => {
                    if garbage {
                        garbage_seen += 1;
                    }
                    if attempt >= self.cfg.max_retries || garbage_seen > 1 {
                        return Err(with_attempts(err, attempt + 1));
                    }
                    // Another server is up: retried there at once.
                    let wait = match retry_after {
                        _ if failover => Duration::ZERO,
                        Some(ra) => ra.min(self.cfg.retry_after_max),
                        None => self.backoff(attempt),
                    };
                    self.retries.fetch_add(1, Ordering::Relaxed);
                    attempt += 1;
                    std::thread::sleep(wait);
                }
            }
        }
    }

    /// Full jitter: uniform in `[0, min(max, base * 2^attempt))`.
    fn backoff(&self, attempt: u32) -> Duration {
        let ceiling = self.cfg.backoff_base.saturating_mul(1u32 << attempt.min(20)).min(self.cfg.backoff_max);
        let u = (self.next_random() >> 11) as f64 / (1u64 << 53) as f64;
        ceiling.mul_f64(u)
    }

    /// splitmix64 over an atomic state.
    fn next_random(&self) -> u64 {
        let mut z = self.rng.fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed).wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn timeout_error(&self) -> ModelError {
        ModelError::Timeout(self.cfg.timeout.as_secs_f64().ceil() as u64)
    }

    /// Whether the server at `base` answers `GET /models` within `limit` (any answer below 500:
    /// it is up, whatever it thinks of the request).
    fn health_check(&self, base: &str, limit: Duration) -> bool {
        let mut req = self.agent.get(&format!("{base}/models")).timeout(limit);
        if let Some(k) = &self.cfg.api_key {
            req = req.set("Authorization", &format!("Bearer {k}"));
        }
        match req.call() {
            Ok(_) => true,
            Err(ureq::Error::Status(code, _)) => code < 500,
            Err(ureq::Error::Transport(_)) => false,
        }
    }

    fn attempt(&self, endpoint: &Endpoint, body: &str) -> Attempt {
        self.requests.fetch_add(1, Ordering::Relaxed);
        endpoint.requests.fetch_add(1, Ordering::Relaxed);
        let mut req = self.agent.post(&endpoint.url).set("Content-Type", "application/json");
        if let Some(k) = &self.cfg.api_key {
            req = req.set("Authorization", &format!("Bearer {k}"));
        }
        match req.send_string(body) {
            Ok(resp) => match resp.into_string() {
                Ok(text) => match serde_json::from_str::<Value>(&text) {
                    Ok(v) => Attempt::Done(v),
                    Err(e) => Attempt::Retry {
                        err: ModelError::Protocol(format!("response is not JSON ({e}): {}", snippet(&text))),
                        retry_after: None,
                        garbage: true,
                        down: false,
                    },
                },
                Err(e) => self.body_error(e),
            },
            Err(ureq::Error::Status(code, resp)) => {
                let retry_after = resp.header("Retry-After").and_then(parse_retry_after);
                let message = error_message(&resp.into_string().unwrap_or_default());
                let err = ModelError::Http { status: code, message };
                if code == 408 || code == 429 || (500..=599).contains(&code) {
                    Attempt::Retry { err, retry_after, garbage: false, down: code >= 500 }
                } else {
                    Attempt::Fatal(err)
                }
            }
            Err(ureq::Error::Transport(t)) => {
                use ureq::ErrorKind as K;
                let timed_out = is_timeout(&t);
                match t.kind() {
                    K::InvalidUrl | K::UnknownScheme | K::InsecureRequestHttpsOnly | K::InvalidProxyUrl => {
                        Attempt::Fatal(ModelError::Http { status: 0, message: t.to_string() })
                    }
                    _ if timed_out => {
                        Attempt::Retry { err: self.timeout_error(), retry_after: None, garbage: false, down: true }
                    }
                    _ => Attempt::Retry {
                        err: ModelError::Http { status: 0, message: format!("connection failed: {t}") },
                        retry_after: None,
                        garbage: false,
                        down: true,
                    },
                }
            }
        }
    }

    fn body_error(&self, e: std::io::Error) -> Attempt {
        let err = if matches!(e.kind(), std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock) {
            self.timeout_error()
        } else {
            ModelError::Http { status: 0, message: format!("truncated or unreadable response body: {e}") }
        };
        Attempt::Retry { err, retry_after: None, garbage: false, down: true }
    }

    /// Runs `f` over `items` on at most `concurrency` worker threads; results keep item order.
    #[allow(clippy::expect_used, reason = "each index is taken by one worker; a worker's panic leaves the scope first")]
    fn pool<R: Sync, T: Send>(&self, items: &[R], f: impl Fn(&R) -> T + Sync) -> Vec<T> {
        let workers = (self.cfg.concurrency.max(1) * self.endpoints.len()).min(items.len());
        if workers <= 1 {
            return items.iter().map(f).collect();
        }
        let next = AtomicUsize::new(0);
        let slots: Vec<Mutex<Option<T>>> = items.iter().map(|_| Mutex::new(None)).collect();
        std::thread::scope(|s| {
            for _ in 0..workers {
                s.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= items.len() {
                        break;
                    }
                    let r = f(&items[i]);
                    *slots[i].lock().unwrap_or_else(|p| p.into_inner()) = Some(r);
                });
            }
        });
        slots
            .into_iter()
            .map(|m| m.into_inner().unwrap_or_else(|p| p.into_inner()).expect("every slot is filled"))
            .collect()
    }
}

impl Judge for OpenAiJudge {
    /// `openai:<base url>:<model>`.
    fn identity(&self) -> String {
        format!("openai:{}:{}", self.cfg.base_url, self.cfg.model)
    }

    fn generate(&self, prompt: &Prompt, params: &GenParams) -> Result<Generation, ModelError> {
        let c = self.complete(&self.generate_body(prompt, params))?;
        Ok(Generation {
            text: c.text,
            prompt_tokens: c.prompt_tokens,
            completion_tokens: c.completion_tokens,
            finish_reason: c.finish_reason,
        })
    }

    fn label_probs(&self, prompt: &Prompt, labels: &[String]) -> Result<LabelProbs, ModelError> {
        self.labels_call(prompt, labels, self.cfg.hard_label_fallback)
    }

    fn generate_many(&self, requests: &[(Prompt, GenParams)]) -> Vec<Result<Generation, ModelError>> {
        self.pool(requests, |(p, g)| self.generate(p, g))
    }

    fn label_probs_many(&self, requests: &[(Prompt, Vec<String>)]) -> Vec<Result<LabelProbs, ModelError>> {
        self.pool(requests, |(p, l)| self.label_probs(p, l))
    }

    fn usage(&self) -> Usage {
        Usage {
            calls: self.calls.load(Ordering::Relaxed),
            prompt_tokens: self.prompt_tokens.load(Ordering::Relaxed),
            completion_tokens: self.completion_tokens.load(Ordering::Relaxed),
        }
    }
}

fn parse_completion(v: &Value) -> Result<Completion, ModelError> {
    let choice = v["choices"]
        .as_array()
        .and_then(|c| c.first())
        .ok_or_else(|| ModelError::Protocol(format!("no `choices` in response: {}", snippet(&v.to_string()))))?;
    let text = match &choice["message"]["content"] {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => {
            return Err(ModelError::Protocol(format!("`message.content` is not text: {}", snippet(&other.to_string()))))
        }
    };
    let top_logprobs = choice["logprobs"]["content"]
        .as_array()
        .and_then(|c| c.first())
        .and_then(|t| t["top_logprobs"].as_array())
        .map(|list| {
            list.iter()
                .filter_map(|e| Some((e["token"].as_str()?.to_string(), e["logprob"].as_f64()?)))
                .collect::<Vec<_>>()
        })
        .filter(|l| !l.is_empty());
    Ok(Completion {
        text,
        finish_reason: choice["finish_reason"].as_str().unwrap_or("").to_string(),
        prompt_tokens: v["usage"]["prompt_tokens"].as_u64().unwrap_or(0),
        completion_tokens: v["usage"]["completion_tokens"].as_u64().unwrap_or(0),
        top_logprobs,
    })
}

/// The f64 with the f32's shortest decimal form (0.9f32 -> 0.9, not 0.8999999761581421).
fn f32_to_f64(x: f32) -> f64 {
    x.to_string().parse().unwrap_or(f64::from(x))
}

fn with_attempts(err: ModelError, attempts: u32) -> ModelError {
    match err {
        ModelError::Http { status, message } => {
            ModelError::Http { status, message: format!("{message} (after {attempts} attempts)") }
        }
        ModelError::Protocol(m) => ModelError::Protocol(format!("{m} (after {attempts} attempts)")),
        other => other,
    }
}

/// `Retry-After` in seconds (integer or decimal); the HTTP-date form is ignored.
fn parse_retry_after(h: &str) -> Option<Duration> {
    h.trim().parse::<f64>().ok().filter(|s| s.is_finite() && *s >= 0.0).map(Duration::from_secs_f64)
}

fn is_timeout(t: &ureq::Transport) -> bool {
    let mut src: Option<&(dyn std::error::Error + 'static)> = std::error::Error::source(t);
    while let Some(e) = src {
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            if matches!(io.kind(), std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock) {
                return true;
            }
        }
        src = e.source();
    }
    t.to_string().contains("timed out")
}

/// The `error.message` of an error body, else the body's start.
fn error_message(body: &str) -> String {
    serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|v| v["error"]["message"].as_str().or_else(|| v["message"].as_str()).map(str::to_string))
        .unwrap_or_else(|| snippet(body))
}

pub(crate) fn snippet(s: &str) -> String {
    let s = s.trim();
    if s.chars().count() <= 200 {
        s.to_string()
    } else {
        format!("{}...", s.chars().take(200).collect::<String>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ragjudge_models::ProbSource;

    fn labels(ls: &[&str]) -> Vec<String> {
        ls.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn softmax_over_found_labels_by_hand() {
        // logprobs ln(0.5), ln(0.2), ln(0.1): softmax over A, B = 0.5/0.7, 0.2/0.7; C absent.
        let top = vec![("A".to_string(), 0.5f64.ln()), (" B".to_string(), 0.2f64.ln()), ("x".to_string(), 0.1f64.ln())];
        let p = label_probs_from_top_logprobs(&labels(&["A", "B", "C"]), &top).unwrap();
        assert!((p.probs[0] - 0.5 / 0.7).abs() < 1e-12);
        assert!((p.probs[1] - 0.2 / 0.7).abs() < 1e-12);
        assert_eq!(p.probs[2], 0.0);
        assert_eq!(p.logits[2], f64::NEG_INFINITY);
        assert!((p.label_mass.unwrap() - 0.7).abs() < 1e-12);
        assert_eq!(p.source, ProbSource::TopLogprobs);
    }

    #[test]
    fn variants_add_their_probabilities() {
        // A = 0.3 + 0.1 (either order of the forms), B = 0.3: probs 0.4/0.7, 0.3/0.7.
        let top = vec![(" A".to_string(), 0.1f64.ln()), ("A".to_string(), 0.3f64.ln()), ("B".to_string(), 0.3f64.ln())];
        let p = label_probs_from_top_logprobs(&labels(&["A", "B"]), &top).unwrap();
        assert!((p.probs[0] - 4.0 / 7.0).abs() < 1e-12);
        assert!((p.logits[0] - 0.4f64.ln()).abs() < 1e-12);
        assert!((p.label_mass.unwrap() - 0.7).abs() < 1e-12);
    }

    #[test]
    fn no_label_found_is_protocol_error() {
        let top = vec![("x".to_string(), -0.1)];
        assert!(matches!(label_probs_from_top_logprobs(&labels(&["A"]), &top), Err(ModelError::Protocol(_))));
    }

    #[test]
    fn hard_label_matches_trimmed_or_prefix() {
        let p = hard_label(&labels(&["A", "B", "Tie"]), " B").unwrap();
        assert_eq!(p.probs, vec![0.0, 1.0, 0.0]);
        assert_eq!(p.source, ProbSource::HardLabel);
        let p = hard_label(&labels(&["A", "B", "Tie"]), "Tie.").unwrap();
        assert_eq!(p.probs, vec![0.0, 0.0, 1.0]);
        assert!(hard_label(&labels(&["A", "B"]), "C").is_err());
    }

    #[test]
    fn retry_after_parsing() {
        assert_eq!(parse_retry_after("2"), Some(Duration::from_secs(2)));
        assert_eq!(parse_retry_after(" 0.5 "), Some(Duration::from_millis(500)));
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), None);
    }

    #[test]
    fn bodies_carry_parameters() {
        let j = OpenAiJudge::new(OpenAiConfig { base_url: "http://127.0.0.1:9/v1/".into(), ..OpenAiConfig::new("m") });
        assert_eq!(j.identity(), "openai:http://127.0.0.1:9/v1:m");
        let mut prompt = Prompt::chat("sys", "user");
        prompt.assistant_prefix = Some("Verdict:".into());
        let params =
            GenParams { stop: vec!["\n".into()], json_schema: Some(json!({"type": "object"})), ..GenParams::default() };
        let b = j.generate_body(&prompt, &params);
        assert_eq!(b["messages"][2], json!({"role": "assistant", "content": "Verdict:"}));
        assert_eq!(b["seed"], 42);
        assert_eq!(b["stop"], json!(["\n"]));
        assert_eq!(b["response_format"]["type"], "json_schema");
        assert_eq!(b["response_format"]["json_schema"]["schema"], json!({"type": "object"}));
        let b = j.label_body(&prompt, true);
        assert_eq!(
            (b["max_tokens"].clone(), b["logprobs"].clone(), b["top_logprobs"].clone()),
            (json!(1), json!(true), json!(20))
        );
    }
}
