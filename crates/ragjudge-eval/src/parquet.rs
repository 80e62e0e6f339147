//! Per-record rows as Parquet (feature `parquet`, arrow-rs): the columns the CSV sink writes,
//! `id` and `system` (string), `run` (uint32, null when absent), one float64 per value column
//! (null = does not apply or failed) and `error` (string, null when no metric failed); snappy
//! compressed. Without the feature, writing or reading `.parquet` is a one-line error.

use crate::error::EvalError;
use crate::merge::RowTable;
use crate::sink::RowSink;
use std::path::Path;

#[cfg(feature = "parquet")]
pub use enabled::ParquetSink;

/// A Parquet sink writing `path` (created with missing parent directories).
pub fn create_sink(path: &Path) -> Result<Box<dyn RowSink>, EvalError> {
    #[cfg(feature = "parquet")]
    {
        Ok(Box::new(enabled::ParquetSink::create(path)?))
    }
    #[cfg(not(feature = "parquet"))]
    {
        Err(EvalError::settings(format!("{}: Parquet output needs the `parquet` feature", path.display())))
    }
}

/// Reads back the rows a [`create_sink`] sink wrote (any numeric value column type is accepted).
pub fn read_rows(path: &Path) -> Result<RowTable, EvalError> {
    #[cfg(feature = "parquet")]
    {
        enabled::read_rows(path)
    }
    #[cfg(not(feature = "parquet"))]
    {
        Err(EvalError::io(path, "Parquet input needs the `parquet` feature"))
    }
}

