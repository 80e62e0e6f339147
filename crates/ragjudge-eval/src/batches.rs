//! Scoring Arrow record batches in memory (feature `parquet`, arrow-rs): the engine behind
//! distributed runs that hand blocks of records over through the Arrow C data interface (Ray
//! Data's `map_batches`), with no file and no per-row object of the caller's language.
//!
//! Records in have the columns of Parquet input (the JSONL field names); score rows out have the
//! columns of the Parquet sink (`id`, `system`, `run`, one float64 per value column, `error`,
//! and `detail` as JSON text when asked). A block's rows feed a [`Summarizer`] whose
//! [state](Summarizer::into_state) merges with the other blocks' into the summary one `score`
//! run prints: means bit for bit, intervals up to summation order (Chamandy et al. 2012's
//! Poisson bootstrap with keyed weights; docs/scale.md).

use crate::error::EvalError;
use crate::evaluator::{EvalSettings, Evaluator};
use crate::merge::RowTable;
use crate::progress::NoProgress;
use crate::sink::{MemorySink, OwnedRow};
use crate::summary::Summarizer;
use arrow_array::builder::{Float64Builder, StringBuilder, UInt32Builder};
use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, UInt32Type};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use ragjudge_core::read::records_from_batch;
use serde_json::{Map, Value};
use std::sync::Arc;

/// Columns of a score batch that are not values.
const KEY_COLUMNS: [&str; 5] = ["id", "system", "run", "error", "detail"];

/// The schema of score rows with value `columns`: `id`, `system`, `run` (uint32, nullable), one
/// nullable float64 per column, `error` (nullable) and, with `detail`, `detail` (JSON text).
pub fn score_schema(columns: &[String], detail: bool) -> SchemaRef {
    let mut fields = vec![
        Field::new("id", DataType::Utf8, false),
        Field::new("system", DataType::Utf8, false),
        Field::new("run", DataType::UInt32, true),
    ];
    fields.extend(columns.iter().map(|c| Field::new(c, DataType::Float64, true)));
    fields.push(Field::new("error", DataType::Utf8, true));
    if detail {
        fields.push(Field::new("detail", DataType::Utf8, true));
    }
    Arc::new(Schema::new(fields))
}

/// `rows` as one record batch of [`score_schema`].
pub fn rows_to_batch(columns: &[String], rows: &[OwnedRow], detail: bool) -> Result<RecordBatch, EvalError> {
    let (mut id, mut system, mut run) = (StringBuilder::new(), StringBuilder::new(), UInt32Builder::new());
    let mut values: Vec<Float64Builder> = columns.iter().map(|_| Float64Builder::with_capacity(rows.len())).collect();
    let (mut error, mut details) = (StringBuilder::new(), StringBuilder::new());
    for row in rows {
        id.append_value(&row.id);
        system.append_value(&row.system);
        run.append_option(row.run);
        for (b, v) in values.iter_mut().zip(&row.values) {
            b.append_option(*v);
        }
        let e = row.errors.join("; ");
        error.append_option((!e.is_empty()).then_some(e));
        if detail {
            let d = (!row.detail.is_empty()).then(|| Value::Object(row.detail.clone()).to_string());
            details.append_option(d);
        }
    }
    let mut cols: Vec<ArrayRef> = vec![Arc::new(id.finish()), Arc::new(system.finish()), Arc::new(run.finish())];
    cols.extend(values.iter_mut().map(|b| Arc::new(b.finish()) as ArrayRef));
    cols.push(Arc::new(error.finish()));
    if detail {
        cols.push(Arc::new(details.finish()));
    }
    RecordBatch::try_new(score_schema(columns, detail), cols)
        .map_err(|e| EvalError::settings(format!("cannot build the score batch: {e}")))
}

/// The score rows of `batch` (any layout [`score_schema`] describes; value columns of any
/// numeric type). Errors name the 1-based row (`first_row` is the batch's first) and column.
pub fn batch_to_rows(batch: &RecordBatch, first_row: u64) -> Result<RowTable, String> {
    let schema = batch.schema();
    let names: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
    let col = |c: &str| names.iter().position(|n| n == c);
    let (Some(id), Some(sys)) = (col("id"), col("system")) else {
        return Err("needs `id` and `system` columns".to_string());
    };
    let (run, error) = (col("run"), col("error"));
    let value_cols: Vec<usize> = (0..names.len()).filter(|&i| !KEY_COLUMNS.contains(&names[i].as_str())).collect();
    let at = |field: &str, e: String| format!("column `{field}`: {e}");
    let cast = |i: usize, t: &DataType| arrow_cast::cast(batch.column(i), t).map_err(|e| at(&names[i], e.to_string()));
    let (ids, systems) = (cast(id, &DataType::Utf8)?, cast(sys, &DataType::Utf8)?);
    let errors = error.map(|i| cast(i, &DataType::Utf8)).transpose()?;
    let runs = run.map(|i| cast(i, &DataType::UInt32)).transpose()?;
    let values = value_cols.iter().map(|&i| cast(i, &DataType::Float64)).collect::<Result<Vec<_>, _>>()?;
    let (ids, systems) = (ids.as_string::<i32>(), systems.as_string::<i32>());
    let errors = errors.as_ref().map(|e| e.as_string::<i32>());
    let runs = runs.as_ref().map(|a| a.as_primitive::<UInt32Type>());
    let values: Vec<_> = values.iter().map(|v| v.as_primitive::<Float64Type>()).collect();
    let mut rows = Vec::with_capacity(batch.num_rows());
    for r in 0..batch.num_rows() {
        let row = first_row + r as u64;
        if ids.is_null(r) || systems.is_null(r) {
            return Err(format!("row {row}: `id` and `system` must not be null"));
        }
        let mut vals = Vec::with_capacity(values.len());
        for (v, &c) in values.iter().zip(&value_cols) {
            vals.push(match v.is_null(r) {
                true => None,
                false if v.value(r).is_finite() => Some(v.value(r)),
                false => return Err(format!("row {row}: column `{}`: not finite", names[c])),
            });
        }
        let err = errors.filter(|e| !e.is_null(r)).map(|e| e.value(r)).filter(|e| !e.is_empty());
        rows.push(OwnedRow {
            id: ids.value(r).to_string(),
            system: systems.value(r).to_string(),
            run: runs.filter(|a| !a.is_null(r)).map(|a| a.value(r)),
            values: vals,
            detail: Map::new(),
            errors: err.map(|e| vec![e.to_string()]).unwrap_or_default(),
        });
    }
    Ok(RowTable { columns: value_cols.iter().map(|&i| names[i].clone()).collect(), rows })
}

