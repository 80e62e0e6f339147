//! The HTTP judge against the scripted loopback server: retries, faults, concurrency, logprobs, cache.

use ragjudge_models::{GenParams, Judge, ModelError, ProbSource, Prompt};
use ragjudge_openai::{OpenAiConfig, OpenAiJudge};
use ragjudge_store::{CachedJudge, CallCache};
use ragjudge_testserver::{Behavior, Normal, Script, TestServer};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// Short timeouts and backoffs so that every test finishes in seconds.
fn config(server: &TestServer) -> OpenAiConfig {
    OpenAiConfig {
        base_url: server.base_url(),
        timeout: Duration::from_millis(300),
        max_retries: 3,
        concurrency: 4,
        backoff_base: Duration::from_millis(10),
        backoff_max: Duration::from_millis(50),
        retry_after_max: Duration::from_secs(5),
        ..OpenAiConfig::new("test-model")
    }
}

fn judge(server: &TestServer) -> OpenAiJudge {
    OpenAiJudge::new(config(server))
}

fn ab() -> Vec<String> {
    vec!["A".to_string(), "B".to_string()]
}

fn prompt(text: &str) -> Prompt {
    Prompt::chat("You are a judge.", text)
}

fn echo() -> Behavior {
    Behavior::Normal(Normal::func(|req: &Value| {
        let last = req["messages"].as_array().and_then(|m| m.last()).cloned().unwrap_or(Value::Null);
        format!("echo: {}", last["content"].as_str().unwrap_or(""))
    }))
}

fn generate_after(first: Behavior) -> (TestServer, Result<String, ModelError>, OpenAiJudge) {
    let server = TestServer::start(Script::sequence(vec![first], echo()));
    let j = judge(&server);
    let r = j.generate(&prompt("hello"), &GenParams::default()).map(|g| g.text);
    (server, r, j)
}

#[test]
fn rate_limited_then_normal_honours_retry_after() {
    let start = Instant::now();
    let (server, r, j) = generate_after(Behavior::RateLimited { retry_after_s: 1 });
    assert_eq!(r.unwrap(), "echo: hello");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    assert!(reqs[1].at - reqs[0].at >= Duration::from_secs(1), "Retry-After not honoured");
    assert!(start.elapsed() >= Duration::from_secs(1));
    assert_eq!(j.http_stats().retries, 1);
}

#[test]
fn server_error_then_normal() {
    let (server, r, _) = generate_after(Behavior::ServerError);
    assert_eq!(r.unwrap(), "echo: hello");
    assert_eq!(server.request_count(), 2);
}

#[test]
fn stall_then_normal_after_timeout() {
    let start = Instant::now();
    let (server, r, _) = generate_after(Behavior::Stall { secs: 2.0 });
    assert_eq!(r.unwrap(), "echo: hello");
    assert_eq!(server.request_count(), 2);
    assert!(start.elapsed() < Duration::from_millis(1500), "timeout not applied: {:?}", start.elapsed());
}

#[test]
fn truncated_then_normal() {
    let (server, r, _) = generate_after(Behavior::Truncated);
    assert_eq!(r.unwrap(), "echo: hello");
    assert_eq!(server.request_count(), 2);
}

#[test]
fn garbage_once_is_retried() {
    let (server, r, _) = generate_after(Behavior::Garbage);
    assert_eq!(r.unwrap(), "echo: hello");
    assert_eq!(server.request_count(), 2);
}

#[test]
fn garbage_twice_is_a_protocol_error() {
    let server = TestServer::start(Script::always(Behavior::Garbage));
    let j = judge(&server);
    let e = j.generate(&prompt("x"), &GenParams::default()).unwrap_err();
    assert!(matches!(e, ModelError::Protocol(ref m) if m.contains("not JSON")), "{e}");
    assert_eq!(server.request_count(), 2);
    assert_eq!(j.http_stats().failures, 1);
}

