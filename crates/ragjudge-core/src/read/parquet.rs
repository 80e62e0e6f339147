//! Parquet records (feature `parquet`, arrow-rs): the columns have the JSONL field names.
//!
//! Each row becomes the JSON object a JSONL line would hold and goes through the same checks:
//! `contexts` as `list<struct<id, text, relevance>>` (or `list<string>`), `history` as
//! `list<struct<role, text>>`, `meta` as a struct or a string holding a JSON object; `contexts`
//! and `history` may also be strings holding JSON, as in CSV. Strings may be `string`,
//! `large_string`, `string_view` or dictionary-encoded; numbers any integer or float type.
//! Errors name the 1-based row in place of a line.

use super::json::{record_from_value, Defaults, FieldError};
use super::Item;
use crate::error::InputError;
use crate::parquet_file::read_batches;
use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::DataType;
use parquet::arrow::arrow_reader::ParquetRecordBatchReader;
use serde_json::{Map, Value};
use std::collections::VecDeque;
use std::fs::File;

/// Rows decoded per batch.
const BATCH_ROWS: usize = 1024;

/// Columns that may hold JSON text instead of nested values.
const JSON_TEXT: [&str; 4] = ["contexts", "history", "steps", "meta"];

/// A Parquet file being read batch by batch.
pub(crate) struct ParquetSource {
    name: String,
    system: String,
    reader: ParquetRecordBatchReader,
    batch: Option<RecordBatch>,
    next: usize,
    row: u64,
}

impl ParquetSource {
    /// Opens `file`; a file that is not Parquet is a fatal error.
    pub(crate) fn open(name: &str, file: File, system: String) -> Result<Self, InputError> {
        let reader = read_batches(file, BATCH_ROWS)
            .map_err(|e| InputError::fatal(name, None, format!("not a readable Parquet file: {e}")))?;
        Ok(Self { name: name.to_string(), system, reader, batch: None, next: 0, row: 0 })
    }

    /// Queues the next record (or error). `false` at the end or after a fatal error.
    pub(crate) fn advance(&mut self, pending: &mut VecDeque<Item>, attempts: &mut u64) -> bool {
        loop {
            if let Some(batch) = &self.batch {
                if self.next < batch.num_rows() {
                    let i = self.next;
                    self.next += 1;
                    self.row += 1;
                    *attempts += 1;
                    let at = Some(self.row);
                    let defaults = Defaults { id: self.row.to_string(), system: &self.system };
                    let item = row_value(batch, i)
                        .and_then(|v| record_from_value(v, defaults))
                        .map_err(|e| InputError::new(&self.name, at, e.field, e.message));
                    pending.push_back((at, item));
                    return true;
                }
            }
            // arrow-rs's decoder can panic on a corrupt file (e.g. definition levels that promise
            // more values than the page holds, arrow-rs#9992): a panic is a read error here.
            let next = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.reader.next()));
            let Ok(next) = next else {
                *attempts += 1;
                let at = Some(self.row + 1);
                let message = "read error: the Parquet decoder failed (a corrupt file?)";
                pending.push_back((None, Err(InputError::fatal(&self.name, at, message))));
                return false;
            };
            match next {
                None => return false,
                Some(Ok(b)) => {
                    self.batch = Some(b);
                    self.next = 0;
                }
                Some(Err(e)) => {
                    *attempts += 1;
                    let at = Some(self.row + 1);
                    pending.push_back((None, Err(InputError::fatal(&self.name, at, format!("read error: {e}")))));
                    return false;
                }
            }
        }
    }
}

/// The records of one Arrow record batch whose columns have the JSONL field names (the layout of
/// Parquet input), each or its error, in row order. Errors name `name` and the 1-based row
/// (`first_row` is the row number of the batch's first row); a record without `id` gets its row
/// number, one without `system` gets `system`. Used to score batches handed over through the
/// Arrow C data interface (Ray Data) without a file.
pub fn records_from_batch(
    batch: &RecordBatch,
    name: &str,
    first_row: u64,
    system: &str,
) -> Vec<Result<crate::Record, InputError>> {
    (0..batch.num_rows())
        .map(|i| {
            let row = first_row + i as u64;
            let defaults = Defaults { id: row.to_string(), system };
            row_value(batch, i)
                .and_then(|v| record_from_value(v, defaults))
                .map_err(|e| InputError::new(name, Some(row), e.field, e.message))
        })
        .collect()
}

