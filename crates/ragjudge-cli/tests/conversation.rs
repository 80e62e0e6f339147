//! `ragjudge score --metrics conversation` against a scripted judge on loopback: per-turn values,
//! the per-conversation file, the conversation summary of `--json`, the report's section, and a
//! second run answered from the cache.

mod common;

use common::{ragjudge, ragjudge_http};
use ragjudge_testserver::{Behavior, Normal, Script, TestServer};
use serde_json::Value;
use std::path::Path;
use std::process::Output;

/// System A: conversation c1 of three turns (turn 2 says "one year" after turn 1 said "two"),
/// conversation c2 of one turn. System B: conversation c1, whose turns 2 and 3 both ask "Which
/// product do you mean?". One record of B names no conversation.
const RECORDS: &str = r#"{"id": "c1-1", "system": "A", "query": "How long is the X200 warranty?", "answer": "The X200 has a two-year warranty [1].", "meta": {"session_id": "c1", "turn": 1}}
{"id": "c1-2", "system": "A", "query": "Does it cover the battery?", "answer": "The battery has a one year warranty.", "history": [{"role": "user", "text": "How long is the X200 warranty?"}, {"role": "assistant", "text": "The X200 has a two-year warranty [1]."}], "meta": {"session_id": "c1", "turn": 2}}
{"id": "c1-3", "system": "A", "query": "And drops?", "answer": "Drops are not covered.", "history": [{"role": "user", "text": "How long is the X200 warranty?"}, {"role": "assistant", "text": "The X200 has a two-year warranty [1]."}, {"role": "user", "text": "Does it cover the battery?"}, {"role": "assistant", "text": "The battery has a one year warranty."}], "meta": {"session_id": "c1", "turn": 3}}
{"id": "c2-1", "system": "A", "query": "Where do you ship?", "answer": "We ship to the EU.", "meta": {"session_id": "c2", "turn": 1}}
{"id": "c1-1", "system": "B", "query": "How long is the X200 warranty?", "answer": "The X200 has a two-year warranty [1].", "meta": {"session_id": "c1", "turn": 1}}
{"id": "c1-2", "system": "B", "query": "Does it cover the battery?", "answer": "Which product do you mean?", "history": [{"role": "user", "text": "How long is the X200 warranty?"}, {"role": "assistant", "text": "The X200 has a two-year warranty [1]."}], "meta": {"session_id": "c1", "turn": 2}}
{"id": "c1-3", "system": "B", "query": "And drops?", "answer": "Which product do you mean?", "history": [{"role": "user", "text": "How long is the X200 warranty?"}, {"role": "assistant", "text": "The X200 has a two-year warranty [1]."}, {"role": "user", "text": "Does it cover the battery?"}, {"role": "assistant", "text": "Which product do you mean?"}], "meta": {"session_id": "c1", "turn": 3}}
{"id": "solo", "system": "B", "query": "Hi?", "answer": "Hello."}
"#;

/// P(Yes): contradiction questions 0.8 when the new statement says "one year", else 0.2;
/// retention questions 0.6 when the reply asks "Which", else 0.1.
fn logprobs(body: &Value) -> Vec<(String, f64)> {
    let messages = body["messages"].as_array().unwrap();
    let user = messages.iter().rev().find(|m| m["role"] == "user").and_then(|m| m["content"].as_str()).unwrap_or("");
    let yes = if let Some((_, now)) = user.split_once("Now the assistant says:") {
        if now.contains("one year") {
            0.8
        } else {
            0.2
        }
    } else if let Some((_, reply)) = user.split_once("The assistant replies:") {
        if reply.contains("Which") {
            0.6
        } else {
            0.1
        }
    } else {
        panic!("unexpected prompt: {user}")
    };
    vec![("Yes".into(), f64::ln(yes)), ("No".into(), f64::ln(1.0 - yes))]
}

fn run(server: &TestServer, input: &Path, out: &Path, cache: &Path) -> Output {
    let (input, out, cache) = (input.to_str().unwrap(), out.to_str().unwrap(), cache.to_str().unwrap());
    ragjudge_http(
        &server.base_url(),
        &["score", "-i", input, "--metrics", "conversation", "--cache", cache, "-o", out, "--json"],
    )
}

