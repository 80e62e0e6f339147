//! Retrieval metrics (Open RAG Eval) against values computed by hand.

use approx::assert_abs_diff_eq;
use ragjudge_core::{Context, Metric, Record};
use ragjudge_lexical::retrieval::{
    ap_at_k, mrr, ndcg_at_k, precision_at_k, recall_at_k, retrieval_scores, Gain, RetrievalMetric, RetrievalOptions,
    ShortList,
};

const EPS: f64 = 1e-9;

fn g(v: &[f64]) -> Vec<Option<f64>> {
    v.iter().map(|&x| Some(x)).collect()
}

fn d() -> RetrievalOptions {
    RetrievalOptions::default()
}

// Grades 3 0 2 1 2, threshold 2 -> relevant at ranks 1, 3, 5 (3 relevant in the list).
fn main_list() -> Vec<Option<f64>> {
    g(&[3.0, 0.0, 2.0, 1.0, 2.0])
}

#[test]
fn precision() {
    let l = main_list();
    assert_abs_diff_eq!(precision_at_k(&l, 1, &d()).unwrap(), 1.0, epsilon = EPS); // 1/1
    assert_abs_diff_eq!(precision_at_k(&l, 3, &d()).unwrap(), 2.0 / 3.0, epsilon = EPS); // 2/3
    assert_abs_diff_eq!(precision_at_k(&l, 5, &d()).unwrap(), 0.6, epsilon = EPS);
    // 3/5
}

#[test]
fn average_precision() {
    let l = main_list();
    // AP@1 = P@1 / 1 = 1.
    assert_abs_diff_eq!(ap_at_k(&l, 1, &d()).unwrap(), 1.0, epsilon = EPS);
    // AP@3 = (P@1 + P@3) / 2 = (1 + 2/3) / 2 = 0.833333.
    assert_abs_diff_eq!(ap_at_k(&l, 3, &d()).unwrap(), 5.0 / 6.0, epsilon = EPS);
    // AP@5 = (1 + 2/3 + 3/5) / 3 = 0.755556.
    assert_abs_diff_eq!(ap_at_k(&l, 5, &d()).unwrap(), (1.0 + 2.0 / 3.0 + 0.6) / 3.0, epsilon = EPS);
    // Relevant only at rank 3 of [1, 0, 3]: AP@1 = 0 (none in top 1), AP@3 = (1/3) / 1.
    let l = g(&[1.0, 0.0, 3.0]);
    assert_eq!(ap_at_k(&l, 1, &d()), Some(0.0));
    assert_abs_diff_eq!(ap_at_k(&l, 3, &d()).unwrap(), 1.0 / 3.0, epsilon = EPS);
}

#[test]
fn reciprocal_rank() {
    assert_eq!(mrr(&main_list(), &d()), Some(1.0));
    // First relevant at rank 3 -> 1/3.
    assert_abs_diff_eq!(mrr(&g(&[1.0, 0.0, 3.0]), &d()).unwrap(), 1.0 / 3.0, epsilon = EPS);
    // Threshold 1: rank 1 is relevant -> 1.
    let t1 = RetrievalOptions { threshold: 1.0, ..d() };
    assert_eq!(mrr(&g(&[1.0, 0.0, 3.0]), &t1), Some(1.0));
}

#[test]
fn recall() {
    let l = main_list();
    assert_abs_diff_eq!(recall_at_k(&l, 1, &d()).unwrap(), 1.0 / 3.0, epsilon = EPS); // 1 of 3
    assert_abs_diff_eq!(recall_at_k(&l, 3, &d()).unwrap(), 2.0 / 3.0, epsilon = EPS); // 2 of 3
    assert_abs_diff_eq!(recall_at_k(&l, 5, &d()).unwrap(), 1.0, epsilon = EPS); // 3 of 3
}

#[test]
fn ndcg_linear() {
    let l = main_list();
    // Gains 3 0 2 1 2; ideal order 3 2 2 1 0; discount 1/log2(i + 1).
    // DCG@3 = 3/1 + 0/log2 3 + 2/2 = 4; IDCG@3 = 3 + 2/log2 3 + 2/2 = 5.261860 -> 0.760188.
    let l3 = 3.0f64.log2();
    assert_abs_diff_eq!(ndcg_at_k(&l, 3, &d()).unwrap(), 4.0 / (4.0 + 2.0 / l3), epsilon = EPS);
    assert_abs_diff_eq!(ndcg_at_k(&l, 3, &d()).unwrap(), 0.760187533, epsilon = 1e-8);
    // DCG@5 = 4 + 1/log2 5 + 2/log2 6 = 5.204383; IDCG@5 = 3 + 2/log2 3 + 1 + 1/log2 5 = 5.692537
    // -> 0.914247.
    assert_abs_diff_eq!(ndcg_at_k(&l, 5, &d()).unwrap(), 0.914246675, epsilon = 1e-8);
    // A perfectly ordered list scores 1 at every K.
    assert_abs_diff_eq!(ndcg_at_k(&g(&[3.0, 2.0, 0.0]), 2, &d()).unwrap(), 1.0, epsilon = EPS);
}

#[test]
fn ndcg_exponential() {
    // Gains 2^g - 1: 7 0 3 1 3; ideal 7 3 3 1 0.
    // DCG@3 = 7 + 0 + 3/2 = 8.5; IDCG@3 = 7 + 3/log2 3 + 3/2 = 10.392789 -> 0.817875.
    let o = RetrievalOptions { gain: Gain::Exponential, ..d() };
    let l3 = 3.0f64.log2();
    assert_abs_diff_eq!(ndcg_at_k(&main_list(), 3, &o).unwrap(), 8.5 / (8.5 + 3.0 / l3), epsilon = EPS);
    assert_abs_diff_eq!(ndcg_at_k(&main_list(), 3, &o).unwrap(), 0.817874758, epsilon = 1e-8);
}

