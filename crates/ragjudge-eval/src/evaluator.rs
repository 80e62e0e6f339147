//! [`Evaluator`]: metrics and settings, validated once; it streams records into per-record rows
//! and per-system summaries ([`EvalRun`]).

use crate::error::EvalError;
use crate::progress::Progress;
use crate::sink::{Row, RowSink};
use crate::stages::{Stage, StageReport};
use crate::summary::{Summarizer, SummaryReport};
use ragjudge_core::{
    DuplicateKeys, InputError, Metric, MetricError, MetricOutput, ReadOptions, Record, RecordReader, Shard,
};
use rayon::prelude::*;
use serde_json::Map;
use std::path::{Path, PathBuf};

/// Records scored together: bounds memory, lets model-backed metrics batch, keeps input order.
const BATCH: usize = 512;

/// Duplicate keys reported one by one per input before the rest are only counted.
const MAX_REPORTED: u64 = 20;

/// How an evaluation reads, scores and summarises.
#[derive(Debug, Clone)]
pub struct EvalSettings {
    /// How inputs are read (layout, longest line).
    pub read: ReadOptions,
    /// Report and skip malformed records instead of stopping at the first one.
    pub skip_invalid: bool,
    /// Bootstrap replicates behind the summary's confidence intervals (at least 1).
    pub bootstrap: usize,
    /// Seed of the bootstrap.
    pub seed: u64,
    /// Confidence level of the intervals, in (0, 1).
    pub level: f64,
    /// Worker threads (`None`: all cores).
    pub threads: Option<usize>,
    /// Score only the records of this shard (by question key, see [`Shard`]); `None`: all.
    pub shard: Option<Shard>,
}

impl Default for EvalSettings {
    fn default() -> Self {
        Self {
            read: ReadOptions::default(),
            skip_invalid: false,
            bootstrap: 1000,
            seed: 0,
            level: 0.95,
            threads: None,
            shard: None,
        }
    }
}

/// What an evaluation produced besides its rows.
#[derive(Debug, Clone)]
pub struct EvalReport {
    /// Per-system means with confidence intervals.
    pub summary: SummaryReport,
    /// The cross-record stages' reports, in stage order.
    pub stages: Vec<StageReport>,
}

/// Metrics and settings, checked once; runs evaluations ([`Evaluator::start`]).
pub struct Evaluator {
    metrics: Vec<Box<dyn Metric>>,
    columns: Vec<String>,
    widths: Vec<usize>,
    settings: EvalSettings,
    pool: rayon::ThreadPool,
}

impl std::fmt::Debug for Evaluator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Evaluator").field("columns", &self.columns).field("settings", &self.settings).finish()
    }
}