#[test]
fn repeated_failures_stop_after_max_retries_with_their_reason() {
    type Check = fn(&ModelError) -> bool;
    let cases: Vec<(Behavior, Check)> = vec![
        (
            Behavior::ServerError,
            |e| matches!(e, ModelError::Http { status: 500, message } if message.contains("after 4 attempts")),
        ),
        (Behavior::RateLimited { retry_after_s: 0 }, |e| matches!(e, ModelError::Http { status: 429, .. })),
        (Behavior::Stall { secs: 1.0 }, |e| matches!(e, ModelError::Timeout(_))),
        (
            Behavior::Truncated,
            |e| matches!(e, ModelError::Http { status: 0, message } if message.contains("truncated")),
        ),
    ];
    for (behavior, check) in cases {
        let server = TestServer::start(Script::always(behavior.clone()));
        let j = judge(&server);
        let start = Instant::now();
        let e = j.generate(&prompt("x"), &GenParams::default()).unwrap_err();
        assert!(check(&e), "{behavior:?}: {e}");
        assert_eq!(server.request_count(), 4, "{behavior:?}");
        assert_eq!(j.http_stats(), ragjudge_openai::HttpStats { requests: 4, retries: 3, failures: 1 });
        assert!(start.elapsed() < Duration::from_secs(3), "{behavior:?} took {:?}", start.elapsed());
    }
}

#[test]
fn client_errors_are_not_retried() {
    let server = TestServer::start(Script::always(Behavior::Status(400)));
    let j = judge(&server);
    let e = j.generate(&prompt("x"), &GenParams::default()).unwrap_err();
    assert_eq!(e, ModelError::Http { status: 400, message: "scripted status".into() });
    assert_eq!(server.request_count(), 1);
}

#[test]
fn connection_refused_fails_fast() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let j = OpenAiJudge::new(OpenAiConfig {
        base_url: format!("http://127.0.0.1:{port}/v1"),
        timeout: Duration::from_millis(300),
        max_retries: 2,
        backoff_base: Duration::from_millis(5),
        backoff_max: Duration::from_millis(10),
        ..OpenAiConfig::new("m")
    });
    let start = Instant::now();
    let e = j.generate(&prompt("x"), &GenParams::default()).unwrap_err();
    assert!(matches!(e, ModelError::Http { status: 0, .. }), "{e}");
    assert_eq!(j.http_stats().requests, 3);
    assert!(start.elapsed() < Duration::from_secs(2));
}

#[test]
fn concurrency_stays_within_bound_and_results_keep_order() {
    let slow = Normal::func(|req: &Value| req["messages"][1]["content"].as_str().unwrap_or("").to_string())
        .with_delay(Duration::from_millis(60));
    let server = TestServer::start(Script::always(Behavior::Normal(slow)));
    let j = OpenAiJudge::new(OpenAiConfig { timeout: Duration::from_secs(5), ..config(&server) });
    let reqs: Vec<(Prompt, GenParams)> = (0..20).map(|i| (prompt(&format!("q{i}")), GenParams::default())).collect();
    let start = Instant::now();
    let out = j.generate_many(&reqs);
    let elapsed = start.elapsed();
    for (i, r) in out.iter().enumerate() {
        assert_eq!(r.as_ref().unwrap().text, format!("q{i}"));
    }
    assert_eq!(server.request_count(), 20);
    assert!(server.max_in_flight() <= 4, "max in flight {}", server.max_in_flight());
    assert!(server.max_in_flight() >= 2, "no concurrency at all");
    // 20 requests of 60 ms on 4 workers take at least 5 rounds.
    assert!(elapsed >= Duration::from_millis(290), "{elapsed:?}");
    assert_eq!(j.usage().calls, 20);
    assert_eq!(j.usage().prompt_tokens, 200);
}

#[test]
fn bound_holds_across_threads_calling_directly() {
    let server =
        TestServer::start(Script::always(Behavior::Normal(Normal::default().with_delay(Duration::from_millis(40)))));
    let j = OpenAiJudge::new(OpenAiConfig { timeout: Duration::from_secs(5), concurrency: 3, ..config(&server) });
    std::thread::scope(|s| {
        for t in 0..10 {
            let j = &j;
            s.spawn(move || j.label_probs(&prompt(&format!("t{t}")), &ab()).unwrap());
        }
    });
    assert_eq!(server.request_count(), 10);
    assert!(server.max_in_flight() <= 3, "max in flight {}", server.max_in_flight());
}

