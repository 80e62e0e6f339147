//! HTTP and command targets against a loopback server and fake programs: answers and passages
//! by path, retries on 500 and timeouts, garbage replies, missing answer fields, the
//! concurrency bound, and the cache that makes a second run ask nothing again.

use ragjudge_collect::command::CommandTarget;
use ragjudge_collect::http::HttpTarget;
use ragjudge_collect::questions::{question_from_json, Question};
use ragjudge_collect::run::{collect, CollectSettings, KNOWN_RELEVANT};
use ragjudge_collect::template::{default_template, Exchange};
use ragjudge_store::CallCache;
use ragjudge_testserver::{Behavior, ReplyFn, Script, TestServer};
use serde_json::{json, Value};
use std::time::Duration;

fn questions(n: usize) -> Vec<Question> {
    (1..=n)
        .map(|i| {
            let v = json!({"id": format!("q{i}"), "query": format!("question {i}?"), "reference": "SECRET",
                           "meta": {"topic": "t0", "source_ids": [format!("p{i}")]}});
            question_from_json(v, "questions.jsonl", i as u64).unwrap()
        })
        .collect()
}

fn settings(concurrency: usize, retries: u32) -> CollectSettings {
    CollectSettings { system: "sut".into(), concurrency, retries, backoff: Duration::from_millis(10), refresh: false }
}

/// A RAG service: echoes the query, returns two passages, the first with the question's source id.
fn rag_reply() -> Behavior {
    Behavior::Reply(ReplyFn::new(|req: &Value| {
        let q = req["input"]["question"].as_str().unwrap_or("");
        let n = q.trim_start_matches("question ").trim_end_matches('?');
        json!({"output": {"text": format!("answer to {q} [1]")},
               "sources": [{"doc_id": format!("p{n}"), "page_content": "source passage"},
                           {"doc_id": "other", "page_content": "another passage"}]})
    }))
}

fn http_target(server: &TestServer, timeout: Duration) -> HttpTarget {
    let template = json!({"input": {"question": "{{query}}", "topic": "{{meta.topic}}"}, "session": "{{id}}"});
    let exchange = Exchange::new(template, "$.output.text", "$.sources").unwrap();
    let url = format!("http://{}/rag", server.addr());
    HttpTarget::new(&url, vec![("Authorization".into(), "Bearer k".into())], exchange, timeout)
}

#[test]
fn http_answers_and_passages_come_back_in_question_order() {
    let server = TestServer::start(Script::always(rag_reply()));
    let target = http_target(&server, Duration::from_secs(5));
    let qs = questions(6);
    let out = collect(&qs, &target, &CallCache::disabled(), &settings(3, 0), &|_, _| {});
    assert!(out.failures.is_empty(), "{:?}", out.failures);
    let ids: Vec<&str> = out.records.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["q1", "q2", "q3", "q4", "q5", "q6"]);
    let r = &out.records[1];
    assert_eq!(r.system, "sut");
    assert_eq!(r.answer, "answer to question 2? [1]");
    assert_eq!(r.reference.as_deref(), Some("SECRET"), "the reference stays in the record");
    assert_eq!(r.contexts.len(), 2);
    assert_eq!(r.contexts[0].id.as_deref(), Some("p2"));
    assert_eq!(r.contexts[0].relevance, Some(KNOWN_RELEVANT), "the question's source is marked relevant");
    assert_eq!(r.contexts[1].relevance, Some(0.0), "another passage is judged not relevant");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 6);
    for req in &reqs {
        assert_eq!(req.path, "/rag");
        assert_eq!(req.authorization.as_deref(), Some("Bearer k"));
        assert_eq!(req.body["input"]["topic"], "t0");
        assert!(!req.body.to_string().contains("SECRET"), "the reference is never sent");
    }
    assert!(server.max_in_flight() <= 3, "concurrency bound: {}", server.max_in_flight());
    assert_eq!(out.asked, 6);
    assert_eq!(out.attempts, 6);
}

#[test]
fn a_500_is_retried_and_a_lasting_one_is_recorded() {
    let server = TestServer::start(Script::sequence(vec![Behavior::ServerError], rag_reply()));
    let target = http_target(&server, Duration::from_secs(5));
    let qs = questions(1);
    let out = collect(&qs, &target, &CallCache::disabled(), &settings(1, 2), &|_, _| {});
    assert_eq!(out.records.len(), 1);
    assert_eq!(out.attempts, 2);

    let server = TestServer::start(Script::always(Behavior::ServerError));
    let target = http_target(&server, Duration::from_secs(5));
    let out = collect(&questions(2), &target, &CallCache::disabled(), &settings(1, 2), &|_, _| {});
    assert!(out.records.is_empty());
    assert_eq!(out.failures.len(), 2);
    assert_eq!(out.failures[0].id, "q1");
    assert_eq!(out.failures[0].attempts, 3);
    assert!(out.failures[0].error.starts_with("HTTP 500"), "{}", out.failures[0].error);
    assert_eq!(server.request_count(), 6);
}

