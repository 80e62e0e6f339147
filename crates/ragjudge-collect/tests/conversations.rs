//! Conversations: the turns of one conversation are asked in order, each with the questions and
//! the target's own answers before it; a re-run rebuilds the same histories from the cache and
//! asks nothing; a failed turn leaves the later ones recorded as not asked; conversations run
//! concurrently; the HTTP target sends the history in its request.

use ragjudge_collect::http::HttpTarget;
use ragjudge_collect::questions::{question_from_json, Question};
use ragjudge_collect::run::{collect, CollectSettings, Collected};
use ragjudge_collect::template::{default_template, Exchange};
use ragjudge_collect::{Answer, CallError, Target};
use ragjudge_store::CallCache;
use ragjudge_testserver::{Behavior, ReplyFn, Script, TestServer};
use serde_json::{json, Value};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

/// One question as the target received it: its id and its history as (role, text).
type Asked = (String, Vec<(String, String)>);

/// Answers "answer to QUERY", recording what it was asked; fails (retryably) every question whose
/// query is in `failing`; with `meet`, holds each first turn until `meet` first turns have
/// arrived (up to 10 s) and records whether they all did.
#[derive(Default)]
struct Scripted {
    asked: Mutex<Vec<Asked>>,
    failing: Vec<String>,
    meet: usize,
    arrived: Mutex<usize>,
    all_here: Condvar,
    met: Mutex<Vec<bool>>,
}

impl Scripted {
    fn asked(&self) -> Vec<Asked> {
        self.asked.lock().unwrap().clone()
    }

    /// Waits until `meet` first turns are in flight together; whether they were, within 10 s.
    fn rendezvous(&self) -> bool {
        let mut n = self.arrived.lock().unwrap();
        *n += 1;
        self.all_here.notify_all();
        let (n, timeout) = self.all_here.wait_timeout_while(n, Duration::from_secs(10), |n| *n < self.meet).unwrap();
        drop(n);
        !timeout.timed_out()
    }
}

impl Target for Scripted {
    fn identity(&self) -> String {
        "scripted-v1".into()
    }

    fn answer(&self, q: &Question) -> Result<Answer, CallError> {
        let history = q.record.history.iter().map(|t| (t.role.clone(), t.text.clone())).collect();
        self.asked.lock().unwrap().push((q.record.id.clone(), history));
        if self.meet > 0 && q.record.turn() == 1 {
            let met = self.rendezvous();
            self.met.lock().unwrap().push(met);
        }
        if self.failing.contains(&q.record.query) {
            return Err(CallError::transient(format!("{} is down", q.record.query)));
        }
        Ok(Answer { answer: format!("answer to {}", q.record.query), contexts: Vec::new() })
    }
}

fn question(id: &str, conversation: Option<&str>, turn: u64) -> Question {
    let mut v = json!({"id": id, "query": format!("{id}?"), "reference": format!("REFERENCE {id}")});
    if let Some(c) = conversation {
        v["meta"] = json!({"session_id": c, "turn": turn});
        // What a question file written from references holds: the target must not be sent it.
        if turn > 1 {
            v["history"] = json!([{"role": "user", "text": "earlier?"}, {"role": "assistant", "text": "REFERENCE"}]);
        }
    }
    question_from_json(v, "questions.jsonl", 1).unwrap()
}

/// Conversation c1 (turns given out of order) and an independent question x.
fn conversation_c1() -> Vec<Question> {
    vec![
        question("c1-t3", Some("c1"), 3),
        question("c1-t1", Some("c1"), 1),
        question("x", None, 0),
        question("c1-t2", Some("c1"), 2),
    ]
}

fn settings(concurrency: usize, retries: u32) -> CollectSettings {
    CollectSettings { system: "sut".into(), concurrency, retries, backoff: Duration::from_millis(1), refresh: false }
}

fn pairs(turns: &[(&str, &str)]) -> Vec<(String, String)> {
    turns.iter().map(|(r, t)| (r.to_string(), t.to_string())).collect()
}

/// The history of each output record, by id.
fn history_of<'a>(out: &'a Collected, id: &str) -> Vec<(&'a str, &'a str)> {
    let r = out.records.iter().find(|r| r.id == id).unwrap_or_else(|| panic!("no record {id}"));
    r.history.iter().map(|t| (t.role.as_str(), t.text.as_str())).collect()
}

#[test]
fn each_turn_is_sent_the_conversation_so_far_with_the_targets_own_answers() {
    let target = Scripted::default();
    let qs = conversation_c1();
    let out = collect(&qs, &target, &CallCache::disabled(), &settings(4, 0), &|_, _| {});
    assert!(out.failures.is_empty(), "{:?}", out.failures);
    let asked = target.asked();
    let c1: Vec<&Asked> = asked.iter().filter(|(id, _)| id.starts_with("c1")).collect();
    let order: Vec<&str> = c1.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(order, ["c1-t1", "c1-t2", "c1-t3"], "turns in turn order, not file order");
    // By hand: turn 1 has nothing before it; turn 2 gets turn 1's question and the target's
    // answer to it (not the reference); turn 3 gets both earlier turns, four entries.
    assert!(c1[0].1.is_empty());
    assert_eq!(c1[1].1, pairs(&[("user", "c1-t1?"), ("assistant", "answer to c1-t1?")]));
    assert_eq!(
        c1[2].1,
        pairs(&[
            ("user", "c1-t1?"),
            ("assistant", "answer to c1-t1?"),
            ("user", "c1-t2?"),
            ("assistant", "answer to c1-t2?")
        ])
    );
    // An independent question keeps its own (empty) history.
    assert!(asked.iter().any(|(id, h)| id == "x" && h.is_empty()));
    // Output: question order, the history that was sent, the conversation's meta kept.
    let ids: Vec<&str> = out.records.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["c1-t3", "c1-t1", "x", "c1-t2"]);
    assert_eq!(history_of(&out, "c1-t3").len(), 4);
    assert_eq!(history_of(&out, "c1-t2"), [("user", "c1-t1?"), ("assistant", "answer to c1-t1?")]);
    let t3 = &out.records[0];
    assert_eq!((t3.meta["session_id"].as_str(), t3.meta["turn"].as_u64()), (Some("c1"), Some(3)));
    assert_eq!(t3.reference.as_deref(), Some("REFERENCE c1-t3"));
    assert_eq!((out.asked, out.from_cache, out.not_asked), (4, 0, 0));
}