#[test]
fn label_probs_equal_hand_computed_softmax() {
    // top_logprobs: A -0.2, " A" -1.5 (same label, lower), B -1.0, "C" -3.0, "x" -4.0.
    // Labels A, B, Tie: A = ln(e^-0.2 + e^-1.5) = ln 1.041860... = 0.041008..., B = -1.0, Tie absent.
    // softmax = (1.041860..., e^-1) / (1.041860... + 0.367879...) = (0.739044..., 0.260955...)
    // label_mass = e^-0.2 + e^-1.5 + e^-1.0 = 0.818730... + 0.223130... + 0.367879... = 1.409740...
    // (the scripted numbers need not form a real distribution.)
    let n = Normal::text("A").with_top_logprobs(&[("A", -0.2), (" A", -1.5), ("B", -1.0), ("C", -3.0), ("x", -4.0)]);
    let server = TestServer::start(Script::always(Behavior::Normal(n)));
    let j = judge(&server);
    let labels = vec!["A".to_string(), "B".to_string(), "Tie".to_string()];
    let p = j.label_probs(&prompt("which?"), &labels).unwrap();
    assert!((p.probs[0] - 0.739_044_541_057_650_6).abs() < 1e-12, "{:?}", p.probs);
    assert!((p.probs[1] - 0.260_955_458_942_349_5).abs() < 1e-12);
    assert_eq!(p.probs[2], 0.0);
    assert!((p.logits[0] - 0.041_008_453_832_992_13).abs() < 1e-12, "{:?}", p.logits);
    assert_eq!(&p.logits[1..], &[-1.0, f64::NEG_INFINITY]);
    assert!((p.label_mass.unwrap() - 1.409_740_4).abs() < 1e-6);
    assert_eq!(p.source, ProbSource::TopLogprobs);
    let body = &server.requests()[0].body;
    assert_eq!(body["max_tokens"], 1);
    assert_eq!(body["logprobs"], true);
    assert_eq!(body["top_logprobs"], 20);
    assert_eq!(body["model"], "test-model");
}

#[test]
fn no_label_among_top_logprobs_is_protocol_error() {
    let n = Normal::text("x").with_top_logprobs(&[("x", -0.1), ("y", -3.0)]);
    let server = TestServer::start(Script::always(Behavior::Normal(n)));
    let e = judge(&server).label_probs(&prompt("q"), &ab()).unwrap_err();
    assert!(matches!(e, ModelError::Protocol(_)), "{e}");
}

#[test]
fn missing_logprobs_are_detected_remembered_and_fall_back_to_hard_labels() {
    let server = TestServer::start(Script::always(Behavior::NoLogprobs(Normal::text(" B"))));
    let j = judge(&server);
    assert!(j.supports_logprobs());
    assert_eq!(j.label_probs(&prompt("q"), &ab()).unwrap_err(), ModelError::NoLogprobs);
    assert!(!j.supports_logprobs());
    // Known now: no second request for a call that cannot succeed.
    assert_eq!(j.label_probs(&prompt("q2"), &ab()).unwrap_err(), ModelError::NoLogprobs);
    assert_eq!(server.request_count(), 1);
    let hard = j.label_probs_or_hard(&prompt("q3"), &ab()).unwrap();
    assert_eq!(hard.probs, vec![0.0, 1.0]);
    assert_eq!(hard.source, ProbSource::HardLabel);
    assert_eq!(hard.label_mass, None);
    // Once known, the logprobs fields are no longer asked for.
    assert!(server.requests()[1].body.get("logprobs").is_none());
}

#[test]
fn hard_label_fallback_from_config() {
    let server = TestServer::start(Script::always(Behavior::NoLogprobs(Normal::text("A"))));
    let j = OpenAiJudge::new(OpenAiConfig { hard_label_fallback: true, ..config(&server) });
    let p = j.label_probs(&prompt("q"), &ab()).unwrap();
    assert_eq!((p.probs, p.source), (vec![1.0, 0.0], ProbSource::HardLabel));
    assert_eq!(server.request_count(), 1);
}

