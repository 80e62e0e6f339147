//! [`TrecMetric`]: UMBRELA retrieval metrics, AutoNuggetizer scores and citation support of one
//! record, with Open RAG Eval's column names (`retrieval_score_*`, `generation_score_*`).

use crate::citations::{self, CitationEval};
use crate::error::TrecError;
use crate::judging::{CallOptions, Invalid};
use crate::nuggets::{self, NuggetEval, NuggetOptions};
use crate::umbrela::{self, UmbrelaScores};
use ragjudge_core::{Metric, MetricError, MetricOutput, Record};
use ragjudge_models::Judge;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Which parts of the TREC evaluation run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Parts {
    /// UMBRELA grades and Precision@K / AP@K / MRR.
    pub retrieval: bool,
    /// AutoNuggetizer (needs the UMBRELA grades; they are computed even when `retrieval` is off).
    pub nuggets: bool,
    /// Citation support.
    pub citations: bool,
}

impl Default for Parts {
    fn default() -> Self {
        Self { retrieval: true, nuggets: true, citations: true }
    }
}

/// Options of [`TrecMetric`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrecOptions {
    /// Cut-offs of Precision@K and AP@K; default `[1, 3, 5]` (Open RAG Eval's `k_values`).
    pub ks: Vec<usize>,
    /// Count the missing ranks of a list shorter than K as non-relevant (Open RAG Eval skips such K).
    pub pad_short_lists: bool,
    /// Parts to run.
    pub parts: Parts,
    /// AutoNuggetizer options.
    pub nuggets: NuggetOptions,
    /// Retries, structured output and seed of judge calls.
    pub call: CallOptions,
}

impl Default for TrecOptions {
    fn default() -> Self {
        Self {
            ks: vec![1, 3, 5],
            pad_short_lists: false,
            parts: Parts::default(),
            nuggets: NuggetOptions::default(),
            call: CallOptions::default(),
        }
    }
}

/// Everything computed for one record (the metric's detail).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TrecDetail {
    /// UMBRELA grades and retrieval metrics.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub umbrela: Option<UmbrelaScores>,
    /// Nuggets, labels, assignments and scores.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nuggets: Option<NuggetEval>,
    /// Answer parts, judgements and scores.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub citations: Option<CitationEval>,
    /// Judge outputs that could not be used.
    pub invalid: Vec<Invalid>,
}

/// Evaluates one record: the judge calls of each enabled part, batched per step.
pub fn evaluate(judge: &dyn Judge, record: &Record, opts: &TrecOptions) -> Result<TrecDetail, TrecError> {
    if record.query.trim().is_empty() {
        return Err(TrecError::Record("the query is empty".into()));
    }
    let mut detail = TrecDetail::default();
    let passages: Vec<&str> = record.contexts.iter().map(|c| c.text.as_str()).collect();
    if opts.parts.retrieval || opts.parts.nuggets {
        let grades = umbrela::grade(judge, &record.query, &passages, &opts.call, &mut detail.invalid);
        if opts.parts.nuggets {
            let graded: Vec<(&str, Option<u8>)> = passages.iter().copied().zip(grades.iter().copied()).collect();
            detail.nuggets = Some(nuggets::evaluate(
                judge,
                &record.query,
                &graded,
                &record.answer,
                &opts.nuggets,
                &opts.call,
                &mut detail.invalid,
            ));
        }
        if opts.parts.retrieval {
            detail.umbrela = Some(umbrela::scores(&grades, &opts.ks, opts.pad_short_lists));
        }
    }
    if opts.parts.citations {
        detail.citations = Some(citations::evaluate(judge, &record.answer, &passages, &opts.call, &mut detail.invalid));
    }
    Ok(detail)
}

/// Column names of `opts`, in value order.
pub fn columns(opts: &TrecOptions) -> Vec<String> {
    let mut c = Vec::new();
    if opts.parts.retrieval {
        c.push("retrieval_score_mean_umbrela_score".to_string());
        for k in &opts.ks {
            c.push(format!("retrieval_score_umbrela_precision@{k}"));
        }
        for k in &opts.ks {
            c.push(format!("retrieval_score_umbrela_ap@{k}"));
        }
        c.push("retrieval_score_umbrela_mrr".to_string());
    }
    if opts.parts.nuggets {
        for name in [
            "nuggetizer_all",
            "nuggetizer_all_strict",
            "vital_nuggetizer_score",
            "nuggetizer_vital_strict",
            "nuggetizer_weighted",
            "nuggetizer_weighted_strict",
        ] {
            c.push(format!("generation_score_{name}"));
        }
    }
    if opts.parts.citations {
        for name in ["citation_precision", "citation_recall", "citation_f1_score"] {
            c.push(format!("generation_score_{name}"));
        }
    }
    c.push("judge_invalid_items".to_string());
    c
}

/// The values of [`columns`] from a detail.
pub fn values(detail: &TrecDetail, opts: &TrecOptions) -> Vec<Option<f64>> {
    let mut v = Vec::new();
    if opts.parts.retrieval {
        let u = detail.umbrela.as_ref();
        v.push(u.and_then(|u| u.mean));
        for i in 0..opts.ks.len() {
            v.push(u.and_then(|u| u.at_k.get(i)).and_then(|a| a.precision));
        }
        for i in 0..opts.ks.len() {
            v.push(u.and_then(|u| u.at_k.get(i)).and_then(|a| a.ap));
        }
        v.push(u.and_then(|u| u.mrr));
    }
    if opts.parts.nuggets {
        let s = detail.nuggets.as_ref().map(|n| n.scores).unwrap_or_default();
        v.extend([s.all, s.all_strict, s.vital, s.vital_strict, s.weighted, s.weighted_strict]);
    }
    if opts.parts.citations {
        let s = detail.citations.as_ref().map(|c| c.scores).unwrap_or_default();
        v.extend([s.precision, s.recall, s.f1]);
    }
    v.push(Some(detail.invalid.len() as f64));
    v
}

