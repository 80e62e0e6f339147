//! The DICE commands with the protocols for small judges (`--protocol`), end to end against a
//! scripted OpenAI-compatible judge on loopback: each answer graded once, the verdicts' evidence
//! written, the ranking worked by hand; and `serve`'s own settings (protocol switches, language).

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

/// The `ragchecker` check judge (claim last, after `Sentence: `): Yes with 0.1 for a claim holding
/// a fabrication of the example's `wrong` system, 0.9 for any other claim, except that a claim
/// about the leaf's pores or stomata needs a premise that mentions them (else 0.3).
fn ragchecker_judge() -> TestServer {
    TestServer::start(Script::always(Behavior::Normal(Normal::logprobs_func(|req: &Value| {
        let messages = req["messages"].as_array().unwrap();
        let user = messages.iter().rev().find(|m| m["role"] == "user").and_then(|m| m["content"].as_str()).unwrap();
        let (head, claim) = user.rsplit_once("\n\nSentence: ").expect("a ragchecker check");
        let premise = head.split("\n\nTrusted text:\n").nth(1).unwrap();
        let about_pores = |t: &str| ["pores", "stomata"].iter().any(|w| t.contains(w));
        let p = if ["condensation", "chlorophyll", "roots"].iter().any(|w| claim.contains(w)) {
            0.1
        } else if about_pores(claim) && !about_pores(premise) {
            0.3
        } else {
            0.9
        };
        vec![("Yes".to_string(), f64::ln(p)), ("No".to_string(), f64::ln(1.0 - p))]
    }))))
}

#[test]
fn a_ragchecker_tournament_grades_each_answer_once_and_compares_declines_by_utility() {
    let server = ragchecker_judge();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t");
    let runs = runs();
    let mut args: Vec<&str> = vec!["tournament"];
    args.extend(runs.iter().map(String::as_str));
    args.extend(["--format", "round-robin", "--protocol", "ragchecker", "--ids", "q01,q04", "--no-cache", "--json"]);
    args.extend(["--output", out.to_str().unwrap()]);
    let o = ragjudge_http(&server.base_url(), &args);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["protocol"], "ragchecker");
    let order: Vec<&str> = v["systems"].as_array().unwrap().iter().map(|s| s["system"].as_str().unwrap()).collect();
    assert_eq!(order, ["oracle", "partial", "abstain", "wrong"]);
    let verdicts: Vec<Value> = std::fs::read_to_string(out.join("verdicts.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(verdicts.len(), 12);
    // Each distinct answer is checked once: the calls are the checks made (skipped ones aside)
    // over the eight answers, although every answer meets three others.
    let mut made = std::collections::HashMap::new();
    for r in &verdicts {
        for (k, system) in [(0, &r["system_a"]), (1, &r["system_b"])] {
            let c = &r["verdict"]["claims"][k];
            let n = |key: &str| c[key].as_array().map_or(0, Vec::len) as u64;
            let checks = n("support") + n("coverage") - c["skipped"].as_u64().unwrap_or(0);
            made.insert((r["id"].as_str().unwrap().to_string(), system.as_str().unwrap().to_string()), checks);
        }
    }
    assert_eq!(made.len(), 8);
    let total: u64 = made.values().sum();
    assert!(total > 0);
    assert_eq!(server.request_count() as u64, total);
    assert_eq!(v["judge_calls"], total);
    for r in &verdicts {
        let (a, b) = (&r["verdict"]["claims"][0], &r["verdict"]["claims"][1]);
        let grades = r["verdict"]["grades"].as_array().unwrap();
        let s_first = r["verdict"]["s_first"].as_f64().unwrap();
        let g = |k: usize| grades[k].as_f64().unwrap();
        if r["system_a"] == "abstain" || r["system_b"] == "abstain" {
            // The abstaining answer has no claim and no score: the pair compares CRAG utilities
            // (declining is 0), s = 0.5 + (u1 - u2) / 4.
            let abstain = if r["system_a"] == "abstain" { a } else { b };
            assert!(abstain["score"].is_null() && !abstain["declined"].as_array().unwrap().is_empty(), "{abstain}");
            assert_eq!((g(0), g(1)), (a["utility"].as_f64().unwrap(), b["utility"].as_f64().unwrap()));
            assert!((s_first - (0.5 + (g(0) - g(1)) / 4.0)).abs() < 1e-12);
        } else {
            // Both answer: 0.3 P + 0.2 R + 0.5 ROUGE-L F each, s = 0.5 + (score1 - score2) / 2.
            for c in [a, b] {
                let f = |key: &str| c[key].as_f64().unwrap();
                let mix = 0.3 * f("precision") + 0.2 * f("recall") + 0.5 * f("overlap");
                assert!((f("score") - mix).abs() < 1e-12, "{c}");
            }
            assert_eq!((g(0), g(1)), (a["score"].as_f64().unwrap(), b["score"].as_f64().unwrap()));
            assert!((s_first - (0.5 + (g(0) - g(1)) / 2.0)).abs() < 1e-12);
        }
    }
}

#[test]
fn options_of_dice_alone_are_refused_with_another_protocol() {
    let runs = runs();
    let o = ragjudge(&["compare", &runs[0], &runs[1], "--protocol", "claims", "--debias", "--dry-run"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("debias applies to the dice protocol only (not claims)"), "{}", stderr(&o));
    let o = ragjudge(&["compare", &runs[0], &runs[1], "--protocol", "vibes", "--dry-run"]);
    assert!(
        stderr(&o)
            .contains("unknown protocol `vibes` (known: dice, two-label, pointwise, ensemble, claims, ragchecker)"),
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

#[test]
fn serve_scores_chinese_with_the_language_it_is_given() {
    use std::io::{BufRead, BufReader, Read, Write};
    // The same Chinese answer and reference: English parity mode drops every non-ASCII character
    // (as rouge-score does), so ROUGE-1 F is 0; with --lang zh it is rouge-chinese's
    // 2PR / (P + R + 1e-8) at P = R = 1, 0.999999995.
    let record = r#"{"records": [{"id": "q1", "query": "利率如何？", "answer": "央行五月上调利率。", "reference": "央行五月上调利率。"}]}"#;
    for (lang, want, tokens) in [("en", 0.0, "en"), ("zh", 2.0 / (2.0 + 1e-8), "zh")] {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_ragjudge"))
            .args(["serve", "--metrics", "lexical", "--addr", "127.0.0.1:0", "--lang", lang])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
        let addr = first.trim().rsplit("http://").next().unwrap().to_string();
        let mut s = std::net::TcpStream::connect(&addr).unwrap();
        write!(
            s,
            "POST /v1/score HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{record}",
            record.len()
        )
        .unwrap();
        let mut text = String::new();
        s.read_to_string(&mut text).unwrap();
        let _ = child.kill();
        let _ = child.wait();
        let body: Value = serde_json::from_str(text.split_once("\r\n\r\n").unwrap().1).unwrap();
        let row = &body["rows"][0];
        let got = row["rouge1_f"].as_f64().unwrap();
        assert!((got - want).abs() < 1e-12, "--lang {lang}: {got} vs {want}: {row}");
        let used = row["detail"]["lexical"]["lang"].as_str().unwrap_or("en");
        assert_eq!(used, tokens, "{row}");
    }
}
