//! NLI groundedness (HCAT §3.2.2) through a fake cross-encoder and a fake judge.

mod fakes;

use approx::assert_abs_diff_eq;
use fakes::{FakeEmbedder, FakeJudge, FakeNli};
use ragjudge_core::{Context, Metric, MetricError, MetricOutput, Record};
use ragjudge_hcat::nli::{distance_from_label_probs, distance_from_logits, entailment_index, sigmoid};
use ragjudge_hcat::{HcatError, HcatMetric, NliSource, Premise, COLUMNS};
use ragjudge_models::{LabelProbs, ProbSource};
use std::sync::atomic::Ordering;
use std::sync::Arc;

const P1: &str = "Alpha is first. Beta is second.";
const P2: &str = "Gamma is the third.";
const A1: &str = "Alpha is first indeed.";
const A2: &str = "Zeta is last.";

fn embedder() -> Arc<FakeEmbedder> {
    Arc::new(FakeEmbedder::new(&[
        ("What is alpha?", [1.0, 0.0, 0.0]),
        ("Alpha is first.", [1.0, 0.0, 0.0]),
        ("Beta is second.", [0.6, 0.8, 0.0]),
        (P2, [0.0, 0.0, 1.0]),
        (A1, [0.8, 0.6, 0.0]),
        (A2, [0.0, 0.6, 0.8]),
    ]))
}

fn record(passages: &[&str], answer: &str) -> Record {
    Record {
        id: "q".into(),
        query: "What is alpha?".into(),
        contexts: passages.iter().map(|t| Context { text: t.to_string(), ..Default::default() }).collect(),
        answer: answer.into(),
        ..Default::default()
    }
}

fn col(out: &MetricOutput, name: &str) -> Option<f64> {
    out.values[COLUMNS.iter().position(|c| *c == name).unwrap()]
}

fn joined() -> String {
    format!("{P1}\n\n{P2}")
}

#[test]
fn entailment_label_is_found_by_prefix() {
    let labels = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(entailment_index(&labels(&["contradiction", "entailment", "neutral"])), Ok(1));
    // "not_entailment" must not be taken for the entailment label.
    assert_eq!(entailment_index(&labels(&["not_entailment", "Entailment"])), Ok(1));
    assert!(matches!(entailment_index(&labels(&["negative", "positive"])), Err(HcatError::NoEntailmentLabel(_))));
    assert!(entailment_index(&labels(&["entailment"])).is_err());
}

#[test]
fn distance_is_entailment_logit_minus_strongest_rival() {
    // logits (contradiction, entailment, neutral) = (-1, 3, 0.5): D = 3 - max(-1, 0.5) = 2.5.
    assert_abs_diff_eq!(distance_from_logits(&[-1.0, 3.0, 0.5], 1).unwrap(), 2.5, epsilon = 1e-12);
    // Two classes: sigma(D) is the softmax probability of entailment, e^1.2 / (e^0.3 + e^1.2).
    let d = distance_from_logits(&[0.3, 1.2], 1).unwrap();
    let softmax = 1.2f64.exp() / (0.3f64.exp() + 1.2f64.exp());
    assert_abs_diff_eq!(sigmoid(d), softmax, epsilon = 1e-7);
    assert!(distance_from_logits(&[f32::NAN, 1.0], 1).is_err());
    assert!(distance_from_logits(&[1.0], 0).is_err());
    // sigma at the extremes stays finite and in [0, 1].
    assert_eq!(sigmoid(-1000.0), 0.0);
    assert_eq!(sigmoid(1000.0), 1.0);
}

#[test]
fn judge_log_odds_and_hard_labels() {
    let probs = |p: [f64; 2], source| LabelProbs {
        labels: vec!["Yes".into(), "No".into()],
        probs: p.to_vec(),
        logits: vec![0.0, 0.0],
        label_mass: None,
        source,
    };
    // p_yes = 0.9, p_no = 0.1: D = ln 0.9 - ln 0.1 = ln 9, sigma(D) = 9 / 10.
    let e = distance_from_label_probs(&probs([0.9, 0.1], ProbSource::Logits)).unwrap();
    assert_abs_diff_eq!(e.distance.unwrap(), 9f64.ln(), epsilon = 1e-12);
    assert_abs_diff_eq!(e.score, 0.9, epsilon = 1e-12);
    // A hard label has infinite log-odds: no distance, score 1.
    let e = distance_from_label_probs(&probs([1.0, 0.0], ProbSource::HardLabel)).unwrap();
    assert_eq!((e.distance, e.score), (None, 1.0));
    assert!(distance_from_label_probs(&probs([0.0, 0.0], ProbSource::TopLogprobs)).is_err());
}

#[test]
fn cross_encoder_on_joined_context() {
    // a1: logits (-1, 3, 0.5) -> D = 2.5, sigma = 0.9241418; a2: (2, -1, 0) -> D = -1 - 2 = -3,
    // sigma = 0.0474259. mean = 0.4857838, min = 0.0474259 (a2 is least supported).
    let nli = Arc::new(FakeNli::new(&[(&joined(), A1, [-1.0, 3.0, 0.5]), (&joined(), A2, [2.0, -1.0, 0.0])]));
    let source = NliSource::cross_encoder(nli.clone()).unwrap();
    let m = HcatMetric::new(embedder()).with_nli(source, Premise::Joined);
    let out = m.score(&record(&[P1, P2], &format!("{A1} {A2}"))).unwrap();
    assert_abs_diff_eq!(col(&out, "hcat_nli_groundedness_mean").unwrap(), 0.48578384657816165, epsilon = 1e-7);
    assert_abs_diff_eq!(col(&out, "hcat_nli_groundedness_min").unwrap(), 0.04742587317756678, epsilon = 1e-7);
    let d = &out.detail.as_ref().unwrap()["nli_groundedness"];
    assert_eq!(d["source"], "cross-encoder");
    assert_eq!(d["least_supported"][0]["text"], A2);
    assert_eq!(d["least_supported"][1]["text"], A1);
    assert_eq!(d["unsupported_sentences"], 1);
    assert_abs_diff_eq!(d["per_answer_sentence"][1]["distance"].as_f64().unwrap(), -3.0, epsilon = 1e-12);
    // The premise is the whole context, the hypothesis one answer sentence.
    assert_eq!(nli.seen.lock().unwrap()[0], (joined(), A1.to_string()));
}