/// Row `i` of `batch` as the JSON object of one record.
fn row_value(batch: &RecordBatch, i: usize) -> Result<Value, FieldError> {
    let mut obj = Map::new();
    for (field, col) in batch.schema().fields().iter().zip(batch.columns()) {
        let name = field.name();
        // A null cell is an absent field, as a key left out of a JSONL line.
        if col.is_null(i) {
            continue;
        }
        let mut v = value_at(col, i, name)?;
        if let (true, Value::String(text)) = (JSON_TEXT.contains(&name.as_str()), &v) {
            v = if text.trim().is_empty() {
                Value::Null
            } else {
                serde_json::from_str(text).map_err(|e| FieldError::new(name.as_str(), format!("not JSON: {e}")))?
            };
        }
        obj.insert(name.clone(), v);
    }
    Ok(Value::Object(obj))
}

/// The value at row `i` of `a` as JSON; `field` names it in errors.
fn value_at(a: &ArrayRef, i: usize, field: &str) -> Result<Value, FieldError> {
    if a.is_null(i) {
        return Ok(Value::Null);
    }
    let float = |x: f64| {
        serde_json::Number::from_f64(x)
            .map(Value::Number)
            .ok_or_else(|| FieldError::new(field, format!("not a finite number: {x}")))
    };
    Ok(match a.data_type() {
        DataType::Null => Value::Null,
        DataType::Boolean => Value::Bool(a.as_boolean().value(i)),
        DataType::Utf8 => Value::from(a.as_string::<i32>().value(i)),
        DataType::LargeUtf8 => Value::from(a.as_string::<i64>().value(i)),
        DataType::Utf8View => Value::from(a.as_string_view().value(i)),
        DataType::Int8 => Value::from(a.as_primitive::<Int8Type>().value(i)),
        DataType::Int16 => Value::from(a.as_primitive::<Int16Type>().value(i)),
        DataType::Int32 => Value::from(a.as_primitive::<Int32Type>().value(i)),
        DataType::Int64 => Value::from(a.as_primitive::<Int64Type>().value(i)),
        DataType::UInt8 => Value::from(a.as_primitive::<UInt8Type>().value(i)),
        DataType::UInt16 => Value::from(a.as_primitive::<UInt16Type>().value(i)),
        DataType::UInt32 => Value::from(a.as_primitive::<UInt32Type>().value(i)),
        DataType::UInt64 => Value::from(a.as_primitive::<UInt64Type>().value(i)),
        DataType::Float32 => float(f64::from(a.as_primitive::<Float32Type>().value(i)))?,
        DataType::Float64 => float(a.as_primitive::<Float64Type>().value(i))?,
        DataType::List(_) => list_value(&a.as_list::<i32>().value(i), field)?,
        DataType::LargeList(_) => list_value(&a.as_list::<i64>().value(i), field)?,
        DataType::Struct(fields) => {
            let s = a.as_struct();
            let mut obj = Map::new();
            for (f, col) in fields.iter().zip(s.columns()) {
                let at = format!("{field}.{}", f.name());
                obj.insert(f.name().clone(), value_at(col, i, &at)?);
            }
            Value::Object(obj)
        }
        DataType::Dictionary(_, _) => {
            let plain = arrow_cast::cast(&a.slice(i, 1), &dictionary_value_type(a.data_type()))
                .map_err(|e| FieldError::new(field, format!("cannot decode dictionary: {e}")))?;
            value_at(&plain, 0, field)?
        }
        other => return Err(FieldError::new(field, format!("unsupported Parquet column type {other}"))),
    })
}

fn dictionary_value_type(t: &DataType) -> DataType {
    match t {
        DataType::Dictionary(_, v) => (**v).clone(),
        other => other.clone(),
    }
}

fn list_value(items: &ArrayRef, field: &str) -> Result<Value, FieldError> {
    (0..items.len())
        .map(|j| value_at(items, j, &format!("{field}[{j}]")))
        .collect::<Result<Vec<_>, _>>()
        .map(Value::Array)
}
