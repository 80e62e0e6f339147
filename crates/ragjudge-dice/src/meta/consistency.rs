//! Factual consistency judged claim by claim, through the hallucination metric
//! (`ragjudge_trec::answer::hallucination`): each summary sentence against the few source
//! sentences most like it (premise selection), the judge's probability of "Yes" as its support;
//! a summary is as consistent as its least supported sentence (or, as the metric reports by
//! default, the mean of its sentences).
//! Measured against human consistency labels (QAGS, Wang et al. 2020, in UniEval's layout).

use std::path::Path;
use std::sync::Arc;

use ragjudge_core::{Context, InputError, Record};
use ragjudge_lexical::rouge::RougeScorer;
use ragjudge_models::Judge;
use ragjudge_trec::answer::{EntailmentModel, HallucinationMetric, HallucinationOptions};
use ragjudge_trec::TrecError;
use serde::{Deserialize, Serialize};

/// A source text, a summary of it and the human consistency label.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConsistencyItem {
    /// Position in the file.
    pub id: usize,
    /// The source (article).
    pub source: String,
    /// The judged summary.
    pub summary: String,
    /// Human consistency in [0, 1] (1: every sentence judged consistent).
    pub label: f64,
}

#[derive(Deserialize)]
struct UniEvalItem {
    source: String,
    system_output: String,
    scores: serde_json::Map<String, serde_json::Value>,
}

/// Reads a JSON list of `{"source", "system_output", "scores": {"consistency"}}` (UniEval's
/// layout of QAGS and SummEval); a malformed item is an error naming the file and the item.
pub fn read_consistency(path: &Path) -> Result<Vec<ConsistencyItem>, InputError> {
    let name = path.display().to_string();
    let text =
        std::fs::read_to_string(path).map_err(|e| InputError::fatal(&name, None, format!("cannot read: {e}")))?;
    let values: Vec<serde_json::Value> = serde_json::from_str(&text)
        .map_err(|e| InputError::fatal(&name, None, format!("expected a JSON list of scored summaries: {e}")))?;
    values
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            let item: UniEvalItem = serde_json::from_value(v)
                .map_err(|e| InputError::fatal(&name, None, format!("item {i}: not a scored summary: {e}")))?;
            let label = item.scores.get("consistency").and_then(|c| c.as_f64()).ok_or_else(|| {
                InputError::new(&name, None, Some("scores.consistency".into()), format!("item {i}: no number"))
            })?;
            Ok(ConsistencyItem { id: i, source: item.source, summary: item.system_output, label })
        })
        .collect()
}

/// A summary's support: per sentence P(Yes), and their minimum.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Support {
    /// P(Yes) per summary sentence.
    pub sentences: Vec<f64>,
    /// The least supported sentence's P(Yes) (the summary's score).
    pub score: f64,
}

impl Support {
    /// The mean support of the summary's sentences (1 for a summary without a sentence).
    pub fn mean(&self) -> f64 {
        if self.sentences.is_empty() {
            1.0
        } else {
            self.sentences.iter().sum::<f64>() / self.sentences.len() as f64
        }
    }
}

/// Judges every sentence of each summary against its selected premise (`k` source sentences;
/// `usize::MAX`: the whole source) through the hallucination metric (`ragjudge_trec`), so the
/// figures measured here are that metric's with a judge.
pub fn judge_support(judge: &Arc<dyn Judge>, items: &[ConsistencyItem], k: usize) -> Vec<Result<Support, TrecError>> {
    let opts = HallucinationOptions {
        max_source_chars: usize::MAX,
        premise_sentences: (k != usize::MAX).then_some(k),
        least_supported: 0,
        ..HallucinationOptions::default()
    };
    let metric = HallucinationMetric::new(EntailmentModel::Judge(Arc::clone(judge)), opts);
    let records: Vec<Record> = items
        .iter()
        .map(|i| Record {
            id: i.id.to_string(),
            system: "summary".into(),
            contexts: vec![Context { text: i.source.clone(), ..Context::default() }],
            answer: i.summary.clone(),
            ..Record::default()
        })
        .collect();
    metric
        .score_many(&records)
        .into_iter()
        .map(|r| match r {
            Ok(h) => {
                let sentences: Vec<f64> = h.sentences.iter().map(|s| s.entailment).collect();
                let score = sentences.iter().copied().fold(f64::INFINITY, f64::min);
                Ok(Support { score, sentences })
            }
            Err(TrecError::NothingToCheck(_)) => Ok(Support { score: 1.0, sentences: Vec::new() }),
            Err(e) => Err(e),
        })
        .collect()
}

/// ROUGE-2 precision of the summary against its source: the lexical baseline.
pub fn rouge2_precision(item: &ConsistencyItem) -> f64 {
    RougeScorer::new(false).score(&item.source, &item.summary).rouge2.precision
}
