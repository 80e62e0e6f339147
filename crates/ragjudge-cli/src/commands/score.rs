//! `ragjudge score`: records -> per-record metric values -> per-system summary.

use crate::args::ScoreArgs;
use crate::families::trec::{self as trec_family, RowHooks};
use crate::model_set::ModelSet;
use crate::output::{Row, RowWriter};
use crate::progress::Progress;
use crate::registry;
use crate::summary::{render_table, Summarizer};
use anyhow::{bail, Context as _, Result};
use ragjudge_core::{Format, Metric, MetricError, MetricOutput, ReadOptions, Record, RecordReader};
use rayon::prelude::*;
use serde_json::{Map, Value};

/// Records scored together; bounds memory and keeps output in input order.
const BATCH: usize = 512;
/// Malformed records reported one by one before the rest are only counted.
const MAX_REPORTED: u64 = 20;

/// Runs `ragjudge score`.
pub fn run(args: &ScoreArgs) -> Result<()> {
    let metrics = registry::build(args)?;
    let format: Format = args.input.format.parse().map_err(|e| anyhow::anyhow!("--format: {e}"))?;
    if args.bootstrap == 0 {
        bail!("--bootstrap must be at least 1");
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()
        .context("cannot start worker threads")?;
    let columns: Vec<String> = metrics.iter().flat_map(|m| m.columns()).collect();
    let mut writer = match &args.output {
        Some(p) => Some(RowWriter::create(p, &columns)?),
        None => None,
    };
    let mut hooks = trec_family::row_hooks(args, &columns)?;
    let mut summary = Summarizer::new(columns.clone(), args.bootstrap, args.seed);
    let progress = Progress::new("records");
    let opts = ReadOptions { format, max_line_bytes: args.input.max_line_mib.max(1) << 20, ..ReadOptions::default() };

    for path in &args.inputs {
        let reader = RecordReader::open(path, &opts)?;
        progress.message(path.display().to_string());
        let mut batch: Vec<Record> = Vec::with_capacity(BATCH);
        for item in reader {
            match item {
                Ok(record) => batch.push(record),
                Err(e) if e.fatal || !args.input.skip_invalid => return Err(e.into()),
                Err(e) => {
                    summary.skip();
                    let skipped = summary.skipped();
                    if skipped <= MAX_REPORTED {
                        progress.println(&format!("skipped: {e}"));
                    } else if skipped == MAX_REPORTED + 1 {
                        progress.println("skipped: further invalid records are counted, not listed");
                    }
                }
            }
            if batch.len() == BATCH {
                score_batch(&pool, &metrics, &batch, writer.as_mut(), hooks.as_mut(), &mut summary)?;
                progress.inc(batch.len() as u64);
                batch.clear();
            }
        }
        score_batch(&pool, &metrics, &batch, writer.as_mut(), hooks.as_mut(), &mut summary)?;
        progress.inc(batch.len() as u64);
    }
    progress.finish();
    if let Some(w) = writer {
        w.finish()?;
    }

    let report = summary.report(0.95);
    if report.records == 0 {
        bail!("no valid records to score ({} skipped as invalid)", report.skipped);
    }
    let extra = match hooks {
        Some(h) => Some(h.finish(&ModelSet::new(&args.models, args.threads))?),
        None => None,
    };
    let consistency = extra.as_ref().and_then(|e| e.consistency.as_ref());
    if args.json {
        let mut v = serde_json::to_value(&report)?;
        if let (Some(obj), Some(out)) = (v.as_object_mut(), &args.output) {
            obj.insert("output".into(), Value::from(out.display().to_string()));
        }
        if let (Some(obj), Some(c)) = (v.as_object_mut(), consistency) {
            let mut m = Map::new();
            m.insert("systems".into(), serde_json::to_value(&c.systems)?);
            m.insert("skipped_groups".into(), Value::from(c.skipped_groups));
            m.insert("bertscore_model".into(), serde_json::to_value(&c.bertscore_model)?);
            if let Some(p) = extra.as_ref().and_then(|e| e.consistency_output.as_ref()) {
                m.insert("output".into(), Value::from(p.display().to_string()));
            }
            obj.insert("consistency".into(), Value::Object(m));
        }
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        print!("{}", render_table(&report));
        if let Some(out) = &args.output {
            println!("per-record scores: {}", out.display());
        }
        if let Some(c) = consistency {
            print!("\n{}", trec_family::render_consistency(c));
            if let Some(p) = extra.as_ref().and_then(|e| e.consistency_output.as_ref()) {
                println!("per-query consistency: {}", p.display());
            }
        }
    }
    Ok(())
}

/// Scores one batch on the worker pool, then writes and summarises its rows in input order.
fn score_batch(
    pool: &rayon::ThreadPool,
    metrics: &[Box<dyn Metric>],
    batch: &[Record],
    mut writer: Option<&mut RowWriter>,
    mut hooks: Option<&mut RowHooks>,
    summary: &mut Summarizer,
) -> Result<()> {
    if batch.is_empty() {
        return Ok(());
    }
    let chunk = batch.len().div_ceil(pool.current_num_threads().max(1) * 4).max(1);
    // outputs[m][r]: metric m on record r.
    let outputs: Vec<Vec<Result<MetricOutput, MetricError>>> = pool.install(|| {
        metrics.iter().map(|m| batch.par_chunks(chunk).flat_map_iter(|c| m.score_batch(c)).collect()).collect()
    });
    let widths: Vec<usize> = metrics.iter().map(|m| m.columns().len()).collect();
    for (r, record) in batch.iter().enumerate() {
        let mut values: Vec<Option<f64>> = Vec::with_capacity(widths.iter().sum());
        let mut detail = Map::new();
        let mut errors: Vec<String> = Vec::new();
        for ((m, out), &width) in metrics.iter().zip(&outputs).zip(&widths) {
            let checked = match &out[r] {
                Ok(o) if o.values.len() != width => Err(format!("{} values for {width} columns", o.values.len())),
                // Never pass a NaN or infinity on silently: the record counts as failed.
                Ok(o) if o.values.iter().flatten().any(|x| !x.is_finite()) => Err("non-finite value".to_string()),
                Ok(o) => Ok(o),
                Err(e) => Err(e.to_string()),
            };
            match checked {
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
        summary.add(&record.system, &values, !errors.is_empty());
        if let Some(h) = hooks.as_deref_mut() {
            h.add(record, &values, &detail)?;
        }
        if let Some(w) = writer.as_deref_mut() {
            w.write(Row {
                id: &record.id,
                system: &record.system,
                run: record.run,
                values: &values,
                detail,
                errors: &errors,
            })?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fails on record `bad`, returns NaN on `nan`, 1.0 otherwise.
    struct Flaky;

    impl Metric for Flaky {
        fn name(&self) -> &str {
            "flaky"
        }
        fn columns(&self) -> Vec<String> {
            vec!["flaky".into()]
        }
        fn score(&self, record: &Record) -> Result<MetricOutput, MetricError> {
            match record.id.as_str() {
                "bad" => Err(MetricError::Model("model call failed".into())),
                "nan" => Ok(MetricOutput { values: vec![Some(f64::NAN)], detail: None }),
                _ => Ok(MetricOutput { values: vec![Some(1.0)], detail: None }),
            }
        }
    }

    #[test]
    fn failures_and_non_finite_values_are_counted_not_averaged() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let metrics: Vec<Box<dyn Metric>> = vec![Box::new(Flaky)];
        let records: Vec<Record> = ["ok1", "bad", "nan", "ok2"]
            .iter()
            .map(|id| Record { id: id.to_string(), system: "s".into(), ..Record::default() })
            .collect();
        let mut summary = Summarizer::new(vec!["flaky".into()], 10, 0);
        score_batch(&pool, &metrics, &records, None, None, &mut summary).unwrap();
        let report = summary.report(0.95);
        assert_eq!(report.records, 4);
        assert_eq!(report.failed, 2);
        let col = &report.systems[0].metrics[0];
        assert_eq!(col.n, 2);
        assert_eq!(col.mean, Some(1.0));
    }
}