#[test]
fn no_relevant_passage() {
    // Grades 0 1 1: nothing >= 2.
    let l = g(&[0.0, 1.0, 1.0]);
    assert_eq!(precision_at_k(&l, 3, &d()), Some(0.0));
    assert_eq!(ap_at_k(&l, 3, &d()), Some(0.0));
    assert_eq!(mrr(&l, &d()), Some(0.0));
    assert_eq!(recall_at_k(&l, 3, &d()), None);
    // nDCG still uses the graded gains: DCG = 1/log2 3 + 1/2 = 1.130930, IDCG = 1 + 1/log2 3
    // = 1.630930 -> 0.693426.
    assert_abs_diff_eq!(ndcg_at_k(&l, 3, &d()).unwrap(), 0.693426404, epsilon = 1e-8);
    // All gains zero: IDCG = 0 -> undefined.
    assert_eq!(ndcg_at_k(&g(&[0.0, 0.0]), 2, &d()), None);
}

#[test]
fn empty_list_and_zero_k() {
    let e: Vec<Option<f64>> = vec![];
    assert_eq!(precision_at_k(&e, 1, &d()), None);
    assert_eq!(ap_at_k(&e, 1, &d()), None);
    assert_eq!(recall_at_k(&e, 1, &d()), None);
    assert_eq!(ndcg_at_k(&e, 1, &d()), None);
    assert_eq!(mrr(&e, &d()), None);
    let l = main_list();
    assert_eq!(precision_at_k(&l, 0, &d()), None);
    assert_eq!(ap_at_k(&l, 0, &d()), None);
}

#[test]
fn k_larger_than_list() {
    let l = g(&[3.0, 0.0]);
    // Default: undefined, as Open RAG Eval skips K > number of passages.
    assert_eq!(precision_at_k(&l, 5, &d()), None);
    assert_eq!(ap_at_k(&l, 5, &d()), None);
    assert_eq!(recall_at_k(&l, 5, &d()), None);
    assert_eq!(ndcg_at_k(&l, 5, &d()), None);
    // TREC padding: P@5 = 1/5; AP@5 = (1/1)/1 = 1; recall 1/1; nDCG = DCG/IDCG over the given
    // list = 3/3 = 1.
    let pad = RetrievalOptions { short_list: ShortList::PadNonRelevant, ..d() };
    assert_abs_diff_eq!(precision_at_k(&l, 5, &pad).unwrap(), 0.2, epsilon = EPS);
    assert_eq!(ap_at_k(&l, 5, &pad), Some(1.0));
    assert_eq!(recall_at_k(&l, 5, &pad), Some(1.0));
    assert_abs_diff_eq!(ndcg_at_k(&l, 5, &pad).unwrap(), 1.0, epsilon = EPS);
}

#[test]
fn unjudged_and_nan_grades_are_not_relevant() {
    // [unjudged, 2, NaN]: relevant only at rank 2.
    let l = vec![None, Some(2.0), Some(f64::NAN)];
    assert_abs_diff_eq!(precision_at_k(&l, 2, &d()).unwrap(), 0.5, epsilon = EPS);
    assert_abs_diff_eq!(mrr(&l, &d()).unwrap(), 0.5, epsilon = EPS);
    // AP@3 = (1/2) / 1.
    assert_abs_diff_eq!(ap_at_k(&l, 3, &d()).unwrap(), 0.5, epsilon = EPS);
    // nDCG@3: gains 0 2 0, ideal 2 0 0 -> (2/log2 3) / 2 = 0.630930.
    assert_abs_diff_eq!(ndcg_at_k(&l, 3, &d()).unwrap(), 1.0 / 3.0f64.log2(), epsilon = EPS);
    let s = retrieval_scores(&l, &[1, 3], &d());
    assert_eq!((s.passages, s.judged, s.relevant), (3, 1, 1));
    assert_eq!(s.at_k[0].precision, Some(0.0));
}

#[test]
fn metric_over_record_contexts() {
    let ctx = |r: Option<f64>| Context { text: "p".into(), relevance: r, ..Default::default() };
    let mut rec =
        Record { id: "q".into(), contexts: vec![ctx(Some(3.0)), ctx(Some(0.0)), ctx(Some(2.0))], ..Default::default() };
    let m = RetrievalMetric { ks: vec![1, 5], opts: d() };
    assert_eq!(
        m.columns(),
        ["precision@1", "ap@1", "recall@1", "ndcg@1", "precision@5", "ap@5", "recall@5", "ndcg@5", "mrr"]
    );
    let out = m.score(&rec).unwrap();
    // K = 1: P 1, AP 1, recall 1/2, nDCG 3/3 = 1; K = 5 > 3 passages: undefined; MRR 1.
    assert_eq!(out.values[0], Some(1.0));
    assert_eq!(out.values[1], Some(1.0));
    assert_eq!(out.values[2], Some(0.5));
    assert_eq!(out.values[3], Some(1.0));
    assert!(out.values[4..8].iter().all(Option::is_none));
    assert_eq!(out.values[8], Some(1.0));
    assert_eq!(out.detail.unwrap()["relevant"], 2);
    // No grades at all: the metric does not apply.
    rec.contexts = vec![ctx(None), ctx(None)];
    assert!(m.score(&rec).unwrap().values.iter().all(Option::is_none));
}
