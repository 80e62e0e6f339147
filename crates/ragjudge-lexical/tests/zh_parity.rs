//! Parity of the Chinese lexical metrics with their Python references: sacrebleu 2.6.0's `zh` and
//! `char` tokenizers, jieba 0.42.1's default cut, rouge-chinese 1.0.3 and the official CMRC 2018
//! evaluation script. Expected values come from `tests/fixtures/make_zh_reference.py` (versions
//! in the fixture's header), never from this crate's output.

use ragjudge_lexical::bleu::{sentence_bleu_with, BleuScore, BleuTokenizer, CorpusBleu};
use serde_json::Value;

/// The tolerance of `reference_parity.rs`.
const TOL: f64 = 1e-9;

fn fixture() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/zh_reference.json");
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
        assert!(self.count > 0, "{metric}: nothing compared");
        assert!(self.max <= TOL, "{metric}: max abs difference {:e} > {TOL:e} at {}", self.max, self.at);
    }
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

fn check_bleu_tokenizer(tok: BleuTokenizer, key: &str) {
    let doc = fixture();
    let mut md = MaxDiff::default();
    let mut corpus = CorpusBleu::new();
    for (i, (hyp, refs, p)) in pairs(&doc).iter().enumerate() {
        let r: Vec<&str> = refs.iter().map(String::as_str).collect();
        check_bleu(&mut md, &sentence_bleu_with(hyp, &r, tok), &p[key], &format!("pair {i}"));
        corpus.add_with(hyp, &r, tok);
    }
    md.assert(&format!("sentence {key}"));
    let mut md = MaxDiff::default();
    check_bleu(&mut md, &corpus.score(), &doc[format!("corpus_{key}").as_str()], "corpus");
    md.assert(&format!("corpus {key}"));
}

#[test]
fn bleu_zh_tokenizer_matches_sacrebleu() {
    check_bleu_tokenizer(BleuTokenizer::Zh, "bleu_zh");
}

#[test]
fn bleu_char_tokenizer_matches_sacrebleu() {
    check_bleu_tokenizer(BleuTokenizer::Char, "bleu_char");
}

#[test]
fn fixture_is_varied() {
    let doc = fixture();
    let ps = pairs(&doc);
    assert!(ps.len() >= 80);
    assert!(ps.iter().any(|(_, r, _)| r.len() > 1));
    assert!(ps.iter().any(|(h, _, _)| h.is_empty()));
    assert!(ps.iter().any(|(h, _, _)| h.chars().any(|c| c.is_ascii_alphabetic())));
    assert!(doc["jieba"].as_array().expect("jieba").len() >= 30);
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array().expect("array").iter().map(|s| s.as_str().expect("string").to_owned()).collect()
}

#[cfg(feature = "zh")]
#[test]
fn jieba_rs_cut_equals_python_jieba() {
    use ragjudge_lexical::segment::jieba_cut;
    let doc = fixture();
    let cases = doc["jieba"].as_array().expect("jieba cases");
    let mut differ = Vec::new();
    for c in cases {
        let text = c["text"].as_str().expect("text");
        let want = strings(&c["cut"]);
        let got = jieba_cut(text);
        if got != want {
            differ.push(format!("{text:?}\n  jieba-rs: {got:?}\n  jieba:    {want:?}"));
        }
    }
    println!("jieba: {} texts", cases.len());
    assert!(differ.is_empty(), "{} of {} cuts differ:\n{}", differ.len(), cases.len(), differ.join("\n"));
}

fn check_prf(md: &mut MaxDiff, got: ragjudge_lexical::rouge::PrfScore, want: &Value, ctx: &str) {
    let w = want.as_array().expect("[p, r, f]");
    md.check(got.precision, f(&w[0]), || format!("{ctx} precision"));
    md.check(got.recall, f(&w[1]), || format!("{ctx} recall"));
    md.check(got.fmeasure, f(&w[2]), || format!("{ctx} fmeasure"));
}

fn check_zh_rouge(tokens: ragjudge_lexical::rouge_zh::ZhRougeTokens, key: &str) {
    use ragjudge_lexical::rouge_zh::{rouge_chinese, ZhRougeScorer};
    let doc = fixture();
    let mut md = MaxDiff::default();
    let mut raised = 0;
    for (i, (hyp, refs, p)) in pairs(&doc).iter().enumerate() {
        let want = &p[key];
        let joined = rouge_chinese(&tokens.join(hyp), &tokens.join(&refs[0]));
        if want.is_null() {
            // rouge-chinese raised ValueError: no piece on one side.
            assert!(joined.is_none(), "pair {i}: rouge-chinese raised, got {joined:?}");
            raised += 1;
            continue;
        }
        let s = ZhRougeScorer::new(tokens).score(&refs[0], hyp);
        check_prf(&mut md, s.rouge1, &want["rouge-1"], &format!("pair {i} rouge-1"));
        check_prf(&mut md, s.rouge2, &want["rouge-2"], &format!("pair {i} rouge-2"));
        check_prf(&mut md, s.rouge_l, &want["rouge-l"], &format!("pair {i} rouge-l"));
    }
    assert!(raised > 0, "the fixture has empty sides");
    md.assert(key);
}

#[cfg(feature = "zh")]
#[test]
fn rouge_on_jieba_words_matches_rouge_chinese() {
    check_zh_rouge(ragjudge_lexical::rouge_zh::ZhRougeTokens::Jieba, "rouge_jieba");
}

#[test]
fn rouge_on_characters_matches_rouge_chinese() {
    check_zh_rouge(ragjudge_lexical::rouge_zh::ZhRougeTokens::Char, "rouge_char");
}

#[test]
fn cmrc_f1_and_em_match_official_script() {
    use ragjudge_lexical::cmrc::{max_cmrc_em, max_cmrc_f1, mixed_segmentation};
    let doc = fixture();
    let cases = doc["cmrc"].as_array().expect("cmrc cases");
    let mut md = MaxDiff::default();
    for (i, c) in cases.iter().enumerate() {
        let pred = c["prediction"].as_str().expect("prediction");
        let answers = strings(&c["answers"]);
        let a: Vec<&str> = answers.iter().map(String::as_str).collect();
        assert_eq!(mixed_segmentation(pred, true), strings(&c["prediction_segments"]), "case {i} {pred:?}");
        for (ans, segs) in answers.iter().zip(c["segments"].as_array().expect("segments")) {
            assert_eq!(mixed_segmentation(ans, true), strings(segs), "case {i} answer {ans:?}");
        }
        md.check(max_cmrc_f1(pred, &a), f(&c["f1"]), || format!("case {i} f1"));
        md.check(max_cmrc_em(pred, &a), f(&c["em"]), || format!("case {i} em"));
    }
    md.assert("CMRC 2018");
}
