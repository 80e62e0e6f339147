//! The `pii-ner` manifest model (Rampart PII token classifier, a 4-bit ONNX export converted to
//! safetensors at pull time) end to end: pulled like `ragjudge models pull pii-ner`, loaded by
//! [`BertTokenClassifier`], and compared with ONNX Runtime on the original ONNX file.
//!
//! Reference logits: `tests/fixtures/pii_ner_logits.json`, written by
//! `tests/fixtures/make_pii_ner_fixture.py` (library versions in its `generator` field).
//! The model is pulled into `$RAGJUDGE_HOME/models` on first use.

use std::path::PathBuf;

use candle_core::{DType, Device, Module, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use ragjudge_candle::{BertTokenClassifier, EncoderOptions};
use ragjudge_models::TokenClassifier;

fn pii_dir() -> PathBuf {
    match ragjudge_store::ensure("pii-ner") {
        Ok(m) => m.dir,
        Err(e) => panic!("cannot install the pii-ner model: {e}"),
    }
}

#[test]
fn pii_ner_finds_the_name_and_the_email_address() {
    let dir = pii_dir();
    let model = BertTokenClassifier::load(&dir, &EncoderOptions::default()).unwrap();
    assert_eq!(model.labels().len(), 35);
    let text = "My name is John Smith and my email is john.smith@example.com.";
    let preds = model.classify(&[text]).unwrap().remove(0);
    for p in &preds {
        println!("{:>12} {:>3}..{:<3} {:<14} {:.3}", p.token, p.start, p.end, p.label, p.score);
    }
    let label_of = |start: usize, end: usize| -> Vec<&str> {
        preds.iter().filter(|p| p.start >= start && p.end <= end).map(|p| p.label.as_str()).collect()
    };
    let span = |needle: &str| {
        let s = text.find(needle).unwrap();
        (s, s + needle.len())
    };
    let (s, e) = span("john.smith@example.com");
    let email = label_of(s, e);
    assert!(email.len() >= 3, "the address is several tokens: {email:?}");
    assert!(email.iter().all(|l| l.ends_with("EMAIL")), "{email:?}");
    let (s, e) = span("John");
    assert!(label_of(s, e).iter().all(|l| l.ends_with("GIVEN_NAME")), "{:?}", label_of(s, e));
    let (s, e) = span("Smith ");
    assert!(label_of(s, e).iter().all(|l| l.ends_with("SURNAME")), "{:?}", label_of(s, e));
    let (s, e) = span("My name is");
    assert!(label_of(s, e).iter().all(|l| *l == "O"), "{:?}", label_of(s, e));
}

#[derive(serde::Deserialize)]
struct Fixture {
    generator: String,
    sentences: Vec<Sentence>,
}

#[derive(serde::Deserialize)]
struct Sentence {
    text: String,
    ids: Vec<u32>,
    logits: Vec<Vec<f32>>,
}

#[test]
fn converted_logits_match_onnx_runtime() {
    let dir = pii_dir();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pii_ner_logits.json");
    let fx: Fixture = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert!(fx.sentences.len() >= 5);

    let config: Config = serde_json::from_str(&std::fs::read_to_string(dir.join("config.json")).unwrap()).unwrap();
    let tokenizer = tokenizers::Tokenizer::from_file(dir.join("tokenizer.json")).unwrap();
    let device = Device::Cpu;
    let bytes = std::fs::read(dir.join("model.safetensors")).unwrap();
    let vb =
        VarBuilder::from_tensors(candle_core::safetensors::load_buffer(&bytes, &device).unwrap(), DType::F32, &device);
    let bert = BertModel::load(vb.pp("bert"), &config).unwrap();
    let classifier = candle_nn::linear(384, 35, vb.pp("classifier")).unwrap();

    let mut max_abs = 0f32;
    let mut argmax_agree = 0;
    let mut tokens = 0;
    for s in &fx.sentences {
        let enc = tokenizer.encode(s.text.as_str(), true).unwrap();
        assert_eq!(enc.get_ids(), s.ids.as_slice(), "{}", s.text);
        let n = s.ids.len();
        let ids = Tensor::from_vec(s.ids.clone(), (1, n), &device).unwrap();
        let types = ids.zeros_like().unwrap();
        let hidden = bert.forward(&ids, &types, None).unwrap();
        let logits = classifier.forward(&hidden).unwrap().squeeze(0).unwrap().to_vec2::<f32>().unwrap();
        assert_eq!(logits.len(), s.logits.len());
        for (ours, theirs) in logits.iter().zip(&s.logits) {
            assert_eq!(ours.len(), 35);
            max_abs = ours.iter().zip(theirs).map(|(a, b)| (a - b).abs()).fold(max_abs, f32::max);
            let best = |v: &[f32]| (0..v.len()).max_by(|&a, &b| v[a].total_cmp(&v[b])).unwrap();
            argmax_agree += usize::from(best(ours) == best(theirs));
            tokens += 1;
        }
    }
    println!(
        "pii-ner vs {}: {tokens} tokens in {} sentences, max abs logit difference {max_abs:.3e}, argmax agreement {argmax_agree}/{tokens}",
        fx.generator,
        fx.sentences.len()
    );
    assert!(max_abs <= 1e-3, "max abs logit difference {max_abs}");
    assert_eq!(argmax_agree, tokens);
}