fn close(v: &Value, want: f64) {
    let got = v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"));
    assert!((got - want).abs() < 1e-9, "{got} != {want}");
}

#[test]
fn conversations_are_scored_per_turn_and_summarised_per_conversation() {
    let server = TestServer::start(Script::always(Behavior::Normal(Normal::logprobs_func(logprobs))));
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.jsonl");
    std::fs::write(&input, RECORDS).unwrap();
    let (out, cache) = (dir.path().join("out.jsonl"), dir.path().join("c.sqlite"));
    let o = run(&server, &input, &out, &cache);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows: Vec<Value> =
        std::fs::read_to_string(&out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let row = |system: &str, id: &str| rows.iter().find(|r| r["system"] == system && r["id"] == id).unwrap();

    // First turns: nothing said or told before.
    for c in ["conv_contradiction", "conv_retention", "conv_repetition"] {
        assert_eq!(row("A", "c1-1")[c], Value::Null, "{c}");
    }
    // A, turn 2: "one year" after "two" (0.8); the reply asks nothing again (1 - 0.1); none of
    // its trigrams was said before.
    assert!(row("A", "c1-2")["error"].is_null(), "{}", row("A", "c1-2"));
    close(&row("A", "c1-2")["conv_contradiction"], 0.8);
    close(&row("A", "c1-2")["conv_retention"], 0.9);
    close(&row("A", "c1-2")["conv_repetition"], 0.0);
    close(&row("A", "c1-3")["conv_contradiction"], 0.2);
    // B, turn 3 repeats turn 2 word for word: its three trigrams were all said before.
    close(&row("B", "c1-2")["conv_retention"], 0.4);
    close(&row("B", "c1-3")["conv_repetition"], 1.0);
    assert_eq!(row("B", "c1-3")["detail"]["conversation"]["turn"], 3);

    // Per conversation: A/c1 contradiction (0.8 + 0.2) / 2; B/c1 repetition (0 + 1) / 2, least
    // at turn 2.
    let csv = std::fs::read_to_string(dir.path().join("out.conversations.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let body: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(body.len(), 3, "{csv}");
    let a1 = body.iter().find(|r| r[0] == "A" && r[1] == "c1").unwrap();
    assert_eq!((a1[col("turns")], a1[col("conv_contradiction_mean")]), ("3", "0.5"));
    let b1 = body.iter().find(|r| r[0] == "B").unwrap();
    assert_eq!((b1[col("conv_repetition_mean")], b1[col("conv_repetition_min_turn")]), ("0.5", "2"));

    // The --json summary: A has two conversations, only c1 has a contradiction value.
    let json: Value = serde_json::from_slice(&o.stdout).unwrap();
    let conv = &json["conversations"];
    assert_eq!(conv["outside"], 1);
    let a = conv["systems"].as_array().unwrap().iter().find(|s| s["system"] == "A").unwrap();
    assert_eq!((a["conversations"].as_u64(), a["turns"].as_u64()), (Some(2), Some(4)));
    let contradiction = &a["conversation_means"][0];
    assert_eq!((contradiction["metric"].as_str(), contradiction["n"].as_u64()), (Some("conv_contradiction"), Some(1)));
    close(&contradiction["mean"], 0.5);

    // The report reads the scores with the records and shows the section.
    let html = dir.path().join("r.html");
    let o = ragjudge(&["report", out.to_str().unwrap(), input.to_str().unwrap(), "--output", html.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("<section id=\"conversations\">"), "no conversation section");
    assert!(page.contains("<th class=\"n\">per conversation</th>") && page.contains("<code>conv_contradiction</code>"));
    // B has one conversation: its intervals are called rough.
    assert!(page.contains("A system has only 1 conversation(s)"));

    // Again: every judgement comes from the cache.
    let asked = server.request_count();
    let o = run(&server, &input, &out, &cache);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(server.request_count(), asked);
}
