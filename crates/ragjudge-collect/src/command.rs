//! `cmd:PROGRAM`: the system under test as a program run once per question, with the rendered
//! request ([`crate::template`]) as one line of JSON on stdin and a JSON reply on stdout. The
//! program line is split like a shell would (quotes, escapes) and run directly, without a
//! shell, so that a timeout kills the program itself.
//!
//! Retryable: a timeout and a non-zero exit. Not retryable: a reply that is not JSON or has no
//! answer field (the same program would write it again).

use crate::error::CollectError;
use crate::questions::Question;
use crate::target::{snippet, Answer, CallError, Target};
use crate::template::Exchange;
use serde_json::Value;
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::Duration;
use wait_timeout::ChildExt;

/// A program that answers one question per run.
#[derive(Debug)]
pub struct CommandTarget {
    line: String,
    argv: Vec<String>,
    exchange: Exchange,
    timeout: Duration,
}

impl CommandTarget {
    /// A target running `line` (program and arguments) with a per-question timeout.
    pub fn new(line: &str, exchange: Exchange, timeout: Duration) -> Result<Self, CollectError> {
        let argv = shell_words::split(line)
            .map_err(|e| CollectError::Settings(format!("cmd:{line}: cannot split the command line: {e}")))?;
        if argv.is_empty() {
            return Err(CollectError::Settings("cmd: names no program".into()));
        }
        Ok(Self { line: line.to_string(), argv, exchange, timeout })
    }
}

/// The last 300 characters of the program's stderr, on one line.
fn stderr_tail(bytes: &[u8]) -> String {
    let s = String::from_utf8_lossy(bytes);
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    let n = s.chars().count();
    if n <= 300 {
        s
    } else {
        format!("...{}", s.chars().skip(n - 300).collect::<String>())
    }
}

fn drain(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = pipe.read_to_end(&mut buf);
        buf
    })
}

impl Target for CommandTarget {
    fn identity(&self) -> String {
        format!("cmd:{}|{}", self.line, self.exchange.identity())
    }

    fn answer(&self, question: &Question) -> Result<Answer, CallError> {
        let mut child = Command::new(&self.argv[0])
            .args(&self.argv[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| CallError::fatal(format!("cannot start {}: {e}", self.argv[0])))?;
        let mut request = self.exchange.render(&question.record).to_string();
        request.push('\n');
        let stdin = child.stdin.take();
        // Written from a thread: a program that does not read its input must not block us.
        let writer = std::thread::spawn(move || {
            if let Some(mut s) = stdin {
                let _ = s.write_all(request.as_bytes());
            }
        });
        let out = child.stdout.take().map(drain);
        let err = child.stderr.take().map(drain);
        let status = match child.wait_timeout(self.timeout) {
            Ok(Some(status)) => status,
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(CallError::transient(format!(
                    "{} gave no reply within {} s (killed)",
                    self.argv[0],
                    self.timeout.as_secs_f64()
                )));
            }
            Err(e) => return Err(CallError::transient(format!("waiting for {}: {e}", self.argv[0]))),
        };
        let _ = writer.join();
        let stdout = out.and_then(|h| h.join().ok()).unwrap_or_default();
        let stderr = err.and_then(|h| h.join().ok()).unwrap_or_default();
        if !status.success() {
            return Err(CallError::transient(format!(
                "{} exited with {status}: {}",
                self.argv[0],
                stderr_tail(&stderr)
            )));
        }
        let text = String::from_utf8_lossy(&stdout);
        let reply: Value = serde_json::from_str(text.trim()).map_err(|e| {
            CallError::fatal(format!("{} wrote no JSON on stdout ({e}): {}", self.argv[0], snippet(&text)))
        })?;
        self.exchange.extract(&reply)
    }
}
