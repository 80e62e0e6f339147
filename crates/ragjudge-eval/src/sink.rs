//! Where per-record rows go: a [`RowSink`]. CSV and JSONL files (chosen by extension) and memory.
//!
//! A row is the record's key (`id`, `system`, `run`), one value per column (`None` = does not
//! apply), each metric family's evidence (JSONL only) and the reasons of metrics that failed.
//!
//! A file sink writes a temporary file beside its destination ([`AtomicFile`]); after
//! [`RowSink::finish`] the caller puts it in place with [`commit_output`], together with its
//! sidecars, so an interrupted or failed run leaves the previous output as it was.

use crate::error::EvalError;
use ragjudge_artifacts::{AtomicFile, OutputSet};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::io::Write;
use std::path::{Path, PathBuf};

/// One scored record, borrowed from the engine while it is written.
#[derive(Debug, Clone, Copy)]
pub struct Row<'a> {
    /// Record id.
    pub id: &'a str,
    /// System name.
    pub system: &'a str,
    /// Repetition index, if any.
    pub run: Option<u32>,
    /// One value per column (`None` = not applicable or failed).
    pub values: &'a [Option<f64>],
    /// Evidence per metric family.
    pub detail: &'a Map<String, Value>,
    /// Failure reasons of metrics that failed on this record, `family: reason`.
    pub errors: &'a [String],
}

/// One scored record, owned (as [`MemorySink`] keeps it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OwnedRow {
    /// Record id.
    pub id: String,
    /// System name.
    pub system: String,
    /// Repetition index, if any.
    pub run: Option<u32>,
    /// One value per column.
    pub values: Vec<Option<f64>>,
    /// Evidence per metric family.
    pub detail: Map<String, Value>,
    /// Failure reasons of metrics that failed on this record.
    pub errors: Vec<String>,
}

impl From<Row<'_>> for OwnedRow {
    fn from(r: Row<'_>) -> Self {
        OwnedRow {
            id: r.id.to_string(),
            system: r.system.to_string(),
            run: r.run,
            values: r.values.to_vec(),
            detail: r.detail.clone(),
            errors: r.errors.to_vec(),
        }
    }
}

/// Receives the rows of an evaluation in input order.
pub trait RowSink {
    /// Called once before the first row with the value columns, in order.
    fn start(&mut self, _columns: &[String]) -> Result<(), EvalError> {
        Ok(())
    }
    /// Takes one row.
    fn write(&mut self, row: Row<'_>) -> Result<(), EvalError>;
    /// Flushes whatever is buffered; called once after the last row. A file sink's output is
    /// then complete but not yet in place: see [`commit_output`].
    fn finish(&mut self) -> Result<(), EvalError> {
        Ok(())
    }
    /// The finished output file of a file sink, for [`commit_output`]; `None` for other sinks.
    fn into_output(self: Box<Self>) -> Option<AtomicFile> {
        None
    }
}

/// Puts a finished file sink's output in place together with `sidecars` (the sidecars first, the
/// rows last; see [`OutputSet`]). A sink without a file commits only the sidecars.
pub fn commit_output(sink: Box<dyn RowSink>, sidecars: OutputSet) -> Result<(), EvalError> {
    let mut set = OutputSet::new();
    if let Some(file) = sink.into_output() {
        set.push(file);
    }
    set.extend(sidecars);
    Ok(set.commit()?)
}

/// Keeps every row in memory (for the Python package, servers and tests).
#[derive(Debug, Clone, Default)]
pub struct MemorySink {
    /// The value columns, once started.
    pub columns: Vec<String>,
    /// The rows, in input order.
    pub rows: Vec<OwnedRow>,
}

impl RowSink for MemorySink {
    fn start(&mut self, columns: &[String]) -> Result<(), EvalError> {
        self.columns = columns.to_vec();
        Ok(())
    }

    fn write(&mut self, row: Row<'_>) -> Result<(), EvalError> {
        self.rows.push(row.into());
        Ok(())
    }
}

/// A file sink for `path`, by extension: `.csv` ([`CsvSink`]), `.jsonl` / `.json` / `.ndjson`
/// ([`JsonlSink`]) or `.parquet` (feature `parquet`). Creates missing parent directories; takes
/// the output's lock (an error if another process is writing it). Nothing appears at `path`
/// until [`commit_output`].
pub fn create_file_sink(path: &Path) -> Result<Box<dyn RowSink>, EvalError> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    match ext.as_str() {
        "csv" => Ok(Box::new(CsvSink::create(path)?)),
        "jsonl" | "json" | "ndjson" => Ok(Box::new(JsonlSink::create(path)?)),
        "parquet" => crate::parquet::create_sink(path),
        _ => Err(EvalError::settings(format!(
            "{}: unknown output format (use .csv, .jsonl or .parquet)",
            path.display()
        ))),
    }
}

fn create(path: &Path) -> Result<AtomicFile, EvalError> {
    ragjudge_artifacts::create_parent_dirs(path)?;
    Ok(AtomicFile::create(path)?)
}

fn write_failed(path: &Path, e: impl std::fmt::Display) -> EvalError {
    EvalError::io(path, format!("write failed: {e}"))
}

/// CSV rows: `id, system, run`, the value columns, `error`; empty cells for `None`.
pub struct CsvSink {
    writer: csv::Writer<AtomicFile>,
    width: usize,
    path: PathBuf,
}

impl CsvSink {
    /// Starts writing `path` (in place at [`commit_output`]).
    pub fn create(path: &Path) -> Result<Self, EvalError> {
        Ok(Self { writer: csv::Writer::from_writer(create(path)?), width: 0, path: path.to_path_buf() })
    }
}

