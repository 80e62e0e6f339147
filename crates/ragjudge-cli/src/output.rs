//! Per-record output: one row per record, CSV or JSONL chosen by the file extension.

use anyhow::{bail, Context as _, Result};
use serde_json::{Map, Value};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

/// One scored record, ready to be written.
pub struct Row<'a> {
    /// Record id.
    pub id: &'a str,
    /// System name.
    pub system: &'a str,
    /// Repetition index, if any.
    pub run: Option<u32>,
    /// One value per column (`None` = not applicable).
    pub values: &'a [Option<f64>],
    /// Evidence per metric family (JSONL only).
    pub detail: Map<String, Value>,
    /// Failure reasons of metrics that failed on this record.
    pub errors: &'a [String],
}

enum Sink {
    Csv(Box<csv::Writer<BufWriter<File>>>),
    Jsonl(BufWriter<File>),
}

/// Writes rows to a CSV or JSONL file.
pub struct RowWriter {
    sink: Sink,
    columns: Vec<String>,
    path: String,
}

impl RowWriter {
    /// Creates `path` (`.csv` or `.jsonl`/`.json`/`.ndjson`) and writes the CSV header.
    pub fn create(path: &Path, columns: &[String]) -> Result<Self> {
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
        let name = path.display().to_string();
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create directory", dir.display()))?;
        }
        let file = File::create(path).with_context(|| format!("{name}: cannot create"))?;
        let buf = BufWriter::with_capacity(1 << 16, file);
        let sink = match ext.as_str() {
            "csv" => {
                let mut w = csv::Writer::from_writer(buf);
                let mut header = vec!["id", "system", "run"];
                header.extend(columns.iter().map(String::as_str));
                header.push("error");
                w.write_record(&header).with_context(|| format!("{name}: write failed"))?;
                Sink::Csv(Box::new(w))
            }
            "jsonl" | "json" | "ndjson" => Sink::Jsonl(buf),
            _ => bail!("{name}: unknown output format (use .csv or .jsonl)"),
        };
        Ok(Self { sink, columns: columns.to_vec(), path: name })
    }

    /// Writes one row.
    pub fn write(&mut self, row: Row<'_>) -> Result<()> {
        debug_assert_eq!(row.values.len(), self.columns.len());
        let error = row.errors.join("; ");
        match &mut self.sink {
            Sink::Csv(w) => {
                let mut cells: Vec<String> = Vec::with_capacity(self.columns.len() + 4);
                cells.push(row.id.to_string());
                cells.push(row.system.to_string());
                cells.push(row.run.map(|r| r.to_string()).unwrap_or_default());
                cells.extend(row.values.iter().map(|v| v.map(|x| x.to_string()).unwrap_or_default()));
                cells.push(error);
                w.write_record(&cells).with_context(|| format!("{}: write failed", self.path))?;
            }
            Sink::Jsonl(w) => {
                let mut obj = Map::new();
                obj.insert("id".into(), Value::from(row.id));
                obj.insert("system".into(), Value::from(row.system));
                if let Some(r) = row.run {
                    obj.insert("run".into(), Value::from(r));
                }
                for (c, v) in self.columns.iter().zip(row.values) {
                    obj.insert(c.clone(), v.map(Value::from).unwrap_or(Value::Null));
                }
                if !row.detail.is_empty() {
                    obj.insert("detail".into(), Value::Object(row.detail));
                }
                if !error.is_empty() {
                    obj.insert("error".into(), Value::from(error));
                }
                serde_json::to_writer(&mut *w, &obj).with_context(|| format!("{}: write failed", self.path))?;
                w.write_all(b"\n").with_context(|| format!("{}: write failed", self.path))?;
            }
        }
        Ok(())
    }

    /// Flushes everything to disk.
    pub fn finish(self) -> Result<()> {
        match self.sink {
            Sink::Csv(mut w) => w.flush(),
            Sink::Jsonl(mut w) => w.flush(),
        }
        .with_context(|| format!("{}: write failed", self.path))
    }
}
