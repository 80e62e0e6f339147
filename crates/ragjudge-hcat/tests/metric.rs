//! The HCAT metrics on tiny sentence sets with fixed vectors, against hand-computed values.
//!
//! Vectors (3-d): q1 = (1,0,0), q2 = (0,1,0); c1 = (1,0,0), c2 = (0.6,0.8,0), c3 = (0,0,1);
//! a1 = (0.8,0.6,0), a2 = (0,0.6,0.8). Every vector has norm 1, so Sim is the dot product.

mod fakes;

use approx::assert_abs_diff_eq;
use fakes::FakeEmbedder;
use ragjudge_core::{Context, Metric, MetricOutput, Record};
use ragjudge_hcat::{HcatMetric, COLUMNS};
use std::sync::atomic::Ordering;
use std::sync::Arc;

const Q1: &str = "What is alpha?"; // 3 words
const Q2: &str = "Tell me about beta."; // 4 words
const C1: &str = "Alpha is first."; // 3 words
const C2: &str = "Beta is second."; // 3 words
const C3: &str = "Gamma is the third."; // 4 words
const A1: &str = "Alpha is first indeed."; // 4 words
const A2: &str = "Zeta is last."; // 3 words

/// f32 vectors make the similarities exact only to about 1e-7.
const EPS: f64 = 1e-6;

fn embedder() -> Arc<FakeEmbedder> {
    Arc::new(FakeEmbedder::new(&[
        (Q1, [1.0, 0.0, 0.0]),
        (Q2, [0.0, 1.0, 0.0]),
        (C1, [1.0, 0.0, 0.0]),
        (C2, [0.6, 0.8, 0.0]),
        (C3, [0.0, 0.0, 1.0]),
        (A1, [0.8, 0.6, 0.0]),
        (A2, [0.0, 0.6, 0.8]),
        ("Nothing here.", [0.0, 0.0, 0.0]),
    ]))
}

fn record(query: &str, passages: &[&str], answer: &str) -> Record {
    Record {
        id: "q".into(),
        query: query.into(),
        contexts: passages.iter().map(|t| Context { text: t.to_string(), ..Default::default() }).collect(),
        answer: answer.into(),
        ..Default::default()
    }
}

fn full_record() -> Record {
    record(&format!("{Q1} {Q2}"), &[&format!("{C1} {C2}"), C3], &format!("{A1} {A2}"))
}

fn col(out: &MetricOutput, name: &str) -> Option<f64> {
    out.values[COLUMNS.iter().position(|c| *c == name).unwrap()]
}

fn assert_col(out: &MetricOutput, name: &str, expected: f64) {
    let got = col(out, name).unwrap_or_else(|| panic!("{name} is None"));
    assert_abs_diff_eq!(got, expected, epsilon = EPS);
}

#[test]
fn columns_are_prefixed_lower_snake_and_match_values() {
    let m = HcatMetric::new(embedder());
    let cols = m.columns();
    assert_eq!(cols.len(), 15);
    assert!(cols.iter().all(|c| c.starts_with("hcat_") && c.chars().all(|ch| ch.is_ascii_lowercase() || ch == '_')));
    assert_eq!(m.score(&full_record()).unwrap().values.len(), cols.len());
}

#[test]
fn context_relevancy_mean_weighted_minimax() {
    // S_max(q1) = max(1, 0.6, 0) = 1 (c1); S_max(q2) = max(0, 0.8, 0) = 0.8 (c2).
    // mean = 1.8 / 2 = 0.9; weighted by words (3, 4): (3*1 + 4*0.8) / 7 = 6.2 / 7; minimax = 0.8.
    let out = HcatMetric::new(embedder()).score(&full_record()).unwrap();
    assert_col(&out, "hcat_context_relevancy_mean", 0.9);
    assert_col(&out, "hcat_context_relevancy_weighted", 6.2 / 7.0);
    assert_col(&out, "hcat_context_relevancy_minimax", 0.8);
    let per = &out.detail.as_ref().unwrap()["context_relevancy"]["per_query_sentence"];
    assert_eq!(per[1]["best_context"], 1);
    assert_abs_diff_eq!(per[1]["weight"].as_f64().unwrap(), 4.0 / 7.0, epsilon = 1e-12);
}

