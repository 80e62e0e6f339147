//! Language of a text for the lexical metrics: English keeps the reference implementations'
//! English tokenisers (rouge-score, sacrebleu `13a`, SQuAD, SMART stop words); Chinese switches to
//! jieba / rouge-chinese, sacrebleu `zh`, CMRC 2018 and the stopwords-iso Chinese list.
//!
//! Detection rule ([`detect`]): among the characters of the text that are letters or ideographs
//! (`char::is_alphabetic`, which includes CJK ideographs), count the CJK ideographs; the text is
//! Chinese when they are at least [`ZH_SHARE`] (20%) of them, else English (also when there are
//! none). Ideographs carry about a word each, so a Chinese text with English names and terms stays
//! well above the threshold, while an English text quoting a few Chinese words stays below.

use ragjudge_core::Record;
use serde::{Deserialize, Serialize};

use crate::rake::is_cjk_ideograph;

/// The share of CJK ideographs among letters and ideographs from which [`detect`] says Chinese.
pub const ZH_SHARE: f64 = 0.2;

/// A language the lexical metrics have tokenisers for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    /// English (the reference implementations' defaults).
    #[default]
    En,
    /// Chinese.
    Zh,
}

impl Lang {
    /// `en` or `zh`.
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Zh => "zh",
        }
    }

    /// The language of a code: `en`, `zh` (case-insensitive; `zh-CN`, `zh_TW`, `en-US`... too).
    pub fn from_code(code: &str) -> Option<Self> {
        let primary = code.split(['-', '_']).next().unwrap_or("").to_ascii_lowercase();
        match primary.as_str() {
            "en" => Some(Lang::En),
            "zh" => Some(Lang::Zh),
            _ => None,
        }
    }
}

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

/// `(CJK ideographs, letters and ideographs)` of `text`.
fn counts(text: &str) -> (usize, usize) {
    text.chars().filter(|c| c.is_alphabetic()).fold((0, 0), |(h, n), c| (h + usize::from(is_cjk_ideograph(c)), n + 1))
}

/// The language of `text` by the rule in the module docs.
pub fn detect(text: &str) -> Lang {
    detect_all(&[text])
}

/// The language of several texts counted together (e.g. a reference and an answer).
pub fn detect_all(texts: &[&str]) -> Lang {
    let (han, letters) = texts.iter().map(|t| counts(t)).fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    if letters > 0 && han as f64 >= ZH_SHARE * letters as f64 {
        Lang::Zh
    } else {
        Lang::En
    }
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
        // Exactly at the threshold: 1 ideograph, 4 letters -> 1/5 = 0.2.
        assert_eq!(detect("abcd中"), Lang::Zh);
        assert_eq!(detect("abcde中"), Lang::En);
        assert_eq!(detect_all(&["abcdefgh", "中文"]), Lang::Zh);
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
