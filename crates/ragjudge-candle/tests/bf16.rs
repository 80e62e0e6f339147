//! bfloat16 matrix products (`Precision::Bf16`): accuracy against sentence-transformers' `f32`
//! embeddings of all-MiniLM-L6-v2, and behaviour on a tiny random BERT.
//!
//! Reference vectors: `tests/fixtures/minilm_embeddings.json`, written by
//! `tests/fixtures/make_minilm_fixture.py` (the library versions are in its `generator` field).
//! The model directory is `$RAGJUDGE_MINILM_DIR`, else the installed `minilm` model, pulled into
//! `$RAGJUDGE_HOME/models` on first use (as `ragjudge models pull minilm` does).

mod common;

use common::minilm_dir;

use ragjudge_candle::{BertEmbedder, EncoderOptions, Precision};
use ragjudge_models::Embedder;

#[test]
fn minilm_bf16_keeps_cosine_with_sentence_transformers() {
    let dir = minilm_dir();
    let fx = common::minilm_fixture();

    let opts =
        EncoderOptions { max_length: fx.max_seq_length, batch_size: 32, threads: None, precision: Precision::Bf16 };
    let model = BertEmbedder::load(&dir, &opts).unwrap();
    assert_eq!(model.options().precision, Precision::Bf16);
    let texts: Vec<&str> = fx.sentences.iter().map(String::as_str).collect();
    let ours = model.embed(&texts).unwrap();

    let cosines: Vec<f64> = ours.iter().zip(&fx.embeddings).map(|(a, b)| common::cosine(a, b)).collect();
    let (worst, min) =
        cosines.iter().copied().enumerate().fold((0, f64::INFINITY), |m, (i, c)| if c < m.1 { (i, c) } else { m });
    let mean = cosines.iter().sum::<f64>() / cosines.len() as f64;
    println!(
        "minilm bf16 vs {}: {} sentences, min cosine {min:.8} (sentence {worst}), mean cosine {mean:.8}, max abs diff {:.3e}",
        fx.generator,
        texts.len(),
        common::max_abs_diff(&ours, &fx.embeddings)
    );
    assert!(min >= 0.9999, "sentence {worst} {:?}: cosine {min}", texts[worst]);

    // The products did run in bfloat16: the vectors differ from the `f32` path's by more than
    // `f32` rounding (which stays below 1e-6 against this fixture).
    let f32_model = BertEmbedder::load(&dir, &EncoderOptions { precision: Precision::F32, ..opts }).unwrap();
    let d = common::max_abs_diff(&ours, &f32_model.embed(&texts).unwrap());
    assert!(d > 1e-5, "bf16 and f32 vectors differ by only {d}");
    // Other numbers, other identity (the embedding and call caches are keyed on it).
    assert_eq!(model.identity(), format!("{}:bf16", f32_model.identity()));
}

#[test]
fn tiny_bert_bf16_is_close_to_f32_and_independent_of_grouping() {
    let dir = common::tiny_bert_dir();
    let opts = |batch_size, precision| EncoderOptions { batch_size, threads: Some(2), precision, ..Default::default() };
    assert_eq!(EncoderOptions::default().precision, Precision::F32);
    let f32_vectors = BertEmbedder::load(dir.path(), &opts(4, Precision::F32)).unwrap().embed(common::TEXTS).unwrap();
    let bf16 = BertEmbedder::load(dir.path(), &opts(4, Precision::Bf16)).unwrap();
    let vectors = bf16.embed(common::TEXTS).unwrap();
    for (i, (a, b)) in vectors.iter().zip(&f32_vectors).enumerate() {
        let norm: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
        // Empty texts still get [CLS] [SEP], so every vector is unit length.
        assert!((norm - 1.0).abs() < 1e-5, "text {i}: norm {norm}");
        // bfloat16 keeps 8 significant bits (relative rounding error up to 2^-9 per input); over
        // two layers of width 32 the embeddings move by far less than a cosine of 0.999.
        let c = common::cosine(a, b);
        assert!(c > 0.999, "text {i}: cosine with f32 {c}");
    }
    assert!(common::max_abs_diff(&vectors, &f32_vectors) > 0.0, "bf16 gave the f32 vectors exactly");
    // Each row's products add the same terms in the same order whatever the group, so grouping
    // never changes a result, as with f32.
    let one_by_one = BertEmbedder::load(dir.path(), &opts(1, Precision::Bf16)).unwrap().embed(common::TEXTS).unwrap();
    assert_eq!(common::max_abs_diff(&vectors, &one_by_one), 0.0);
}
