//! `ragjudge probes generate|report`: counterfactual bias probes (HCAT §4), through
//! `ragjudge_safety::probes::job`.

use crate::args::ShardArgs;
use anyhow::{Context as _, Result};
use clap::{Args, Subcommand};
use ragjudge_eval::scores::read_score_file;
use ragjudge_safety::probes::job::{generate_probes, probe_report, read_records, write_report, ReportSettings};
use ragjudge_safety::probes::report::{ProbeReport, ScoreTable};
use std::path::{Path, PathBuf};

/// `ragjudge probes`.
#[derive(Debug, Args)]
pub struct ProbesArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: ProbesAction,
}

/// `ragjudge probes generate|report`.
#[derive(Debug, Subcommand)]
pub enum ProbesAction {
    /// Write demographic-swap variants of records whose query mentions listed terms (gender,
    /// ethnicity, nationality, religion, age), each after its original, tagged in `meta`.
    Generate {
        /// Records (any input layout).
        #[arg(long, short = 'i')]
        input: PathBuf,
        /// Output JSONL: originals with variants, then their variants (answers emptied).
        #[arg(long, short = 'o')]
        output: PathBuf,
        /// Print a JSON summary on stdout.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        shard: ShardArgs,
    },
    /// Compare variants with their originals: mean score differences and answer similarity per
    /// system, probe group and swap.
    Report {
        /// Per-record scores of originals and variants (`score --output`, CSV or JSONL).
        #[arg(long)]
        scores: PathBuf,
        /// The answered originals and variants (with their `probe_*` meta).
        #[arg(long, short = 'i')]
        input: PathBuf,
        /// Score columns to compare, comma separated (default: every numeric column).
        #[arg(long, value_delimiter = ',')]
        metrics: Vec<String>,
        /// Flag groups whose |mean score difference| exceeds this on some column.
        #[arg(long)]
        threshold: Option<f64>,
        /// Also write the full report (with every pair) as JSON to this file.
        #[arg(long, short = 'o')]
        output: Option<PathBuf>,
        /// Print the report as JSON on stdout.
        #[arg(long)]
        json: bool,
    },
}

/// Runs `probes`.
pub fn run(args: &ProbesArgs) -> Result<()> {
    match &args.action {
        ProbesAction::Generate { input, output, json, shard } => {
            ragjudge_artifacts::check_not_input(output, &[input])?;
            let records = shard.select(read_records(input)?)?;
            let s = generate_probes(&records, output)?;
            if *json {
                println!("{}", serde_json::to_string(&s)?);
            } else {
                println!(
                    "{} of {} records mention demographic terms; {} variants written to {} ({})",
                    s.probed,
                    s.records,
                    s.variants,
                    output.display(),
                    s.terms
                );
            }
            Ok(())
        }
        ProbesAction::Report { scores, input, metrics, threshold, output, json } => {
            let settings = ReportSettings { columns: metrics.clone(), threshold: *threshold };
            let table = read_scores(scores)?;
            let records = read_records(input)?;
            let r = probe_report(&records, &table, &settings).with_context(|| scores.display().to_string())?;
            if let Some(p) = output {
                write_report(p, &r, &[scores.as_path(), input.as_path()], &settings)?;
            }
            if *json {
                println!("{}", serde_json::to_string(&r)?);
            } else {
                print_report(&r);
            }
            Ok(())
        }
    }
}

/// Reads per-record scores (`id`, `system` and numeric columns) into the probes' table.
fn read_scores(path: &Path) -> Result<ScoreTable> {
    let file = read_score_file(path)?;
    let mut table = ScoreTable::new(file.columns);
    for row in file.rows {
        table.insert(&row.id, &row.system, row.values);
    }
    Ok(table)
}

fn fmt(x: Option<f64>) -> String {
    x.map(|v| format!("{v:+.4}")).unwrap_or_else(|| "-".into())
}

fn print_report(r: &ProbeReport) {
    println!(
        "probe report over {} pairs ({}); columns: {}",
        r.pairs.len(),
        r.term_versions.join(", "),
        r.columns.join(", ")
    );
    for g in &r.groups {
        let shifts: Vec<String> =
            g.metrics.iter().map(|m| format!("{} {} (n={})", m.column, fmt(m.mean_diff), m.n)).collect();
        println!(
            "{}  {}  {}  pairs={}  {}  answer_f1={}  rougeL={}  identical={:.2}{}",
            g.system,
            g.group,
            g.variant,
            g.pairs,
            shifts.join("  "),
            g.answer_token_f1.map(|v| format!("{v:.4}")).unwrap_or_else(|| "-".into()),
            g.answer_rouge_l.map(|v| format!("{v:.4}")).unwrap_or_else(|| "-".into()),
            g.identical_answers,
            if g.flagged { "  FLAGGED" } else { "" }
        );
    }
    if !r.unmatched.is_empty() {
        println!("{} variants without an original or scores (first: {})", r.unmatched.len(), r.unmatched[0]);
    }
}
