//! The `semantic` family: BERTScore and RUBER columns, on hand-made embedders (values by hand)
//! and, with the `candle` feature, on the real default embedder.

use ragjudge_core::{Metric, MetricError, Record};
use ragjudge_eval::families::{fit_ruber_with, SemanticMetric};
use ragjudge_fusion::ruber::{RuberParams, RuberUnreferenced};
use ragjudge_models::{Embedder, ModelError, TokenEmbedder, TokenEmbedding};
use std::sync::Arc;

/// Words of the hand-made encoders; word `i` is the unit vector on axis `i`.
const WORDS: &[&str] = &["cat", "dog", "bird", "fish", "red", "blue", "green", "runs", "sits", "eats", "big", "small"];
/// Dimension: one axis per word and one for the special tokens.
const DIM: usize = 13;

fn one_hot(axis: usize) -> Vec<f32> {
    let mut v = vec![0.0; DIM];
    v[axis] = 1.0;
    v
}

fn word_vectors(text: &str) -> Result<Vec<Vec<f32>>, ModelError> {
    text.split_whitespace()
        .map(|w| {
            WORDS
                .iter()
                .position(|x| *x == w)
                .map(one_hot)
                .ok_or_else(|| ModelError::Inference(format!("unknown word {w:?}").into()))
        })
        .collect()
}

/// The vectors of a text's tokens: `[CLS]`, the words, `[SEP]` (special tokens on the last axis).
fn token_vectors(text: &str) -> Result<Vec<Vec<f32>>, ModelError> {
    let mut vectors = vec![one_hot(DIM - 1)];
    vectors.extend(word_vectors(text)?);
    vectors.push(one_hot(DIM - 1));
    Ok(vectors)
}

