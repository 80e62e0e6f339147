//! BERTScore greedy matching against the `bert-score` package on injected token vectors.
//!
//! Reference: `tests/fixtures/answer_bertscore/bertscore_greedy.json`, written by
//! `make_bertscore_fixture.py` next to it (bert-score 0.3.13 `greedy_cos_idf` and `get_idf_dict`;
//! versions in its `generator` field).

use std::path::PathBuf;

use ragjudge_models::TokenEmbedding;
use ragjudge_trec::answer::bertscore::{bert_score, Idf};

#[derive(serde::Deserialize)]
struct Pair {
    candidate: usize,
    reference: usize,
    idf: bool,
    precision: f64,
    recall: f64,
    f1: f64,
}

#[derive(serde::Deserialize)]
struct Fixture {
    generator: String,
    ids: Vec<Vec<u32>>,
    special: Vec<Vec<bool>>,
    vectors: Vec<Vec<Vec<f32>>>,
    pairs: Vec<Pair>,
}

#[test]
fn greedy_matching_matches_bert_score() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/answer_bertscore/bertscore_greedy.json");
    let fx: Fixture = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let texts: Vec<TokenEmbedding> = (0..fx.ids.len())
        .map(|i| TokenEmbedding {
            tokens: fx.ids[i].iter().map(|id| id.to_string()).collect(),
            ids: fx.ids[i].clone(),
            special: fx.special[i].clone(),
            vectors: fx.vectors[i].clone(),
        })
        .collect();
    let idf = Idf::new(&texts.iter().collect::<Vec<_>>());
    assert_eq!(fx.pairs.len(), 12);
    for p in &fx.pairs {
        let s = bert_score(&texts[p.candidate], &texts[p.reference], p.idf.then_some(&idf)).unwrap();
        for (ours, theirs, what) in [(s.precision, p.precision, "P"), (s.recall, p.recall, "R"), (s.f1, p.f1, "F")] {
            assert!(
                (ours - theirs).abs() < 1e-9,
                "{what} of {} vs {} (idf {}): {ours} vs {theirs} ({})",
                p.candidate,
                p.reference,
                p.idf,
                fx.generator
            );
        }
    }
}
