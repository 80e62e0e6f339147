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
    use crate::batches::{batch_to_rows, score_schema};
    use crate::sink::Row;
    use arrow_array::builder::{Float64Builder, StringBuilder, UInt32Builder};
    use arrow_array::{ArrayRef, RecordBatch, RecordBatchReader};
    use arrow_schema::SchemaRef;
    use parquet::arrow::ArrowWriter;
    use parquet::basic::Compression;
    use parquet::file::properties::WriterProperties;
    use ragjudge_artifacts::AtomicFile;
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
            let schema = score_schema(columns, false);
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
        let mut reader = ragjudge_core::parquet_file::read_batches(file, BATCH_ROWS)
            .map_err(|e| EvalError::io(path, format!("not a readable Parquet file: {e}")))?;
        let mut table: Option<RowTable> = None;
        let mut row0 = 1u64;
        loop {
            // arrow-rs's decoder can panic on a corrupt file (arrow-rs#9992): a read error here.
            let next = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| reader.next()))
                .map_err(|_| EvalError::io(path, "read error: the Parquet decoder failed (a corrupt file?)"))?;
            let Some(batch) = next else { break };
            let batch = batch.map_err(|e| EvalError::io(path, format!("read error: {e}")))?;
            let part = batch_to_rows(&batch, row0).map_err(|e| EvalError::io(path, e))?;
            row0 += batch.num_rows() as u64;
            match table.as_mut() {
                None => table = Some(part),
                Some(t) => t.rows.extend(part.rows),
            }
        }
        match table {
            Some(t) => Ok(t),
            // No batch: the columns come from the schema alone.
            None => batch_to_rows(&RecordBatch::new_empty(reader.schema()), 1).map_err(|e| EvalError::io(path, e)),
        }
    }
}