#[test]
fn groundedness_mean_and_least_grounded_sentence() {
    // a1: Sim to c1, c2, c3 = 0.8, 0.48 + 0.48 = 0.96, 0 -> 0.96 (c2).
    // a2: 0, 0.48, 0.8 -> 0.8 (c3). mean = 1.76 / 2 = 0.88; min = 0.8, least grounded = a2.
    let out = HcatMetric::new(embedder()).score(&full_record()).unwrap();
    assert_col(&out, "hcat_groundedness_mean", 0.88);
    assert_col(&out, "hcat_groundedness_min", 0.8);
    let least = &out.detail.as_ref().unwrap()["groundedness"]["least_grounded"];
    assert_eq!(least["sentence"], 1);
    assert_eq!(least["text"], A2);
    assert_eq!(least["best_context"], 2);
}

#[test]
fn completeness_mean_weighted_and_wasserstein() {
    // S_max(c1) = max(0.8, 0) = 0.8; S_max(c2) = max(0.96, 0.48) = 0.96; S_max(c3) = max(0, 0.8) = 0.8.
    // mean = 2.56 / 3; weighted by words (3, 3, 4): 0.3*0.8 + 0.3*0.96 + 0.4*0.8 = 0.848.
    // Distances 1 - Sim (rows c, columns a): [0.2, 1], [0.04, 0.52], [1, 0.2].
    // Exact W (masses 1/3 and 1/2, solved in tests/wasserstein.rs): 1.36 / 6.
    // Mean pairwise: (0.2 + 1 + 0.04 + 0.52 + 1 + 0.2) / 6 = 2.96 / 6.
    let out = HcatMetric::new(embedder()).score(&full_record()).unwrap();
    assert_col(&out, "hcat_completeness_mean", 2.56 / 3.0);
    assert_col(&out, "hcat_completeness_weighted", 0.848);
    assert_col(&out, "hcat_wasserstein_exact", 1.36 / 6.0);
    assert_col(&out, "hcat_wasserstein_mean_pairwise", 2.96 / 6.0);
    let plan = out.detail.as_ref().unwrap()["completeness"]["transport_plan"].as_array().unwrap().clone();
    assert_eq!(plan.len(), 4);
}

#[test]
fn answer_relevancy_mean_weighted_min_and_ragas_like() {
    // a1 vs q1, q2 = 0.8, 0.6 -> 0.8; a2 vs q1, q2 = 0, 0.6 -> 0.6.
    // mean = 0.7; weighted by words (4, 3): (3.2 + 1.8) / 7 = 5 / 7; min = 0.6.
    // ragas_like = (groundedness 0.88 + answer relevancy 0.7 + context relevancy 0.9) / 3 = 2.48 / 3.
    let out = HcatMetric::new(embedder()).score(&full_record()).unwrap();
    assert_col(&out, "hcat_answer_relevancy_mean", 0.7);
    assert_col(&out, "hcat_answer_relevancy_weighted", 5.0 / 7.0);
    assert_col(&out, "hcat_answer_relevancy_min", 0.6);
    assert_col(&out, "hcat_ragas_like", 2.48 / 3.0);
    // No NLI source: the NLI columns are None and there is no NLI detail.
    assert_eq!(col(&out, "hcat_nli_groundedness_mean"), None);
    assert_eq!(col(&out, "hcat_nli_groundedness_min"), None);
    assert!(out.detail.as_ref().unwrap().get("nli_groundedness").is_none());
}

