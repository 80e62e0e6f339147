//! Language of a text for the lexical metrics: English keeps the reference implementations'
//! English tokenisers (rouge-score, sacrebleu `13a`, SQuAD, SMART stop words); Chinese switches to
//! jieba / rouge-chinese, sacrebleu `zh`, CMRC 2018 and the stopwords-iso Chinese list.
//!
//! Detection is the project's one rule ([`ragjudge_core::text::detect_lang`]): Chinese when Han
//! ideographs are at least 30% of the letters (`char::is_alphabetic`, which includes the
//! ideographs), else English, also when there are none. Ideographs carry about a word each, so a
//! Chinese text with English names and terms stays above the threshold, while an English text
//! quoting a few Chinese words stays below. The judges choose their prompt language by the same
//! rule.

use ragjudge_core::text::detect_lang;
use ragjudge_core::Record;
use serde::{Deserialize, Serialize};

pub use ragjudge_core::text::Lang;

/// How the language of a text is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LangMode {
    /// Always English. Default.
    #[default]
    En,
    /// Always Chinese.
    Zh,
    /// Per text, by [`detect`].
    Auto,
}

impl LangMode {
    /// `en`, `zh` or `auto`.
    pub fn name(self) -> &'static str {
        match self {
            LangMode::En => "en",
            LangMode::Zh => "zh",
            LangMode::Auto => "auto",
        }
    }

    /// The mode of a name (`en`, `zh`, `auto`).
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "en" => Some(LangMode::En),
            "zh" => Some(LangMode::Zh),
            "auto" => Some(LangMode::Auto),
            _ => None,
        }
    }

    /// The language for `texts` (taken together) under this mode.
    pub fn resolve(self, texts: &[&str]) -> Lang {
        match self {
            LangMode::En => Lang::En,
            LangMode::Zh => Lang::Zh,
            LangMode::Auto => detect_all(texts),
        }
    }
}

/// The language of `text` by the rule in the module docs.
pub fn detect(text: &str) -> Lang {
    detect_lang(text)
}

/// The language of several texts counted together (e.g. a reference and an answer).
pub fn detect_all(texts: &[&str]) -> Lang {
    detect_lang(&texts.join(" "))
}

/// The language of a record's lexical metrics under `mode`. With [`LangMode::Auto`], a
/// `meta.lang` string whose primary tag is `en` or `zh` (`zh-CN`...) decides; otherwise [`detect`]
/// runs on the answer with the reference (or, without one, the contexts: [`Record::grounding`]).
/// `en` and `zh` apply to every record whatever its `meta.lang`.
pub fn record_lang(record: &Record, mode: LangMode) -> Lang {
    if mode != LangMode::Auto {
        return mode.resolve(&[]);
    }
    if let Some(lang) = record.meta.get("lang").and_then(|v| v.as_str()).and_then(Lang::from_code) {
        return lang;
    }
    detect_all(&[&record.answer, &record.grounding()])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection() {
        assert_eq!(detect("The Federal Reserve kept rates unchanged."), Lang::En);
        assert_eq!(detect("美联储维持利率不变。"), Lang::Zh);
        // 7 ideographs among 4 + 7 letters and ideographs: 0.64.
        assert_eq!(detect("TACO交易是一种策略"), Lang::Zh);
        // 6 ideographs among 29 + 6: 0.17 (an English name dominates a short phrase).
        assert_eq!(detect("Sevens Report Research的创始人Tom Essaye指出"), Lang::En);
        // 3 ideographs among 43 + 3: 0.065.
        assert_eq!(detect("The company 比亚迪 reported record deliveries last month"), Lang::En);
        assert_eq!(detect("2024 !!! 1.5%"), Lang::En);
        assert_eq!(detect(""), Lang::En);
        // Exactly at the threshold: 3 ideographs among 7 + 3 -> 0.3; one letter more is below.
        assert_eq!(detect("abcdefg中文字"), Lang::Zh);
        assert_eq!(detect("abcdefgh中文字"), Lang::En);
        assert_eq!(detect_all(&["abcdefg", "中文字"]), Lang::Zh);
        assert_eq!(detect_all(&["abcdefgh", "中文字"]), Lang::En);
    }

    #[test]
    fn modes_and_codes() {
        assert_eq!(LangMode::Auto.resolve(&["中文"]), Lang::Zh);
        assert_eq!(LangMode::En.resolve(&["中文"]), Lang::En);
        assert_eq!(LangMode::Zh.resolve(&["english"]), Lang::Zh);
        assert_eq!(Lang::from_code("zh-CN"), Some(Lang::Zh));
        assert_eq!(Lang::from_code("EN_us"), Some(Lang::En));
        assert_eq!(Lang::from_code("fr"), None);
        assert_eq!(LangMode::from_name("auto"), Some(LangMode::Auto));
        assert_eq!(LangMode::default(), LangMode::En);
    }

    #[test]
    fn record_language() {
        let mut r = Record { answer: "上涨".into(), reference: Some("股价上涨了".into()), ..Record::default() };
        assert_eq!(record_lang(&r, LangMode::Auto), Lang::Zh);
        assert_eq!(record_lang(&r, LangMode::En), Lang::En);
        r.meta.insert("lang".into(), "en-US".into());
        assert_eq!(record_lang(&r, LangMode::Auto), Lang::En);
        assert_eq!(record_lang(&r, LangMode::Zh), Lang::Zh);
        r.meta.insert("lang".into(), "fr".into());
        assert_eq!(record_lang(&r, LangMode::Auto), Lang::Zh);
        let no_ref = Record { answer: "ok".into(), ..Record::default() };
        assert_eq!(record_lang(&no_ref, LangMode::Auto), Lang::En);
    }
}
