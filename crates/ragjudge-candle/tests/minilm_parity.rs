//! Parity with sentence-transformers on all-MiniLM-L6-v2.
//!
//! Reference vectors: `tests/fixtures/minilm_embeddings.json`, written by
//! `tests/fixtures/make_minilm_fixture.py` (the library versions are in its `generator` field).
//! The model directory is `$RAGJUDGE_MINILM_DIR`, else the installed `minilm` model, pulled into
//! `$RAGJUDGE_HOME/models` on first use (as `ragjudge models pull minilm` does).

mod common;

use common::minilm_dir;

use ragjudge_candle::{BertEmbedder, EncoderOptions};
use ragjudge_models::Embedder;

#[test]
fn minilm_matches_sentence_transformers() {
    let dir = minilm_dir();
    let fx = common::minilm_fixture();
    assert!(fx.sentences.iter().any(String::is_empty));
    assert!(fx.token_counts.contains(&fx.max_seq_length), "fixture must exercise truncation");

    let opts = EncoderOptions { max_length: fx.max_seq_length, batch_size: 32, threads: None, ..Default::default() };
    let model = BertEmbedder::load(&dir, &opts).unwrap();
    assert_eq!(model.dim(), 384);
    assert!(model.identity().contains(':'));
    let texts: Vec<&str> = fx.sentences.iter().map(String::as_str).collect();
    let ours = model.embed(&texts).unwrap();

    let mut min_cos = (f64::INFINITY, 0);
    let mut max_abs = 0f32;
    for (i, (a, b)) in ours.iter().zip(&fx.embeddings).enumerate() {
        let cos = common::cosine(a, b);
        if cos < min_cos.0 {
            min_cos = (cos, i);
        }
        max_abs = a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(max_abs, f32::max);
    }
    println!(
        "minilm parity vs {}: {} sentences, min cosine {:.8} (sentence {}), max abs diff {:.3e}",
        fx.generator,
        texts.len(),
        min_cos.0,
        min_cos.1,
        max_abs
    );
    assert!(min_cos.0 >= 0.9999, "sentence {} {:?}: cosine {}", min_cos.1, texts[min_cos.1], min_cos.0);
    assert!(max_abs <= 1e-4, "max abs component difference {max_abs}");
}