impl Evaluator {
    /// An evaluator of `metrics` (at least one) under `settings`.
    pub fn new(metrics: Vec<Box<dyn Metric>>, settings: EvalSettings) -> Result<Self, EvalError> {
        if metrics.is_empty() {
            return Err(EvalError::settings("no metric to compute"));
        }
        if settings.bootstrap == 0 {
            return Err(EvalError::settings("--bootstrap must be at least 1"));
        }
        if !(settings.level > 0.0 && settings.level < 1.0) {
            return Err(EvalError::settings(format!("confidence level must be in (0, 1), got {}", settings.level)));
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(settings.threads.unwrap_or(0))
            .build()
            .map_err(|e| EvalError::settings(format!("cannot start worker threads: {e}")))?;
        let widths: Vec<usize> = metrics.iter().map(|m| m.columns().len()).collect();
        let columns: Vec<String> = metrics.iter().flat_map(|m| m.columns()).collect();
        Ok(Self { metrics, columns, widths, settings, pool })
    }

    /// The value columns of every row, in order.
    pub fn columns(&self) -> &[String] {
        &self.columns
    }

    /// The settings.
    pub fn settings(&self) -> &EvalSettings {
        &self.settings
    }

    /// Starts a run writing rows to `sink` (if any) and feeding them to `stages`.
    pub fn start<'e>(
        &'e self,
        mut sink: Option<&'e mut dyn RowSink>,
        stages: Vec<Box<dyn Stage>>,
    ) -> Result<EvalRun<'e>, EvalError> {
        if let Some(s) = sink.as_deref_mut() {
            s.start(&self.columns)?;
        }
        let mut summary = Summarizer::new(self.columns.clone(), self.settings.bootstrap, self.settings.seed);
        summary.set_shard(self.settings.shard.map(|s| s.to_string()));
        Ok(EvalRun { evaluator: self, sink, stages, summary, batch: Vec::with_capacity(BATCH), scored: 0 })
    }

    /// Evaluates the records of `inputs` (in order) in one run.
    pub fn evaluate_files<'e>(
        &'e self,
        inputs: &[PathBuf],
        sink: Option<&'e mut dyn RowSink>,
        stages: Vec<Box<dyn Stage>>,
        progress: &dyn Progress,
    ) -> Result<EvalReport, EvalError> {
        let mut run = self.start(sink, stages)?;
        for path in inputs {
            run.read_file(path, progress)?;
        }
        run.finish(progress)
    }

    /// Evaluates records already in memory in one run (those of the settings' shard only).
    pub fn evaluate_records<'e>(
        &'e self,
        records: impl IntoIterator<Item = Record>,
        sink: Option<&'e mut dyn RowSink>,
        stages: Vec<Box<dyn Stage>>,
        progress: &dyn Progress,
    ) -> Result<EvalReport, EvalError> {
        let mut run = self.start(sink, stages)?;
        let shard = self.settings.shard;
        for record in records.into_iter().filter(|r| shard.is_none_or(|s| s.contains(&r.id))) {
            run.push(record, progress)?;
        }
        run.finish(progress)
    }

    /// Scores `batch` on the worker pool: `outputs[m][r]` is metric `m` on record `r`.
    fn score(&self, batch: &[Record]) -> Vec<Vec<Result<MetricOutput, MetricError>>> {
        let chunk = batch.len().div_ceil(self.pool.current_num_threads().max(1) * 4).max(1);
        self.pool.install(|| {
            self.metrics.iter().map(|m| batch.par_chunks(chunk).flat_map_iter(|c| m.score_batch(c)).collect()).collect()
        })
    }
}

/// One evaluation under way: records go in, rows come out, statistics accumulate.
pub struct EvalRun<'e> {
    evaluator: &'e Evaluator,
    sink: Option<&'e mut dyn RowSink>,
    stages: Vec<Box<dyn Stage>>,
    summary: Summarizer,
    batch: Vec<Record>,
    scored: u64,
}

