//! A batch killed with SIGKILL half-way resumes from the call cache: no prompt answered before the
//! kill is asked again (at most the one in flight), and every prompt is asked in the end.

use ragjudge_testserver::{Behavior, Normal, Script, TestServer};
use std::collections::HashSet;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const N: usize = 40;

fn start(server: &TestServer, cache: &std::path::Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_cached_batch"))
        .args([server.base_url(), cache.display().to_string(), N.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start cached_batch")
}

/// Waits for `child` at most `limit`, killing it past that; returns whether it exited with success.
fn wait_bounded(child: &mut Child, limit: Duration) -> bool {
    let end = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.success();
        }
        if Instant::now() >= end {
            let _ = child.kill();
            let _ = child.wait();
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn killed_batch_resumes_without_repeating_answered_calls() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache.sqlite");
    let slow = Normal::default().with_delay(Duration::from_millis(50));
    let server = TestServer::start(Script::always(Behavior::Normal(slow)));

    let mut first = start(&server, &cache);
    let reached = server.wait_for_requests(20, Duration::from_secs(30));
    first.kill().unwrap(); // SIGKILL on Unix
    let status = first.wait().unwrap();
    assert!(reached >= 20, "only {reached} requests arrived");
    assert!(!status.success(), "the batch finished before it could be killed");
    let before_kill = server.request_count();
    assert!(before_kill < N, "nothing left to resume");

    let mut second = start(&server, &cache);
    assert!(wait_bounded(&mut second, Duration::from_secs(60)), "re-run failed or hung");

    let prompts: Vec<String> = server.requests().iter().map(|r| r.last_user_message().unwrap()).collect();
    let (run1, run2) = prompts.split_at(before_kill);
    eprintln!("killed after {before_kill} requests; the re-run made {}", run2.len());
    let set1: HashSet<&String> = run1.iter().collect();
    let set2: HashSet<&String> = run2.iter().collect();
    assert_eq!(set1.len(), run1.len(), "the first run repeated a prompt");
    assert_eq!(set2.len(), run2.len(), "the re-run repeated a prompt");
    // Calls run one after another, so only the last request of the first run can have been in flight.
    for p in &run1[..run1.len() - 1] {
        assert!(!set2.contains(p), "{p} was answered before the kill but asked again");
    }
    let all: HashSet<&String> = set1.union(&set2).copied().collect();
    assert_eq!(all.len(), N);
    assert!(run2.len() <= N - (before_kill - 1));
}
