//! `ragjudge import`: production traces (OTLP protobuf or JSON with the GenAI or OpenInference
//! conventions, Langfuse exports) into records every other command reads
//! (`ragjudge_traces::import`).

use anyhow::Result;
use clap::Args;
use ragjudge_traces::{import, ImportSettings, TraceFormat};
use std::path::PathBuf;

/// Issues printed on stderr; all of them are in `OUTPUT.issues.jsonl`.
const SHOWN_ISSUES: usize = 5;

/// `ragjudge import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Trace files: OTLP/JSON (one request, or one per line as the Collector's file exporter
    /// writes), OTLP protobuf (one request or length-prefixed frames), or a Langfuse export.
    #[arg(required = true, num_args = 1.., value_name = "TRACES")]
    pub inputs: Vec<PathBuf>,
    /// The records (JSONL): one per trace, conversations linked by session.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: PathBuf,
    /// The file format: otlp-json, otlp-proto or langfuse (default: detected per file).
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<String>,
    /// The system name of every record (default: the traces' `service.name`, else `traces`).
    #[arg(long)]
    pub system: Option<String>,
    /// Print the summary as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

/// Runs `ragjudge import`.
pub fn run(args: &ImportArgs) -> Result<()> {
    let settings = ImportSettings {
        inputs: args.inputs.clone(),
        format: args.format.as_deref().map(TraceFormat::parse).transpose()?,
        system: args.system.clone(),
        output: args.output.clone(),
    };
    let summary = import(&settings)?;
    for issue in summary.issues.iter().take(SHOWN_ISSUES) {
        eprintln!("import: left out: {issue}");
    }
    if summary.issues.len() > SHOWN_ISSUES {
        eprintln!("import: ... and {} more", summary.issues.len() - SHOWN_ISSUES);
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&summary)?);
        return Ok(());
    }
    println!(
        "{} records from {} traces ({} spans in {} files): {} conversations, {} records with earlier turns, {} agent steps",
        summary.records, summary.traces, summary.spans, summary.files, summary.sessions, summary.multi_turn, summary.steps
    );
    if summary.bad_spans + summary.skipped_traces > 0 {
        println!(
            "left out: {} unreadable spans, {} traces without a question or an answer",
            summary.bad_spans, summary.skipped_traces
        );
    }
    println!("records: {}", summary.output.display());
    if let Some(f) = &summary.issues_file {
        println!("issues: {}", f.display());
    }
    Ok(())
}
