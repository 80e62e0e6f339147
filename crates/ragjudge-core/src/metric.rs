//! The [`Metric`] trait: score one record into a fixed set of named columns.

use crate::record::Record;
use ragjudge_models::Reason;
use serde_json::Value;

/// Why a metric could not score one record. The record's columns stay empty, the reason goes
/// to its `error` cell, the failure is counted, and the run goes on.
///
/// `Display` is the reason alone (one line), so that output files read the same whatever the kind.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MetricError {
    /// A model call failed after its retries; the model's error is kept as the source.
    #[error(transparent)]
    Model(Reason),
    /// A model answered, but its output stayed unusable after the retries.
    #[error("{0}")]
    Output(String),
    /// The record lacks something the metric needs, or holds something it cannot use.
    #[error("{0}")]
    Record(String),
    /// The metric broke its own contract (wrong number of values, a non-finite value).
    #[error("{0}")]
    Contract(String),
}

impl From<serde_json::Error> for MetricError {
    /// Evidence that cannot be serialised is a broken contract of the metric.
    fn from(e: serde_json::Error) -> Self {
        MetricError::Contract(e.to_string())
    }
}

/// What a metric computed for one record.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MetricOutput {
    /// One value per column of [`Metric::columns`], in that order; `None` when the metric does
    /// not apply to this record (e.g. no reference), never NaN.
    pub values: Vec<Option<f64>>,
    /// Evidence behind the numbers (matched tokens, per-sentence scores, ...), kept in JSONL output.
    pub detail: Option<Value>,
}

/// A metric: a small type with one required scoring method.
///
/// Model-backed metrics override [`Metric::score_batch`] to batch their inference.
pub trait Metric: Send + Sync {
    /// Short name of the metric family, e.g. `lexical`.
    fn name(&self) -> &str;
    /// Output column names, lower case (e.g. `rouge1_f`, `precision@5`).
    fn columns(&self) -> Vec<String>;
    /// Scores one record. An `Err` is a failure on this record only: it is recorded and counted.
    fn score(&self, record: &Record) -> Result<MetricOutput, MetricError>;
    /// Scores many records; the default scores them one by one.
    fn score_batch(&self, records: &[Record]) -> Vec<Result<MetricOutput, MetricError>> {
        records.iter().map(|r| self.score(r)).collect()
    }
}
