//! Conversation-level summaries of a run ([`crate::conversations`]): every scored turn of a
//! record that names its conversation is grouped by system and conversation; the per-conversation
//! rows go to `OUTPUT.conversations.csv`.

use super::{Stage, StageReport};
use crate::conversations::{ConversationReport, ConversationSummarizer};
use crate::error::EvalError;
use crate::families::StageContext;
use crate::progress::Progress;
use crate::sink::Row;
use ragjudge_core::Record;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The stage's name.
pub const CONVERSATIONS: &str = "conversations";

/// What the conversation stage produced.
#[derive(Debug, Clone)]
pub struct ConversationOutcome {
    /// The summaries; `None` when no record named a conversation.
    pub report: Option<ConversationReport>,
    /// Where the per-conversation rows were written.
    pub output: Option<PathBuf>,
}

/// The conversation stage of a run.
pub fn conversations(ctx: &StageContext<'_>) -> Result<Box<dyn Stage>, EvalError> {
    let output = ctx.output.map(|out| out.with_extension("conversations.csv"));
    Ok(Box::new(ConversationStage {
        summarizer: ConversationSummarizer::new(ctx.columns.to_vec(), ctx.bootstrap, ctx.seed),
        level: ctx.level,
        output,
    }))
}

struct ConversationStage {
    summarizer: ConversationSummarizer,
    level: f64,
    output: Option<PathBuf>,
}

impl Stage for ConversationStage {
    fn name(&self) -> &'static str {
        CONVERSATIONS
    }

    fn add(&mut self, record: &Record, row: Row<'_>, _progress: &dyn Progress) -> Result<(), EvalError> {
        let conversation = record.conversation();
        self.summarizer.add(row.system, conversation.as_deref(), record.turn(), row.values, !row.errors.is_empty());
        Ok(())
    }

    fn finish(
        mut self: Box<Self>,
        _earlier: &[StageReport],
        progress: &dyn Progress,
    ) -> Result<StageReport, EvalError> {
        let report = self.summarizer.report(self.level);
        if report.rows.is_empty() {
            progress.warn("conversation: no record names its conversation (meta.session_id or meta.conversation_id)");
            return Ok(StageReport::Conversations(ConversationOutcome { report: None, output: None }));
        }
        let output = match &self.output {
            Some(path) => {
                write_conversations_csv(path, &report)?;
                Some(path.clone())
            }
            None => None,
        };
        Ok(StageReport::Conversations(ConversationOutcome { report: Some(report), output }))
    }
}

/// Writes one row per (system, conversation): `system`, `conversation`, `turns`, `failed_turns`,
/// then `COLUMN_mean`, `COLUMN_min` and `COLUMN_min_turn` for every column.
pub fn write_conversations_csv(path: &Path, report: &ConversationReport) -> Result<(), EvalError> {
    let failed = |e: csv::Error| EvalError::io(path, format!("write failed: {e}"));
    let mut w = csv::Writer::from_writer(ragjudge_artifacts::AtomicFile::create(path)?);
    let mut header: Vec<String> = ["system", "conversation", "turns", "failed_turns"].map(String::from).to_vec();
    for c in &report.columns {
        header.extend(["mean", "min", "min_turn"].iter().map(|s| format!("{c}_{s}")));
    }
    w.write_record(&header).map_err(failed)?;
    let cell = |v: Option<f64>| v.map(|x| x.to_string()).unwrap_or_default();
    for r in &report.rows {
        let mut row = vec![r.system.clone(), r.conversation.clone(), r.turns.to_string(), r.failed.to_string()];
        for c in &r.cells {
            row.extend([cell(c.mean), cell(c.min), c.min_turn.map(|t| t.to_string()).unwrap_or_default()]);
        }
        w.write_record(&row).map_err(failed)?;
    }
    w.flush().map_err(|e| EvalError::io(path, format!("write failed: {e}")))?;
    let file = w.into_inner().map_err(|e| EvalError::io(path, format!("write failed: {}", e.error())))?;
    Ok(file.commit()?)
}

/// The per-system conversation summaries as a plain table: one row per column, one column per
/// system, each cell `turn mean [interval] / conversation mean [interval]`.
pub fn render_conversations(report: &ConversationReport) -> String {
    let interval = |m: &crate::summary::ColumnReport| match (m.mean, m.ci_low, m.ci_high) {
        (Some(x), Some(lo), Some(hi)) => format!("{x:.4} [{lo:.4}, {hi:.4}]"),
        (Some(x), _, _) => format!("{x:.4}"),
        _ => "-".to_string(),
    };
    let mut rows: Vec<Vec<String>> = vec![std::iter::once("conversations: per turn / per conversation".to_string())
        .chain(report.systems.iter().map(|s| s.system.clone()))
        .collect()];
    for (j, c) in report.columns.iter().enumerate() {
        let mut row = vec![c.clone()];
        for s in &report.systems {
            row.push(format!("{} / {}", interval(&s.turn_means[j]), interval(&s.conversation_means[j])));
        }
        rows.push(row);
    }
    let mut counts = vec!["conversations (turns)".to_string()];
    counts.extend(report.systems.iter().map(|s| format!("{} ({})", s.conversations, s.turns)));
    rows.push(counts);
    let mut out = super::aligned(&rows);
    if report.outside > 0 {
        let _ = writeln!(out, "({} turns name no conversation and are left out)", report.outside);
    }
    let _ = writeln!(
        out,
        "({:.0}% intervals, {} bootstrap replicates resampling whole conversations)",
        report.level * 100.0,
        report.bootstrap
    );
    out
}
