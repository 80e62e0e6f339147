//! `ragjudge judge-eval`: how far a judge can be trusted. Each protocol judges labelled pairs
//! (LLMBar-layout sets, or ragjudge runs with pairwise labels), through the library's
//! meta-evaluation job (`ragjudge_dice::meta::job`); the table gives accuracy with its Wilson
//! interval, kappa, position and length bias, the baselines and LLMBar's stored rows, as CSV,
//! Markdown and JSON, with every verdict in JSONL.

mod args;

use crate::backends;
use anyhow::{bail, Result};
use ragjudge_dice::meta::job::{JudgeEval, JudgeEvalProgress};
use ragjudge_dice::meta::table::{num, pct};
use std::sync::Arc;

pub use args::JudgeEvalArgs;

/// Runs `ragjudge judge-eval`: the library's [`JudgeEval`] job, printed.
pub fn run(args: &JudgeEvalArgs) -> Result<()> {
    let settings = args.settings()?;
    if !(args.tie_margin.is_finite() && (0.0..0.5).contains(&args.tie_margin)) {
        bail!("--tie-margin must be in [0, 0.5), got {}", args.tie_margin);
    }
    let job = JudgeEval::read(&args.inputs(), settings)?;
    let judge: Arc<dyn ragjudge_models::Judge> = Arc::from(backends::judge(&args.judge)?);
    let outcome = job.run(&judge, &args.output, &print_progress)?;
    if args.json {
        let bytes = ragjudge_artifacts::to_json_bytes(&outcome.report.provenance, &outcome.report.body)?;
        print!("{}", String::from_utf8_lossy(&bytes));
    } else {
        print!("{}", outcome.markdown);
    }
    let failed = outcome.report.body.failed;
    if failed > 0 {
        bail!("{failed} pairs could not be judged (their errors are in {})", outcome.verdicts.display());
    }
    Ok(())
}

/// Progress and per-set results on standard error.
fn print_progress(p: JudgeEvalProgress<'_>) {
    match p {
        JudgeEvalProgress::Skipped { protocol, set } => {
            eprintln!("{} on {set}: skipped, the set has no reference answers", protocol.name())
        }
        JudgeEvalProgress::Pairs { protocol, set, done, total } => {
            eprint!("\r{} on {set}: {done}/{total} pairs", protocol.name())
        }
        JudgeEvalProgress::SetDone { row, first_failure } => {
            eprintln!(
                "\r{} on {}: {} pairs, accuracy {}% of {} decided, {} failed, {:.0} s",
                row.protocol,
                row.set,
                row.items,
                pct(row.accuracy_decided),
                row.decided,
                row.failed,
                row.seconds
            );
            if let Some(first) = first_failure {
                eprintln!("  first failure: {first}");
            }
        }
        JudgeEvalProgress::Stacked { row } => {
            eprintln!("{} on {}: held-out accuracy {}%", row.protocol, row.set, pct(row.accuracy_decided))
        }
        JudgeEvalProgress::Summaries { set, done, total } => {
            eprint!("\rconsistency on {set}: {done}/{total} summaries")
        }
        JudgeEvalProgress::SummaryFailed { error } => eprintln!("\n  failure: {error}"),
        JudgeEvalProgress::ConsistencyDone { row } => eprintln!(
            "\rconsistency on {}: Spearman {} ({} summaries, {} sentences)",
            row.set,
            num(row.spearman),
            row.items,
            row.sentences
        ),
    }
}
