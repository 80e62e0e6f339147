//! Retrieval metrics from per-passage relevance grades in rank order (Open RAG Eval, "Traditional
//! Retrieval Metrics"; Open RAG Eval's UMBRELA metric).
//!
//! A passage is relevant when its grade is `>= threshold` (default 2 on UMBRELA's 0-3 scale). A
//! missing (`None`) or NaN grade counts as not relevant and as gain 0 (TREC: unjudged = non-relevant).
//!
//! * `Precision@K = relevant in top K / K`.
//! * `AP@K = (1 / relevant in top K) * sum of Precision@i over relevant ranks i <= K`; 0 when the top K
//!   holds no relevant passage. The divisor is the number of relevant passages *in the top K*, as in
//!   Open RAG Eval (TREC's AP divides by all relevant documents of the collection instead).
//! * `MRR = 1 / rank of the first relevant passage` over the whole list; 0 when none is relevant.
//! * `Recall@K = relevant in top K / relevant in the whole given list`; `None` when the list holds no
//!   relevant passage (there is nothing to recall).
//! * `nDCG@K = DCG@K / IDCG@K`, `DCG@K = sum_{i<=K} gain(g_i) / log2(i + 1)`; the ideal ranking is the
//!   given list's grades sorted in decreasing order. Gains are linear (`max(g, 0)`, as trec_eval's
//!   `ndcg_cut`) by default, or exponential (`2^g - 1`, Burges et al. 2005) with [`Gain::Exponential`].
//!   `None` when no passage has a positive gain (IDCG = 0).
//!
//! `K = 0` and an empty list make every metric `None`. `K` larger than the list: by default
//! ([`ShortList::Undefined`]) the @K metrics are `None`, as Open RAG Eval skips such K; with
//! [`ShortList::PadNonRelevant`] the list is treated as padded with non-relevant passages
//! (TREC convention: `Precision@K = hits / K`).

use ragjudge_core::{Metric, MetricError, MetricOutput, Record};
use serde::{Deserialize, Serialize};

/// How the @K metrics treat a list shorter than K.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum ShortList {
    /// The metric is undefined (`None`), as in Open RAG Eval.
    #[default]
    Undefined,
    /// Missing ranks count as non-relevant passages (TREC).
    PadNonRelevant,
}

/// Gain of a grade in nDCG.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum Gain {
    /// `max(g, 0)` (trec_eval).
    #[default]
    Linear,
    /// `2^max(g, 0) - 1`.
    Exponential,
}

/// Options of the retrieval metrics.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RetrievalOptions {
    /// Grades `>=` this are relevant. Default 2.0 (Open RAG Eval).
    pub threshold: f64,
    /// Lists shorter than K. Default [`ShortList::Undefined`].
    pub short_list: ShortList,
    /// nDCG gain. Default [`Gain::Linear`].
    pub gain: Gain,
}

impl Default for RetrievalOptions {
    fn default() -> Self {
        Self { threshold: 2.0, short_list: ShortList::Undefined, gain: Gain::Linear }
    }
}

fn is_relevant(g: Option<f64>, threshold: f64) -> bool {
    g.is_some_and(|g| g >= threshold)
}

fn gain(g: Option<f64>, kind: Gain) -> f64 {
    let g = match g {
        Some(g) if g.is_finite() && g > 0.0 => g,
        _ => return 0.0,
    };
    match kind {
        Gain::Linear => g,
        Gain::Exponential => g.exp2() - 1.0,
    }
}

/// The cut-off actually used for K, or `None` when the @K metric is undefined.
pub(crate) fn cutoff(len: usize, k: usize, opts: &RetrievalOptions) -> Option<usize> {
    if len == 0 || k == 0 || (k > len && opts.short_list == ShortList::Undefined) {
        None
    } else {
        Some(k.min(len))
    }
}

fn hits(grades: &[Option<f64>], n: usize, threshold: f64) -> usize {
    grades[..n].iter().filter(|&&g| is_relevant(g, threshold)).count()
}

/// Precision@K (module docs).
pub fn precision_at_k(grades: &[Option<f64>], k: usize, opts: &RetrievalOptions) -> Option<f64> {
    let n = cutoff(grades.len(), k, opts)?;
    Some(hits(grades, n, opts.threshold) as f64 / k as f64)
}

/// AP@K with Open RAG Eval's divisor, the relevant passages in the top K (module docs).
pub fn ap_at_k(grades: &[Option<f64>], k: usize, opts: &RetrievalOptions) -> Option<f64> {
    let n = cutoff(grades.len(), k, opts)?;
    let mut found = 0usize;
    let mut sum = 0.0;
    for (i, &g) in grades[..n].iter().enumerate() {
        if is_relevant(g, opts.threshold) {
            found += 1;
            sum += found as f64 / (i + 1) as f64;
        }
    }
    Some(if found == 0 { 0.0 } else { sum / found as f64 })
}