impl RowSink for CsvSink {
    fn start(&mut self, columns: &[String]) -> Result<(), EvalError> {
        self.width = columns.len();
        let mut header = vec!["id", "system", "run"];
        header.extend(columns.iter().map(String::as_str));
        header.push("error");
        self.writer.write_record(&header).map_err(|e| write_failed(&self.path, e))
    }

    fn write(&mut self, row: Row<'_>) -> Result<(), EvalError> {
        debug_assert_eq!(row.values.len(), self.width);
        let mut cells: Vec<String> = Vec::with_capacity(row.values.len() + 4);
        cells.push(row.id.to_string());
        cells.push(row.system.to_string());
        cells.push(row.run.map(|r| r.to_string()).unwrap_or_default());
        cells.extend(row.values.iter().map(|v| v.map(|x| x.to_string()).unwrap_or_default()));
        cells.push(row.errors.join("; "));
        self.writer.write_record(&cells).map_err(|e| write_failed(&self.path, e))
    }

    fn finish(&mut self) -> Result<(), EvalError> {
        self.writer.flush().map_err(|e| write_failed(&self.path, e))
    }

    fn into_output(self: Box<Self>) -> Option<AtomicFile> {
        self.writer.into_inner().ok()
    }
}

/// One row as a JSONL line holds it: `{"id", "system", "run"?, COLUMN: value|null...,
/// "detail"?, "error"?}` (failure reasons joined by `; `).
pub fn row_object(columns: &[String], row: Row<'_>) -> Map<String, Value> {
    let mut obj = Map::new();
    obj.insert("id".into(), Value::from(row.id));
    obj.insert("system".into(), Value::from(row.system));
    if let Some(r) = row.run {
        obj.insert("run".into(), Value::from(r));
    }
    for (c, v) in columns.iter().zip(row.values) {
        obj.insert(c.clone(), v.map(Value::from).unwrap_or(Value::Null));
    }
    if !row.detail.is_empty() {
        obj.insert("detail".into(), Value::Object(row.detail.clone()));
    }
    let error = row.errors.join("; ");
    if !error.is_empty() {
        obj.insert("error".into(), Value::from(error));
    }
    obj
}

/// JSONL rows: `{"id", "system", "run"?, COLUMN: value|null..., "detail"?, "error"?}`.
pub struct JsonlSink {
    writer: AtomicFile,
    columns: Vec<String>,
    path: PathBuf,
}

impl JsonlSink {
    /// Starts writing `path` (in place at [`commit_output`]).
    pub fn create(path: &Path) -> Result<Self, EvalError> {
        Ok(Self { writer: create(path)?, columns: Vec::new(), path: path.to_path_buf() })
    }
}

impl RowSink for JsonlSink {
    fn start(&mut self, columns: &[String]) -> Result<(), EvalError> {
        self.columns = columns.to_vec();
        Ok(())
    }

    fn write(&mut self, row: Row<'_>) -> Result<(), EvalError> {
        debug_assert_eq!(row.values.len(), self.columns.len());
        let obj = row_object(&self.columns, row);
        serde_json::to_writer(&mut self.writer, &obj).map_err(|e| write_failed(&self.path, e))?;
        self.writer.write_all(b"\n").map_err(|e| write_failed(&self.path, e))
    }

    fn finish(&mut self) -> Result<(), EvalError> {
        self.writer.flush().map_err(|e| write_failed(&self.path, e))
    }

    fn into_output(self: Box<Self>) -> Option<AtomicFile> {
        Some(self.writer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row<'a>(values: &'a [Option<f64>], detail: &'a Map<String, Value>, errors: &'a [String]) -> Row<'a> {
        Row { id: "q1", system: "s", run: Some(2), values, detail, errors }
    }

    #[test]
    fn csv_and_jsonl_rows_leave_missing_values_empty() {
        let dir = tempfile::tempdir().unwrap();
        let columns = vec!["a".to_string(), "b".to_string()];
        let mut detail = Map::new();
        detail.insert("lexical".into(), serde_json::json!({"k": 1}));
        let errors = vec!["ciu: boom".to_string()];
        for name in ["rows.csv", "rows.jsonl"] {
            let path = dir.path().join("sub").join(name);
            let mut sink = create_file_sink(&path).unwrap();
            sink.start(&columns).unwrap();
            sink.write(row(&[Some(0.5), None], &detail, &errors)).unwrap();
            sink.finish().unwrap();
            assert!(!path.exists(), "nothing in place before the commit");
            commit_output(sink, OutputSet::new()).unwrap();
            let text = std::fs::read_to_string(&path).unwrap();
            let want = if name.ends_with("csv") {
                "id,system,run,a,b,error\nq1,s,2,0.5,,ciu: boom\n"
            } else {
                "{\"id\":\"q1\",\"system\":\"s\",\"run\":2,\"a\":0.5,\"b\":null,\"detail\":{\"lexical\":{\"k\":1}},\"error\":\"ciu: boom\"}\n"
            };
            assert_eq!(text, want);
        }
    }

    #[test]
    fn a_sink_dropped_before_its_commit_leaves_the_previous_output() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rows.csv");
        std::fs::write(&path, "previous\n").unwrap();
        let mut sink = create_file_sink(&path).unwrap();
        sink.start(&["a".to_string()]).unwrap();
        sink.write(row(&[Some(1.0)], &Map::new(), &[])).unwrap();
        drop(sink);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "previous\n");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "no partial or lock file left");
    }

    #[test]
    fn unknown_extension_is_refused() {
        let e = create_file_sink(Path::new("out.txt")).err().unwrap();
        assert_eq!(e.to_string(), "out.txt: unknown output format (use .csv, .jsonl or .parquet)");
    }
}