/// Adds the score rows of `batch` to `summary`, which must have the batch's value columns in
/// the same order; a row with an `error` counts as failed, as in `score`.
pub fn summarize_batch(summary: &mut Summarizer, batch: &RecordBatch, first_row: u64) -> Result<(), EvalError> {
    let table = batch_to_rows(batch, first_row).map_err(EvalError::settings)?;
    if table.columns != summary.columns() {
        return Err(EvalError::settings(format!(
            "score batch columns {:?} are not the summary's {:?}",
            table.columns,
            summary.columns()
        )));
    }
    for row in &table.rows {
        summary.add(&row.id, &row.system, row.run, &row.values, !row.errors.is_empty());
    }
    Ok(())
}

/// Metrics built once, scoring one record batch at a time: each worker of a distributed run
/// holds one, so models load once per worker.
pub struct BatchScorer {
    evaluator: Evaluator,
    name: String,
    system: String,
    detail: bool,
}

impl BatchScorer {
    /// A scorer of `evaluator`'s metrics; records without `system` get `system`; errors name
    /// `name` (e.g. `block`) and the row; `detail` adds each row's evidence as JSON text.
    pub fn new(evaluator: Evaluator, name: &str, system: &str, detail: bool) -> Self {
        Self { evaluator, name: name.to_string(), system: system.to_string(), detail }
    }

    /// Settings for the evaluator of a [`BatchScorer`]: `settings` with a single bootstrap
    /// replicate, since a block's own summary is thrown away (the rows are summarised where
    /// the blocks meet, [`summarize_batch`]).
    pub fn settings(settings: EvalSettings) -> EvalSettings {
        EvalSettings { bootstrap: 1, ..settings }
    }

    /// The value columns of the rows.
    pub fn columns(&self) -> &[String] {
        self.evaluator.columns()
    }

    /// The score rows of the records of `batches`, in order (`first_row`: the row number of
    /// the first batch's first row, for errors). A malformed record is an error naming its row
    /// and field; a metric that fails on a record is recorded in that row's `error`, as in
    /// `score`.
    pub fn score(&self, batches: &[RecordBatch], first_row: u64) -> Result<RecordBatch, EvalError> {
        let mut records = Vec::with_capacity(batches.iter().map(RecordBatch::num_rows).sum());
        let mut row = first_row;
        for batch in batches {
            for r in records_from_batch(batch, &self.name, row, &self.system) {
                records.push(r?);
            }
            row += batch.num_rows() as u64;
        }
        let mut sink = MemorySink::default();
        self.evaluator.evaluate_records(records, Some(&mut sink), Vec::new(), &NoProgress)?;
        rows_to_batch(self.evaluator.columns(), &sink.rows, self.detail)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: &str, values: Vec<Option<f64>>, errors: Vec<String>) -> OwnedRow {
        OwnedRow { id: id.into(), system: "s".into(), run: None, values, detail: Map::new(), errors }
    }

    #[test]
    fn rows_round_trip_through_a_batch() {
        let columns = vec!["x".to_string(), "y".to_string()];
        let mut with_detail = row("q2", vec![None, Some(0.25)], vec!["ciu: failed".into()]);
        with_detail.run = Some(3);
        with_detail.detail.insert("ciu".into(), serde_json::json!({"gain": 1}));
        let rows = vec![row("q1", vec![Some(1.5), None], vec![]), with_detail];
        let batch = rows_to_batch(&columns, &rows, true).unwrap();
        assert_eq!(batch.schema(), score_schema(&columns, true));
        assert_eq!(batch.column(6).as_string::<i32>().value(1), r#"{"ciu":{"gain":1}}"#);
        let back = batch_to_rows(&batch, 1).unwrap();
        assert_eq!(back.columns, columns);
        // The detail column is not read back (as from a Parquet score file).
        let mut want = rows.clone();
        want[1].detail = Map::new();
        assert_eq!(back.rows, want);
    }

    #[test]
    fn a_bad_score_batch_names_row_and_column() {
        let columns = vec!["x".to_string()];
        let batch = rows_to_batch(&columns, &[row("q1", vec![Some(1.0)], vec![])], false).unwrap();
        let mut cols = batch.columns().to_vec();
        cols[3] = Arc::new(arrow_array::Float64Array::from(vec![f64::NAN]));
        let bad = RecordBatch::try_new(batch.schema(), cols).unwrap();
        assert_eq!(batch_to_rows(&bad, 7).unwrap_err(), "row 7: column `x`: not finite");
        let mut summary = Summarizer::new(vec!["y".into()], 10, 0);
        let err = summarize_batch(&mut summary, &batch, 1).unwrap_err().to_string();
        assert!(err.contains(r#"columns ["x"] are not the summary's ["y"]"#), "{err}");
    }
}
