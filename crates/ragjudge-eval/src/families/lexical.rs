//! `lexical`: ROUGE-1/2/L, BLEU, chrF, SQuAD token F1, exact match and METEOR against the reference.

use serde_json::{json, Value};
use crate::models::ModelSettings;
use super::{MetricFamily, MetricSettings};
use crate::error::EvalError;
use crate::models::ModelSet;
use ragjudge_core::Metric;
use ragjudge_lexical::answer_overlap::LexicalMetric;
use ragjudge_lexical::meteor::MeteorMetric;

/// Options of the lexical metrics.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LexicalSettings {
    /// Stem tokens with the Porter stemmer before ROUGE (rouge-score's `use_stemmer=True`).
    pub rouge_stemmer: bool,
}

/// The `lexical` family.
pub struct Lexical;

impl MetricFamily for Lexical {
    fn name(&self) -> &'static str {
        "lexical"
    }

    fn definition(&self, settings: &MetricSettings, _models: &ModelSettings) -> Value {
        json!({"rouge_stemmer": settings.lexical.rouge_stemmer})
    }

    fn build(&self, settings: &MetricSettings, _models: &ModelSet) -> Result<Vec<Box<dyn Metric>>, EvalError> {
        Ok(vec![Box::new(LexicalMetric::new(settings.lexical.rouge_stemmer)), Box::new(MeteorMetric::default())])
    }
}
