//! Open RAG Eval's results CSV (`run_N_` column prefixes), written from the scored rows and, when
//! an earlier stage computed it, the consistency across runs.

use super::{Stage, StageReport};
use crate::error::EvalError;
use crate::progress::Progress;
use crate::sink::Row;
use ragjudge_core::Record;
use ragjudge_trec::{OpenRagCsvWriter, TrecOptions};
use std::path::PathBuf;

/// The stage's name.
pub const OPEN_RAG_CSV: &str = "open-rag-csv";

/// The stage writing `path` in Open RAG Eval's layout.
pub fn open_rag_csv(path: PathBuf, opts: TrecOptions, columns: &[String]) -> Box<dyn Stage> {
    Box::new(OpenRagCsv { writer: OpenRagCsvWriter::new(path, opts, columns) })
}

struct OpenRagCsv {
    writer: OpenRagCsvWriter,
}

impl Stage for OpenRagCsv {
    fn name(&self) -> &'static str {
        OPEN_RAG_CSV
    }

    fn add(&mut self, record: &Record, row: Row<'_>, _progress: &dyn Progress) -> Result<(), EvalError> {
        self.writer.add(record, row.values, row.detail).map_err(|e| EvalError::io(self.writer.path(), e))
    }

    fn finish(self: Box<Self>, earlier: &[StageReport], _progress: &dyn Progress) -> Result<StageReport, EvalError> {
        let path = self.writer.path().to_path_buf();
        let consistency = earlier.iter().find_map(|r| r.consistency()).and_then(|c| c.report.as_ref());
        self.writer
            .finish(consistency)
            .map_err(|e| EvalError::Stage { stage: OPEN_RAG_CSV.into(), message: e.to_string() })?;
        Ok(StageReport::OpenRagCsv(path))
    }
}
