//! Tiny random BERT checkpoints written by the tests themselves.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use candle_core::{DType, Device};
use candle_nn::{VarBuilder, VarMap};
use candle_transformers::models::bert::{BertModel, Config};
use tokenizers::models::wordpiece::WordPiece;
use tokenizers::normalizers::BertNormalizer;
use tokenizers::pre_tokenizers::bert::BertPreTokenizer;
use tokenizers::processors::template::TemplateProcessing;
use tokenizers::{AddedToken, Tokenizer};

/// Words of the tiny vocabulary (after the five special tokens).
pub const WORDS: &[&str] = &[
    "the", "a", "cat", "dog", "sat", "on", "mat", "is", "was", "big", "small", "red", "blue", "house", "car", "runs",
    "fast", "slow", "and", "or", "not", "my", "name", "john", "smith", "email", "at", "example", "com", "phone",
    "call", "me", "today", "hello", "world", ",", ".", "!", "?", "@", "##s", "##ed", "##ing", "1", "2", "3",
];

/// Labels of the tiny classifiers.
pub const LABELS: &[&str] = &["O", "B-NAME", "I-NAME", "B-EMAIL"];

/// Hidden size of the tiny model.
pub const HIDDEN: usize = 32;

/// Special tokens, then `WORDS`; a token's id is its position.
fn vocab() -> Vec<&'static str> {
    ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"].iter().chain(WORDS).copied().collect()
}

