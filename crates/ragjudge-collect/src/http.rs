//! `http:URL`: the system under test behind an HTTP endpoint. Each question is POSTed as the
//! rendered request template ([`crate::template`]); the answer and passages are read from the
//! JSON reply by path, as promptfoo's HTTP provider does.
//!
//! Retryable: timeouts, connection failures, truncated bodies, replies that are not JSON, 408,
//! 429 (honouring `Retry-After`) and 5xx. Not retryable: other 4xx and replies without the
//! answer field.

use crate::questions::Question;
use crate::target::{snippet, Answer, CallError, Target};
use crate::template::Exchange;
use serde_json::Value;
use std::time::Duration;

/// An HTTP endpoint that answers questions.
#[derive(Debug)]
pub struct HttpTarget {
    url: String,
    headers: Vec<(String, String)>,
    exchange: Exchange,
    agent: ureq::Agent,
    timeout: Duration,
}

impl HttpTarget {
    /// A target at `url` (`http://` or `https://`) with extra request headers (`Name: value`,
    /// e.g. an `Authorization` header) and a per-request timeout.
    pub fn new(url: &str, headers: Vec<(String, String)>, exchange: Exchange, timeout: Duration) -> Self {
        let agent = ureq::AgentBuilder::new().timeout(timeout).user_agent("ragjudge-collect").build();
        Self { url: url.to_string(), headers, exchange, agent, timeout }
    }
}

fn retry_after(header: Option<&str>) -> Option<Duration> {
    let secs = header?.trim().parse::<f64>().ok()?;
    (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs.min(300.0)))
}

fn timed_out(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut src = Some(e);
    while let Some(x) = src {
        if let Some(io) = x.downcast_ref::<std::io::Error>() {
            if matches!(io.kind(), std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock) {
                return true;
            }
        }
        src = x.source();
    }
    e.to_string().contains("timed out")
}

impl Target for HttpTarget {
    fn identity(&self) -> String {
        // Header values may be secrets: only their names decide the answers' identity.
        let names: Vec<&str> = self.headers.iter().map(|(n, _)| n.as_str()).collect();
        format!("http:{}|{}|{}", self.url, names.join(","), self.exchange.identity())
    }

    fn answer(&self, question: &Question) -> Result<Answer, CallError> {
        let body = self.exchange.render(&question.record).to_string();
        let mut req = self.agent.post(&self.url).set("Content-Type", "application/json");
        for (n, v) in &self.headers {
            req = req.set(n, v);
        }
        let timeout = || CallError::transient(format!("no reply within {} s", self.timeout.as_secs_f64()));
        let text = match req.send_string(&body) {
            Ok(resp) => resp.into_string().map_err(|e| {
                if timed_out(&e) {
                    timeout()
                } else {
                    CallError::transient(format!("truncated or unreadable reply: {e}"))
                }
            })?,
            Err(ureq::Error::Status(code, resp)) => {
                let wait = retry_after(resp.header("Retry-After"));
                let message = format!("HTTP {code}: {}", snippet(&resp.into_string().unwrap_or_default()));
                let retryable = code == 408 || code == 429 || (500..=599).contains(&code);
                return Err(CallError { message, retryable, retry_after: wait });
            }
            Err(ureq::Error::Transport(t)) => {
                use ureq::ErrorKind as K;
                return Err(match t.kind() {
                    K::InvalidUrl | K::UnknownScheme | K::InsecureRequestHttpsOnly => CallError::fatal(t.to_string()),
                    _ if timed_out(&t) => timeout(),
                    _ => CallError::transient(format!("connection failed: {t}")),
                });
            }
        };
        let reply: Value = serde_json::from_str(&text)
            .map_err(|e| CallError::transient(format!("reply is not JSON ({e}): {}", snippet(&text))))?;
        self.exchange.extract(&reply)
    }
}