/// Sentence vectors: the L2-normalised mean of the token vectors (mean pooling, special tokens
/// included); fails on an unknown word.
struct Pooled(&'static str);

impl Embedder for Pooled {
    fn identity(&self) -> String {
        self.0.into()
    }
    fn dim(&self) -> usize {
        DIM
    }
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, ModelError> {
        texts
            .iter()
            .map(|t| {
                let mut v = [0.0f32; DIM];
                for w in token_vectors(t)? {
                    v.iter_mut().zip(w).for_each(|(a, b)| *a += b);
                }
                let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
                Ok(v.iter().map(|x| x / n).collect())
            })
            .collect()
    }
}

/// Token vectors of the same hand-made model.
struct Tokens(&'static str);

impl TokenEmbedder for Tokens {
    fn identity(&self) -> String {
        self.0.into()
    }
    fn dim(&self) -> usize {
        DIM
    }
    fn embed_tokens(&self, texts: &[&str]) -> Result<Vec<TokenEmbedding>, ModelError> {
        texts
            .iter()
            .map(|t| {
                let vectors = token_vectors(t)?;
                let mut tokens = vec!["[CLS]".to_string()];
                tokens.extend(t.split_whitespace().map(String::from));
                tokens.push("[SEP]".into());
                let n = tokens.len();
                Ok(TokenEmbedding {
                    ids: (0..n as u32).collect(),
                    special: (0..n).map(|i| i == 0 || i == n - 1).collect(),
                    tokens,
                    vectors,
                })
            })
            .collect()
    }
}

fn record(id: &str, query: &str, answer: &str, reference: Option<&str>) -> Record {
    Record {
        id: id.into(),
        system: "s".into(),
        query: query.into(),
        answer: answer.into(),
        reference: reference.map(String::from),
        ..Record::default()
    }
}

/// The metric on the hand-made model: sentence vectors of answers and references pooled from the
/// token vectors (one identity), or, with `separate`, from the sentence embedder.
fn metric(ruber: Option<RuberUnreferenced>, separate: bool) -> SemanticMetric {
    let tokens = Tokens(if separate { "hand-tokens:0" } else { "hand:0" });
    SemanticMetric::new(Arc::new(Pooled("hand:0")), Arc::new(tokens), ruber).unwrap()
}

/// Twelve (query, answer) pairs over distinct queries: answers share the query's animal.
fn training_records() -> Vec<Record> {
    let animals = ["cat", "dog", "bird", "fish"];
    let colours = ["red", "blue", "green"];
    let mut out = Vec::new();
    for (i, a) in animals.iter().enumerate() {
        for (j, c) in colours.iter().enumerate() {
            out.push(record(&format!("q{i}{j}"), &format!("{c} {a}"), &format!("{a} runs"), None));
        }
    }
    out
}

fn small_params() -> RuberParams {
    RuberParams { hidden: vec![8], epochs: 5, batch_size: 8, ..RuberParams::default() }
}

#[test]
fn bertscore_and_referenced_ruber_by_hand() {
    for separate in [false, true] {
        let m = metric(None, separate);
        assert_eq!(m.columns(), ["bertscore_p", "bertscore_r", "bertscore_f", "ruber_ref"]);
        let rows = m.score_batch(&[
            record("a", "q", "cat", Some("cat bird")),
            record("b", "q", "cat dog", Some("cat dog")),
            record("c", "q", "cat", None),
            record("d", "q", "  ", Some("cat")),
            record("e", "q", "cat", Some("")),
        ]);
        // a: P = cat -> cat = 1; R = (cat -> 1, bird -> 0) / 2 = 0.5; F = 2 (1)(0.5) / 1.5 = 2/3.
        // ruber_ref: mean pooling gives "cat" = (cat + 2 s) / 3 ~ (1, 2) on (cat, s) and
        // "cat bird" = (cat + bird + 2 s) / 4 ~ (1, 1, 2) on (cat, bird, s): cos = 5 / sqrt 30.
        let a = &rows[0].as_ref().unwrap().values;
        let want = [1.0, 0.5, 2.0 / 3.0, 5.0 / 30f64.sqrt()];
        for (got, want) in a.iter().zip(want) {
            assert!((got.unwrap() - want).abs() < 1e-6, "{a:?}");
        }
        // b: identical texts score 1 everywhere.
        let b = &rows[1].as_ref().unwrap().values;
        assert!(b.iter().all(|v| (v.unwrap() - 1.0).abs() < 1e-6), "{b:?}");
        // c, d, e: no reference, a blank answer, a blank reference: nothing applies.
        for r in &rows[2..] {
            assert_eq!(r.as_ref().unwrap().values, vec![None; 4]);
        }
        // One record alone scores the same as in the batch.
        assert_eq!(m.score(&record("a", "q", "cat", Some("cat bird"))).unwrap().values, *a);
    }
}

#[test]
fn a_failed_embedding_fails_only_its_record() {
    let m = metric(None, false);
    let rows = m.score_batch(&[
        record("a", "q", "cat", Some("cat")),
        record("b", "q", "unknownword", Some("cat")),
        record("c", "q", "dog", Some("dog")),
    ]);
    assert_eq!(rows[0].as_ref().unwrap().values[2], Some(1.0));
    assert!(matches!(&rows[1], Err(MetricError::Model(m)) if m.contains("answer") && m.contains("unknownword")));
    assert_eq!(rows[2].as_ref().unwrap().values[2], Some(1.0));
}

#[test]
fn unreferenced_and_combined_ruber_with_a_model() {
    let records = training_records();
    let embedder = Pooled("hand:0");
    let model = fit_ruber_with(&records, &embedder, &small_params()).unwrap();
    assert_eq!(model.encoder(), "hand:0");
    assert_eq!(model.dim(), DIM);
    for separate in [false, true] {
        let m = metric(Some(model.clone()), separate);
        assert_eq!(m.columns(), ["bertscore_p", "bertscore_r", "bertscore_f", "ruber_ref", "ruber_unref", "ruber"]);
        let rows = m
            .score_batch(&[record("x", "red cat", "cat", Some("cat bird")), record("y", "blue dog", "dog runs", None)]);
        // x: unreferenced from the model on the query and answer vectors computed here; referenced
        // 5 / sqrt 30 (as above); ruber = (5 / sqrt 30 + u) / 2.
        let v = embedder.embed(&["red cat", "cat", "blue dog", "dog runs"]).unwrap();
        let u = model.score(&v[0], &v[1]).unwrap();
        let x = &rows[0].as_ref().unwrap().values;
        assert!((x[4].unwrap() - u).abs() < 1e-6, "{x:?} vs {u}");
        assert!((x[5].unwrap() - (5.0 / 30f64.sqrt() + u) / 2.0).abs() < 1e-6, "{x:?}");
        // y: no reference, so only the unreferenced score applies.
        let y = &rows[1].as_ref().unwrap().values;
        assert_eq!(y[..4], [None; 4]);
        assert!((y[4].unwrap() - model.score(&v[2], &v[3]).unwrap()).abs() < 1e-6, "{y:?}");
        assert_eq!(y[5], None);
    }
}

#[test]
fn a_model_of_another_encoder_is_refused() {
    let model = fit_ruber_with(&training_records(), &Pooled("hand:0"), &small_params()).unwrap();
    let e = SemanticMetric::new(Arc::new(Pooled("other:1")), Arc::new(Tokens("other:1")), Some(model))
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(e.contains("`hand:0`") && e.contains("`other:1`") && !e.contains('\n'), "{e}");
}

#[test]
fn training_needs_ten_pairs() {
    let mut few = training_records();
    few.truncate(9);
    few.push(record("blank", "  ", "cat runs", None));
    let e = fit_ruber_with(&few, &Pooled("hand:0"), &small_params()).unwrap_err().to_string();
    assert!(e.contains("at least 10") && e.contains("got 9 of 10"), "{e}");
    // The embedder's failure is the model error it is.
    let mut bad = training_records();
    bad[0].answer = "unknownword".into();
    assert!(matches!(
        fit_ruber_with(&bad, &Pooled("hand:0"), &small_params()),
        Err(ragjudge_eval::EvalError::Model(_))
    ));
}

/// The real default embedder (all-MiniLM-L6-v2), pulled into `$RAGJUDGE_HOME` on first use.
#[cfg(feature = "candle")]
mod minilm {
    use super::record;
    use ragjudge_eval::families::{build_metrics, MetricSettings, SemanticSettings};
    use ragjudge_eval::fit_ruber;
    use ragjudge_eval::models::{ModelSet, ModelSettings};
    use ragjudge_fusion::ruber::RuberParams;
    use ragjudge_trec::answer::bertscore::bert_score;

    fn cosine(a: &[f32], b: &[f32]) -> f64 {
        let dot: f64 = a.iter().zip(b).map(|(x, y)| f64::from(*x) * f64::from(*y)).sum();
        let n = |v: &[f32]| v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
        dot / (n(a) * n(b))
    }

    const ANSWER: &str = "The Eiffel Tower is in Paris and was finished in 1889.";
    const REFERENCE: &str = "Completed in 1889, the Eiffel Tower stands in Paris, France.";

    #[test]
    fn columns_match_the_trec_bertscore_and_the_pooled_cosine() {
        let models = ModelSet::new(ModelSettings::default());
        let metrics = build_metrics(&["semantic"], &MetricSettings::default(), &models).unwrap();
        assert_eq!(metrics[0].columns(), ["bertscore_p", "bertscore_r", "bertscore_f", "ruber_ref"]);
        let rows = metrics[0].score_batch(&[
            record("a", "Where is the Eiffel Tower?", ANSWER, Some(REFERENCE)),
            record("b", "Where is the Eiffel Tower?", ANSWER, Some(ANSWER)),
            record("c", "Where is the Eiffel Tower?", ANSWER, None),
        ]);
        let a = &rows[0].as_ref().unwrap().values;
        // The trec module's BERTScore on the embedder's token vectors, answer as the candidate.
        let toks = models.token_embedder().unwrap().embed_tokens(&[ANSWER, REFERENCE]).unwrap();
        let s = bert_score(&toks[0], &toks[1], None).unwrap();
        assert!(s.precision != s.recall);
        for (got, want) in a[..3].iter().zip([s.precision, s.recall, s.f1]) {
            assert!((got.unwrap() - want).abs() < 1e-9, "{a:?} vs {s:?}");
        }
        // ruber_ref: the cosine of the embedder's sentence vectors, computed here.
        let v = ragjudge_models::Embedder::embed(models.embedder().unwrap().as_ref(), &[ANSWER, REFERENCE]).unwrap();
        assert!((a[3].unwrap() - cosine(&v[0], &v[1])).abs() < 1e-6, "{a:?}");
        assert!(a[3].unwrap() > 0.5 && a[3].unwrap() < 0.99);
        // Identical texts: P = R = F = 1 and cosine 1.
        let b = &rows[1].as_ref().unwrap().values;
        assert!(b.iter().all(|x| (x.unwrap() - 1.0).abs() < 1e-6), "{b:?}");
        assert_eq!(rows[2].as_ref().unwrap().values, vec![None; 4]);
    }

    #[test]
    fn a_trained_model_adds_its_columns_and_another_encoder_is_refused() {
        let models = ModelSet::new(ModelSettings::default());
        let topics = [
            ("What is the capital of France?", "Paris is the capital of France."),
            ("How do bees make honey?", "Bees turn flower nectar into honey in the hive."),
            ("Who wrote Hamlet?", "Hamlet was written by William Shakespeare."),
            ("What is photosynthesis?", "Plants use sunlight to turn carbon dioxide and water into sugar."),
            ("How far is the Moon?", "The Moon is about 384,000 kilometres from Earth."),
            ("Why is the sky blue?", "Air scatters blue sunlight more than red light."),
            ("What do pandas eat?", "Giant pandas eat mostly bamboo."),
            ("How does a vaccine work?", "A vaccine trains the immune system to recognise a germ."),
            ("What is the boiling point of water?", "Water boils at 100 degrees Celsius at sea level."),
            ("Who painted the Mona Lisa?", "Leonardo da Vinci painted the Mona Lisa."),
            ("What is inflation?", "Inflation is a general rise in prices over time."),
            ("How many legs does a spider have?", "Spiders have eight legs."),
        ];
        let records: Vec<_> =
            topics.iter().enumerate().map(|(i, (q, a))| record(&format!("t{i}"), q, a, Some(a))).collect();
        let params = RuberParams { hidden: vec![16], epochs: 20, batch_size: 8, ..RuberParams::default() };
        let model = fit_ruber(&records, &models, &params).unwrap();
        assert!(model.encoder().starts_with("minilm:"), "{}", model.encoder());
        assert_eq!(model.dim(), 384);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ruber.json");
        model.save(&path).unwrap();

        let settings = MetricSettings {
            semantic: SemanticSettings { ruber_model: Some(path.clone()) },
            ..MetricSettings::default()
        };
        let metrics = build_metrics(&["semantic"], &settings, &models).unwrap();
        let cols = metrics[0].columns();
        assert_eq!(cols[4..], ["ruber_unref", "ruber"]);
        let row = metrics[0].score(&records[0]).unwrap().values;
        // The reference equals the answer: cosine 1, so ruber = (1 + u) / 2.
        let u = row[4].unwrap();
        assert!(u > 0.0 && u < 1.0);
        assert!((row[3].unwrap() - 1.0).abs() < 1e-6, "{row:?}");
        assert!((row[5].unwrap() - (1.0 + u) / 2.0).abs() < 1e-6, "{row:?}");

        // The same file with another encoder's name is refused at build time, naming the file.
        let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        v["encoder"] = "bge-small:0000000000000000".into();
        let other = dir.path().join("other.json");
        std::fs::write(&other, v.to_string()).unwrap();
        let settings = MetricSettings {
            semantic: SemanticSettings { ruber_model: Some(other.clone()) },
            ..MetricSettings::default()
        };
        let e = build_metrics(&["semantic"], &settings, &models).map(|_| ()).unwrap_err().to_string();
        assert!(e.starts_with("--ruber-model") && e.contains(&other.display().to_string()), "{e}");
        assert!(e.contains("`bge-small:0000000000000000`") && e.contains("minilm:") && !e.contains('\n'), "{e}");
    }
}
