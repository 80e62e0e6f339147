//! The fixtures of each convention, read into records checked by hand against what
//! `fixtures/make_fixtures.py` (the OpenTelemetry Python SDK 1.45.2 and its OTLP encoder) and the
//! hand-written Langfuse and OTLP/JSON files put in.

use ragjudge_core::Record;
use ragjudge_traces::{import, read_spans, records_from_spans, ImportSettings, TraceFormat};
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

fn records(name: &str) -> Vec<Record> {
    let (spans, issues) = read_spans(&fixture(name), None).unwrap();
    assert!(issues.is_empty(), "{issues:?}");
    let g = records_from_spans(spans, None);
    assert!(g.issues.is_empty(), "{:?}", g.issues);
    g.records
}

fn ids(r: &Record) -> Vec<&str> {
    r.contexts.iter().map(|c| c.id.as_deref().unwrap_or("")).collect()
}

fn turns(r: &Record) -> Vec<(&str, &str)> {
    r.history.iter().map(|t| (t.role.as_str(), t.text.as_str())).collect()
}

#[test]
fn openinference_protobuf_from_the_python_sdk() {
    let rs = records("openinference.pb");
    assert_eq!(rs.len(), 3);
    // Turn 1 of the session: trace ids come from the fixture's counter (0xa001 ...).
    let r = &rs[0];
    assert_eq!(r.id, "0000000000000000000000000000a001");
    assert_eq!(r.system, "toy-rag");
    assert_eq!(r.query, "How long is the warranty?");
    assert_eq!(r.answer, "The warranty lasts two years [1].");
    assert_eq!(ids(r), ["manual#3"]);
    assert_eq!(r.contexts[0].text, "The warranty lasts two years.");
    assert!(r.history.is_empty());
    assert_eq!(r.meta["session_id"], "conv-1");
    assert_eq!(r.meta["user_id"], "u7");
    assert_eq!(r.meta["turn"], 1);
    assert_eq!(r.meta["model"], "qwen2.5-1.5b");
    assert_eq!(r.meta["latency_ms"], 1200.0);
    assert_eq!((r.meta["tokens_in"].as_u64(), r.meta["tokens_out"].as_u64()), (Some(60), Some(9)));
    assert_eq!(r.steps.iter().map(|s| s.kind.as_str()).collect::<Vec<_>>(), ["retrieval", "llm"]);
    // Turn 2: its history is what the LLM span was sent before the question.
    let r = &rs[1];
    assert_eq!(r.query, "Does it cover batteries?");
    assert_eq!(r.meta["turn"], 2);
    assert_eq!(turns(r), [("user", "How long is the warranty?"), ("assistant", "The warranty lasts two years [1].")]);
    assert_eq!(r.meta["tokens_in"].as_u64(), Some(110));
    // The agent: passages are the re-ranker's; steps in start order with the tool's name.
    let r = &rs[2];
    assert_eq!(r.query, "What does the Pro plan cost per year?");
    assert_eq!(ids(r), ["pricing#1", "pricing#2"]);
    let steps: Vec<(&str, &str)> = r.steps.iter().map(|s| (s.kind.as_str(), s.name.as_str())).collect();
    assert_eq!(
        steps,
        [
            ("retrieval", "search"),
            ("tool", "calculator"),
            ("retrieval", "search"),
            ("rerank", "rerank"),
            ("llm", "chat")
        ]
    );
    assert_eq!(r.steps[1].input.as_deref(), Some("{\"expression\": \"10*12\"}"));
    assert_eq!(r.steps[1].output.as_deref(), Some("120"));
    assert_eq!(r.steps[2].contexts.len(), 2);
    assert_eq!(r.steps[2].input.as_deref(), Some("Pro plan yearly discount"));
    assert_eq!(r.meta["route"], "pricing");
    assert_eq!(r.meta["cost"], 0.0004);
    assert!(r.meta.get("session_id").is_none());
}

#[test]
fn genai_protobuf_and_json_give_the_same_record() {
    let pb = records("genai.pb");
    let js = records("genai.json");
    assert_eq!(pb, js);
    let r = &pb[0];
    assert_eq!(r.system, "genai-rag");
    assert_eq!(r.query, "Who wrote Hamlet?");
    assert_eq!(r.answer, "William Shakespeare wrote Hamlet [1].");
    assert_eq!(ids(r), ["lit#9"]);
    assert_eq!(r.contexts[0].text, "Hamlet is a tragedy by William Shakespeare.");
    assert!(r.history.is_empty(), "the system message is not a turn");
    assert_eq!(r.meta["model"], "qwen2.5-1.5b-instruct");
    assert_eq!(r.meta["session_id"], "c-42");
    assert_eq!(r.meta["latency_ms"], 900.0);
    assert_eq!((r.meta["tokens_in"].as_u64(), r.meta["tokens_out"].as_u64()), (Some(41), Some(8)));
}