#[test]
fn one_sentence_each_gives_single_similarities() {
    // q1 = c1 = (1,0,0), a1 = (0.8,0.6,0): context relevancy 1 by every aggregate; groundedness,
    // completeness and answer relevancy 0.8; both Wasserstein values 1 - 0.8 = 0.2 (one plan only);
    // ragas_like = (0.8 + 0.8 + 1) / 3 = 2.6 / 3.
    let out = HcatMetric::new(embedder()).score(&record(Q1, &[C1], A1)).unwrap();
    for c in ["hcat_context_relevancy_mean", "hcat_context_relevancy_weighted", "hcat_context_relevancy_minimax"] {
        assert_col(&out, c, 1.0);
    }
    for c in [
        "hcat_groundedness_mean",
        "hcat_groundedness_min",
        "hcat_completeness_mean",
        "hcat_completeness_weighted",
        "hcat_answer_relevancy_mean",
        "hcat_answer_relevancy_weighted",
        "hcat_answer_relevancy_min",
    ] {
        assert_col(&out, c, 0.8);
    }
    assert_col(&out, "hcat_wasserstein_exact", 0.2);
    assert_col(&out, "hcat_wasserstein_mean_pairwise", 0.2);
    assert_col(&out, "hcat_ragas_like", 2.6 / 3.0);
}

#[test]
fn empty_answer_leaves_answer_columns_none() {
    let m = HcatMetric::new(embedder());
    for answer in ["", "   \n "] {
        let out = m.score(&record(Q1, &[C1], answer)).unwrap();
        assert_col(&out, "hcat_context_relevancy_mean", 1.0);
        for c in COLUMNS.iter().filter(|c| !c.starts_with("hcat_context_relevancy")) {
            assert_eq!(col(&out, c), None, "{c}");
        }
    }
}

#[test]
fn empty_contexts_leave_context_columns_none() {
    let m = HcatMetric::new(embedder());
    for passages in [&[][..], &[""][..]] {
        let out = m.score(&record(Q1, passages, A1)).unwrap();
        assert_col(&out, "hcat_answer_relevancy_mean", 0.8);
        for c in COLUMNS.iter().filter(|c| !c.starts_with("hcat_answer_relevancy")) {
            assert_eq!(col(&out, c), None, "{c}");
        }
    }
}

#[test]
fn empty_query_leaves_relevancy_columns_none() {
    let out = HcatMetric::new(embedder()).score(&record("", &[C1], A1)).unwrap();
    for c in COLUMNS {
        let needs_query = c.contains("relevancy") || c == "hcat_ragas_like" || c.contains("nli");
        assert_eq!(col(&out, c).is_none(), needs_query, "{c}");
    }
    assert_col(&out, "hcat_groundedness_mean", 0.8);
}

#[test]
fn everything_empty_gives_all_none_without_embedding() {
    let e = embedder();
    let out = HcatMetric::new(e.clone()).score(&record("", &[], "")).unwrap();
    assert!(out.values.iter().all(Option::is_none));
    assert_eq!(e.calls.load(Ordering::SeqCst), 0);
}

#[test]
fn batch_embeds_distinct_sentences_in_one_call_and_equals_single_scoring() {
    let e = embedder();
    let m = HcatMetric::new(e.clone());
    let records = vec![full_record(), record(Q1, &[C1], A1), record("", &[], "")];
    let batch = m.score_batch(&records);
    // One call for the batch; the 7 distinct sentences are embedded once although 10 occur.
    assert_eq!(e.calls.load(Ordering::SeqCst), 1);
    assert_eq!(e.texts.load(Ordering::SeqCst), 7);
    for (r, b) in records.iter().zip(&batch) {
        assert_eq!(&m.score(r), b);
    }
}

#[test]
fn zero_vector_or_embedding_failure_is_an_error_not_nan() {
    let m = HcatMetric::new(embedder());
    let err = m.score(&record(Q1, &["Nothing here."], A1)).unwrap_err().to_string();
    assert!(err.contains("Nothing here."), "{err}");
    let err = m.score(&record("An unknown sentence.", &[C1], A1)).unwrap_err().to_string();
    assert!(err.starts_with("embedding failed"), "{err}");
}
