//! `ragjudge score`: records -> per-record metric values -> per-system summary, through the
//! evaluation engine (`ragjudge_eval`).

mod args;
mod family_args;
mod model_args;
mod summary;
mod trec_args;

pub use args::{LangArg, ScoreArgs, ZhRougeArg};

use crate::progress::Progress;
use anyhow::{bail, Result};
use ragjudge_artifacts::{check_not_input, OutputSet, Provenance};
use ragjudge_eval::families::{
    build_stages, build_with_definitions, sidecar_path, split_arguments, stage_definitions, StageContext,
};
use ragjudge_eval::merge::{manifest_path, stage_manifest, ShardManifest};
use ragjudge_eval::models::ModelSet;
use ragjudge_eval::ppi::PpiJob;
use ragjudge_eval::stages::{render_consistency, render_conversations};
use ragjudge_eval::{commit_output, create_file_sink, render_table, Evaluator, RowSink};
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
    if let Some(out) = &args.output {
        let mut inputs = args.inputs.clone();
        inputs.extend(args.qrels.iter().chain(&args.ppi_labels).cloned());
        check_not_input(out, &inputs)?;
    }
    warn_repeated_inputs(&args.inputs);
    let models = Arc::new(ModelSet::new(args.models.settings(args.threads, settings.lexical.lang)));
    let (metrics, defs) = build_with_definitions(&names, &settings, &models)?;
    let eval_settings = args.eval_settings()?;
    let evaluator = Evaluator::new(metrics, eval_settings.clone())?;
    // From here on Ctrl-C stops the run between batches, with a word on what was kept.
    crate::interrupt::stop_between_batches();
    let mut sink = args.output.as_deref().map(create_file_sink).transpose()?;
    let ctx = StageContext {
        settings: &settings,
        columns: evaluator.columns(),
        output: args.output.as_deref(),
        models: &models,
        bootstrap: eval_settings.bootstrap,
        seed: eval_settings.seed,
        level: eval_settings.level,
    };
    let stages = build_stages(&names, &ctx)?;
    let progress = Progress::new("records");
    let report =
        evaluator.evaluate_files(&args.inputs, sink.as_deref_mut().map(|s| s as &mut dyn RowSink), stages, &progress);
    progress.finish();
    let report = report?;
    for s in report.stages.iter().filter_map(|s| s.fused_shift()).flatten() {
        // Warnings (or the note that the check is unavailable) go to stderr whatever the format.
        if !args.json || s.report.as_ref().is_none_or(|r| r.warned) {
            eprint!("{}", s.render());
        }
    }
    if let Some(qrels) = &args.qrels {
        summary::report_qrels_coverage(qrels, &report.summary);
    }
    if let (Some(out), Some(sink)) = (&args.output, sink) {
        // The rows with how each column was computed (for `fuse fit`) and, under a shard, what
        // `ragjudge merge` checks and sums: replaced together, a stale manifest removed.
        let mut sidecars = OutputSet::new();
        stage_definitions(out, &defs, &mut sidecars)?;
        if let Some(shard) = eval_settings.shard {
            // Inputs are hashed only for the manifest, the one sidecar that records them.
            let mut provenance = Provenance::of_this_process();
            provenance.add_inputs(&args.inputs)?;
            let manifest = ShardManifest::new(shard, &report.summary, args.seed, evaluator.columns());
            stage_manifest(out, &manifest, &provenance, &mut sidecars)?;
        }
        sidecars.remove_if_unwritten(&sidecar_path(out));
        sidecars.remove_if_unwritten(&manifest_path(out));
        commit_output(sink, sidecars)?;
    }
    let ppi = match (&args.ppi_labels, &args.output) {
        (Some(labels), Some(out)) => {
            let metrics =
                if args.ppi_metrics.is_empty() { evaluator.columns().to_vec() } else { args.ppi_metrics.clone() };
            if let Some(c) = metrics.iter().find(|c| !evaluator.columns().contains(c)) {
                bail!("--ppi-metrics: `{c}` is not a column of this run ({})", evaluator.columns().join(", "));
            }
            let (label, alpha) = (args.ppi_label_col.clone(), args.ppi_alpha);
            let ppi = PpiJob { scores: out.clone(), metrics, labels: labels.clone(), label, alpha }.run()?;
            for r in &ppi.repeats {
                eprintln!("warning: {r}");
            }
            Some(ppi)
        }
        _ => None,
    };
    if args.json {
        let v = summary::ScoreJson::new(args, &report, ppi.as_ref());
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        print!("{}", render_table(&report.summary));
        if let Some(out) = &args.output {
            println!("per-record scores: {}", out.display());
        }
        if let Some(ppi) = &ppi {
            print!("\n{}", ppi.render());
            for n in &ppi.notes {
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
        if let Some(c) = report.stages.iter().find_map(|s| s.conversations()) {
            if let Some(r) = &c.report {
                print!("\n{}", render_conversations(r));
                if let Some(p) = &c.output {
                    println!("per-conversation scores: {}", p.display());
                }
            }
        }
    }
    Ok(())
}

/// Warns about input files given more than once: their records would count twice.
fn warn_repeated_inputs(inputs: &[std::path::PathBuf]) {
    for (first, again) in ragjudge_artifacts::repeated_inputs(inputs) {
        eprintln!(
            "warning: {} is the same file as {}: its records are read twice (and count twice)",
            again.display(),
            first.display()
        );
    }
}
