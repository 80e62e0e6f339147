//! The DICE commands with the protocols for small judges (`--protocol`), end to end against a
//! scripted OpenAI-compatible judge on loopback: each answer graded once, the verdicts' evidence
//! written, the ranking worked by hand.

mod common;

use common::*;
use ragjudge_testserver::{Behavior, Normal, Script, TestServer};
use serde_json::Value;

/// The claim-check judge: a support check says Yes with 0.9 unless the checked sentence holds a
/// fabrication of the example's `wrong` system (0.1); a coverage check says Yes with 0.9 when the
/// answer shown mentions the leaf's pores or stomata, else 0.3.
fn claim_judge() -> TestServer {
    TestServer::start(Script::always(Behavior::Normal(Normal::logprobs_func(|req: &Value| {
        let messages = req["messages"].as_array().unwrap();
        let user = messages.iter().rev().find(|m| m["role"] == "user").and_then(|m| m["content"].as_str()).unwrap();
        let paragraphs: Vec<&str> = user.split("\n\n").collect();
        let p = if user.contains("A sentence from another answer") {
            let claim = paragraphs[2];
            if ["condensation", "chlorophyll"].iter().any(|w| claim.contains(w)) {
                0.1
            } else {
                0.9
            }
        } else if ["pores", "stomata"].iter().any(|w| paragraphs[1].contains(w)) {
            0.9
        } else {
            0.3
        };
        vec![("Yes".to_string(), f64::ln(p)), ("No".to_string(), f64::ln(1.0 - p))]
    }))))
}

fn runs() -> Vec<String> {
    let root = repo_root();
    ["oracle", "partial", "abstain", "wrong"]
        .iter()
        .map(|s| root.join(format!("examples/runs/{s}.jsonl")).display().to_string())
        .collect()
}

#[test]
fn a_claims_tournament_grades_each_answer_once_and_ranks_by_utility() {
    let server = claim_judge();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t");
    let runs = runs();
    let mut args: Vec<&str> = vec!["tournament"];
    args.extend(runs.iter().map(String::as_str));
    args.extend(["--format", "round-robin", "--protocol", "claims", "--ids", "q01,q04", "--no-cache", "--json"]);
    args.extend(["--output", out.to_str().unwrap()]);
    let o = ragjudge_http(&server.base_url(), &args);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    // Checks per answer (support per claim + coverage per reference sentence; both references
    // have two sentences): oracle 2 + 2 on each question, partial 1 + 2 (q04's second sentence
    // declines), wrong 1 + 2, abstain none (it declines): 10 per question, each made once
    // although every answer meets three others.
    assert_eq!(server.request_count(), 20);
    assert_eq!(v["judge_calls"], 20);
    // Utilities p (c + (1 - c) / 2) - (1 - p): oracle p = c = 0.9: 0.755; partial p = 0.9,
    // c = 0.3: 0.485; abstain 0; wrong p = 0.1, c = 0.3: -0.835. Every difference is at least
    // 0.27, a margin |du| / 2 >= tau = 0.1: hard wins, the human order on both questions.
    let order: Vec<&str> = v["systems"].as_array().unwrap().iter().map(|s| s["system"].as_str().unwrap()).collect();
    assert_eq!(order, ["oracle", "partial", "abstain", "wrong"]);
    let wins: Vec<u64> = v["systems"].as_array().unwrap().iter().map(|s| s["wins"].as_u64().unwrap()).collect();
    assert_eq!(wins, [3, 2, 1, 0]);
    // The trust report has no order to check; its margins are the utility differences.
    assert!(v["trust"]["order_consistency"].is_null() && v["trust"]["first_position_rate"].is_null());
    assert_eq!(v["protocol"], "claims");
    let verdicts = std::fs::read_to_string(out.join("verdicts.jsonl")).unwrap();
    assert_eq!(verdicts.lines().count(), 12);
    let first: Value = serde_json::from_str(verdicts.lines().next().unwrap()).unwrap();
    let (a, b) = (&first["verdict"]["claims"][0], &first["verdict"]["claims"][1]);
    assert_eq!(first["system_a"], "oracle");
    assert!((a["utility"].as_f64().unwrap() - 0.755).abs() < 1e-9, "{a}");
    assert_eq!(a["claims"].as_array().unwrap().len(), 2);
    assert!(b["utility"].is_f64());
    assert_eq!(std::fs::read_to_string(out.join("labels.jsonl")).unwrap().lines().count(), 12);
}

#[test]
fn options_of_dice_alone_are_refused_with_another_protocol() {
    let runs = runs();
    let o = ragjudge(&["compare", &runs[0], &runs[1], "--protocol", "claims", "--debias", "--dry-run"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("debias applies to the dice protocol only (not claims)"), "{}", stderr(&o));
    let o = ragjudge(&["compare", &runs[0], &runs[1], "--protocol", "vibes", "--dry-run"]);
    assert!(
        stderr(&o).contains("unknown protocol `vibes` (known: dice, two-label, pointwise, ensemble, claims)"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn serve_refuses_dice_options_with_another_protocol() {
    let o = ragjudge(&[
        "serve",
        "--metrics",
        "lexical",
        "--judge",
        "openai:unused",
        "--protocol",
        "two-label",
        "--no-swap",
        "--addr",
        "127.0.0.1:0",
    ]);
    assert_one_line_error(&o, "--no-reasoning and --no-swap are options of the dice protocol, not `two-label`");
    // A usage error from the argument parser (exit 2).
    let o = ragjudge(&["serve", "--judge", "openai:unused", "--protocol", "dice-reasoning"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("use `dice` (stage I runs unless reasoning is off)"), "{}", stderr(&o));
}