/// `tokenizer.json` of the tiny model: WordPiece + BERT normaliser and pre-tokenizer +
/// `[CLS] $A [SEP]` / `[CLS] $A [SEP] $B:1 [SEP]:1` templates, padded to 16 like shipped
/// sentence-transformers tokenizers (the loaders must turn that off).
fn write_tokenizer(dir: &Path) {
    let vocab_txt = dir.join("vocab.txt");
    std::fs::write(&vocab_txt, vocab().join("\n") + "\n").unwrap();
    let wp = WordPiece::from_file(vocab_txt.to_str().unwrap()).unk_token("[UNK]".into()).build().unwrap();
    let mut tok = Tokenizer::new(wp);
    tok.with_normalizer(Some(BertNormalizer::default())).unwrap();
    tok.with_pre_tokenizer(Some(BertPreTokenizer));
    tok.with_post_processor(Some(
        TemplateProcessing::builder()
            .try_single("[CLS] $A [SEP]")
            .unwrap()
            .try_pair("[CLS] $A [SEP] $B:1 [SEP]:1")
            .unwrap()
            .special_tokens(vec![("[CLS]", 2), ("[SEP]", 3)])
            .build()
            .unwrap(),
    ));
    tok.add_special_tokens(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"].map(|t| AddedToken::from(t, true))).unwrap();
    tok.with_padding(Some(tokenizers::PaddingParams {
        strategy: tokenizers::PaddingStrategy::Fixed(16),
        ..Default::default()
    }));
    tok.save(dir.join("tokenizer.json"), false).unwrap();
}

fn config_json() -> serde_json::Value {
    let id2label: serde_json::Map<String, serde_json::Value> =
        LABELS.iter().enumerate().map(|(i, l)| (i.to_string(), serde_json::Value::from(*l))).collect();
    serde_json::json!({
        "architectures": ["BertForTokenClassification"],
        "model_type": "bert",
        "vocab_size": vocab().len(),
        "hidden_size": HIDDEN,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "intermediate_size": 64,
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1,
        "attention_probs_dropout_prob": 0.1,
        "max_position_embeddings": 64,
        "type_vocab_size": 2,
        "initializer_range": 0.02,
        "layer_norm_eps": 1e-12,
        "pad_token_id": 0,
        "id2label": id2label,
    })
}

/// Writes a 2-layer BERT (hidden 32, 4 heads) with random weights under `dir`, in Hugging Face
/// `BertFor*Classification` layout: `bert.embeddings.*`, `bert.encoder.*`, `bert.pooler.dense.*`
/// and a `classifier` over `LABELS`.
pub fn write_tiny_bert(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    write_tokenizer(dir);
    let cfg = config_json();
    std::fs::write(dir.join("config.json"), serde_json::to_string_pretty(&cfg).unwrap()).unwrap();
    let config: Config = serde_json::from_value(cfg).unwrap();
    let varmap = VarMap::new();
    let vb = VarBuilder::from_varmap(&varmap, DType::F32, &Device::Cpu);
    BertModel::load(vb.pp("bert"), &config).unwrap();
    candle_nn::linear(HIDDEN, HIDDEN, vb.pp("bert.pooler.dense")).unwrap();
    candle_nn::linear(HIDDEN, LABELS.len(), vb.pp("classifier")).unwrap();
    // Random (non-zero) biases and layer-norm parameters, so that every parameter matters.
    for (name, var) in varmap.data().lock().unwrap().iter() {
        if name.ends_with("bias") || name.contains("LayerNorm") {
            let t = var.as_tensor();
            let noise = t.randn_like(0.0, 0.1).unwrap();
            var.set(&(t + noise).unwrap()).unwrap();
        }
    }
    varmap.save(dir.join("model.safetensors")).unwrap();
}

/// Texts for the tiny model: an empty one, unknown words, punctuation and digits included.
pub const TEXTS: &[&str] = &[
    "the cat sat on the mat.",
    "",
    "hello world",
    "my name is john smith and my email is john at example . com",
    "the big red dog runs fast , the small blue car was slow !",
    "a",
    "unknown zebra words",
    "call me today ? 1 2 3",
];

/// A tiny random BERT written into a fresh temporary directory.
pub fn tiny_bert_dir() -> tempfile::TempDir {
    let dir = tempfile::Builder::new().prefix("tinybert").tempdir().unwrap();
    write_tiny_bert(dir.path());
    dir
}

/// Largest absolute difference between two lists of vectors of equal shapes.
pub fn max_abs_diff(a: &[Vec<f32>], b: &[Vec<f32>]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .flat_map(|(x, y)| {
            assert_eq!(x.len(), y.len());
            x.iter().zip(y).map(|(p, q)| (p - q).abs())
        })
        .fold(0.0, f32::max)
}

/// The all-MiniLM-L6-v2 directory: `$RAGJUDGE_MINILM_DIR`, else the installed `minilm` model,
/// pulled into `$RAGJUDGE_HOME/models` on first use (as `ragjudge models pull minilm` does).
pub fn minilm_dir() -> PathBuf {
    let dir = match std::env::var_os("RAGJUDGE_MINILM_DIR") {
        Some(d) => PathBuf::from(d),
        None => match ragjudge_store::ensure("minilm") {
            Ok(m) => m.dir,
            Err(e) => panic!("cannot install the MiniLM model: {e}"),
        },
    };
    assert!(
        dir.join("model.safetensors").is_file(),
        "MiniLM model not found at {}: run `ragjudge models pull minilm` (or set RAGJUDGE_MINILM_DIR)",
        dir.display()
    );
    dir
}

/// sentence-transformers' MiniLM sentence embeddings, `tests/fixtures/minilm_embeddings.json`
/// (written by `tests/fixtures/make_minilm_fixture.py`; library versions in `generator`).
#[derive(serde::Deserialize)]
pub struct MinilmFixture {
    pub generator: String,
    pub max_seq_length: usize,
    pub sentences: Vec<String>,
    pub token_counts: Vec<usize>,
    pub embeddings: Vec<Vec<f32>>,
}

/// Reads [`MinilmFixture`] (at least 50 sentences).
pub fn minilm_fixture() -> MinilmFixture {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/minilm_embeddings.json");
    let fx: MinilmFixture = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert!(fx.sentences.len() >= 50);
    fx
}

/// Cosine of two vectors of equal length, computed in f64.
pub fn cosine(a: &[f32], b: &[f32]) -> f64 {
    assert_eq!(a.len(), b.len());
    let dot: f64 = a.iter().zip(b).map(|(&x, &y)| f64::from(x) * f64::from(y)).sum();
    let na: f64 = a.iter().map(|&x| f64::from(x).powi(2)).sum::<f64>().sqrt();
    let nb: f64 = b.iter().map(|&x| f64::from(x).powi(2)).sum::<f64>().sqrt();
    dot / (na * nb)
}

/// The multilingual-e5-small directory: `$RAGJUDGE_E5_DIR`, else the installed
/// `multilingual-e5-small` model, pulled into `$RAGJUDGE_HOME/models` on first use (as
/// `ragjudge models pull multilingual-e5-small` does).
pub fn e5_dir() -> PathBuf {
    let dir = match std::env::var_os("RAGJUDGE_E5_DIR") {
        Some(d) => PathBuf::from(d),
        None => match ragjudge_store::ensure("multilingual-e5-small") {
            Ok(m) => m.dir,
            Err(e) => panic!("cannot install the multilingual-e5-small model: {e}"),
        },
    };
    assert!(
        dir.join("model.safetensors").is_file(),
        "multilingual-e5-small not found at {}: run `ragjudge models pull multilingual-e5-small` (or set \
         RAGJUDGE_E5_DIR)",
        dir.display()
    );
    dir
}

/// One text of `tests/fixtures/e5_embeddings.json`, as the reference `e5.c` ran it.
#[derive(serde::Deserialize)]
pub struct E5Case {
    pub lang: String,
    /// `query` or `passage`.
    pub prompt: String,
    pub text: String,
    /// `<s>`, the tokens of the prompt and text, `</s>`.
    pub ids: Vec<u32>,
    pub embedding: Vec<f32>,
}

/// The reference token ids and embeddings of multilingual-e5-small, written by
/// `tests/fixtures/make_e5_fixture.py` (the package's C code; its version in `generator`).
#[derive(serde::Deserialize)]
pub struct E5Fixture {
    pub generator: String,
    pub cases: Vec<E5Case>,
}

/// Reads [`E5Fixture`].
pub fn e5_fixture() -> E5Fixture {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/e5_embeddings.json");
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}
