//! `lexical`: ROUGE-1/2/L, BLEU, chrF, SQuAD token F1, exact match and METEOR against the reference.

use serde_json::{json, Value};
use crate::models::ModelSettings;
use super::{MetricFamily, MetricSettings};
use crate::error::EvalError;
use crate::models::ModelSet;
use ragjudge_core::Metric;
use ragjudge_lexical::answer_overlap::{tokenizers, LexicalMetric};
use ragjudge_lexical::lang::Lang;
pub use ragjudge_lexical::lang::LangMode;
use ragjudge_lexical::meteor::MeteorMetric;
pub use ragjudge_lexical::rouge_zh::ZhRougeTokens;

/// Options of the lexical metrics (the `lexical` and `ciu` families).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LexicalSettings {
    /// Stem tokens with the Porter stemmer before ROUGE (rouge-score's `use_stemmer=True`).
    pub rouge_stemmer: bool,
    /// Language of each record's tokenisers: `en` (default, the English reference
    /// implementations), `zh`, or `auto` (per record: `meta.lang`, else detected from the text;
    /// see `ragjudge_lexical::lang`).
    pub lang: LangMode,
    /// Tokens of Chinese ROUGE: jieba words (default) or characters.
    pub zh_rouge: ZhRougeTokens,
}

impl LexicalSettings {
    /// The languages records can get under these settings.
    pub fn langs(&self) -> Vec<Lang> {
        match self.lang {
            LangMode::En => vec![Lang::En],
            LangMode::Zh => vec![Lang::Zh],
            LangMode::Auto => vec![Lang::En, Lang::Zh],
        }
    }
}

/// The `lexical` family.
pub struct Lexical;

impl MetricFamily for Lexical {
    fn name(&self) -> &'static str {
        "lexical"
    }

    /// The settings, with the implementation behind each column in each language records can
    /// get (METEOR is English-only: NLTK's, whatever the language).
    fn definition(&self, settings: &MetricSettings, _models: &ModelSettings) -> Value {
        let s = &settings.lexical;
        let tok: serde_json::Map<String, Value> = s
            .langs()
            .into_iter()
            .map(|l| (l.code().to_owned(), tokenizers(l, s.rouge_stemmer, s.zh_rouge)))
            .collect();
        json!({"rouge_stemmer": s.rouge_stemmer, "lang": s.lang.name(), "zh_rouge": s.zh_rouge.name(), "tokenizers": tok})
    }

    fn build(&self, settings: &MetricSettings, _models: &ModelSet) -> Result<Vec<Box<dyn Metric>>, EvalError> {
        let s = &settings.lexical;
        Ok(vec![
            Box::new(LexicalMetric::with_lang(s.rouge_stemmer, s.lang, s.zh_rouge)),
            Box::new(MeteorMetric::default()),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ragjudge_core::Record;

    #[test]
    fn auto_language_defines_both_and_scores_chinese_in_chinese() {
        let mut settings = MetricSettings::default();
        let en = Lexical.definition(&settings, &ModelSettings::default());
        assert_eq!(en["lang"], "en");
        assert_eq!(en["tokenizers"]["en"]["bleu"], "13a");
        assert!(en["tokenizers"].get("zh").is_none());
        settings.lexical.lang = LangMode::Auto;
        let auto = Lexical.definition(&settings, &ModelSettings::default());
        assert_eq!(auto["tokenizers"]["zh"]["bleu"], "zh");
        assert_eq!(auto["tokenizers"]["zh"]["token_f1"], "cmrc2018");
        assert_eq!(auto["tokenizers"]["en"]["rouge"], "rouge-score");

        let metrics = Lexical.build(&settings, &ModelSet::new(ModelSettings::default())).unwrap();
        let zh = Record { answer: "股价上涨".into(), reference: Some("股价上涨".into()), ..Record::default() };
        let out = metrics[0].score(&zh).unwrap();
        // Identical texts: ROUGE-1 F of rouge-chinese is 2 * (1 / (2 + 1e-8)).
        assert_eq!(out.values[2], Some(2.0 * (1.0 / (2.0 + 1e-8))));
        assert_eq!(out.detail.as_ref().unwrap()["lang"], "zh");
        let en = Record { answer: "the cat".into(), reference: Some("the cat".into()), ..Record::default() };
        let out = metrics[0].score(&en).unwrap();
        assert_eq!(out.values[2], Some(1.0));
        assert_eq!(out.detail.as_ref().unwrap()["lang"], "en");
    }
}
