//! `ragjudge score --metrics ragchecker` against a scripted OpenAI-compatible judge on loopback.

use ragjudge_testserver::{Behavior, Normal, Script, TestServer};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

/// q1: two passages, an answer with one right and one wrong claim, a reference. q2: no reference.
const RECORDS: &str = r#"{"id": "q1", "system": "s", "query": "Capitals?", "contexts": [{"text": "Paris is the capital of France."}, {"text": "Berlin is the capital of Spain, some say."}], "answer": "Paris is the capital of France [1]. Berlin is the capital of Spain [2].", "reference": "Paris is the capital of France."}
{"id": "q2", "system": "s", "query": "Capitals?", "contexts": [{"text": "Paris."}], "answer": "Paris."}
"#;

/// The judge's entailment verdict: P(Yes) = 0.9 when the premise contains the claim's first word,
/// else 0.1.
fn entailment(body: &Value) -> Vec<(String, f64)> {
    let messages = body["messages"].as_array().unwrap();
    let user = messages.iter().find(|m| m["role"] == "user").and_then(|m| m["content"].as_str()).unwrap_or("");
    let premise = user.split("Trusted text:\n").nth(1).and_then(|r| r.split("\n\nDecide").next()).unwrap_or("");
    let claim = user.rsplit("Sentence: ").next().unwrap_or("");
    let first = claim.split_whitespace().next().unwrap_or("?");
    let p: f64 = if premise.contains(first) { 0.9 } else { 0.1 };
    vec![("Yes".into(), p.ln()), ("No".into(), (1.0 - p).ln())]
}

fn run(server: &TestServer, input: &Path, out: &Path, cache: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ragjudge"))
        .args(["score", "-i", input.to_str().unwrap(), "--metrics", "ragchecker", "--judge", "openai:test-model"])
        .args(["--cache", cache.to_str().unwrap(), "-o", out.to_str().unwrap(), "--json"])
        .env("OPENAI_BASE_URL", server.base_url())
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap()
}

#[test]
fn score_ragchecker_gives_hand_computed_values_and_per_claim_evidence() {
    let server = TestServer::start(Script::always(Behavior::Normal(Normal::logprobs_func(entailment))));
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.jsonl");
    std::fs::write(&input, RECORDS).unwrap();
    let (out, cache) = (dir.path().join("out.jsonl"), dir.path().join("c.sqlite"));
    let o = run(&server, &input, &out, &cache);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows: Vec<Value> =
        std::fs::read_to_string(&out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let (q1, q2) = (&rows[0], &rows[1]);
    // Answer claims a1 "Paris ..." (in the reference, in p1), a2 "Berlin ..." (not in the
    // reference, in p2 only); reference claim g1 "Paris ..." (in the answer, in p1 only).
    // p1 is relevant, p2 not. Precision 1/2, recall 1, F1 2/3; claim recall 1, context precision
    // 1/2, utilisation 1; a2 is incorrect and only in the irrelevant p2: noise (irrelevant) 1/2,
    // hallucination 0; a1 is in p1: self-knowledge 0; faithfulness 1.
    let want = [
        ("precision", 0.5),
        ("recall", 1.0),
        ("f1", 2.0 / 3.0),
        ("claim_recall", 1.0),
        ("context_precision", 0.5),
        ("context_utilization", 1.0),
        ("noise_sensitivity_relevant", 0.0),
        ("noise_sensitivity_irrelevant", 0.5),
        ("hallucination", 0.0),
        ("self_knowledge", 0.0),
        ("faithfulness", 1.0),
        // Expected forms: P(a1) = 0.9, P(a2) = 0.1 -> 0.5; P(g1) = 0.9; F1 = 2 * 0.5 * 0.9 / 1.4 = 9/14.
        ("precision_expected", 0.5),
        ("recall_expected", 0.9),
        ("f1_expected", 9.0 / 14.0),
    ];
    for (name, v) in want {
        let got = q1[format!("ragchecker_{name}")].as_f64().unwrap_or_else(|| panic!("{name}: {}", q1));
        assert!((got - v).abs() < 1e-6, "{name}: {got} != {v}");
    }
    let d = &q1["detail"]["ragchecker"];
    assert_eq!(d["answer_claims"][1]["claim"], "Berlin is the capital of Spain");
    assert!((d["answer_claims"][1]["other"].as_f64().unwrap() - 0.1).abs() < 1e-6);
    // 2 answer claims and 1 reference claim, each against the other text and two passages.
    assert_eq!((d["calls"].as_u64(), d["skipped"].as_u64()), (Some(9), Some(0)));
    assert_eq!(server.request_count(), 9);
    // No reference: every column empty, the reason in the detail.
    assert!(want.iter().all(|(name, _)| q2[format!("ragchecker_{name}")].is_null()), "{q2}");
    assert_eq!(q2["detail"]["ragchecker"]["ragchecker"], "no reference answer");

    // A second run reads every check from the call cache.
    let o = run(&server, &input, &out, &cache);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(server.request_count(), 9);
}

#[test]
fn judge_written_claims_replace_sentences_and_a_bad_reply_falls_back_to_them() {
    // Claim extraction (a generation): two atomic claims for q1's answer; for any other text a
    // reply that is not JSON. Entailment as above.
    let extraction = |body: &Value| -> String {
        let user = body["messages"].as_array().unwrap().iter().rev().find(|m| m["role"] == "user");
        let user = user.and_then(|m| m["content"].as_str()).unwrap_or("");
        if user.contains("Text: Paris is the capital of France. Berlin") {
            r#"{"claims": ["Paris is the capital of France.", "Berlin is in Europe."]}"#.into()
        } else {
            "I cannot do that.".into()
        }
    };
    let server =
        TestServer::start(Script::always(Behavior::Normal(Normal::func(extraction).with_logprobs_func(entailment))));
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.jsonl");
    std::fs::write(&input, RECORDS).unwrap();
    let out = dir.path().join("out.jsonl");
    let o = Command::new(env!("CARGO_BIN_EXE_ragjudge"))
        .args(["score", "-i", input.to_str().unwrap(), "--metrics", "ragchecker", "--judge", "openai:test-model"])
        .args(["--ragchecker-claims", "judge", "--no-cache", "-o", out.to_str().unwrap()])
        .env("OPENAI_BASE_URL", server.base_url())
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let q1: Value = serde_json::from_str(std::fs::read_to_string(&out).unwrap().lines().next().unwrap()).unwrap();
    let d = &q1["detail"]["ragchecker"];
    let claims: Vec<&str> =
        d["answer_claims"].as_array().unwrap().iter().map(|c| c["claim"].as_str().unwrap()).collect();
    assert_eq!(claims, ["Paris is the capital of France.", "Berlin is in Europe."]);
    assert_eq!(d["reference_claims"][0]["claim"], "Paris is the capital of France.");
    assert_eq!(d["claims_from"], "judge");
    let fallbacks = d["fallbacks"].as_array().unwrap();
    assert_eq!(fallbacks.len(), 1);
    assert!(fallbacks[0].as_str().unwrap().starts_with("reference: "), "{fallbacks:?}");
    // "Paris ..." is in the reference (0.9), "Berlin ..." is not (0.1): precision 1/2.
    assert!((q1["ragchecker_precision"].as_f64().unwrap() - 0.5).abs() < 1e-9, "{q1}");
    // Two extractions (q2 has no reference: nothing is asked for it), then the checks.
    let generations = server.requests().iter().filter(|r| r.body["logprobs"].as_bool() != Some(true)).count();
    assert_eq!(generations, 2);
}
