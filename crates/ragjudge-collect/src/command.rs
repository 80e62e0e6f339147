//! `cmd:PROGRAM`: the system under test as a program run once per question, with the rendered
//! request ([`crate::template`]) as one line of JSON on stdin and a JSON reply on stdout. The
//! program line is split like a shell would (quotes, escapes) and run directly, without a
//! shell, so that a timeout kills the program itself. On Unix the program runs in its own
//! process group, killed whole when the program times out or exits, so that no grandchild
//! outlives its question or holds the output open.
//!
//! Retryable: a timeout (also of the output, held open by a process that left the group) and a
//! non-zero exit. Not retryable: a reply that is not JSON or has no answer field (the same
//! program would write it again).

use crate::error::CollectError;
use crate::questions::Question;
use crate::target::{snippet, Answer, CallError, Target};
use crate::template::Exchange;
use serde_json::Value;
use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
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

/// Reads a pipe to its end on a thread; the bytes come through the channel, so that the reader
/// can stop waiting.
fn drain<R: Read + Send + 'static>(pipe: Option<R>) -> Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut buf);
        }
        let _ = tx.send(buf);
    });
    rx
}

/// SIGKILL to the program's process group: the program and everything it started that stayed
/// in the group. After a normal exit the program is already reaped, but its group id stays
/// reserved while any member is left; an empty group gives ESRCH (ignored). (Only a full wrap
/// of the pid numbers between the reaping and this call could make the id name another group.)
#[cfg(unix)]
fn kill_group(child: &Child) {
    use nix::sys::signal::{killpg, Signal};
    use nix::unistd::Pid;
    if let Ok(pid) = i32::try_from(child.id()) {
        let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
    }
}

/// Without process groups only the program itself is killed (on timeout).
#[cfg(not(unix))]
fn kill_group(_child: &Child) {}

impl Target for CommandTarget {
    fn identity(&self) -> String {
        format!("cmd:{}|{}", self.line, self.exchange.identity())
    }

    fn answer(&self, question: &Question) -> Result<Answer, CallError> {
        let program = &self.argv[0];
        let mut command = Command::new(program);
        command.args(&self.argv[1..]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        // Its own process group, so that whatever it starts can be killed with it.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command.spawn().map_err(|e| CallError::fatal(format!("cannot start {program}: {e}")))?;
        let mut request = self.exchange.render(&question.record).to_string();
        request.push('\n');
        let stdin = child.stdin.take();
        // Written from a thread, never joined: a program that does not read its input must not
        // block us.
        std::thread::spawn(move || {
            if let Some(mut s) = stdin {
                let _ = s.write_all(request.as_bytes());
            }
        });
        let out = drain(child.stdout.take());
        let err = drain(child.stderr.take());
        let waited = child.wait_timeout(self.timeout);
        // Whether it exited or timed out, nothing it started outlives the question: a
        // background grandchild would keep running, and keep the output pipes open so that
        // reading them never ends.
        kill_group(&child);
        let status = match waited {
            Ok(Some(status)) => status,
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(CallError::transient(format!(
                    "{program} gave no reply within {} s (killed)",
                    self.timeout.as_secs_f64()
                )));
            }
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(CallError::transient(format!("waiting for {program}: {e}")));
            }
        };
        // Only a process that left the group (setsid) can still hold the pipes now: wait for it
        // no longer than the timeout.
        if !status.success() {
            let stderr = err.recv_timeout(self.timeout).unwrap_or_default();
            return Err(CallError::transient(format!("{program} exited with {status}: {}", stderr_tail(&stderr))));
        }
        let stdout = out.recv_timeout(self.timeout).map_err(|_| {
            CallError::transient(format!(
                "{program} exited, but its stdout stayed open for {} s (held by a process it started outside its process group)",
                self.timeout.as_secs_f64()
            ))
        })?;
        let text = String::from_utf8_lossy(&stdout);
        let reply: Value = serde_json::from_str(text.trim())
            .map_err(|e| CallError::fatal(format!("{program} wrote no JSON on stdout ({e}): {}", snippet(&text))))?;
        self.exchange.extract(&reply)
    }
}
