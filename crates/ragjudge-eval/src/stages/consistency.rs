//! Consistency across repeated runs (Open RAG Eval metrics (TREC 2024 RAG), "Consistency"): records
//! that share system and id with different `run` are compared pairwise (BERTScore, ROUGE) and every
//! metric's spread over the runs is summarised per query and per system.

use super::{Stage, StageReport};
use crate::error::EvalError;
use crate::families::StageContext;
use crate::models::ModelSet;
use crate::progress::Progress;
use crate::sink::Row;
use ragjudge_core::Record;
use ragjudge_trec::answer::{ConsistencyAccumulator, ConsistencyOptions, ConsistencyReport};
use ragjudge_trec::open_rag_csv::{consistency_quantities, stat_cells, CONSISTENCY_STATS};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The stage's name.
pub const CONSISTENCY: &str = "consistency";

/// Column excluded from the consistency statistics: a count of judge failures, not a score.
const NOT_A_SCORE: &str = "judge_invalid_items";

/// Duplicate runs reported one by one before the rest are only counted.
const MAX_REPORTED: u64 = 5;

/// Whether and where to compute consistency across runs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConsistencySettings {
    /// Compute it for any metrics (the `trec` family turns it on by itself).
    pub enabled: bool,
    /// Where the per-query rows go; default: the per-record output with extension `.consistency.csv`.
    pub output: Option<PathBuf>,
}

/// What the consistency stage produced.
#[derive(Debug, Clone, Default)]
pub struct ConsistencyOutcome {
    /// Consistency across runs, when some query had enough runs.
    pub report: Option<ConsistencyReport>,
    /// Where the per-query rows were written.
    pub output: Option<PathBuf>,
    /// Why BERTScore is missing, if it is.
    pub bertscore_missing: Option<String>,
}

/// The consistency stage of a run.
pub fn consistency(ctx: &StageContext<'_>) -> Result<Box<dyn Stage>, EvalError> {
    let acc = ConsistencyAccumulator::new(ConsistencyOptions::default())
        .map_err(|e| EvalError::Stage { stage: CONSISTENCY.into(), message: format!("consistency: {e}") })?;
    let output = match (&ctx.settings.consistency.output, ctx.output) {
        (Some(p), _) => Some(p.clone()),
        (None, Some(out)) => Some(out.with_extension("consistency.csv")),
        (None, None) => None,
    };
    if let Some(p) = &output {
        crate::families::check_parent("--consistency-output", p)?;
    }
    Ok(Box::new(ConsistencyStage {
        acc,
        output,
        columns: ctx.columns.to_vec(),
        duplicates: 0,
        models: Arc::clone(ctx.models),
    }))
}

struct ConsistencyStage {
    acc: ConsistencyAccumulator,
    output: Option<PathBuf>,
    columns: Vec<String>,
    duplicates: u64,
    models: Arc<ModelSet>,
}

impl Stage for ConsistencyStage {
    fn name(&self) -> &'static str {
        CONSISTENCY
    }

    fn add(&mut self, record: &Record, row: Row<'_>, progress: &dyn Progress) -> Result<(), EvalError> {
        if record.run.is_none() {
            return Ok(());
        }
        let scores: Vec<Option<f64>> =
            self.columns.iter().zip(row.values).map(|(c, v)| if c == NOT_A_SCORE { None } else { *v }).collect();
        if let Err(e) = self.acc.push(record, &self.columns, &scores) {
            self.duplicates += 1;
            if self.duplicates <= MAX_REPORTED {
                progress.warn(&format!("consistency: {e}: left out"));
            }
        }
        Ok(())
    }

    /// Computes consistency (BERTScore with the embedder's token vectors when it can be loaded,
    /// only when some query has enough runs) and writes the per-query rows.
    fn finish(self: Box<Self>, _earlier: &[StageReport], progress: &dyn Progress) -> Result<StageReport, EvalError> {
        let mut out = ConsistencyOutcome::default();
        if self.duplicates > MAX_REPORTED {
            progress.warn(&format!("consistency: {} duplicate runs left out in all", self.duplicates));
        }
        if self.acc.groups() > 0 {
            let embedder = match self.models.token_embedder() {
                Ok(e) => Some(e),
                Err(e) => {
                    let why = e.to_string();
                    progress.warn(&format!("consistency: BERTScore left out: {why}"));
                    out.bertscore_missing = Some(why);
                    None
                }
            };
            let c = self
                .acc
                .finish(embedder.as_deref())
                .map_err(|e| EvalError::Stage { stage: CONSISTENCY.into(), message: format!("consistency: {e}") })?;
            if !c.rows.is_empty() {
                if let Some(path) = &self.output {
                    write_consistency_csv(path, &c)?;
                    out.output = Some(path.clone());
                }
                out.report = Some(c);
            }
        }
        Ok(StageReport::Consistency(out))
    }
}

/// Writes one row per (system, id): `system`, `id`, `runs`, `pairs`, then
/// `consistency_answer_NAME_{mean,variance,cv,cai}` for the pair similarities and
/// `consistency_COLUMN_{mean,variance,cv,cai}` for every metric column.
pub fn write_consistency_csv(path: &Path, report: &ConsistencyReport) -> Result<(), EvalError> {
    let failed = |e: csv::Error| EvalError::io(path, format!("write failed: {e}"));
    let mut w = csv::Writer::from_writer(ragjudge_artifacts::AtomicFile::create(path)?);
    let quantities = consistency_quantities(Some(report));
    let mut header: Vec<String> = ["system", "id", "runs", "pairs"].map(String::from).to_vec();
    for q in &quantities {
        header.extend(CONSISTENCY_STATS.iter().map(|s| format!("consistency_{}_{s}", q.label)));
    }
    w.write_record(&header).map_err(failed)?;
    for r in &report.rows {
        let mut row = vec![r.system.clone(), r.id.clone(), r.runs.len().to_string(), r.pairs.len().to_string()];
        for q in &quantities {
            row.extend(stat_cells(q.stats(r)));
        }
        w.write_record(&row).map_err(failed)?;
    }
    w.flush().map_err(|e| EvalError::io(path, format!("write failed: {e}")))?;
    let file = w.into_inner().map_err(|e| EvalError::io(path, format!("write failed: {}", e.error())))?;
    Ok(file.commit()?)
}

/// The per-system consistency aggregates as a plain table: one row per quantity, one column per
/// system, each cell `mean / variance / CV` averaged over the system's queries.
pub fn render_consistency(report: &ConsistencyReport) -> String {
    let quantities = consistency_quantities(Some(report));
    let mut rows: Vec<Vec<String>> = vec![std::iter::once("consistency (mean / variance / cv)".to_string())
        .chain(report.systems.iter().map(|s| s.system.clone()))
        .collect()];
    for q in &quantities {
        let mut row = vec![q.label.clone()];
        for s in &report.systems {
            row.push(match q.aggregate(s) {
                Some(a) => {
                    let cv = a.cv.map_or("-".to_string(), |c| format!("{c:.4}"));
                    format!("{:.4} / {:.4} / {cv}", a.mean, a.variance)
                }
                None => "-".to_string(),
            });
        }
        rows.push(row);
    }
    let mut queries = vec!["queries with runs".to_string()];
    queries.extend(report.systems.iter().map(|s| s.queries.to_string()));
    rows.push(queries);
    let mut out = super::aligned(&rows);
    if report.skipped_groups > 0 {
        out.push_str(&format!("({} queries with fewer than 3 runs left out)\n", report.skipped_groups));
    }
    out
}