#[test]
fn langfuse_export() {
    let (spans, issues) = read_spans(&fixture("langfuse.json"), None).unwrap();
    let msgs: Vec<String> = issues.iter().map(|i| i.to_string()).collect();
    assert_eq!(msgs, ["trace lf-trace-2 span obs-4: startTime: \"not a time\" is not an RFC 3339 time"]);
    let g = records_from_spans(spans, Some("bot"));
    assert_eq!(g.records.len(), 2);
    assert_eq!(g.issues.len(), 1);
    assert_eq!(g.issues[0].to_string(), "trace lf-trace-3: no answer: no root output, no model reply");
    let r = &g.records[0];
    assert_eq!((r.id.as_str(), r.system.as_str()), ("lf-trace-1", "bot"));
    assert_eq!(r.query, "Can I return an opened item?");
    assert_eq!(r.answer, "Yes, within 30 days [1].");
    assert_eq!(ids(r), ["policy#2", "policy#7"]);
    assert_eq!(r.meta["model"], "gpt-4o-mini");
    assert_eq!(r.meta["cost"], 0.00021);
    assert_eq!(r.meta["latency_ms"], 1500.0);
    assert_eq!(r.meta["route"], "returns");
    assert_eq!(r.meta["user_id"], "cust-1");
    // Turn 2 has no root input: its question is the generation's user message, its history the
    // session's first turn.
    let r = &g.records[1];
    assert_eq!(r.query, "And a gift card?");
    assert_eq!(r.answer, "No, gift cards are final sale.");
    assert_eq!(r.meta["turn"], 2);
    assert_eq!(turns(r), [("user", "Can I return an opened item?"), ("assistant", "Yes, within 30 days [1].")]);
}

#[test]
fn import_writes_records_and_issues_and_counts_bad_spans() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("out/records.jsonl");
    let settings = ImportSettings {
        inputs: vec![fixture("bad_spans.json"), fixture("genai.pb")],
        format: None,
        system: None,
        output: output.clone(),
    };
    let s = import(&settings).unwrap();
    assert_eq!((s.files, s.spans, s.bad_spans, s.traces, s.records, s.skipped_traces), (2, 6, 2, 2, 2, 0));
    let text = std::fs::read_to_string(&output).unwrap();
    let lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2);
    let flaky = lines.iter().find(|l| l["system"] == "flaky").unwrap();
    assert_eq!((flaky["query"].as_str(), flaky["answer"].as_str()), (Some("Ping?"), Some("Pong.")));
    let issues = std::fs::read_to_string(s.issues_file.as_ref().unwrap()).unwrap();
    let issues: Vec<serde_json::Value> = issues.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(issues[0]["span_id"], "1111111111111111");
    assert!(issues[0]["message"].as_str().unwrap().starts_with("invalid trace id"));
    assert_eq!(issues[1]["name"], "chat broken");
    assert!(issues[1]["message"].as_str().unwrap().starts_with("attribute gen_ai.input.messages: invalid JSON"));
    // The records read back through the ordinary reader, steps included.
    let back: Vec<Record> =
        ragjudge_core::RecordReader::open(&output, &Default::default()).unwrap().map(|r| r.unwrap()).collect();
    assert_eq!(back.len(), 2);
    assert_eq!(back.iter().map(|r| r.steps.len()).sum::<usize>(), 2);
    // A clean re-import removes the stale issues file.
    // ... and the same trace read twice (protobuf and JSON) is one record.
    let clean = ImportSettings { inputs: vec![fixture("genai.json"), fixture("genai.pb")], ..settings };
    let s = import(&clean).unwrap();
    assert_eq!((s.records, s.duplicate_spans), (1, 3));
    assert!(s.issues_file.is_none());
    assert!(!dir.path().join("out/records.jsonl.issues.jsonl").exists());
    // Format forced wrongly: one line naming the file.
    let e = read_spans(&fixture("genai.pb"), Some(TraceFormat::OtlpJson)).unwrap_err().to_string();
    assert!(e.contains("genai.pb") && e.contains("not UTF-8"), "{e}");
}
