//! `ragjudge probes generate|report`: counterfactual bias probes (HCAT §4).

use crate::args::ShardArgs;
use anyhow::{bail, Context as _, Result};
use clap::{Args, Subcommand};
use ragjudge_core::{ReadOptions, Record, RecordReader};
use ragjudge_eval::scores::read_score_file;
use ragjudge_safety::probes::generate::Swapper;
use ragjudge_safety::probes::report::{report, ProbeReport, ScoreTable};
use serde_json::Value;
use std::io::Write;
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
        ProbesAction::Generate { input, output, json, shard } => generate(input, output, *json, shard),
        ProbesAction::Report { scores, input, metrics, threshold, output, json } => {
            run_report(scores, input, metrics, *threshold, output.as_deref(), *json)
        }
    }
}

fn read_records(path: &Path) -> Result<Vec<Record>> {
    let reader = RecordReader::open(path, &ReadOptions::default())?;
    reader.map(|r| r.map_err(anyhow::Error::from)).collect()
}

fn generate(input: &Path, output: &Path, json: bool, shard: &ShardArgs) -> Result<()> {
    ragjudge_artifacts::check_not_input(output, &[input])?;
    let records = shard.select(read_records(input)?);
    let out = Swapper::default().generate(&records);
    let mut w = ragjudge_artifacts::AtomicFile::create(output)?;
    for r in &out {
        serde_json::to_writer(&mut w, r).with_context(|| format!("{}: write failed", output.display()))?;
        w.write_all(b"\n").with_context(|| format!("{}: write failed", output.display()))?;
    }
    w.commit()?;
    let originals = out.iter().filter(|r| r.meta.get("probe_variant") == Some(&Value::from("original"))).count();
    let variants = out.len() - originals;
    if json {
        let v = serde_json::json!({"records": records.len(), "probed": originals, "variants": variants,
            "terms": ragjudge_safety::probes::terms::VERSION});
        println!("{v}");
    } else {
        println!(
            "{} of {} records mention demographic terms; {} variants written to {} ({})",
            originals,
            records.len(),
            variants,
            output.display(),
            ragjudge_safety::probes::terms::VERSION
        );
    }
    Ok(())
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

fn run_report(
    scores: &Path,
    input: &Path,
    metrics: &[String],
    threshold: Option<f64>,
    output: Option<&Path>,
    json: bool,
) -> Result<()> {
    if let Some(t) = threshold {
        if !(t.is_finite() && t >= 0.0) {
            bail!("--threshold must be a non-negative number, got {t}");
        }
    }
    let table = read_scores(scores)?;
    let records = read_records(input)?;
    let columns: Vec<String> = if metrics.is_empty() { table.columns.clone() } else { metrics.to_vec() };
    let r = report(&records, &table, &columns, threshold)
        .map_err(anyhow::Error::msg)
        .with_context(|| scores.display().to_string())?;
    if r.pairs.is_empty() {
        bail!(
            "no variant/original pairs found (records need probe_* meta from `probes generate`, and scores for both)"
        );
    }
    if let Some(p) = output {
        let s = serde_json::to_string_pretty(&r)?;
        ragjudge_artifacts::write_atomic(p, s.as_bytes())?;
    }
    if json {
        println!("{}", serde_json::to_string(&r)?);
    } else {
        print_report(&r);
    }
    Ok(())
}