#[test]
fn a_second_run_rebuilds_every_history_from_the_cache_and_asks_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let cache = CallCache::open(dir.path().join("cache.sqlite")).unwrap();
    let target = Scripted::default();
    let qs = conversation_c1();
    let first = collect(&qs, &target, &cache, &settings(2, 0), &|_, _| {});
    assert_eq!((first.asked, first.from_cache), (4, 0));
    let second = collect(&qs, &target, &cache, &settings(2, 0), &|_, _| {});
    assert_eq!((second.asked, second.from_cache), (0, 4));
    assert_eq!(target.asked().len(), 4, "nothing asked again");
    assert_eq!(second.records, first.records, "the same answers with the same histories");
    // --refresh asks every turn again.
    let refresh = CollectSettings { refresh: true, ..settings(2, 0) };
    let third = collect(&qs, &target, &cache, &refresh, &|_, _| {});
    assert_eq!((third.asked, third.from_cache), (4, 0));
    assert_eq!(target.asked().len(), 8);
}

#[test]
fn a_failed_turn_leaves_the_later_turns_recorded_as_not_asked() {
    let target = Scripted { failing: vec!["c1-t2?".into()], ..Scripted::default() };
    let mut qs = conversation_c1();
    qs.push(question("c1-t4", Some("c1"), 4));
    let out = collect(&qs, &target, &CallCache::disabled(), &settings(2, 1), &|_, _| {});
    let ids: Vec<&str> = out.records.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["c1-t1", "x"]);
    let why: Vec<(&str, &str, u32)> =
        out.failures.iter().map(|f| (f.id.as_str(), f.error.as_str(), f.attempts)).collect();
    // Question order: t3, then t2, then t4. Turn 2 was asked twice (one retry); 3 and 4 never.
    let not_asked = "not asked: turn 2 of conversation \"c1\" failed";
    assert_eq!(why, [("c1-t3", not_asked, 0), ("c1-t2", "c1-t2? is down", 2), ("c1-t4", not_asked, 0)]);
    assert_eq!((out.not_asked, out.asked, out.attempts), (2, 3, 1 + 2 + 1));
    let asked: Vec<String> = target.asked().into_iter().map(|(id, _)| id).collect();
    assert!(!asked.iter().any(|id| id == "c1-t3" || id == "c1-t4"), "{asked:?}");
}

#[test]
fn conversations_run_side_by_side_without_mixing_their_histories() {
    let target = Scripted { meet: 2, ..Scripted::default() };
    let mut qs = Vec::new();
    for turn in 1..=3 {
        qs.push(question(&format!("a{turn}"), Some("a"), turn));
        qs.push(question(&format!("b{turn}"), Some("b"), turn));
    }
    let out = collect(&qs, &target, &CallCache::disabled(), &settings(2, 0), &|_, _| {});
    assert!(out.failures.is_empty(), "{:?}", out.failures);
    // Both first turns were in flight at once: the conversations did not wait for each other.
    assert_eq!(*target.met.lock().unwrap(), [true, true]);
    for c in ["a", "b"] {
        let q = |t: u32| format!("{c}{t}?");
        let a = |t: u32| format!("answer to {c}{t}?");
        let got: Vec<(String, String)> =
            history_of(&out, &format!("{c}3")).into_iter().map(|(r, t)| (r.into(), t.into())).collect();
        let want = pairs(&[
            ("user", q(1).as_str()),
            ("assistant", a(1).as_str()),
            ("user", q(2).as_str()),
            ("assistant", a(2).as_str()),
        ]);
        assert_eq!(got, want, "conversation {c}");
    }
}

#[test]
fn an_http_target_receives_the_conversation_in_its_request() {
    let server = TestServer::start(Script::always(Behavior::Reply(ReplyFn::new(
        |req: &Value| json!({"answer": format!("reply to {}", req["query"].as_str().unwrap_or("")), "contexts": []}),
    ))));
    let exchange = Exchange::new(default_template(), "$.answer", "$.contexts").unwrap();
    let target =
        HttpTarget::new(&format!("http://{}/ask", server.addr()), Vec::new(), exchange, Duration::from_secs(5));
    let qs = vec![question("t1", Some("s"), 1), question("t2", Some("s"), 2)];
    let out = collect(&qs, &target, &CallCache::disabled(), &settings(2, 0), &|_, _| {});
    assert!(out.failures.is_empty(), "{:?}", out.failures);
    let bodies: Vec<Value> = server.requests().into_iter().map(|r| r.body).collect();
    assert_eq!(bodies.len(), 2);
    assert_eq!(bodies[0]["history"], json!([]));
    assert_eq!(
        bodies[1]["history"],
        json!([{"role": "user", "text": "t1?"}, {"role": "assistant", "text": "reply to t1?"}])
    );
}
