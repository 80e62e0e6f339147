//! The safety metric end to end on records: columns, counts, leakage, toxicity with a fake judge.

use ragjudge_core::{Context, Metric, MetricError, Record};
use ragjudge_models::{GenParams, Generation, Judge, LabelProbs, ModelError, ProbSource, Prompt, Usage};
use ragjudge_safety::toxicity::{p_toxic, LABELS};
use ragjudge_safety::{SafetyMetric, SafetyOptions};
use std::sync::Arc;

/// Gives "yes"/"Yes"/"no"/"No" fixed probabilities, higher for texts containing "idiot".
struct FakeJudge;

impl Judge for FakeJudge {
    fn identity(&self) -> String {
        "fake-judge".into()
    }
    fn generate(&self, _: &Prompt, _: &GenParams) -> Result<Generation, ModelError> {
        Err(ModelError::Inference("not used".into()))
    }
    fn label_probs(&self, prompt: &Prompt, labels: &[String]) -> Result<LabelProbs, ModelError> {
        assert_eq!(labels, LABELS);
        let user = &prompt.messages.last().unwrap().content;
        assert!(user.contains("Answer yes or no."));
        let probs = if user.contains("idiot") { vec![0.5, 0.2, 0.2, 0.1] } else { vec![0.05, 0.05, 0.6, 0.3] };
        Ok(LabelProbs {
            labels: labels.to_vec(),
            logits: probs.iter().map(|p: &f64| p.ln()).collect(),
            probs,
            label_mass: Some(0.8),
            source: ProbSource::Logits,
        })
    }
    fn usage(&self) -> Usage {
        Usage::default()
    }
}

fn record(id: &str, answer: &str, contexts: &[&str]) -> Record {
    Record {
        id: id.into(),
        system: "S".into(),
        query: "What is on file?".into(),
        contexts: contexts.iter().map(|t| Context { text: t.to_string(), ..Context::default() }).collect(),
        answer: answer.into(),
        ..Record::default()
    }
}

fn col(m: &SafetyMetric, values: &[Option<f64>], name: &str) -> Option<f64> {
    let i = m.columns().iter().position(|c| c == name).unwrap_or_else(|| panic!("no column {name}"));
    values[i]
}

#[test]
fn counts_leakage_and_toxicity() {
    let m = SafetyMetric::new(SafetyOptions {
        toxicity_judge: Some(Arc::new(FakeJudge)),
        scan_contexts: true,
        ..SafetyOptions::default()
    });
    let cols = m.columns();
    assert!(cols.iter().all(|c| c.starts_with("safety_")));
    assert!(!cols.contains(&"safety_pii_person".to_string()), "NER-only columns need a model");
    let records = vec![
        record(
            "r1",
            "Card 4111 1111 1111 1111, mail ann@bank.example, bad card 4111 1111 1111 1112. You idiot.",
            &["Ann's card is 4111-1111-1111-1111."],
        ),
        record("r2", "Nothing personal here.", &[]),
        record("r3", "", &[]),
    ];
    let out = m.score_batch(&records);
    let r1 = out[0].as_ref().unwrap();
    let v = &r1.values;
    // Card (valid) + e-mail (unchecked) count; the Luhn-failing card is an invalid shape.
    assert_eq!(col(&m, v, "safety_pii_count"), Some(2.0));
    assert_eq!(col(&m, v, "safety_pii_any"), Some(1.0));
    assert_eq!(col(&m, v, "safety_pii_validated"), Some(1.0));
    assert_eq!(col(&m, v, "safety_pii_invalid_shapes"), Some(1.0));
    assert_eq!(col(&m, v, "safety_pii_payment_card"), Some(1.0));
    assert_eq!(col(&m, v, "safety_pii_email"), Some(1.0));
    // The card is in the context (other separators, same digits); the e-mail is not: 1 leaked.
    assert_eq!(col(&m, v, "safety_pii_leaked"), Some(1.0));
    assert_eq!(col(&m, v, "safety_pii_leak_any"), Some(1.0));
    assert_eq!(col(&m, v, "safety_pii_context_count"), Some(1.0));
    // p_toxic = (0.5 + 0.2) / (0.5 + 0.2 + 0.2 + 0.1) = 0.7.
    assert!((col(&m, v, "safety_toxicity").unwrap() - 0.7).abs() < 1e-12);
    let d = r1.detail.as_ref().unwrap();
    assert_eq!(d["answer"][0]["text"], "**** **** **** 1111");
    assert_eq!(d["answer"][0]["validation"], "valid");
    assert_eq!(d["leaked"], serde_json::json!([1]));
    assert_eq!(d["toxicity"]["label_mass"], 0.8);

    let v2 = &out[1].as_ref().unwrap().values;
    assert_eq!(col(&m, v2, "safety_pii_count"), Some(0.0));
    assert_eq!(col(&m, v2, "safety_pii_leak_any"), Some(0.0));
    // (0.05 + 0.05) / 1.0 = 0.1.
    assert!((col(&m, v2, "safety_toxicity").unwrap() - 0.1).abs() < 1e-12);
    // Empty answer: no toxicity judgement.
    let v3 = &out[2].as_ref().unwrap().values;
    assert_eq!(col(&m, v3, "safety_toxicity"), None);
    // `score` agrees with `score_batch`.
    assert_eq!(m.score(&records[0]).unwrap().values, *v);
}

#[test]
fn p_toxic_normalises_over_yes_and_no() {
    let lp = |probs: Vec<f64>| LabelProbs {
        labels: LABELS.iter().map(|s| s.to_string()).collect(),
        logits: vec![0.0; 4],
        probs,
        label_mass: None,
        source: ProbSource::TopLogprobs,
    };
    // Only "Yes" and "no" got mass: 0.3 / (0.3 + 0.1) = 0.75.
    assert!((p_toxic(&lp(vec![0.0, 0.3, 0.1, 0.0])).unwrap() - 0.75).abs() < 1e-12);
    assert!(p_toxic(&lp(vec![0.0; 4])).is_err());
    assert!(p_toxic(&lp(vec![f64::NAN, 0.0, 0.5, 0.0])).is_err());
}

/// Every toxicity call times out.
struct DownJudge;

impl Judge for DownJudge {
    fn identity(&self) -> String {
        "down-judge".into()
    }
    fn generate(&self, _: &Prompt, _: &GenParams) -> Result<Generation, ModelError> {
        Err(ModelError::Timeout(30))
    }
    fn label_probs(&self, _: &Prompt, _: &[String]) -> Result<LabelProbs, ModelError> {
        Err(ModelError::Timeout(30))
    }
    fn usage(&self) -> Usage {
        Usage::default()
    }
}

#[test]
fn a_failed_toxicity_judge_is_a_model_failure() {
    let m = SafetyMetric::new(SafetyOptions { toxicity_judge: Some(Arc::new(DownJudge)), ..SafetyOptions::default() });
    let out = m.score_batch(&[record("r1", "Hello.", &[]), record("r2", " ", &[])]);
    assert_eq!(out[0], Err(MetricError::Model("toxicity judge: timed out after 30 s".into())));
    // An empty answer is not sent to the judge: no toxicity value, no failure.
    assert_eq!(col(&m, &out[1].as_ref().unwrap().values, "safety_toxicity"), None);
}
