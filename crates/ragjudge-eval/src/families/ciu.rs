//! `ciu`: conversational information utility (CIU (Choi et al.), §3, eq. 1-3).

use serde_json::{json, Value};
use crate::models::ModelSettings;
use super::{MetricFamily, MetricSettings};
use crate::error::EvalError;
use crate::models::ModelSet;
use ragjudge_core::Metric;
use ragjudge_lexical::ciu::{CiuMetric, CiuOptions};
use ragjudge_lexical::lang::Lang;
use ragjudge_lexical::segment::segmenter_name;

/// Options of CIU, with its ablations.
#[derive(Debug, Clone, PartialEq)]
pub struct CiuSettings {
    /// Reading cost per character, `C_char` (eq. 3).
    pub c_char: f64,
    /// Position discount gamma (eq. 2); off: gamma = 1.
    pub position_discount: bool,
    /// Conversation frequency discount; off: freq = 1.
    pub frequency_discount: bool,
    /// Effort term (eq. 3); off: E = 0.
    pub effort: bool,
}

impl Default for CiuSettings {
    fn default() -> Self {
        let d = CiuOptions::default();
        Self {
            c_char: d.c_char,
            position_discount: d.position_discount,
            frequency_discount: d.frequency_discount,
            effort: d.effort,
        }
    }
}

/// The `ciu` family.
pub struct Ciu;

impl MetricFamily for Ciu {
    fn name(&self) -> &'static str {
        "ciu"
    }

    /// The settings, with the language mode of the lexical settings and the word tokeniser and
    /// stop words of each language records can get.
    fn definition(&self, settings: &MetricSettings, _models: &ModelSettings) -> Value {
        let s = &settings.ciu;
        let tok: serde_json::Map<String, Value> = settings
            .lexical
            .langs()
            .into_iter()
            .map(|l| {
                let t = match l {
                    Lang::En => json!({"words": "rake-words", "stopwords": "smart"}),
                    Lang::Zh => json!({"words": segmenter_name(), "stopwords": "stopwords-iso-zh+smart"}),
                };
                (l.code().to_owned(), t)
            })
            .collect();
        json!({"c_char": s.c_char, "position_discount": s.position_discount,
               "frequency_discount": s.frequency_discount, "effort": s.effort,
               "lang": settings.lexical.lang.name(), "tokenizers": tok})
    }

    fn build(&self, settings: &MetricSettings, _models: &ModelSet) -> Result<Vec<Box<dyn Metric>>, EvalError> {
        let s = &settings.ciu;
        if !(s.c_char.is_finite() && s.c_char >= 0.0) {
            return Err(EvalError::settings(format!("--ciu-c-char must be a finite number >= 0, got {}", s.c_char)));
        }
        let opts = CiuOptions {
            c_char: s.c_char,
            position_discount: s.position_discount,
            frequency_discount: s.frequency_discount,
            effort: s.effort,
            ..CiuOptions::default()
        };
        Ok(vec![Box::new(CiuMetric { opts, lang: settings.lexical.lang })])
    }
}
