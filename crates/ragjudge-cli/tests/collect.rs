//! `ragjudge collect` end to end: a command target killed with SIGKILL mid-run resumes without
//! asking an answered question again; an HTTP target with a request template, a header from the
//! environment and answer paths; the reference tier; failures recorded in the failures file
//! with a non-zero exit; one-line errors for bad targets; conversations asked turn by turn.

mod common;

use common::{assert_one_line_error, ragjudge, stderr, stdout, write};
use ragjudge_testserver::{Behavior, ReplyFn, Script, TestServer};
use serde_json::{json, Value};
use std::process::Command;
use std::time::{Duration, Instant};

fn read_jsonl(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn questions(dir: &std::path::Path, n: usize) -> String {
    let text: String =
        (1..=n).map(|i| json!({"id": format!("q{i}"), "query": format!("question {i}?")}).to_string() + "\n").collect();
    write(dir, "questions.jsonl", text)
}

#[test]
fn a_run_killed_mid_way_resumes_without_asking_answered_questions_again() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let log = d.join("asked.log");
    let marker = d.join("go");
    // Answers at once, except q4 before the marker exists: then it hangs until killed.
    let program = write(
        d,
        "rag.sh",
        format!(
            r#"#!/bin/sh
read -r line
id=$(printf '%s' "$line" | sed 's/.*"id":"\([^"]*\)".*/\1/')
echo "$id" >> '{}'
if [ "$id" = q4 ] && [ ! -e '{}' ]; then sleep 30; fi
printf '{{"answer": "answer %s", "contexts": ["p"]}}\n' "$id"
"#,
            log.display(),
            marker.display()
        ),
    );
    let q = questions(d, 6);
    let out = d.join("runs.jsonl");
    let cache = d.join("cache.sqlite");
    let target = format!("cmd:sh {program}");
    let args = [
        "collect",
        "--questions",
        &q,
        "--target",
        &target,
        "--output",
        out.to_str().unwrap(),
        "--cache",
        cache.to_str().unwrap(),
        "--concurrency",
        "1",
        "--timeout",
        "60",
    ];
    let mut child = Command::new(env!("CARGO_BIN_EXE_ragjudge")).args(args).spawn().unwrap();
    let start = Instant::now();
    while !std::fs::read_to_string(&log).unwrap_or_default().lines().any(|l| l == "q4") {
        assert!(start.elapsed() < Duration::from_secs(60), "q4 was never asked");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL: no chance to clean up
    child.wait().unwrap();
    std::fs::write(&marker, "").unwrap();
    let o = ragjudge(&args);
    let printed = stdout(&o);
    assert!(
        printed.contains("6 of 6 questions answered (3 from the cache, 3 asked in 3 calls); 0 failed"),
        "{printed}"
    );
    let asked = std::fs::read_to_string(&log).unwrap();
    let count = |id: &str| asked.lines().filter(|l| *l == id).count();
    for id in ["q1", "q2", "q3", "q5", "q6"] {
        assert_eq!(count(id), 1, "{id} asked {} times: {asked}", count(id));
    }
    assert_eq!(count("q4"), 2, "the question in flight at the kill is asked again");
    let runs = read_jsonl(&out);
    let ids: Vec<&str> = runs.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["q1", "q2", "q3", "q4", "q5", "q6"]);
    assert_eq!(runs[3]["answer"], "answer q4");
    assert_eq!(runs[0]["system"], "runs");
    assert_eq!(runs[0]["contexts"], json!([{"text": "p"}]));
}

#[test]
fn http_targets_take_a_template_a_header_from_the_environment_and_answer_paths() {
    let server = TestServer::start(Script::always(Behavior::Reply(ReplyFn::new(|req: &Value| {
        if req["messages"][0]["content"] == "question 2?" {
            return json!({"error": "no answer"});
        }
        json!({"choices": [{"text": format!("re: {}", req["messages"][0]["content"].as_str().unwrap_or(""))}],
               "docs": [{"content": "passage", "id": 9}]})
    }))));
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let q = questions(d, 3);
    let template =
        write(d, "request.json", r#"{"messages": [{"role": "user", "content": "{{query}}"}], "user": "{{id}}"}"#);
    let out = d.join("sut.jsonl");
    let url = format!("http://{}/chat", server.addr());
    let o = Command::new(env!("CARGO_BIN_EXE_ragjudge"))
        .env("RAG_TOKEN", "s3cret")
        .args([
            "collect",
            "--questions",
            &q,
            "--target",
            &url,
            "--output",
            out.to_str().unwrap(),
            "--no-cache",
            "--request",
            &format!("@{template}"),
            "--header",
            "Authorization: Bearer ${RAG_TOKEN}",
            "--answer-path",
            "$.choices[0].text",
            "--contexts-path",
            "$.docs",
            "--retries",
            "0",
        ])
        .output()
        .unwrap();
    assert_one_line_error(&o, "1 of 3 questions failed");
    assert!(stderr(&o).contains("q2: reply has no answer at $.choices[0].text"), "{}", stderr(&o));
    let runs = read_jsonl(&out);
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[1]["answer"], "re: question 3?");
    assert_eq!(runs[1]["contexts"], json!([{"id": "9", "text": "passage"}]));
    let failed = read_jsonl(&d.join("sut.failed.ndjson"));
    assert_eq!(
        failed,
        vec![
            json!({"id": "q2", "query": "question 2?", "error": "reply has no answer at $.choices[0].text", "attempts": 1})
        ]
    );
    // Requests arrive in any order (four in flight): compare them as a set.
    let reqs = server.requests();
    let mut users: Vec<&str> = reqs.iter().map(|r| r.body["user"].as_str().unwrap()).collect();
    users.sort_unstable();
    assert_eq!(users, ["q1", "q2", "q3"]);
    assert!(reqs.iter().all(|r| r.authorization.as_deref() == Some("Bearer s3cret")));
}