/// The TREC RAG metrics of Open RAG Eval with one judge.
pub struct TrecMetric {
    judge: Arc<dyn Judge>,
    opts: TrecOptions,
}

impl TrecMetric {
    /// A metric asking `judge`; fails on options that cannot work (no K, K = 0, nothing to run).
    pub fn new(judge: Arc<dyn Judge>, opts: TrecOptions) -> Result<Self, TrecError> {
        if opts.parts.retrieval && (opts.ks.is_empty() || opts.ks.contains(&0)) {
            return Err(TrecError::Options("the trec metrics need positive cut-offs K, e.g. 1,3,5".into()));
        }
        if !(opts.parts.retrieval || opts.parts.nuggets || opts.parts.citations) {
            return Err(TrecError::Options("no trec metric selected".into()));
        }
        if opts.nuggets.rounds == 0
            || opts.nuggets.max_nuggets == 0
            || opts.nuggets.keep == 0
            || opts.nuggets.batch == 0
        {
            return Err(TrecError::Options(
                "nugget rounds, maximum, kept count and batch size must be at least 1".into(),
            ));
        }
        Ok(Self { judge, opts })
    }

    /// The options.
    pub fn options(&self) -> &TrecOptions {
        &self.opts
    }
}

impl Metric for TrecMetric {
    fn name(&self) -> &str {
        "trec"
    }

    fn columns(&self) -> Vec<String> {
        columns(&self.opts)
    }

    fn score(&self, record: &Record) -> Result<MetricOutput, MetricError> {
        let mut out = self.score_batch(std::slice::from_ref(record));
        out.pop().unwrap_or_else(|| Err(MetricError::Contract("no output".into())))
    }

    fn score_batch(&self, records: &[Record]) -> Vec<Result<MetricOutput, MetricError>> {
        let details: Vec<Result<TrecDetail, TrecError>> =
            records.iter().map(|r| evaluate(self.judge.as_ref(), r, &self.opts)).collect();
        details
            .into_iter()
            .map(|d| {
                let d = d?;
                let detail = serde_json::to_value(&d)?;
                Ok(MetricOutput { values: values(&d, &self.opts), detail: Some(detail) })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judging::fake::FakeJudge;
    use ragjudge_core::Context;

    #[test]
    fn columns_follow_open_rag_eval_names_and_match_values() {
        let opts = TrecOptions { ks: vec![1, 3], ..TrecOptions::default() };
        let c = columns(&opts);
        assert_eq!(c[0], "retrieval_score_mean_umbrela_score");
        assert_eq!(c[1], "retrieval_score_umbrela_precision@1");
        assert!(c.contains(&"generation_score_vital_nuggetizer_score".to_string()));
        assert!(c.contains(&"generation_score_citation_f1_score".to_string()));
        assert_eq!(values(&TrecDetail::default(), &opts).len(), c.len());
    }

    #[test]
    fn a_record_with_garbage_outputs_is_scored_as_invalid_not_zero() {
        let judge = Arc::new(FakeJudge::new(|_, _| "no idea".into()));
        let m = TrecMetric::new(judge.clone(), TrecOptions::default()).unwrap();
        let record = Record {
            id: "q".into(),
            query: "What?".into(),
            contexts: vec![Context { text: "p1".into(), ..Context::default() }],
            answer: "It is so [1].".into(),
            ..Record::default()
        };
        let out = m.score(&record).unwrap();
        let cols = m.columns();
        let get = |n: &str| out.values[cols.iter().position(|c| c == n).unwrap()];
        assert_eq!(get("retrieval_score_mean_umbrela_score"), None);
        assert_eq!(get("retrieval_score_umbrela_mrr"), None);
        assert_eq!(get("generation_score_nuggetizer_all"), None);
        assert_eq!(get("generation_score_citation_f1_score"), None);
        // UMBRELA passage 1, nugget creation round 1, citation part 1 [1].
        assert_eq!(get("judge_invalid_items"), Some(3.0));
        // Each invalid item tried three times.
        assert_eq!(judge.count(), 9);
    }

    #[test]
    fn bad_options_are_refused() {
        let judge: Arc<dyn Judge> = Arc::new(FakeJudge::new(|_, _| String::new()));
        assert!(TrecMetric::new(judge.clone(), TrecOptions { ks: vec![0], ..TrecOptions::default() }).is_err());
        let none = Parts { retrieval: false, nuggets: false, citations: false };
        assert!(TrecMetric::new(judge, TrecOptions { parts: none, ..TrecOptions::default() }).is_err());
    }

    #[test]
    fn refusals_keep_their_kind_and_text() {
        let judge: Arc<dyn Judge> = Arc::new(FakeJudge::new(|_, _| String::new()));
        let e = TrecMetric::new(judge.clone(), TrecOptions { ks: vec![], ..TrecOptions::default() }).err();
        assert_eq!(e, Some(TrecError::Options("the trec metrics need positive cut-offs K, e.g. 1,3,5".into())));
        assert_eq!(
            MetricError::from(e.unwrap()),
            MetricError::Contract("the trec metrics need positive cut-offs K, e.g. 1,3,5".into())
        );
        let m = TrecMetric::new(judge, TrecOptions::default()).unwrap();
        let blank = Record { id: "q".into(), query: "  ".into(), ..Record::default() };
        assert_eq!(m.score(&blank), Err(MetricError::Record("the query is empty".into())));
    }
}