#[test]
fn cross_encoder_best_passage_takes_the_largest_distance() {
    // a2 against P1: (2, -1, 0) -> D = -3; against P2: (0, 1.5, -0.5) -> D = 1.5; best = 1.5.
    // a1 against P1: (-1, 3, 0.5) -> 2.5; against P2: (1, 0, 0) -> -1; best = 2.5.
    // mean = (sigma(2.5) + sigma(1.5)) / 2, min = sigma(1.5).
    let nli = Arc::new(FakeNli::new(&[
        (P1, A1, [-1.0, 3.0, 0.5]),
        (P2, A1, [1.0, 0.0, 0.0]),
        (P1, A2, [2.0, -1.0, 0.0]),
        (P2, A2, [0.0, 1.5, -0.5]),
    ]));
    let source = NliSource::cross_encoder(nli.clone()).unwrap();
    let m = HcatMetric::new(embedder()).with_nli(source, Premise::BestPassage);
    let out = m.score(&record(&[P1, P2], &format!("{A1} {A2}"))).unwrap();
    let (s25, s15) = (1.0 / (1.0 + (-2.5f64).exp()), 1.0 / (1.0 + (-1.5f64).exp()));
    assert_abs_diff_eq!(col(&out, "hcat_nli_groundedness_mean").unwrap(), (s25 + s15) / 2.0, epsilon = 1e-7);
    assert_abs_diff_eq!(col(&out, "hcat_nli_groundedness_min").unwrap(), s15, epsilon = 1e-7);
    assert_eq!(nli.seen.lock().unwrap().len(), 4);
}

#[test]
fn judge_source_uses_label_log_odds() {
    // a1: (0.9, 0.1) -> 0.9; a2: (0.2, 0.8) -> D = ln 0.25, sigma = 0.2. mean 0.55, min 0.2.
    let judge = Arc::new(FakeJudge::new(&[(A1, [0.9, 0.1]), (A2, [0.2, 0.8])]));
    let source = NliSource::judge(judge.clone(), ["Yes".into(), "No".into()]);
    let m = HcatMetric::new(embedder()).with_nli(source, Premise::Joined);
    let out = m.score(&record(&[P1, P2], &format!("{A1} {A2}"))).unwrap();
    assert_abs_diff_eq!(col(&out, "hcat_nli_groundedness_mean").unwrap(), 0.55, epsilon = 1e-12);
    assert_abs_diff_eq!(col(&out, "hcat_nli_groundedness_min").unwrap(), 0.2, epsilon = 1e-12);
    let d = &out.detail.as_ref().unwrap()["nli_groundedness"];
    assert_eq!(d["source"], "judge");
    assert_abs_diff_eq!(d["per_answer_sentence"][1]["distance"].as_f64().unwrap(), 0.25f64.ln(), epsilon = 1e-12);
    let prompts = judge.prompts.lock().unwrap();
    assert_eq!(prompts.len(), 2);
    assert_eq!(prompts[0].1, vec!["Yes".to_string(), "No".to_string()]);
    assert!(prompts[0].0.messages.last().unwrap().content.contains(&joined()));
}

#[test]
fn nli_is_none_without_answer_or_context_and_batched_across_records() {
    let nli = Arc::new(FakeNli::new(&[(P2, A1, [0.0, 1.0, 0.0]), (P2, A2, [0.0, 0.0, 1.0])]));
    let source = NliSource::cross_encoder(nli.clone()).unwrap();
    let m = HcatMetric::new(embedder()).with_nli(source, Premise::Joined);
    let records = vec![record(&[P2], A1), record(&[], A1), record(&[P2], ""), record(&[P2], A2)];
    let out = m.score_batch(&records);
    // One model call for the batch's two usable records.
    assert_eq!(nli.calls.load(Ordering::SeqCst), 1);
    // (0, 1, 0): D = 1 - 0 = 1; (0, 0, 1): D = 0 - 1 = -1.
    let mean = |o: &Result<MetricOutput, MetricError>| col(o.as_ref().unwrap(), "hcat_nli_groundedness_mean");
    assert_abs_diff_eq!(mean(&out[0]).unwrap(), sigmoid(1.0), epsilon = 1e-7);
    assert_eq!(mean(&out[1]), None);
    assert_eq!(mean(&out[2]), None);
    assert_abs_diff_eq!(mean(&out[3]).unwrap(), sigmoid(-1.0), epsilon = 1e-7);
}

#[test]
fn nli_failure_fails_the_record() {
    let nli = Arc::new(FakeNli::new(&[]));
    let m = HcatMetric::new(embedder()).with_nli(NliSource::cross_encoder(nli).unwrap(), Premise::Joined);
    let err = m.score(&record(&[P2], A1)).unwrap_err().to_string();
    assert!(err.starts_with("NLI model:"), "{err}");
}