impl EvalRun<'_> {
    /// Adds one record; it is scored with the next full batch.
    pub fn push(&mut self, record: Record, progress: &dyn Progress) -> Result<(), EvalError> {
        self.batch.push(record);
        if self.batch.len() == BATCH {
            self.flush(progress)?;
        }
        Ok(())
    }

    /// Counts one malformed record as skipped, or fails with it unless `skip_invalid` is set (a
    /// fatal input error always fails). Under a shard, a skipped record whose key cannot be read
    /// counts in the shard its line number falls in, so the shards' counts add up to the total.
    pub fn skip(&mut self, error: InputError, progress: &dyn Progress) -> Result<(), EvalError> {
        if error.fatal || !self.evaluator.settings.skip_invalid {
            return Err(error.into());
        }
        if let Some(shard) = self.evaluator.settings.shard {
            let line = error.line.map(|l| format!("line {l}")).unwrap_or_default();
            if !shard.contains(&line) {
                return Ok(());
            }
        }
        self.summary.skip();
        progress.skipped(&error, self.summary.skipped());
        Ok(())
    }

    /// Streams every record of `path` (of the settings' shard) into the run. Records that repeat an earlier record's
    /// `(id, system, run)` are scored too, with a warning naming file and line (a join on the key
    /// would be ambiguous).
    pub fn read_file(&mut self, path: &Path, progress: &dyn Progress) -> Result<(), EvalError> {
        let mut reader = RecordReader::open(path, &self.evaluator.settings.read)?;
        progress.input(path);
        // Hashes only: the input streams, and a line per key would double the memory.
        let mut keys = DuplicateKeys::compact(ragjudge_core::read::DEFAULT_KEY_LIMIT);
        let mut duplicates = 0u64;
        let shard = self.evaluator.settings.shard;
        while let Some(item) = reader.next() {
            match item {
                Ok(record) if shard.is_some_and(|s| !s.contains(&record.id)) => {}
                Ok(record) => {
                    if let Some(d) = keys.check(&record, reader.last_line()) {
                        duplicates += 1;
                        if duplicates <= MAX_REPORTED {
                            let at = InputError::new(reader.name(), reader.last_line(), None, d.to_string());
                            progress.warn(&format!("warning: {at}"));
                        }
                    }
                    self.push(record, progress)?
                }
                Err(e) => self.skip(e, progress)?,
            }
        }
        if duplicates > MAX_REPORTED {
            progress.warn(&format!("warning: {}: {duplicates} duplicate records in all", reader.name()));
        }
        if keys.full() {
            progress.warn(&format!(
                "warning: {}: more than {} distinct records; later ones were not checked for duplicate keys",
                reader.name(),
                ragjudge_core::read::DEFAULT_KEY_LIMIT
            ));
        }
        Ok(())
    }

    /// Scores the pending records and passes their rows on, in input order.
    fn flush(&mut self, progress: &dyn Progress) -> Result<(), EvalError> {
        if self.batch.is_empty() {
            return Ok(());
        }
        let batch = std::mem::take(&mut self.batch);
        let ev = self.evaluator;
        let outputs = ev.score(&batch);
        for (r, record) in batch.iter().enumerate() {
            let mut values: Vec<Option<f64>> = Vec::with_capacity(ev.columns.len());
            let mut detail = Map::new();
            let mut errors: Vec<String> = Vec::new();
            for ((m, out), &width) in ev.metrics.iter().zip(&outputs).zip(&ev.widths) {
                match checked(&out[r], width) {
                    Ok(o) => {
                        values.extend_from_slice(&o.values);
                        if let Some(d) = &o.detail {
                            detail.insert(m.name().to_string(), d.clone());
                        }
                    }
                    Err(e) => {
                        values.extend(std::iter::repeat_n(None, width));
                        errors.push(format!("{}: {e}", m.name()));
                    }
                }
            }
            self.summary.add(&record.id, &record.system, record.run, &values, !errors.is_empty());
            let row = Row {
                id: &record.id,
                system: &record.system,
                run: record.run,
                values: &values,
                detail: &detail,
                errors: &errors,
            };
            for stage in &mut self.stages {
                stage.add(record, row, progress)?;
            }
            if let Some(sink) = self.sink.as_deref_mut() {
                sink.write(row)?;
            }
        }
        progress.scored(batch.len() as u64);
        self.scored += batch.len() as u64;
        self.batch = batch;
        self.batch.clear();
        if progress.cancelled() {
            return Err(EvalError::Interrupted { scored: self.scored });
        }
        Ok(())
    }

    /// Scores what is pending, flushes the sink, summarises, and finishes the stages in order.
    /// Fails when no record was scored (unless under a shard, which may be empty).
    pub fn finish(mut self, progress: &dyn Progress) -> Result<EvalReport, EvalError> {
        self.flush(progress)?;
        progress.done();
        if let Some(sink) = self.sink.as_deref_mut() {
            sink.finish()?;
        }
        let summary = self.summary.report(self.evaluator.settings.level);
        // A shard may hold no record of a small input; the merge still needs its (empty) output.
        if summary.records == 0 && self.evaluator.settings.shard.is_none() {
            return Err(EvalError::NoRecords { skipped: summary.skipped });
        }
        let mut stages = Vec::with_capacity(self.stages.len());
        for stage in self.stages {
            let report = stage.finish(&stages, progress)?;
            stages.push(report);
        }
        Ok(EvalReport { summary, stages })
    }
}

/// A metric's output for one record, or why it counts as failed: an error, a wrong number of
/// values, or a value that is not finite (never passed on silently).
fn checked(out: &Result<MetricOutput, MetricError>, width: usize) -> Result<&MetricOutput, MetricError> {
    match out {
        Ok(o) if o.values.len() != width => {
            Err(MetricError::Contract(format!("{} values for {width} columns", o.values.len())))
        }
        Ok(o) if o.values.iter().flatten().any(|x| !x.is_finite()) => {
            Err(MetricError::Contract("non-finite value".into()))
        }
        Ok(o) => Ok(o),
        Err(e) => Err(e.clone()),
    }
}
