//! The [`Metric`] trait: score one record into a fixed set of named columns.

use crate::record::Record;
use serde_json::Value;

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
    fn score(&self, record: &Record) -> Result<MetricOutput, String>;
    /// Scores many records; the default scores them one by one.
    fn score_batch(&self, records: &[Record]) -> Vec<Result<MetricOutput, String>> {
        records.iter().map(|r| self.score(r)).collect()
    }
}