/// Reciprocal rank of the first relevant passage; 0 when none, `None` for an empty list.
pub fn mrr(grades: &[Option<f64>], opts: &RetrievalOptions) -> Option<f64> {
    if grades.is_empty() {
        return None;
    }
    Some(grades.iter().position(|&g| is_relevant(g, opts.threshold)).map_or(0.0, |i| 1.0 / (i + 1) as f64))
}

/// Recall@K against the relevant passages of the given list; `None` when it has none.
pub fn recall_at_k(grades: &[Option<f64>], k: usize, opts: &RetrievalOptions) -> Option<f64> {
    let n = cutoff(grades.len(), k, opts)?;
    let total = hits(grades, grades.len(), opts.threshold);
    if total == 0 {
        return None;
    }
    Some(hits(grades, n, opts.threshold) as f64 / total as f64)
}

/// nDCG@K with the ideal ranking taken from the given grades; `None` when IDCG is 0.
pub fn ndcg_at_k(grades: &[Option<f64>], k: usize, opts: &RetrievalOptions) -> Option<f64> {
    let n = cutoff(grades.len(), k, opts)?;
    let dcg = |gains: &[f64]| -> f64 { gains.iter().enumerate().map(|(i, g)| g / ((i + 2) as f64).log2()).sum() };
    let gains: Vec<f64> = grades.iter().map(|&g| gain(g, opts.gain)).collect();
    let mut ideal = gains.clone();
    ideal.sort_by(|a, b| b.total_cmp(a));
    let idcg = dcg(&ideal[..n]);
    if idcg <= 0.0 {
        return None;
    }
    Some(dcg(&gains[..n]) / idcg)
}

/// The @K metrics for one K.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AtK {
    /// The cut-off.
    pub k: usize,
    /// Precision@K.
    pub precision: Option<f64>,
    /// AP@K.
    pub ap: Option<f64>,
    /// Recall@K.
    pub recall: Option<f64>,
    /// nDCG@K.
    pub ndcg: Option<f64>,
}

/// All retrieval metrics of one ranked list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RetrievalScores {
    /// One entry per requested K, in the order given.
    pub at_k: Vec<AtK>,
    /// MRR over the whole list.
    pub mrr: Option<f64>,
    /// Passages in the list.
    pub passages: usize,
    /// Passages with a grade.
    pub judged: usize,
    /// Relevant passages in the list.
    pub relevant: usize,
}

/// Computes every metric for each K of `ks`.
pub fn retrieval_scores(grades: &[Option<f64>], ks: &[usize], opts: &RetrievalOptions) -> RetrievalScores {
    RetrievalScores {
        at_k: ks
            .iter()
            .map(|&k| AtK {
                k,
                precision: precision_at_k(grades, k, opts),
                ap: ap_at_k(grades, k, opts),
                recall: recall_at_k(grades, k, opts),
                ndcg: ndcg_at_k(grades, k, opts),
            })
            .collect(),
        mrr: mrr(grades, opts),
        passages: grades.len(),
        judged: grades.iter().filter(|g| g.is_some_and(f64::is_finite)).count(),
        relevant: hits(grades, grades.len(), opts.threshold),
    }
}

/// [`Metric`] over [`Record::contexts`]' `relevance` grades.
///
/// Columns: `precision@K`, `ap@K`, `recall@K`, `ndcg@K` for each K, then `mrr`. A record whose
/// passages carry no grade at all gets `None` everywhere (the metric does not apply).
#[derive(Debug, Clone)]
pub struct RetrievalMetric {
    /// Cut-offs; default `[1, 3, 5]` (Open RAG Eval).
    pub ks: Vec<usize>,
    /// Threshold, short-list rule and gain.
    pub opts: RetrievalOptions,
}

impl Default for RetrievalMetric {
    fn default() -> Self {
        Self { ks: vec![1, 3, 5], opts: RetrievalOptions::default() }
    }
}

impl Metric for RetrievalMetric {
    fn name(&self) -> &str {
        "retrieval"
    }

    fn columns(&self) -> Vec<String> {
        let mut c = Vec::new();
        for k in &self.ks {
            c.push(format!("precision@{k}"));
            c.push(format!("ap@{k}"));
            c.push(format!("recall@{k}"));
            c.push(format!("ndcg@{k}"));
        }
        c.push("mrr".to_string());
        c
    }

    fn score(&self, record: &Record) -> Result<MetricOutput, MetricError> {
        let grades: Vec<Option<f64>> = record.contexts.iter().map(|c| c.relevance).collect();
        let s = retrieval_scores(&grades, &self.ks, &self.opts);
        let values = if s.judged == 0 {
            vec![None; self.ks.len() * 4 + 1]
        } else {
            let mut v = Vec::with_capacity(self.ks.len() * 4 + 1);
            for a in &s.at_k {
                v.extend([a.precision, a.ap, a.recall, a.ndcg]);
            }
            v.push(s.mrr);
            v
        };
        let detail = serde_json::to_value(&s)?;
        Ok(MetricOutput { values, detail: Some(detail) })
    }
}
