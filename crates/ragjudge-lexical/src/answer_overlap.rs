//! The `lexical` metric family: answer vs reference overlap for one record.
//!
//! Columns: ROUGE-1/2/L precision, recall and F (as `rouge-score`), sentence BLEU and chrF on
//! the 0-1 scale (sacrebleu's value / 100), SQuAD token F1 and exact match. A record without a
//! reference gets no value in any column.
//!
//! Chinese records ([`crate::lang`]) fill the same columns with Chinese tokenisers: ROUGE of
//! rouge-chinese on jieba words or characters ([`crate::rouge_zh`]), BLEU with sacrebleu's `zh`
//! tokenizer, chrF unchanged (it reads characters), token F1 and exact match of the CMRC 2018
//! script ([`crate::cmrc`]). [`tokenizers`] names them per language.

use crate::bleu::{sentence_bleu, sentence_bleu_with, BleuTokenizer};
use crate::chrf::sentence_chrf;
use crate::cmrc::{cmrc_em, cmrc_f1};
use crate::lang::{record_lang, Lang, LangMode};
use crate::rouge::{PrfScore, RougeScorer, RougeScores};
use crate::rouge_zh::{ZhRougeScorer, ZhRougeTokens};
use crate::segment::segmenter_name;
use crate::squad::{exact_match, token_f1};
use ragjudge_core::{Metric, MetricError, MetricOutput, Record};
use serde_json::{json, Value};

/// Column names, in output order.
pub const COLUMNS: [&str; 13] = [
    "rouge1_p",
    "rouge1_r",
    "rouge1_f",
    "rouge2_p",
    "rouge2_r",
    "rouge2_f",
    "rougeL_p",
    "rougeL_r",
    "rougeL_f",
    "bleu",
    "chrf",
    "token_f1",
    "exact_match",
];

/// Which implementation makes each column for `lang`, as `{"rouge": .., "bleu": .., "chrf": ..,
/// "token_f1": .., "exact_match": ..}` (written to column definitions and record details).
pub fn tokenizers(lang: Lang, use_stemmer: bool, zh_rouge: ZhRougeTokens) -> Value {
    match lang {
        Lang::En => json!({
            "rouge": if use_stemmer { "rouge-score+porter" } else { "rouge-score" },
            "bleu": BleuTokenizer::Tokenizer13a.name(),
            "chrf": "sacrebleu",
            "token_f1": "squad-v1.1",
            "exact_match": "squad-v1.1",
        }),
        Lang::Zh => json!({
            "rouge": match zh_rouge {
                ZhRougeTokens::Jieba => format!("rouge-chinese+{}", segmenter_name()),
                ZhRougeTokens::Char => "rouge-chinese+char".to_owned(),
            },
            "bleu": BleuTokenizer::Zh.name(),
            "chrf": "sacrebleu",
            "token_f1": "cmrc2018",
            "exact_match": "cmrc2018",
        }),
    }
}

/// Answer-vs-reference overlap metrics.
#[derive(Debug, Clone, Copy, Default)]
pub struct LexicalMetric {
    /// ROUGE configuration (stemmer on or off).
    pub rouge: RougeScorer,
    /// How each record's language is chosen. Default English (the reference implementations'
    /// English tokenisers, no per-record detail).
    pub lang: LangMode,
    /// Tokens of Chinese ROUGE. Default jieba words.
    pub zh_rouge: ZhRougeTokens,
}

impl LexicalMetric {
    /// The metric, with the Porter stemmer for ROUGE when `use_stemmer`.
    pub fn new(use_stemmer: bool) -> Self {
        Self { rouge: RougeScorer::new(use_stemmer), ..Self::default() }
    }

    /// The metric with a language mode and Chinese ROUGE tokens.
    pub fn with_lang(use_stemmer: bool, lang: LangMode, zh_rouge: ZhRougeTokens) -> Self {
        Self { rouge: RougeScorer::new(use_stemmer), lang, zh_rouge }
    }

    /// The 13 values for one English answer and reference, in [`COLUMNS`] order.
    pub fn values(&self, answer: &str, reference: &str) -> [f64; 13] {
        self.values_lang(answer, reference, Lang::En)
    }

