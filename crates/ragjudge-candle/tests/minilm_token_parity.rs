//! Parity of `TokenEmbedder for BertEmbedder` with sentence-transformers' token embeddings on
//! all-MiniLM-L6-v2.
//!
//! Reference: `tests/fixtures/minilm_token_embeddings.json`, written by
//! `tests/fixtures/make_minilm_token_fixture.py` (`encode(..., output_value="token_embeddings")`;
//! library versions in its `generator` field). The model directory is `$RAGJUDGE_MINILM_DIR`, else
//! the installed `minilm` model, pulled into `$RAGJUDGE_HOME/models` on first use.

mod common;

use std::path::PathBuf;

use common::minilm_dir;

use ragjudge_candle::{BertEmbedder, EncoderOptions};
use ragjudge_models::{Embedder, TokenEmbedder};

#[derive(serde::Deserialize)]
struct Fixture {
    generator: String,
    sentences: Vec<String>,
    tokens: Vec<Vec<String>>,
    special: Vec<Vec<bool>>,
    vectors: Vec<Vec<Vec<f32>>>,
}

#[test]
fn minilm_token_embeddings_match_sentence_transformers() {
    let dir = minilm_dir();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/minilm_token_embeddings.json");
    let fx: Fixture = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let model = BertEmbedder::load(&dir, &EncoderOptions::default()).unwrap();
    assert_eq!(TokenEmbedder::dim(&model), 384);
    assert_eq!(TokenEmbedder::identity(&model), Embedder::identity(&model));
    let texts: Vec<&str> = fx.sentences.iter().map(String::as_str).collect();
    let ours = model.embed_tokens(&texts).unwrap();
    assert_eq!(ours.len(), texts.len());

    let mut min_cos = (f64::INFINITY, 0, 0);
    for (i, (t, (tokens, (special, vectors)))) in
        ours.iter().zip(fx.tokens.iter().zip(fx.special.iter().zip(&fx.vectors))).enumerate()
    {
        assert_eq!(&t.tokens, tokens, "sentence {i}");
        assert_eq!(&t.special, special, "sentence {i}");
        assert_eq!(t.ids.len(), tokens.len());
        assert_eq!(t.vectors.len(), vectors.len());
        for (j, (a, b)) in t.vectors.iter().zip(vectors).enumerate() {
            assert_eq!(a.len(), 384);
            let c = common::cosine(a, b);
            if c < min_cos.0 {
                min_cos = (c, i, j);
            }
        }
    }
    println!("minilm token parity vs {}: min cosine {:.8} at {:?}", fx.generator, min_cos.0, (min_cos.1, min_cos.2));
    assert!(min_cos.0 >= 0.9999, "sentence {} token {}: cosine {}", min_cos.1, min_cos.2, min_cos.0);
}

/// Batching pads shorter texts; their vectors must not depend on the batch they were in.
#[test]
fn token_embeddings_do_not_depend_on_batch_padding() {
    let model = BertEmbedder::load(&minilm_dir(), &EncoderOptions::default()).unwrap();
    let alone = model.embed_tokens(&["a short one"]).unwrap();
    let batched =
        model.embed_tokens(&["a much longer sentence that forces padding of the other", "a short one"]).unwrap();
    assert_eq!(alone[0].tokens, batched[1].tokens);
    for (a, b) in alone[0].vectors.iter().zip(&batched[1].vectors) {
        assert!(common::cosine(a, b) > 0.99999);
    }
    assert!(model.embed_tokens(&[]).unwrap().is_empty());
}
