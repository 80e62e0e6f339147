//! `POST /v1/judge` through an OpenAI-compatible judge: the scripted loopback server stands in
//! for the model. (Its own test binary: the judge reads `OPENAI_BASE_URL` from the environment.)

mod common;

use common::{get, post, scripted_judge, Running};
use ragjudge_serve::{App, JudgeService, JudgeSettings, Limits, Scorer};
use ragjudge_testserver::{Behavior, Normal, Script, TestServer};

#[tokio::test]
async fn a_pair_is_judged_in_both_orders_through_the_configured_judge() {
    // Verdict logprobs ln 0.7 / ln 0.2 / ln 0.1 for A / B / C (tie): the judge's probabilities
    // are the softmax over these three, i.e. 0.7, 0.2, 0.1. The first request shows the pair as
    // given (A first), the second swapped, where the script favours the second shown answer: the
    // original A both times. So p(A) = 0.7, p(B) = 0.2, p(tie) = 0.1 after mapping back, the
    // margin 0.5 >= tau 0.1 makes each order a hard win of A: s_A = 1, s_B = 0, consistent.
    // Later requests get 400: the judge failed, 502.
    let verdict = |a: f64, b: f64, c: f64| {
        Behavior::Normal(Normal::text("A").with_top_logprobs(&[("A", a.ln()), ("B", b.ln()), ("C", c.ln())]))
    };
    let model = TestServer::start(Script::sequence(
        vec![verdict(0.7, 0.2, 0.1), verdict(0.2, 0.7, 0.1)],
        Behavior::Status(400),
    ));
    let judge = scripted_judge(&model);
    let settings = JudgeSettings { reasoning: false, swap: true, tau: 0.1, ..JudgeSettings::default() };
    let service = JudgeService::new(judge, &settings).unwrap();
    let scorer = Scorer::from_names(&["lexical"], Default::default(), Default::default(), Some(1)).unwrap();
    let server = Running::start(App::new(scorer, Some(service), Limits::default()).unwrap()).await;

    let health = get(&server.url("/healthz")).await.json();
    assert!(health["judge"].as_str().unwrap().starts_with("openai:"), "{health}");

    let body = r#"{"id": "q1", "query": "What is the capital of France?", "answer_a": "Paris.", "answer_b": "Lyon.",
                   "reference": "Paris", "contexts": [{"id": "d1", "text": "Paris is the capital of France."}]}"#;
    let answer = post(&server.url("/v1/judge"), body).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let v = answer.json();
    let p = |k: &str| v["probs"][k].as_f64().unwrap();
    assert!((p("a") - 0.7).abs() < 1e-9 && (p("b") - 0.2).abs() < 1e-9 && (p("tie") - 0.1).abs() < 1e-9, "{v}");
    assert_eq!(v["verdict"], "A");
    assert_eq!((v["s_a"].as_f64(), v["s_b"].as_f64()), (Some(1.0), Some(0.0)));
    assert_eq!(v["order_consistent"], true);
    assert_eq!(v["id"], "q1");
    assert_eq!(v["protocol"], "dice");
    assert!(v.get("evidence").is_none(), "{v}");
    let orders: Vec<&str> = v["orders"].as_array().unwrap().iter().map(|o| o["order"].as_str().unwrap()).collect();
    assert_eq!(orders, ["ab", "ba"]);
    assert_eq!(model.request_count(), 2);
    // The question, reference and both answers reached the judge.
    let prompt = model.requests()[0].last_user_message().unwrap();
    for text in ["What is the capital of France?", "Paris.", "Lyon."] {
        assert!(prompt.contains(text), "{prompt}");
    }

    let failed = post(&server.url("/v1/judge"), body).await;
    assert_eq!(failed.status, 502, "{}", failed.body);
    assert!(failed.json()["error"].as_str().unwrap().starts_with("judge failed: "), "{}", failed.body);
    let bad = post(&server.url("/v1/judge"), r#"{"query": "q", "answer_a": "a"}"#).await;
    assert_eq!((bad.status, bad.json()["error"].as_str()), (422, Some("field `answer_b`: missing")));
    let text = get(&server.url("/metrics")).await.body;
    assert!(text.contains("ragjudge_judgements_total 1\n"), "{text}");
}