#[test]
fn conversations_are_asked_turn_by_turn_and_a_failed_turn_stops_its_conversation() {
    // Answers with the number of turns it was sent before the question; no answer for b1.
    let server = TestServer::start(Script::always(Behavior::Reply(ReplyFn::new(|req: &Value| {
        let q = req["query"].as_str().unwrap_or("");
        if q == "b1?" {
            return json!({"nothing": true});
        }
        let before = req["history"].as_array().map_or(0, Vec::len);
        json!({"answer": format!("re: {q} after {before}"), "contexts": []})
    }))));
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let turn =
        |id: &str, c: &str, n: u32| json!({"id": id, "query": format!("{id}?"), "meta": {"session_id": c, "turn": n}});
    let lines = [turn("a2", "a", 2), turn("b1", "b", 1), turn("a1", "a", 1), turn("b2", "b", 2)];
    let q = write(d, "questions.jsonl", lines.iter().map(|l| l.to_string() + "\n").collect::<String>());
    let out = d.join("sut.jsonl");
    let url = format!("http://{}/ask", server.addr());
    let o =
        ragjudge(&["collect", "--questions", &q, "--target", &url, "--output", out.to_str().unwrap(), "--no-cache"]);
    assert_one_line_error(&o, "2 of 4 questions failed");
    // The summary line is printed before the error.
    let printed = String::from_utf8_lossy(&o.stdout);
    assert!(printed.contains("2 failed (1 not asked: an earlier turn of their conversation failed)"), "{printed}");
    // By hand: a1 is sent no history, a2 the two entries of turn 1 with the target's answer.
    let runs = read_jsonl(&out);
    assert_eq!(runs.len(), 2);
    assert_eq!((&runs[0]["id"], &runs[0]["answer"]), (&json!("a2"), &json!("re: a2? after 2")));
    assert_eq!(
        runs[0]["history"],
        json!([{"role": "user", "text": "a1?"}, {"role": "assistant", "text": "re: a1? after 0"}])
    );
    assert_eq!((&runs[0]["meta"]["session_id"], &runs[0]["meta"]["turn"]), (&json!("a"), &json!(2)));
    let failed = read_jsonl(&d.join("sut.failed.ndjson"));
    assert_eq!(
        failed,
        vec![
            json!({"id": "b1", "query": "b1?", "error": "reply has no answer at $.answer", "attempts": 1}),
            json!({"id": "b2", "query": "b2?", "error": "not asked: turn 1 of conversation \"b\" failed", "attempts": 0}),
        ]
    );
    assert_eq!(server.request_count(), 3, "b2 is never sent");
}

#[test]
fn the_high_tier_answers_with_the_reference_and_its_source_passages() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let corpus = write(
        d,
        "docs.jsonl",
        r#"{"id": "d1", "text": "Water evaporates when heated. Clouds form when vapour condenses."}"#,
    );
    let q = write(
        d,
        "q.jsonl",
        concat!(
            r#"{"id": "tg1", "query": "When does water evaporate?", "reference": "When heated.", "meta": {"query_type": "factual", "source_ids": ["d1:0"]}}"#,
            "\n"
        ),
    );
    let out = d.join("high.jsonl");
    let o = ragjudge(&[
        "collect",
        "--questions",
        &q,
        "--tier",
        "high",
        "--corpus",
        &corpus,
        "--output",
        out.to_str().unwrap(),
        "--no-cache",
        "--json",
    ]);
    let summary: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(summary["answered"], 1);
    assert_eq!(summary["system"], "high");
    let r = &read_jsonl(&out)[0];
    assert_eq!(r["answer"], "When heated. [1]");
    assert_eq!(r["contexts"][0]["id"], "d1:0");
    assert_eq!(r["contexts"][0]["relevance"], 3.0);
    assert_eq!(r["meta"]["query_type"], "factual");
}

#[test]
fn bad_targets_and_questions_get_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let q = questions(d, 2);
    let out = d.join("o.jsonl");
    let o = ragjudge(&["collect", "--questions", &q, "--target", "ftp:x", "--output", out.to_str().unwrap()]);
    assert_one_line_error(&o, "--target \"ftp:x\": expected http:URL, cmd:PROGRAM");
    let o =
        ragjudge(&["collect", "--questions", &q, "--target", "local:smollm2-135m", "--output", out.to_str().unwrap()]);
    assert_one_line_error(&o, "needs --corpus");
    let o = ragjudge(&[
        "collect",
        "--questions",
        &q,
        "--target",
        "http://127.0.0.1:1/x",
        "--request",
        r#"{"q": "x"}"#,
        "--output",
        out.to_str().unwrap(),
    ]);
    assert_one_line_error(&o, "request template: no {{query}} placeholder");
    let bad = write(d, "bad.jsonl", "{\"id\": \"a\", \"query\": \"x\"}\n{\"id\": \"b\", \"query\": 3}\n");
    let o = ragjudge(&["collect", "--questions", &bad, "--target", "cmd:true", "--output", out.to_str().unwrap()]);
    assert_one_line_error(&o, "bad.jsonl:2: field `query`");
    let o = ragjudge(&[
        "collect",
        "--questions",
        &q,
        "--target",
        "http://127.0.0.1:1/x",
        "--header",
        "X: ${RAGJUDGE_NO_SUCH_VAR}",
        "--output",
        out.to_str().unwrap(),
    ]);
    assert_one_line_error(&o, "environment variable RAGJUDGE_NO_SUCH_VAR is not set");
}
