//! Parity of the Chinese lexical metrics with their Python references: sacrebleu 2.6.0's `zh` and
//! `char` tokenizers, jieba 0.42.1's default cut, rouge-chinese 1.0.3 and the official CMRC 2018
//! evaluation script. Expected values come from `tests/fixtures/make_zh_reference.py` (versions
//! in the fixture's header), never from this crate's output.

mod common;

use common::{check_bleu, f, fixture, pairs, MaxDiff};
use ragjudge_lexical::bleu::{sentence_bleu_with, BleuTokenizer, CorpusBleu};
use serde_json::Value;

fn check_bleu_tokenizer(tok: BleuTokenizer, key: &str) {
    let doc = fixture("zh_reference.json");
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
    let doc = fixture("zh_reference.json");
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
    let doc = fixture("zh_reference.json");
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
    let doc = fixture("zh_reference.json");
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
    let doc = fixture("zh_reference.json");
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
