//! Parity with the Python reference implementations: rouge-score 0.1.2 (with NLTK 3.10.4's
//! Porter stemmer), sacrebleu 2.6.0 and the official SQuAD v1.1 evaluation functions.
//! Expected values come from `tests/fixtures/make_lexical_reference.py` (versions are recorded in
//! the fixture's header), never from this crate's output.

use ragjudge_lexical::bleu::{sentence_bleu, BleuScore, CorpusBleu};
use ragjudge_lexical::chrf::{sentence_chrf, CorpusChrf};
use ragjudge_lexical::rouge::{PrfScore, RougeScorer};
use ragjudge_lexical::squad::{exact_match, max_exact_match, max_token_f1, token_f1};
use serde_json::Value;

const TOL: f64 = 1e-9;

fn fixture() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/lexical_reference.json");
    let text = std::fs::read_to_string(path).expect("fixture readable");
    serde_json::from_str(&text).expect("fixture is JSON")
}

fn pairs(doc: &Value) -> Vec<(String, Vec<String>, &Value)> {
    doc["pairs"]
        .as_array()
        .expect("pairs array")
        .iter()
        .map(|p| {
            let hyp = p["hypothesis"].as_str().expect("hypothesis").to_owned();
            let refs = p["references"]
                .as_array()
                .expect("references")
                .iter()
                .map(|r| r.as_str().expect("reference string").to_owned())
                .collect();
            (hyp, refs, p)
        })
        .collect()
}

fn f(v: &Value) -> f64 {
    v.as_f64().expect("number")
}

/// Tracks the largest absolute difference and where it happened.
#[derive(Default)]
struct MaxDiff {
    max: f64,
    at: String,
    count: usize,
}

impl MaxDiff {
    fn check(&mut self, got: f64, want: f64, what: impl FnOnce() -> String) {
        let d = (got - want).abs();
        self.count += 1;
        if d > self.max || d.is_nan() {
            self.max = if d.is_nan() { f64::INFINITY } else { d };
            self.at = format!("{} (got {got}, want {want})", what());
        }
    }

    fn assert(&self, metric: &str) {
        println!("{metric}: {} values, max abs diff {:e}", self.count, self.max);
        assert!(self.max <= TOL, "{metric}: max abs difference {:e} > {TOL:e} at {}", self.max, self.at);
    }
}

fn check_prf(md: &mut MaxDiff, got: PrfScore, want: &Value, ctx: &str) {
    let w = want.as_array().expect("[p, r, f]");
    md.check(got.precision, f(&w[0]), || format!("{ctx} precision"));
    md.check(got.recall, f(&w[1]), || format!("{ctx} recall"));
    md.check(got.fmeasure, f(&w[2]), || format!("{ctx} fmeasure"));
}

fn check_rouge(use_stemmer: bool, key: &str) {
    let doc = fixture();
    let scorer = RougeScorer { use_stemmer };
    let mut md = MaxDiff::default();
    for (i, (hyp, refs, p)) in pairs(&doc).iter().enumerate() {
        let s = scorer.score(&refs[0], hyp);
        let want = &p[key];
        check_prf(&mut md, s.rouge1, &want["rouge1"], &format!("pair {i} rouge1"));
        check_prf(&mut md, s.rouge2, &want["rouge2"], &format!("pair {i} rouge2"));
        check_prf(&mut md, s.rouge_l, &want["rougeL"], &format!("pair {i} rougeL"));
    }
    md.assert(key);
}

#[test]
fn rouge_matches_rouge_score() {
    check_rouge(false, "rouge");
}

#[test]
fn rouge_with_stemmer_matches_rouge_score() {
    check_rouge(true, "rouge_stem");
}

fn check_bleu(md: &mut MaxDiff, got: &BleuScore, want: &Value, ctx: &str) {
    md.check(got.score, f(&want["score"]), || format!("{ctx} score"));
    md.check(got.bp, f(&want["bp"]), || format!("{ctx} bp"));
    for n in 0..4 {
        md.check(got.precisions[n], f(&want["precisions"][n]), || format!("{ctx} precision[{n}]"));
        md.check(got.counts[n] as f64, f(&want["counts"][n]), || format!("{ctx} counts[{n}]"));
        md.check(got.totals[n] as f64, f(&want["totals"][n]), || format!("{ctx} totals[{n}]"));
    }
    md.check(got.sys_len as f64, f(&want["sys_len"]), || format!("{ctx} sys_len"));
    md.check(got.ref_len as f64, f(&want["ref_len"]), || format!("{ctx} ref_len"));
}

#[test]
fn sentence_and_corpus_bleu_match_sacrebleu() {
    let doc = fixture();
    let mut md = MaxDiff::default();
    let mut corpus = CorpusBleu::new();
    for (i, (hyp, refs, p)) in pairs(&doc).iter().enumerate() {
        let r: Vec<&str> = refs.iter().map(String::as_str).collect();
        check_bleu(&mut md, &sentence_bleu(hyp, &r), &p["bleu"], &format!("pair {i}"));
        corpus.add(hyp, &r);
    }
    md.assert("sentence BLEU");
    let mut md = MaxDiff::default();
    check_bleu(&mut md, &corpus.score(), &doc["corpus_bleu"], "corpus");
    md.assert("corpus BLEU");
}

#[test]
fn sentence_and_corpus_chrf_match_sacrebleu() {
    let doc = fixture();
    let mut md = MaxDiff::default();
    let mut corpus = CorpusChrf::new();
    for (i, (hyp, refs, p)) in pairs(&doc).iter().enumerate() {
        let r: Vec<&str> = refs.iter().map(String::as_str).collect();
        md.check(sentence_chrf(hyp, &r).score, f(&p["chrf"]), || format!("pair {i} chrF"));
        corpus.add(hyp, &r);
    }
    md.assert("sentence chrF");
    let mut md = MaxDiff::default();
    md.check(corpus.score().score, f(&doc["corpus_chrf"]), || "corpus chrF".into());
    md.assert("corpus chrF");
}

#[test]
fn squad_matches_official_script() {
    let doc = fixture();
    let mut md = MaxDiff::default();
    for (i, (hyp, refs, p)) in pairs(&doc).iter().enumerate() {
        let r: Vec<&str> = refs.iter().map(String::as_str).collect();
        md.check(token_f1(hyp, r[0]), f(&p["squad_f1"]), || format!("pair {i} f1"));
        md.check(exact_match(hyp, r[0]), f(&p["squad_em"]), || format!("pair {i} em"));
        md.check(max_token_f1(hyp, &r), f(&p["squad_f1_max"]), || format!("pair {i} f1 max"));
        md.check(max_exact_match(hyp, &r), f(&p["squad_em_max"]), || format!("pair {i} em max"));
    }
    md.assert("SQuAD");
}

#[test]
fn fixture_is_large_and_varied() {
    let doc = fixture();
    let ps = pairs(&doc);
    assert!(ps.len() >= 200);
    assert!(ps.iter().any(|(h, _, _)| h.split_whitespace().count() > 5000));
    assert!(ps.iter().any(|(_, r, _)| r.len() > 1));
    assert!(ps.iter().any(|(h, _, _)| h.is_empty()));
    assert!(ps.iter().any(|(_, r, _)| r[0].is_empty()));
}
