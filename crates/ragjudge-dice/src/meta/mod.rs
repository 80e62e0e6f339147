//! Meta-evaluation of a judge: how often its verdicts agree with human labels on public pairwise
//! sets (LLMBar, Zeng et al. 2024: FairEval, LLMEval², the adversarial sets) and on ragjudge runs
//! with pairwise labels, per protocol, with its position and length biases and the baselines.
//!
//! Data flows one way: labelled pairs ([`items`]) -> a protocol's verdicts ([`crate::protocol`]) ->
//! figures per set ([`stats`]).

pub mod consistency;
pub mod items;
pub mod job;
pub mod stack;
pub mod stats;
pub mod table;

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Instant;

use ragjudge_models::Judge;
use serde::{Deserialize, Serialize};

use crate::pair::Outcome;
use crate::protocol::{judge_items, Protocol, ProtocolSettings, Verdict};
use items::PairItem;
use stats::{set_stats, SetStats};

/// One pair's result under one protocol: the verdict, or why there is none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ItemResult {
    /// The set.
    pub set: String,
    /// The pair's id in its set.
    pub id: String,
    /// The protocol.
    pub protocol: Protocol,
    /// The human label.
    pub gold: Outcome,
    /// The verdict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
    /// Why the judge gave none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Judges the pairs of one set with one protocol, `batch` pairs per backend call batch (each
/// batch's calls land in the call cache as they finish, so an interrupted run resumes), and
/// reports `progress(done, total)` after each batch.
pub fn evaluate_set(
    judge: &Arc<dyn Judge>,
    protocol: Protocol,
    set: &str,
    items: &[PairItem],
    settings: &ProtocolSettings,
    batch: usize,
    progress: &dyn Fn(usize, usize),
) -> (SetStats, Vec<ItemResult>) {
    let started = Instant::now();
    let before = judge.usage();
    let mut results = Vec::with_capacity(items.len());
    for chunk in items.chunks(batch.max(1)) {
        for (item, r) in chunk.iter().zip(judge_items(judge, protocol, chunk, settings)) {
            let (verdict, error) = match r {
                Ok(v) => (Some(v), None),
                Err(e) => (None, Some(e.to_string())),
            };
            results.push(ItemResult {
                set: set.to_string(),
                id: item.pair.id.clone(),
                protocol,
                gold: item.gold,
                verdict,
                error,
            });
        }
        progress(results.len(), items.len());
    }
    let verdicts: Vec<Option<&Verdict>> = results.iter().map(|r| r.verdict.as_ref()).collect();
    let mut stats = set_stats(set, protocol.name(), items, &verdicts);
    let after = judge.usage();
    stats.calls = after.calls - before.calls;
    stats.prompt_tokens = after.prompt_tokens - before.prompt_tokens;
    stats.seconds = started.elapsed().as_secs_f64();
    (stats, results)
}

/// An evaluator's accuracy on a set as its authors published it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StoredRow {
    /// The set (file stem of the LLMBar layout).
    pub set: Cow<'static, str>,
    /// The evaluator.
    pub evaluator: Cow<'static, str>,
    /// Accuracy (both orders averaged).
    pub accuracy: f64,
}

impl StoredRow {
    const fn of(set: &'static str, evaluator: &'static str, accuracy: f64) -> Self {
        StoredRow { set: Cow::Borrowed(set), evaluator: Cow::Borrowed(evaluator), accuracy }
    }
}

/// LLMBar's stored results of its vanilla prompt, both orders averaged
/// (`evaluators/*/Vanilla_NoRules/statistics.json`, `correct_average`).
pub const STORED: [StoredRow; 9] = [
    StoredRow::of("faireval", "GPT-4 (LLMBar vanilla)", 0.727),
    StoredRow::of("faireval", "ChatGPT (LLMBar vanilla)", 0.576),
    StoredRow::of("faireval", "LLaMA2-70B-chat (LLMBar vanilla)", 0.561),
    StoredRow::of("llmeval2", "GPT-4 (LLMBar vanilla)", 0.755),
    StoredRow::of("llmeval2", "ChatGPT (LLMBar vanilla)", 0.703),
    StoredRow::of("llmeval2", "LLaMA2-70B-chat (LLMBar vanilla)", 0.690),
    StoredRow::of("adversarial_Neighbor", "GPT-4 (LLMBar vanilla)", 0.642),
    StoredRow::of("adversarial_Neighbor", "ChatGPT (LLMBar vanilla)", 0.179),
    StoredRow::of("adversarial_Neighbor", "LLaMA2-70B-chat (LLMBar vanilla)", 0.190),
];

/// Figures of a consistency score against human consistency labels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ConsistencyStats {
    /// The set.
    pub set: String,
    /// The scorer.
    pub scorer: String,
    /// Items scored.
    pub items: usize,
    /// Items the judge failed on.
    pub failed: usize,
    /// Spearman correlation with the human label.
    pub spearman: Option<f64>,
    /// ROC AUC of "consistent" (label 1) against the rest.
    pub auc: Option<f64>,
    /// Balanced accuracy of "score >= 0.5 means consistent" (probability scores only).
    pub balanced_accuracy: Option<f64>,
    /// Summary sentences judged.
    pub sentences: usize,
    /// Wall time per sentence, seconds.
    pub seconds_per_sentence: Option<f64>,
}

/// The figures of `scores` (one per item, `None` where the scorer failed) against the labels.
pub fn consistency_stats(
    set: &str,
    scorer: &str,
    labels: &[f64],
    scores: &[Option<f64>],
    threshold: Option<f64>,
) -> ConsistencyStats {
    let pairs: Vec<(f64, f64)> = labels.iter().zip(scores).filter_map(|(l, s)| s.map(|s| (*l, s))).collect();
    let (y, x): (Vec<f64>, Vec<f64>) = pairs.iter().copied().unzip();
    let spearman = ragjudge_stats::spearman(&x, &y).ok().and_then(|c| c.coefficient);
    let pos: Vec<f64> = pairs.iter().filter(|p| p.0 >= 1.0).map(|p| p.1).collect();
    let neg: Vec<f64> = pairs.iter().filter(|p| p.0 < 1.0).map(|p| p.1).collect();
    let auc = ragjudge_stats::hypothesis::mann_whitney_u(&pos, &neg, ragjudge_stats::hypothesis::MwuMethod::Asymptotic)
        .ok()
        .map(|m| m.effect);
    let balanced_accuracy = threshold.filter(|_| !pos.is_empty() && !neg.is_empty()).map(|t| {
        let tpr = pos.iter().filter(|&&s| s >= t).count() as f64 / pos.len() as f64;
        let tnr = neg.iter().filter(|&&s| s < t).count() as f64 / neg.len() as f64;
        (tpr + tnr) / 2.0
    });
    ConsistencyStats {
        set: set.to_string(),
        scorer: scorer.to_string(),
        items: labels.len(),
        failed: labels.len() - pairs.len(),
        spearman,
        auc,
        balanced_accuracy,
        sentences: 0,
        seconds_per_sentence: None,
    }
}