#[test]
fn timeouts_garbage_and_missing_answers_are_recorded_failures() {
    // A stalled reply times out and is retried once; the retry succeeds.
    let server = TestServer::start(Script::sequence(vec![Behavior::Stall { secs: 3.0 }], rag_reply()));
    let target = http_target(&server, Duration::from_secs(1));
    let out = collect(&questions(1), &target, &CallCache::disabled(), &settings(1, 1), &|_, _| {});
    assert_eq!(out.records.len(), 1, "{:?}", out.failures);
    assert_eq!(out.attempts, 2);

    // Only stalls: a timeout failure after 1 + 1 attempts.
    let server = TestServer::start(Script::always(Behavior::Stall { secs: 3.0 }));
    let target = http_target(&server, Duration::from_secs(1));
    let out = collect(&questions(1), &target, &CallCache::disabled(), &settings(1, 1), &|_, _| {});
    assert_eq!(out.failures.len(), 1);
    assert!(out.failures[0].error.contains("no reply within 1 s"), "{}", out.failures[0].error);
    assert_eq!(out.failures[0].attempts, 2);

    // A body that is not JSON.
    let server = TestServer::start(Script::always(Behavior::Garbage));
    let target = http_target(&server, Duration::from_secs(5));
    let out = collect(&questions(1), &target, &CallCache::disabled(), &settings(1, 0), &|_, _| {});
    assert!(out.failures[0].error.starts_with("reply is not JSON"), "{}", out.failures[0].error);

    // A reply without the answer field is not retried.
    let server = TestServer::start(Script::always(Behavior::Reply(ReplyFn::new(|_| json!({"result": "x"})))));
    let target = http_target(&server, Duration::from_secs(5));
    let out = collect(&questions(2), &target, &CallCache::disabled(), &settings(1, 3), &|_, _| {});
    assert_eq!(out.failures.len(), 2);
    assert_eq!(out.failures[0].error, "reply has no answer at $.output.text");
    assert_eq!(server.request_count(), 2, "not retried");

    // A 4xx is not retried either; a 429 is.
    let server = TestServer::start(Script::always(Behavior::Status(400)));
    let target = http_target(&server, Duration::from_secs(5));
    let out = collect(&questions(1), &target, &CallCache::disabled(), &settings(1, 3), &|_, _| {});
    assert!(out.failures[0].error.starts_with("HTTP 400"));
    assert_eq!(server.request_count(), 1);
    let server = TestServer::start(Script::sequence(vec![Behavior::RateLimited { retry_after_s: 0 }], rag_reply()));
    let target = http_target(&server, Duration::from_secs(5));
    let out = collect(&questions(1), &target, &CallCache::disabled(), &settings(1, 1), &|_, _| {});
    assert_eq!(out.records.len(), 1);
    assert_eq!(server.request_count(), 2);
}

#[test]
fn cached_answers_are_not_asked_again_and_failures_are() {
    let dir = tempfile::tempdir().unwrap();
    let cache = CallCache::open(dir.path().join("cache.sqlite")).unwrap();
    // q3 fails in the first run (400), the others are answered.
    let reply = rag_reply();
    let server = TestServer::start(Script::always(Behavior::Reply(ReplyFn::new(move |req: &Value| {
        if req["input"]["question"] == "question 3?" {
            json!({"nothing": true})
        } else if let Behavior::Reply(f) = &reply {
            (f.0)(req)
        } else {
            unreachable!()
        }
    }))));
    let target = http_target(&server, Duration::from_secs(5));
    let qs = questions(5);
    let first = collect(&qs, &target, &cache, &settings(2, 0), &|_, _| {});
    assert_eq!((first.records.len(), first.failures.len()), (4, 1));
    assert_eq!(server.request_count(), 5);
    // Second run: the four answers come from the cache; only the failed question is asked again.
    let second = collect(&qs, &target, &cache, &settings(2, 0), &|_, _| {});
    assert_eq!((second.from_cache, second.asked), (4, 1));
    assert_eq!(server.request_count(), 6, "only q3 was asked again");
    let answers = |c: &ragjudge_collect::run::Collected| c.records.iter().map(|r| r.answer.clone()).collect::<Vec<_>>();
    assert_eq!(answers(&second), answers(&first));
    // Another system name is another target: nothing comes from the cache.
    let mut other = settings(2, 0);
    other.system = "sut-v2".into();
    let third = collect(&qs, &target, &cache, &other, &|_, _| {});
    assert_eq!(third.from_cache, 0);
}