#[cfg(feature = "parquet")]
mod enabled {
    use super::*;
    use crate::sink::{OwnedRow, Row};
    use arrow_array::builder::{Float64Builder, StringBuilder, UInt32Builder};
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Float64Type, UInt32Type};
    use arrow_array::{Array, ArrayRef, RecordBatch, RecordBatchReader};
    use arrow_schema::{DataType, Field, Schema, SchemaRef};
    use parquet::arrow::ArrowWriter;
    use parquet::basic::Compression;
    use parquet::file::properties::WriterProperties;
    use ragjudge_artifacts::AtomicFile;
    use serde_json::Map;
    use std::fs::File;
    use std::path::PathBuf;
    use std::sync::Arc;

    /// Rows buffered per row group batch.
    const BATCH_ROWS: usize = 8192;

    /// Writes rows as Parquet, one record batch per [`BATCH_ROWS`] rows.
    pub struct ParquetSink {
        path: PathBuf,
        file: Option<AtomicFile>,
        writer: Option<ArrowWriter<AtomicFile>>,
        schema: Option<SchemaRef>,
        id: StringBuilder,
        system: StringBuilder,
        run: UInt32Builder,
        values: Vec<Float64Builder>,
        error: StringBuilder,
        pending: usize,
    }

    impl ParquetSink {
        /// Starts writing `path` (in place at [`crate::commit_output`]).
        pub fn create(path: &Path) -> Result<Self, EvalError> {
            ragjudge_artifacts::create_parent_dirs(path)?;
            let file = AtomicFile::create(path)?;
            Ok(Self {
                path: path.to_path_buf(),
                file: Some(file),
                writer: None,
                schema: None,
                id: StringBuilder::new(),
                system: StringBuilder::new(),
                run: UInt32Builder::new(),
                values: Vec::new(),
                error: StringBuilder::new(),
                pending: 0,
            })
        }

        fn failed(&self, e: impl std::fmt::Display) -> EvalError {
            EvalError::io(&self.path, format!("write failed: {e}"))
        }

        fn flush_batch(&mut self) -> Result<(), EvalError> {
            let (Some(schema), Some(writer)) = (&self.schema, self.writer.as_mut()) else { return Ok(()) };
            if self.pending == 0 {
                return Ok(());
            }
            let mut cols: Vec<ArrayRef> =
                vec![Arc::new(self.id.finish()), Arc::new(self.system.finish()), Arc::new(self.run.finish())];
            cols.extend(self.values.iter_mut().map(|b| Arc::new(b.finish()) as ArrayRef));
            cols.push(Arc::new(self.error.finish()));
            self.pending = 0;
            let batch = RecordBatch::try_new(schema.clone(), cols)
                .map_err(|e| EvalError::io(&self.path, format!("write failed: {e}")))?;
            writer.write(&batch).map_err(|e| EvalError::io(&self.path, format!("write failed: {e}")))
        }
    }

    impl RowSink for ParquetSink {
        fn start(&mut self, columns: &[String]) -> Result<(), EvalError> {
            let mut fields = vec![
                Field::new("id", DataType::Utf8, false),
                Field::new("system", DataType::Utf8, false),
                Field::new("run", DataType::UInt32, true),
            ];
            fields.extend(columns.iter().map(|c| Field::new(c, DataType::Float64, true)));
            fields.push(Field::new("error", DataType::Utf8, true));
            let schema = Arc::new(Schema::new(fields));
            let props = WriterProperties::builder().set_compression(Compression::SNAPPY).build();
            let file = self.file.take().ok_or_else(|| self.failed("started twice"))?;
            let writer = ArrowWriter::try_new(file, schema.clone(), Some(props)).map_err(|e| self.failed(e))?;
            self.values = columns.iter().map(|_| Float64Builder::new()).collect();
            self.schema = Some(schema);
            self.writer = Some(writer);
            Ok(())
        }

        fn write(&mut self, row: Row<'_>) -> Result<(), EvalError> {
            debug_assert_eq!(row.values.len(), self.values.len());
            self.id.append_value(row.id);
            self.system.append_value(row.system);
            self.run.append_option(row.run);
            for (b, v) in self.values.iter_mut().zip(row.values) {
                b.append_option(*v);
            }
            let error = row.errors.join("; ");
            self.error.append_option((!error.is_empty()).then_some(error));
            self.pending += 1;
            if self.pending == BATCH_ROWS {
                self.flush_batch()?;
            }
            Ok(())
        }

        fn finish(&mut self) -> Result<(), EvalError> {
            self.flush_batch()?;
            if let Some(w) = self.writer.take() {
                // Writes the footer and hands the complete file back for the commit.
                self.file = Some(w.into_inner().map_err(|e| self.failed(e))?);
            }
            Ok(())
        }

        fn into_output(self: Box<Self>) -> Option<AtomicFile> {
            self.file
        }
    }

    pub(super) fn read_rows(path: &Path) -> Result<RowTable, EvalError> {
        let file = File::open(path).map_err(|e| EvalError::io(path, format!("cannot open: {e}")))?;
        let reader = ragjudge_core::parquet_file::read_batches(file, BATCH_ROWS)
            .map_err(|e| EvalError::io(path, format!("not a readable Parquet file: {e}")))?;
        let schema = reader.schema();
        let names: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
        let col = |c: &str| names.iter().position(|n| n == c);
        let (Some(id), Some(sys)) = (col("id"), col("system")) else {
            return Err(EvalError::io(path, "needs `id` and `system` columns"));
        };
        let (run, error) = (col("run"), col("error"));
        let value_cols: Vec<usize> = (0..names.len())
            .filter(|&i| !["id", "system", "run", "error", "detail"].contains(&names[i].as_str()))
            .collect();
        let columns: Vec<String> = value_cols.iter().map(|&i| names[i].clone()).collect();
        let mut rows = Vec::new();
        let mut row0 = 0u64;
        let mut reader = reader;
        loop {
            // arrow-rs's decoder can panic on a corrupt file (arrow-rs#9992): a read error here.
            let next = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| reader.next()))
                .map_err(|_| EvalError::io(path, "read error: the Parquet decoder failed (a corrupt file?)"))?;
            let Some(batch) = next else { break };
            let batch = batch.map_err(|e| EvalError::io(path, format!("read error: {e}")))?;
            let at = |field: &str, e: String| EvalError::io(path, format!("column `{field}`: {e}"));
            let text =
                |i: usize| arrow_cast::cast(batch.column(i), &DataType::Utf8).map_err(|e| at(&names[i], e.to_string()));
            let (ids, systems) = (text(id)?, text(sys)?);
            let errors = error.map(text).transpose()?;
            let runs = run
                .map(|i| arrow_cast::cast(batch.column(i), &DataType::UInt32).map_err(|e| at("run", e.to_string())))
                .transpose()?;
            let values = value_cols
                .iter()
                .map(|&i| {
                    arrow_cast::cast(batch.column(i), &DataType::Float64).map_err(|e| at(&names[i], e.to_string()))
                })
                .collect::<Result<Vec<_>, _>>()?;
            let (ids, systems) = (ids.as_string::<i32>(), systems.as_string::<i32>());
            for r in 0..batch.num_rows() {
                let line = row0 + r as u64 + 1;
                let mut vals = Vec::with_capacity(values.len());
                for (v, &c) in values.iter().zip(&value_cols) {
                    let v = v.as_primitive::<Float64Type>();
                    vals.push(match v.is_null(r) {
                        true => None,
                        false if v.value(r).is_finite() => Some(v.value(r)),
                        false => {
                            return Err(EvalError::io(path, format!("row {line}: column `{}`: not finite", names[c])))
                        }
                    });
                }
                let err = errors.as_ref().map(|e| e.as_string::<i32>()).filter(|e| !e.is_null(r)).map(|e| e.value(r));
                rows.push(OwnedRow {
                    id: ids.value(r).to_string(),
                    system: systems.value(r).to_string(),
                    run: runs
                        .as_ref()
                        .map(|a| a.as_primitive::<UInt32Type>())
                        .filter(|a| !a.is_null(r))
                        .map(|a| a.value(r)),
                    values: vals,
                    detail: Map::new(),
                    errors: err.filter(|e| !e.is_empty()).map(|e| vec![e.to_string()]).unwrap_or_default(),
                });
            }
            row0 += batch.num_rows() as u64;
        }
        Ok(RowTable { columns, rows })
    }
}
