//! Parity with the Python reference implementations: rouge-score 0.1.2 (with NLTK 3.10.4's
//! Porter stemmer), sacrebleu 2.6.0 and the official SQuAD v1.1 evaluation functions.
//! Expected values come from `tests/fixtures/make_lexical_reference.py` (versions are recorded in
//! the fixture's header), never from this crate's output.

mod common;

use common::{check_bleu, f, fixture, pairs, MaxDiff};
use ragjudge_lexical::bleu::{sentence_bleu, CorpusBleu};
use ragjudge_lexical::chrf::{sentence_chrf, CorpusChrf};
use ragjudge_lexical::rouge::{PrfScore, RougeScorer};
use ragjudge_lexical::squad::{exact_match, max_exact_match, max_token_f1, token_f1};
use serde_json::Value;

fn check_prf(md: &mut MaxDiff, got: PrfScore, want: &Value, ctx: &str) {
    let w = want.as_array().expect("[p, r, f]");
    md.check(got.precision, f(&w[0]), || format!("{ctx} precision"));
    md.check(got.recall, f(&w[1]), || format!("{ctx} recall"));
    md.check(got.fmeasure, f(&w[2]), || format!("{ctx} fmeasure"));
}

fn check_rouge(use_stemmer: bool, key: &str) {
    let doc = fixture("lexical_reference.json");
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

#[test]
fn sentence_and_corpus_bleu_match_sacrebleu() {
    let doc = fixture("lexical_reference.json");
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
    let doc = fixture("lexical_reference.json");
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
    let doc = fixture("lexical_reference.json");
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
    let doc = fixture("lexical_reference.json");
    let ps = pairs(&doc);
    assert!(ps.len() >= 200);
    assert!(ps.iter().any(|(h, _, _)| h.split_whitespace().count() > 5000));
    assert!(ps.iter().any(|(_, r, _)| r.len() > 1));
    assert!(ps.iter().any(|(h, _, _)| h.is_empty()));
    assert!(ps.iter().any(|(_, r, _)| r[0].is_empty()));
}
