//! Cross-record stages: work that needs more than one record, fed every scored row as the run goes
//! and finished once at the end, in order (a later stage sees the reports of earlier ones).

mod consistency;
mod conversations;
mod fused_shift;
mod open_rag_csv;

pub use consistency::{
    consistency, render_consistency, write_consistency_csv, ConsistencyOutcome, ConsistencySettings, CONSISTENCY,
};
pub use conversations::{
    conversations, render_conversations, write_conversations_csv, ConversationOutcome, CONVERSATIONS,
};
pub(crate) use fused_shift::{fused_shift, Watched};
pub use fused_shift::{ModelShift, FUSED_SHIFT};
pub use open_rag_csv::{open_rag_csv, OPEN_RAG_CSV};

use crate::error::EvalError;
use crate::progress::Progress;
use crate::sink::Row;
use ragjudge_core::Record;
use std::path::PathBuf;

/// A cross-record stage of an evaluation.
pub trait Stage: Send {
    /// The stage's name, used in messages.
    fn name(&self) -> &'static str;
    /// Takes one scored row (with its record).
    fn add(&mut self, record: &Record, row: Row<'_>, progress: &dyn Progress) -> Result<(), EvalError>;
    /// Finishes the stage after the last row; `earlier` holds the reports of the stages before it.
    fn finish(self: Box<Self>, earlier: &[StageReport], progress: &dyn Progress) -> Result<StageReport, EvalError>;
}

/// What a stage produced.
#[derive(Debug, Clone)]
pub enum StageReport {
    /// Consistency across repeated runs.
    Consistency(ConsistencyOutcome),
    /// Open RAG Eval's results CSV was written to this file.
    OpenRagCsv(PathBuf),
    /// The shift check of each `fused:MODEL`.
    FusedShift(Vec<ModelShift>),
    /// Conversation-level summaries.
    Conversations(ConversationOutcome),
}

impl StageReport {
    /// The consistency outcome, if this is one.
    pub fn consistency(&self) -> Option<&ConsistencyOutcome> {
        match self {
            StageReport::Consistency(c) => Some(c),
            _ => None,
        }
    }

    /// The conversation summaries, if this is them.
    pub fn conversations(&self) -> Option<&ConversationOutcome> {
        match self {
            StageReport::Conversations(c) => Some(c),
            _ => None,
        }
    }

    /// The shift check of the fused models, if this is one.
    pub fn fused_shift(&self) -> Option<&[ModelShift]> {
        match self {
            StageReport::FusedShift(s) => Some(s),
            _ => None,
        }
    }
}

/// Rows of cells as a plain text table: columns left-aligned to their widest cell, two spaces
/// apart, one line per row.
pub(crate) fn aligned(rows: &[Vec<String>]) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| rows.iter().filter_map(|r| r.get(c)).map(|x| x.chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for row in rows {
        let cells: Vec<String> = row.iter().zip(&widths).map(|(c, w)| format!("{c:<w$}")).collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}