    /// The 13 values for one answer and reference in `lang`, in [`COLUMNS`] order.
    pub fn values_lang(&self, answer: &str, reference: &str, lang: Lang) -> [f64; 13] {
        let r: RougeScores = match lang {
            Lang::En => self.rouge.score(reference, answer),
            Lang::Zh => ZhRougeScorer::new(self.zh_rouge).score(reference, answer),
        };
        let prf = |s: PrfScore| [s.precision, s.recall, s.fmeasure];
        let [p1, r1, f1] = prf(r.rouge1);
        let [p2, r2, f2] = prf(r.rouge2);
        let [pl, rl, fl] = prf(r.rouge_l);
        [
            p1,
            r1,
            f1,
            p2,
            r2,
            f2,
            pl,
            rl,
            fl,
            match lang {
                Lang::En => sentence_bleu(answer, &[reference]).bleu_unit(),
                Lang::Zh => sentence_bleu_with(answer, &[reference], BleuTokenizer::Zh).bleu_unit(),
            },
            sentence_chrf(answer, &[reference]).unit(),
            match lang {
                Lang::En => token_f1(answer, reference),
                Lang::Zh => cmrc_f1(answer, reference),
            },
            match lang {
                Lang::En => exact_match(answer, reference),
                Lang::Zh => cmrc_em(answer, reference),
            },
        ]
    }
}

impl Metric for LexicalMetric {
    fn name(&self) -> &str {
        "lexical"
    }

    fn columns(&self) -> Vec<String> {
        COLUMNS.iter().map(|c| c.to_string()).collect()
    }

    fn score(&self, record: &Record) -> Result<MetricOutput, MetricError> {
        let lang = if self.lang == LangMode::En { Lang::En } else { record_lang(record, self.lang) };
        let values = match &record.reference {
            Some(reference) => self.values_lang(&record.answer, reference, lang).map(Some).to_vec(),
            None => vec![None; COLUMNS.len()],
        };
        // English mode keeps the output it always had; otherwise each record says what scored it.
        let detail = (self.lang != LangMode::En).then(
            || json!({"lang": lang.code(), "tokenizers": tokenizers(lang, self.rouge.use_stemmer, self.zh_rouge)}),
        );
        Ok(MetricOutput { values, detail })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_texts_score_one_everywhere() {
        let m = LexicalMetric::new(false);
        let v = m.values("The cat sat on the mat.", "The cat sat on the mat.");
        for (c, x) in COLUMNS.iter().zip(v) {
            assert!((x - 1.0).abs() < 1e-12, "{c} = {x}");
        }
    }

    #[test]
    fn no_reference_gives_no_values() {
        let r = Record { id: "q".into(), query: "q".into(), answer: "a".into(), ..Record::default() };
        let out = LexicalMetric::new(false).score(&r).unwrap();
        assert_eq!(out.values, vec![None; 13]);
    }

    /// Chinese texts score 0 on English ROUGE (rouge-score drops non-ASCII) but not in Chinese.
    /// Hand-computed on characters: answer 股价上涨 vs reference 股价大幅上涨: unigrams 4/4 and 4/6.
    #[test]
    fn chinese_records_use_chinese_tokenisers() {
        let m = LexicalMetric::with_lang(false, LangMode::Auto, ZhRougeTokens::Char);
        assert_eq!(m.values("股价上涨", "股价大幅上涨")[0], 0.0);
        let v = m.values_lang("股价上涨", "股价大幅上涨", Lang::Zh);
        assert_eq!((v[0], v[1]), (1.0, 4.0 / 6.0));
        // CMRC F1: longest common substring 上涨 (2): P = 2/4, R = 2/6.
        let (p, r) = (0.5, 2.0 / 6.0);
        assert_eq!(v[11], 2.0 * p * r / (p + r));
        let rec =
            Record { answer: "股价上涨".into(), reference: Some("股价大幅上涨".into()), ..Record::default() };
        let out = m.score(&rec).unwrap();
        assert_eq!(out.values[0], Some(1.0));
        let d = out.detail.unwrap();
        assert_eq!(d["lang"], "zh");
        assert_eq!(d["tokenizers"]["bleu"], "zh");
        assert_eq!(d["tokenizers"]["rouge"], "rouge-chinese+char");
        // English mode: no detail, English values.
        let en = LexicalMetric::new(false).score(&rec).unwrap();
        assert!(en.detail.is_none());
        assert_eq!(en.values[0], Some(0.0));
    }

    #[test]
    fn columns_follow_values() {
        // "a b c d" vs "a b x": rouge1 P = 2/3, R = 2/4; exact match 0.
        let v = LexicalMetric::new(false).values("a b x", "a b c d");
        assert!((v[0] - 2.0 / 3.0).abs() < 1e-12);
        assert!((v[1] - 0.5).abs() < 1e-12);
        assert_eq!(v[12], 0.0);
    }
}