/// A fake RAG program: logs each question id, then answers, fails or stalls by id.
fn fake_program(dir: &std::path::Path) -> std::path::PathBuf {
    let path = dir.join("fake-rag.sh");
    let log = dir.join("asked.log");
    let script = format!(
        r#"#!/bin/sh
read -r line
id=$(printf '%s' "$line" | sed 's/.*"id":"\([^"]*\)".*/\1/')
echo "$id" >> '{log}'
case "$id" in
  slow*) sleep 5 ;;
  crash*) echo "index not loaded" >&2; exit 3 ;;
  garbage*) echo "Traceback (most recent call last)"; exit 0 ;;
  empty*) echo '{{"contexts": []}}'; exit 0 ;;
esac
printf '{{"answer": "answer to %s [1]", "contexts": ["first passage", {{"id": "p1", "text": "second"}}]}}\n' "$id"
"#,
        log = log.display()
    );
    std::fs::write(&path, script).unwrap();
    path
}

fn named(ids: &[&str]) -> Vec<Question> {
    ids.iter()
        .enumerate()
        .map(|(i, id)| {
            question_from_json(json!({"id": id, "query": format!("q {id}")}), "q.jsonl", i as u64 + 1).unwrap()
        })
        .collect()
}

#[test]
fn command_targets_answer_fail_and_time_out_by_question() {
    let dir = tempfile::tempdir().unwrap();
    let program = fake_program(dir.path());
    let exchange = Exchange::new(default_template(), "$.answer", "$.contexts").unwrap();
    let target = CommandTarget::new(&format!("sh '{}'", program.display()), exchange, Duration::from_secs(2)).unwrap();
    let qs = named(&["ok1", "slow1", "crash1", "garbage1", "empty1", "ok2"]);
    let out = collect(&qs, &target, &CallCache::disabled(), &settings(2, 1), &|_, _| {});
    let ok: Vec<&str> = out.records.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ok, ["ok1", "ok2"]);
    assert_eq!(out.records[0].answer, "answer to ok1 [1]");
    assert_eq!(out.records[0].contexts[0].text, "first passage");
    assert_eq!(out.records[0].contexts[1].id.as_deref(), Some("p1"));
    let why: Vec<(&str, &str, u32)> =
        out.failures.iter().map(|f| (f.id.as_str(), f.error.as_str(), f.attempts)).collect();
    assert_eq!(why.len(), 4);
    assert!(why[0].0 == "slow1" && why[0].1.contains("gave no reply within 2 s (killed)") && why[0].2 == 2, "{why:?}");
    assert!(
        why[1].0 == "crash1" && why[1].1.contains("exited with exit status: 3: index not loaded") && why[1].2 == 2,
        "{why:?}"
    );
    assert!(why[2].0 == "garbage1" && why[2].1.contains("wrote no JSON on stdout") && why[2].2 == 1, "{why:?}");
    assert!(why[3].0 == "empty1" && why[3].1 == "reply has no answer at $.answer" && why[3].2 == 1, "{why:?}");
    let log = std::fs::read_to_string(dir.path().join("asked.log")).unwrap();
    assert_eq!(log.lines().filter(|l| *l == "slow1").count(), 2, "a timeout is retried: {log}");
}

#[test]
fn a_missing_program_and_a_bad_command_line_are_clear() {
    let exchange = Exchange::new(default_template(), "$.answer", "$.contexts").unwrap();
    let e = CommandTarget::new("prog 'unclosed", exchange.clone(), Duration::from_secs(1)).unwrap_err();
    assert!(e.to_string().contains("cannot split the command line"), "{e}");
    let target = CommandTarget::new("/no/such/program --x", exchange, Duration::from_secs(1)).unwrap();
    let out = collect(&named(&["a"]), &target, &CallCache::disabled(), &settings(1, 2), &|_, _| {});
    assert!(out.failures[0].error.starts_with("cannot start /no/such/program"), "{}", out.failures[0].error);
    assert_eq!(out.failures[0].attempts, 1);
}

