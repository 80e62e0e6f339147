//! `POST /v1/judge` with the protocols for small judges (`two-label`, `pointwise`, `claims`):
//! the scripted loopback server stands in for the model. (Its own test binary: the judge reads
//! `OPENAI_BASE_URL` from the environment.)

mod common;

use common::{get, post, scripted_judge, Running};
use ragjudge_dice::protocol::{Protocol, ProtocolSettings};
use ragjudge_serve::{parse_judge_request, App, JudgeService, JudgeSettings, Limits, Scorer};
use ragjudge_testserver::{Behavior, Normal, Script, TestServer};
use std::sync::Arc;

fn top(label: &str, probs: &[(&str, f64)]) -> Behavior {
    let lp: Vec<(&str, f64)> = probs.iter().map(|&(t, p)| (t, p.ln())).collect();
    Behavior::Normal(Normal::text(label).with_top_logprobs(&lp))
}

fn settings(protocol: Protocol) -> JudgeSettings {
    JudgeSettings { tau: 0.1, protocol, protocol_settings: ProtocolSettings::default(), ..JudgeSettings::default() }
}

#[tokio::test]
async fn two_label_and_pointwise_verdicts_are_scored_as_dice_scores_a_pair() {
    let model = TestServer::start(Script::sequence(
        vec![
            // two-label, A shown as Output (a): P(a) = 0.8.
            top("a", &[("a", 0.8), ("b", 0.2)]),
            // two-label, swapped: B shown as (a), A as (b): P(b) = 0.7 is A's.
            top("b", &[("a", 0.3), ("b", 0.7)]),
            // pointwise, answer A alone: grades 4 and 5 at 0.5 each, expected grade 4.5.
            top("4", &[("4", 0.5), ("5", 0.5)]),
            // pointwise, answer B alone: grade 2.
            top("2", &[("2", 1.0)]),
        ],
        Behavior::Status(400),
    ));
    let judge = scripted_judge(&model);

    // two-label through HTTP: s_A = (0.8 + 0.7) / 2 = 0.75 -> probs (0.75, 0.25, 0). Scored as
    // DICE scores a pair, order by order: (0.8, 0.2) and, in presentation terms, (0.3, 0.7) both
    // have a margin >= tau 0.1, so each is a hard win of A: s_A = 1.
    let service = JudgeService::new(Arc::clone(&judge), &settings(Protocol::TwoLabel)).unwrap();
    let scorer = Scorer::from_names(&["lexical"], Default::default(), Default::default(), Some(1)).unwrap();
    let server = Running::start(App::new(scorer, Some(service), Limits::default()).unwrap()).await;
    assert_eq!(get(&server.url("/healthz")).await.json()["protocol"], "two-label");
    let body = r#"{"id": "q1", "query": "What is the capital of France?", "answer_a": "Paris.", "answer_b": "Lyon."}"#;
    let answer = post(&server.url("/v1/judge"), body).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let v = answer.json();
    assert_eq!((v["protocol"].as_str(), v["prompt_version"].as_str()), (Some("two-label"), Some("pair2-en-v1")));
    assert!((v["probs"]["a"].as_f64().unwrap() - 0.75).abs() < 1e-9, "{v}");
    assert_eq!((v["verdict"].as_str(), v["s_a"].as_f64()), (Some("A"), Some(1.0)));
    assert_eq!(v["order_consistent"], true);
    assert!((v["evidence"]["s_first"].as_f64().unwrap() - 0.75).abs() < 1e-9, "{v}");
    assert_eq!(v["evidence"]["orders"].as_array().unwrap().len(), 2);
    // Both answers reached the judge, in both orders.
    let prompts: Vec<String> = model.requests().iter().map(|r| r.last_user_message().unwrap()).collect();
    assert!(prompts[0].find("Paris.").unwrap() < prompts[0].find("Lyon.").unwrap(), "{}", prompts[0]);
    assert!(prompts[1].find("Lyon.").unwrap() < prompts[1].find("Paris.").unwrap(), "{}", prompts[1]);

    // pointwise: s_A = 0.5 + (4.5 - 2) / 8 = 0.8125, no presentation order; margin 0.625 >= tau:
    // a hard win, s_A = 1.
    let service = JudgeService::new(Arc::clone(&judge), &settings(Protocol::Pointwise)).unwrap();
    let req = parse_judge_request(body.as_bytes()).unwrap();
    let r = service.judge(&req).unwrap();
    assert!((r.probs.a - 0.8125).abs() < 1e-9, "{r:?}");
    assert_eq!((r.s_a, r.orders.len()), (1.0, 0));
    let grades = r.evidence.as_ref().and_then(|e| e.grades).unwrap();
    assert!((grades.0 - 4.5).abs() < 1e-9 && (grades.1 - 2.0).abs() < 1e-9, "{grades:?}");
    assert_eq!(model.request_count(), 4);

    // claims grades against the reference: a request without one is refused before any call.
    let service = JudgeService::new(Arc::clone(&judge), &settings(Protocol::Claims)).unwrap();
    let e = service.judge(&req).unwrap_err();
    assert_eq!(e.status.as_u16(), 422);
    assert!(e.message.starts_with("field `reference`: missing"), "{}", e.message);
    assert_eq!(model.request_count(), 4);
    // DICE with reasoning is `dice`, not a protocol of its own.
    assert!(JudgeService::new(judge, &settings(Protocol::DiceReasoning)).is_err());
}