#[test]
fn generate_sends_parameters_key_and_counts_usage() {
    let server = TestServer::start(Script::always(Behavior::Normal(Normal::text("{\"ok\": true}"))));
    let j = OpenAiJudge::new(OpenAiConfig { api_key: Some("sk-test".into()), ..config(&server) });
    let params = GenParams {
        max_tokens: 64,
        temperature: 0.5,
        top_p: 0.9,
        seed: 7,
        stop: vec!["END".into()],
        json_schema: Some(json!({"type": "object", "properties": {"ok": {"type": "boolean"}}})),
        grammar: None,
    };
    let mut p = prompt("give json");
    p.assistant_prefix = Some("{".into());
    let g = j.generate(&p, &params).unwrap();
    assert_eq!(g.text, "{\"ok\": true}");
    assert_eq!((g.prompt_tokens, g.completion_tokens, g.finish_reason.as_str()), (10, 1, "stop"));
    let r = &server.requests()[0];
    assert_eq!(r.path, "/v1/chat/completions");
    assert_eq!(r.authorization.as_deref(), Some("Bearer sk-test"));
    let b = &r.body;
    assert_eq!((b["max_tokens"].clone(), b["seed"].clone(), b["top_p"].as_f64()), (json!(64), json!(7), Some(0.9)));
    assert_eq!(b["temperature"], 0.5);
    assert_eq!(b["stop"], json!(["END"]));
    assert_eq!(b["response_format"]["type"], "json_schema");
    assert_eq!(b["response_format"]["json_schema"]["schema"]["type"], "object");
    assert_eq!(b["messages"].as_array().unwrap().last().unwrap(), &json!({"role": "assistant", "content": "{"}));
    assert_eq!(j.usage().calls, 1);
    assert_eq!((j.usage().prompt_tokens, j.usage().completion_tokens), (10, 1));
    assert_eq!(j.list_models().unwrap(), vec!["test-model".to_string()]);
}

#[test]
fn cached_judge_makes_no_second_request_and_does_not_cache_failures() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(Script::sequence(vec![Behavior::Status(400)], Behavior::normal()));
    let j = CachedJudge::new(judge(&server), CallCache::open(dir.path().join("c.sqlite")).unwrap());
    // The first call fails (400 is not retried) and is not cached.
    assert!(j.label_probs(&prompt("q"), &ab()).is_err());
    let a = j.label_probs(&prompt("q"), &ab()).unwrap();
    assert_eq!(server.request_count(), 2);
    let b = j.label_probs(&prompt("q"), &ab()).unwrap();
    assert_eq!(a, b);
    assert_eq!(server.request_count(), 2);
    assert_eq!(j.usage().calls, 1);
    assert_eq!(j.cache_hits(), 1);

    // A fresh judge on the same file (a re-run) makes no request either.
    let again = CachedJudge::new(judge(&server), CallCache::open(dir.path().join("c.sqlite")).unwrap());
    assert_eq!(again.label_probs(&prompt("q"), &ab()).unwrap(), a);
    assert_eq!(server.request_count(), 2);

    // _many: only the misses reach the server, concurrently, and results keep order.
    let reqs: Vec<(Prompt, Vec<String>)> =
        std::iter::once(prompt("q")).chain((1..6).map(|i| prompt(&format!("n{i}")))).map(|p| (p, ab())).collect();
    let out = again.label_probs_many(&reqs);
    assert!(out.iter().all(|r| r.is_ok()));
    assert_eq!(server.request_count(), 2 + 5);
    let again_out = again.label_probs_many(&reqs);
    assert_eq!(out, again_out);
    assert_eq!(server.request_count(), 7);
}

#[test]
fn two_cached_judges_in_threads_share_a_cache_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.sqlite");
    let server = TestServer::start(Script::default());
    std::thread::scope(|s| {
        for t in 0..2 {
            let (path, server) = (&path, &server);
            s.spawn(move || {
                let j = CachedJudge::new(judge(server), CallCache::open(path).unwrap());
                for i in 0..10 {
                    // Both threads ask the same prompts: every call must succeed.
                    j.label_probs(&prompt(&format!("p{}", (i + t) % 10)), &ab()).unwrap();
                }
            });
        }
    });
    assert_eq!(CallCache::open(&path).unwrap().len().unwrap(), 10);
}