/// A command target running `script` (written to a file in `dir`) with the given timeout.
#[cfg(target_os = "linux")]
fn script_target(dir: &std::path::Path, script: &str, timeout: Duration) -> CommandTarget {
    let path = dir.join("target.sh");
    std::fs::write(&path, script).unwrap();
    let exchange = Exchange::new(default_template(), "$.answer", "$.contexts").unwrap();
    CommandTarget::new(&format!("sh '{}'", path.display()), exchange, timeout).unwrap()
}

/// The pid a process wrote to `path` (written to a temporary name, then renamed, so it is whole).
#[cfg(target_os = "linux")]
fn written_pid(path: &std::path::Path) -> String {
    let start = std::time::Instant::now();
    while start.elapsed() < Duration::from_secs(5) {
        if let Ok(pid) = std::fs::read_to_string(path) {
            return pid.trim().to_string();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("{} was never written", path.display());
}

/// Whether process `pid` is still running within 5 s (a killed zombie waiting for its reaper
/// counts as gone).
#[cfg(target_os = "linux")]
fn still_running_after_5s(pid: &str) -> bool {
    let running = || match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // "PID (COMMAND) STATE ...": the state follows the last parenthesis.
        Ok(stat) => stat.rsplit_once(')').is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z')),
        Err(_) => false,
    };
    let start = std::time::Instant::now();
    while running() {
        if start.elapsed() > Duration::from_secs(5) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

#[cfg(target_os = "linux")]
#[test]
fn a_timed_out_command_targets_grandchild_is_killed() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("grandchild.pid");
    // The target starts a grandchild that records its pid and sleeps, then waits for it.
    let script = format!(
        "#!/bin/sh\nsh -c 'echo $$ > \"$0.tmp\" && mv \"$0.tmp\" \"$0\" && exec sleep 100' '{}' &\nwait\n",
        pid_file.display()
    );
    let target = script_target(dir.path(), &script, Duration::from_secs(2));
    let out = collect(&named(&["a"]), &target, &CallCache::disabled(), &settings(1, 0), &|_, _| {});
    assert!(out.failures[0].error.contains("gave no reply within 2 s (killed)"), "{}", out.failures[0].error);
    let pid = written_pid(&pid_file);
    assert!(!still_running_after_5s(&pid), "grandchild {pid} survived the timeout");
}

#[cfg(target_os = "linux")]
#[test]
fn a_command_targets_background_child_holding_stdout_is_killed_when_it_exits() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("grandchild.pid");
    // The target answers and exits, leaving a child that holds stdout and would add garbage to
    // the reply 3 s later (unless it is killed when the target exits).
    let script = format!(
        r#"#!/bin/sh
read -r line
sh -c 'echo $$ > "$0.tmp" && mv "$0.tmp" "$0"; sleep 3; echo trailing garbage' '{pid}' &
while [ ! -e '{pid}' ]; do sleep 0.05; done
echo '{{"answer": "done", "contexts": []}}'
"#,
        pid = pid_file.display()
    );
    let target = script_target(dir.path(), &script, Duration::from_secs(30));
    let out = collect(&named(&["a"]), &target, &CallCache::disabled(), &settings(1, 0), &|_, _| {});
    assert!(out.failures.is_empty(), "{:?}", out.failures);
    assert_eq!(out.records[0].answer, "done");
    let pid = written_pid(&pid_file);
    assert!(!still_running_after_5s(&pid), "background child {pid} survived the target's exit");
}

#[cfg(target_os = "linux")]
#[test]
fn a_command_targets_output_held_by_a_process_outside_its_group_times_out() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("escaped.pid");
    // `setsid` takes the child out of the target's process group, out of reach of the kill: the
    // read of the reply must still end.
    let script = format!(
        r#"#!/bin/sh
read -r line
setsid sh -c 'echo $$ > "$0.tmp" && mv "$0.tmp" "$0" && exec sleep 60' '{pid}' &
while [ ! -e '{pid}' ]; do sleep 0.05; done
echo '{{"answer": "done", "contexts": []}}'
"#,
        pid = pid_file.display()
    );
    let target = script_target(dir.path(), &script, Duration::from_secs(1));
    let out = collect(&named(&["a"]), &target, &CallCache::disabled(), &settings(1, 0), &|_, _| {});
    let pid = written_pid(&pid_file);
    let _ = std::process::Command::new("kill").args(["-9", &pid]).status();
    assert_eq!(out.failures.len(), 1, "{:?}", out.records);
    assert!(out.failures[0].error.contains("stdout stayed open for 1 s"), "{}", out.failures[0].error);
}
