//! A pool of two servers of one model on loopback: requests balanced over both within each one's
//! bound, and one server killed mid-run: every call is answered, none asked twice except those the
//! killed server had in flight.

use ragjudge_models::{GenParams, Judge, Prompt};
use ragjudge_openai::{OpenAiConfig, OpenAiJudge};
use ragjudge_testserver::{Behavior, Normal, RecordedRequest, Script, TestServer};
use serde_json::Value;
use std::time::Duration;

/// Answers `echo: <last message>` after `delay`.
fn echo(delay: Duration) -> Behavior {
    Behavior::Normal(
        Normal::func(|req: &Value| {
            let last = req["messages"].as_array().and_then(|m| m.last()).cloned().unwrap_or(Value::Null);
            format!("echo: {}", last["content"].as_str().unwrap_or(""))
        })
        .with_delay(delay),
    )
}

fn pool(a: &TestServer, b: &TestServer, concurrency: usize) -> OpenAiJudge {
    OpenAiJudge::new(OpenAiConfig {
        base_url: a.base_url(),
        pool: vec![b.base_url()],
        timeout: Duration::from_secs(5),
        max_retries: 3,
        concurrency,
        backoff_base: Duration::from_millis(10),
        backoff_max: Duration::from_millis(50),
        ..OpenAiConfig::new("test-model")
    })
}

fn requests(n: usize) -> Vec<(Prompt, GenParams)> {
    (0..n).map(|i| (Prompt::chat("You are a judge.", format!("q{i}")), GenParams::default())).collect()
}

/// The user messages of the chat requests a server received.
fn asked(requests: &[RecordedRequest]) -> Vec<String> {
    requests
        .iter()
        .filter(|r| r.method == "POST")
        .filter_map(|r| r.body["messages"].as_array()?.last()?["content"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn requests_are_balanced_over_the_servers_within_each_bound() {
    let a = TestServer::start(Script::always(echo(Duration::from_millis(20))));
    let b = TestServer::start(Script::always(echo(Duration::from_millis(20))));
    let j = pool(&a, &b, 2);
    let out = j.generate_many(&requests(40));
    for (i, r) in out.iter().enumerate() {
        assert_eq!(r.as_ref().unwrap().text, format!("echo: q{i}"));
    }
    let (on_a, on_b) = (asked(&a.requests()).len(), asked(&b.requests()).len());
    assert_eq!(on_a + on_b, 40);
    assert!(on_a >= 10 && on_b >= 10, "a {on_a}, b {on_b}");
    assert!(a.max_in_flight() <= 2 && b.max_in_flight() <= 2);
    // Calls are cached under the first server's identity, whichever answered.
    assert_eq!(j.identity(), format!("openai:{}:test-model", a.base_url()));
}

#[test]
fn a_server_killed_mid_run_leaves_every_call_answered_and_only_its_calls_in_flight_asked_again() {
    let a = TestServer::start(Script::always(echo(Duration::from_millis(40))));
    let b = TestServer::start(Script::always(echo(Duration::from_millis(40))));
    let j = pool(&a, &b, 2);
    let n = 60;
    let (out, on_a) = std::thread::scope(|s| {
        let run = s.spawn(|| j.generate_many(&requests(n)));
        a.wait_for_requests(8, Duration::from_secs(10));
        let on_a = asked(&a.kill());
        (run.join().unwrap(), on_a)
    });
    for (i, r) in out.iter().enumerate() {
        assert_eq!(r.as_ref().map(|g| g.text.as_str()).unwrap(), format!("echo: q{i}"));
    }
    let on_b = asked(&b.requests());
    // Nothing asked twice of the live server; asked of both: only what the killed one had in
    // flight (at most its bound, 2).
    let mut distinct = on_b.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), on_b.len(), "a call asked twice of the live server");
    let twice = on_a.iter().filter(|q| on_b.contains(q)).count();
    assert!(twice <= 2, "{twice} calls asked of both servers");
    assert_eq!(on_a.len() + on_b.len() - twice, n);
    let stats = j.endpoint_stats();
    assert!(stats[0].failures >= 1 && stats[0].down, "{stats:?}");
    assert_eq!((stats[1].failures, stats[1].down), (0, false));
}
