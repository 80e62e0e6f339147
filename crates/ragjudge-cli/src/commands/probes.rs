//! `ragjudge probes generate|report`: counterfactual bias probes (seed 003, section 4).

use anyhow::{bail, Context as _, Result};
use clap::{Args, Subcommand};
use ragjudge_core::{ReadOptions, Record, RecordReader};
use ragjudge_safety::probes::generate::Swapper;
use ragjudge_safety::probes::report::{report, ProbeReport, ScoreTable};
use serde_json::Value;
use std::io::{BufWriter, Write};
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
        ProbesAction::Generate { input, output, json } => generate(input, output, *json),
        ProbesAction::Report { scores, input, metrics, threshold, output, json } => {
            run_report(scores, input, metrics, *threshold, output.as_deref(), *json)
        }
    }
}

fn read_records(path: &Path) -> Result<Vec<Record>> {
    let reader = RecordReader::open(path, &ReadOptions::default())?;
    reader.map(|r| r.map_err(anyhow::Error::from)).collect()
}

fn generate(input: &Path, output: &Path, json: bool) -> Result<()> {
    let records = read_records(input)?;
    let out = Swapper::default().generate(&records);
    let file = std::fs::File::create(output).with_context(|| format!("{}: cannot create", output.display()))?;
    let mut w = BufWriter::new(file);
    for r in &out {
        serde_json::to_writer(&mut w, r).with_context(|| format!("{}: write failed", output.display()))?;
        w.write_all(b"\n").with_context(|| format!("{}: write failed", output.display()))?;
    }
    w.flush().with_context(|| format!("{}: write failed", output.display()))?;
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

/// Reads per-record scores from a CSV (header row) or JSONL file: `id`, `system` and numeric
/// columns (`run` and `error` ignored; empty or non-numeric cells are missing values).
fn read_scores(path: &Path) -> Result<ScoreTable> {
    let name = path.display().to_string();
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    let skip = |c: &str| matches!(c, "id" | "system" | "run" | "error" | "detail");
    let mut rows: Vec<(String, String, Vec<(String, Option<f64>)>)> = Vec::new();
    if ext == "csv" {
        let mut r = csv::Reader::from_path(path).with_context(|| format!("{name}: cannot open"))?;
        let headers = r.headers().with_context(|| format!("{name}: no header"))?.clone();
        let col = |c: &str| headers.iter().position(|h| h == c);
        let (Some(id), Some(sys)) = (col("id"), col("system")) else {
            bail!("{name}: needs `id` and `system` columns")
        };
        for (line, rec) in r.records().enumerate() {
            let rec = rec.with_context(|| format!("{name}:{}", line + 2))?;
            let vals = headers
                .iter()
                .enumerate()
                .filter(|(_, h)| !skip(h))
                .map(|(i, h)| {
                    (h.to_string(), rec.get(i).and_then(|v| v.trim().parse::<f64>().ok()).filter(|x| x.is_finite()))
                })
                .collect();
            rows.push((rec.get(id).unwrap_or("").to_string(), rec.get(sys).unwrap_or("").to_string(), vals));
        }
    } else {
        let text = std::fs::read_to_string(path).with_context(|| format!("{name}: cannot read"))?;
        for (line, l) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            let v: Value = serde_json::from_str(l).with_context(|| format!("{name}:{}: not JSON", line + 1))?;
            let Value::Object(o) = v else { bail!("{name}:{}: not a JSON object", line + 1) };
            let get = |k: &str| o.get(k).and_then(Value::as_str).unwrap_or("").to_string();
            let vals = o
                .iter()
                .filter(|(k, _)| !skip(k))
                .map(|(k, v)| (k.clone(), v.as_f64().filter(|x| x.is_finite())))
                .collect();
            rows.push((get("id"), get("system"), vals));
        }
    }
    let mut columns: Vec<String> = Vec::new();
    for (_, _, vals) in &rows {
        for (c, v) in vals {
            if v.is_some() && !columns.contains(c) {
                columns.push(c.clone());
            }
        }
    }
    let mut table = ScoreTable::new(columns.clone());
    for (id, sys, vals) in rows {
        let row = columns.iter().map(|c| vals.iter().find(|(k, _)| k == c).and_then(|(_, v)| *v)).collect();
        table.insert(&id, &sys, row);
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
        std::fs::write(p, s).with_context(|| format!("{}: cannot write", p.display()))?;
    }
    if json {
        println!("{}", serde_json::to_string(&r)?);
    } else {
        print_report(&r);
    }
    Ok(())
}
