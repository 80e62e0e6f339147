//! `ragjudge score`: records -> per-record metric values -> per-system summary, through the
//! evaluation engine (`ragjudge_eval`).

mod args;
mod family_args;
mod ppi;

pub use args::ScoreArgs;

use crate::progress::Progress;
use anyhow::{bail, Result};
use ragjudge_eval::families::{build_stages, build_with_definitions, split_arguments, write_definitions, StageContext};
use ragjudge_eval::merge::{write_manifest, ShardManifest};
use ragjudge_eval::models::ModelSet;
use ragjudge_eval::stages::render_consistency;
use ragjudge_eval::{create_file_sink, render_table, EvalReport, Evaluator, RowSink};
use serde_json::{Map, Value};
use std::sync::Arc;

/// Runs `ragjudge score`.
pub fn run(args: &ScoreArgs) -> Result<()> {
    if args.ppi_labels.is_some() && args.output.is_none() {
        bail!("--ppi-labels needs --output: the estimates are computed from the written per-record scores");
    }
    crate::commands::dice::check_ppi_alpha(args.ppi_alpha)?;
    let mut settings = args.metric_settings()?;
    let names = split_arguments(&args.metrics, &mut settings)?;
    if args.qrels.is_some() && !names.iter().any(|n| n == "retrieval") {
        bail!("--qrels adds columns to the retrieval family: add `retrieval` to --metrics");
    }
    let models = Arc::new(ModelSet::new(args.models.settings(args.threads)));
    let (metrics, defs) = build_with_definitions(&names, &settings, &models)?;
    let evaluator = Evaluator::new(metrics, args.eval_settings())?;
    let mut sink = args.output.as_deref().map(create_file_sink).transpose()?;
    let ctx = StageContext {
        settings: &settings,
        columns: evaluator.columns(),
        output: args.output.as_deref(),
        models: &models,
    };
    let stages = build_stages(&names, &ctx)?;
    let progress = Progress::new("records");
    let report =
        evaluator.evaluate_files(&args.inputs, sink.as_deref_mut().map(|s| s as &mut dyn RowSink), stages, &progress);
    progress.finish();
    let report = report?;
    if let Some(qrels) = &args.qrels {
        report_qrels_coverage(qrels, &report.summary);
    }
    if let Some(out) = &args.output {
        // How each column was computed, for models fitted on this file (`fuse fit`).
        write_definitions(out, &defs)?;
        if let Some(shard) = args.shard.shard {
            // What `ragjudge merge` checks and sums.
            write_manifest(out, &ShardManifest::new(shard, &report.summary, args.seed, evaluator.columns()))?;
        }
    }
    let ppi = match (&args.ppi_labels, &args.output) {
        (Some(labels), Some(out)) => {
            let columns =
                if args.ppi_metrics.is_empty() { evaluator.columns().to_vec() } else { args.ppi_metrics.clone() };
            if let Some(c) = columns.iter().find(|c| !evaluator.columns().contains(c)) {
                bail!("--ppi-metrics: `{c}` is not a column of this run ({})", evaluator.columns().join(", "));
            }
            Some(ppi::ppi_rows(out, &columns, labels, &args.ppi_label_col, args.ppi_alpha)?)
        }
        _ => None,
    };
    if args.json {
        let mut v = json_summary(args, &report)?;
        if let (Some((rows, notes)), Some(obj)) = (&ppi, v.as_object_mut()) {
            obj.insert(
                "ppi".into(),
                serde_json::json!({"label": args.ppi_label_col, "alpha": args.ppi_alpha, "rows": rows, "notes": notes}),
            );
        }
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        print!("{}", render_table(&report.summary));
        if let Some(out) = &args.output {
            println!("per-record scores: {}", out.display());
        }
        if let Some((rows, notes)) = &ppi {
            print!("\n{}", ppi::render(rows, &args.ppi_label_col, args.ppi_alpha));
            for n in notes {
                println!("  {n}");
            }
        }
        if let Some(c) = report.stages.iter().find_map(|s| s.consistency()) {
            if let Some(r) = &c.report {
                print!("\n{}", render_consistency(r));
                if let Some(p) = &c.output {
                    println!("per-query consistency: {}", p.display());
                }
            }
        }
    }
    Ok(())
}

/// Says on stderr how many records `--qrels` judged: a record whose question is missing from the
/// file, or has no relevant passage, has empty `qrels_*` columns, and a file whose ids match no
/// record would otherwise only show as empty columns.
fn report_qrels_coverage(qrels: &std::path::Path, summary: &ragjudge_eval::summary::SummaryReport) {
    let judged: u64 = summary
        .systems
        .iter()
        .flat_map(|s| s.metrics.iter().filter(|m| m.metric == ragjudge_lexical::qrels::RECALL_COLUMN))
        .map(|m| m.n)
        .sum();
    let file = qrels.display();
    if judged == 0 && summary.records > 0 {
        eprintln!("warning: --qrels {file}: no record's question has a relevant passage there (do the ids match?)");
    } else {
        let left = summary.records - judged;
        eprintln!(
            "--qrels {file}: {judged} of {} records judged, {left} left empty (no relevant passage there)",
            summary.records
        );
    }
}

/// The summary as `--json` prints it: the per-system report, the output file, and consistency.
fn json_summary(args: &ScoreArgs, report: &EvalReport) -> Result<Value> {
    let mut v = serde_json::to_value(&report.summary)?;
    let Some(obj) = v.as_object_mut() else { return Ok(v) };
    if let Some(out) = &args.output {
        obj.insert("output".into(), Value::from(out.display().to_string()));
    }
    let consistency = report.stages.iter().find_map(|s| s.consistency());
    if let Some((c, r)) = consistency.and_then(|c| c.report.as_ref().map(|r| (c, r))) {
        let mut m = Map::new();
        m.insert("systems".into(), serde_json::to_value(&r.systems)?);
        m.insert("skipped_groups".into(), Value::from(r.skipped_groups));
        m.insert("bertscore_model".into(), serde_json::to_value(&r.bertscore_model)?);
        if let Some(p) = &c.output {
            m.insert("output".into(), Value::from(p.display().to_string()));
        }
        obj.insert("consistency".into(), Value::Object(m));
    }
    Ok(v)
}
