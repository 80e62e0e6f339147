//! `ragjudge weakness`: where a system fails (HCAT §6.2), through `ragjudge_analysis::weakness`.
//! Scores come from a per-record score file; strata from the records' `meta` (`--input`) or
//! from columns of the score file itself.

use anyhow::{bail, Result};
use clap::Args;
use ragjudge_analysis::weakness::write_files;
use ragjudge_analysis::{analyse_table, StrataTable, WeaknessReport, WeaknessSettings};
use ragjudge_core::{ReadOptions, RecordReader};
use ragjudge_eval::scores::scan_score_file;
use ragjudge_eval::EvalError;
use ragjudge_report::charts::{stratum_distributions, weakness_charts, write_all};
use ragjudge_report::inputs::WeaknessInput;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::PathBuf;

/// `ragjudge weakness`.
#[derive(Debug, Args)]
pub struct WeaknessArgs {
    /// Per-record scores (`score --output`, CSV or JSONL).
    #[arg(long, value_name = "FILE")]
    pub scores: PathBuf,
    /// Strata dimensions, comma separated: `meta` keys of the `--input` records, or columns of
    /// the score file.
    #[arg(long, value_delimiter = ',', required = true)]
    pub by: Vec<String>,
    /// The records that were scored, for their `meta` (joined on id and system).
    #[arg(long = "input", value_name = "FILE", num_args = 1..)]
    pub inputs: Vec<PathBuf>,
    /// Metric columns to analyse (default: every numeric column of the score file).
    #[arg(long, value_delimiter = ',')]
    pub metric: Vec<String>,
    /// Fewest rows a stratum or cell needs to be tested.
    #[arg(long, default_value_t = 5)]
    pub min_n: usize,
    /// False discovery rate of the Benjamini-Hochberg adjustment.
    #[arg(long, default_value_t = 0.05)]
    pub alpha: f64,
    /// Bootstrap resamples of each stratum's interval.
    #[arg(long, default_value_t = 1000)]
    pub bootstrap: usize,
    /// Seed of the bootstrap.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Directory for `weakness.json`, `marginal.csv`, `bivariate.csv` and the charts (`plots/`:
    /// slices with intervals, a heatmap per system, distributions per stratum; SVG and PNG).
    #[arg(long, short = 'o', value_name = "DIR")]
    pub output: Option<PathBuf>,
    /// Print the reports as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

/// Each record's strata, by (id, system).
type Strata = HashMap<(String, String), Vec<Option<String>>>;

/// A meta value as a stratum name.
fn stratum(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) if s.trim().is_empty() => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

/// The strata of every `--input` record, from its meta.
fn record_strata(args: &WeaknessArgs) -> Result<Strata> {
    let mut out = Strata::new();
    let mut seen = vec![false; args.by.len()];
    for path in &args.inputs {
        for r in RecordReader::open(path, &ReadOptions::default())? {
            let r = r?;
            let values: Vec<Option<String>> = args.by.iter().map(|d| r.meta.get(d).and_then(stratum)).collect();
            for (s, v) in seen.iter_mut().zip(&values) {
                *s |= v.is_some();
            }
            out.insert((r.id, r.system), values);
        }
    }
    if let Some(i) = seen.iter().position(|s| !s) {
        bail!("no record of --input has a `meta.{}` (strata: --by)", args.by[i]);
    }
    Ok(out)
}

/// The rows of the analysis, read from the score file in one pass: each row's system and
/// strata as codes ([`StrataTable`]) and its value in each metric, so that millions of rows
/// take tens of megabytes.
struct Loaded {
    table: StrataTable,
    /// Per metric, a value per row of `table` (`None`: empty or not a number).
    metrics: Vec<(String, Vec<Option<f64>>)>,
    /// Score rows whose id and system no `--input` record has (left out of every metric).
    without_record: usize,
}

fn load(args: &WeaknessArgs) -> Result<Loaded> {
    let records = if args.inputs.is_empty() { None } else { Some(record_strata(args)?) };
    let mut table = StrataTable::new(args.by.len());
    let mut metrics: Vec<(String, Vec<Option<f64>>)> = args.metric.iter().map(|m| (m.clone(), Vec::new())).collect();
    let (mut without_record, mut seen) = (0usize, vec![false; args.by.len()]);
    let path = &args.scores;
    scan_score_file(path, |row| {
        let system = row.text("system").unwrap_or_default();
        let strata: Vec<Option<String>> = match &records {
            Some(map) => match map.get(&(row.text("id").unwrap_or_default(), system.clone())) {
                Some(s) => s.clone(),
                None => {
                    without_record += 1;
                    return Ok(());
                }
            },
            None => args.by.iter().map(|c| row.text(c)).collect(),
        };
        for (s, v) in seen.iter_mut().zip(&strata) {
            *s |= v.is_some();
        }
        let refs: Vec<Option<&str>> = strata.iter().map(Option::as_deref).collect();
        table.push(&system, &refs).map_err(|e| EvalError::io(path, format!("line {}: {e}", row.line)))?;
        if args.metric.is_empty() {
            for c in row.score_columns() {
                let new =
                    !metrics.iter().any(|(m, _)| m == c) && (records.is_some() || !args.by.iter().any(|b| b == c));
                if new && row.holds_number(c) {
                    metrics.push((c.to_string(), vec![None; table.len() - 1]));
                }
            }
        }
        for (name, values) in &mut metrics {
            values.push(row.number(path, name)?);
        }
        Ok(())
    })?;
    if records.is_none() {
        if let Some(i) = seen.iter().position(|s| !s) {
            bail!(
                "{}: missing column `{}`: no row has a value there (--by names columns of the score file, or meta \
                 keys of the --input records)",
                path.display(),
                args.by[i]
            );
        }
    }
    if let Some((m, _)) = metrics.iter().find(|(_, v)| v.iter().all(Option::is_none)) {
        bail!("{}: no numeric column `{m}`", path.display());
    }
    Ok(Loaded { table, metrics, without_record })
}

/// Runs `ragjudge weakness`.
pub fn run(args: &WeaknessArgs) -> Result<()> {
    let settings = WeaknessSettings {
        dimensions: args.by.iter().map(|s| s.trim().to_string()).collect(),
        alpha: args.alpha,
        min_n: args.min_n,
        bootstrap: args.bootstrap,
        seed: args.seed,
        ..WeaknessSettings::default()
    };
    let Loaded { table, metrics, without_record } = load(args)?;
    let mut reports: Vec<(String, WeaknessReport, usize)> = Vec::new();
    let mut distributions = Vec::new();
    for (metric, values) in &metrics {
        let left_out = without_record + values.iter().filter(|v| v.is_none()).count();
        reports.push((metric.clone(), analyse_table(&table, values, &settings)?, left_out));
        for (d, dimension) in settings.dimensions.iter().enumerate() {
            let rows = (0..table.len()).filter_map(|i| Some((table.system(i), table.stratum(i, d)?, values[i]?)));
            distributions.extend(stratum_distributions(metric, dimension, rows));
        }
    }
    if let Some(dir) = &args.output {
        let named: Vec<(&str, &WeaknessReport, usize)> = reports.iter().map(|(m, r, u)| (m.as_str(), r, *u)).collect();
        write_files(dir, &named)?;
        let inputs: Vec<WeaknessInput> = reports
            .iter()
            .map(|(m, r, u)| WeaknessInput { metric: m.clone(), rows_left_out: *u, report: r.clone() })
            .collect();
        let mut charts = weakness_charts(&inputs);
        charts.extend(distributions);
        let files = write_all(&charts, &dir.join("plots"))?;
        eprintln!("{} charts written to {}", files.len() / 2, dir.join("plots").display());
    }
    if args.json {
        let v: Vec<Value> =
            reports.iter().map(|(m, r, u)| json!({"metric": m, "rows_left_out": u, "report": r})).collect();
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    for (metric, r, unmatched) in &reports {
        println!(
            "{metric}: {} significant weak slices, {} weak cells (alpha {}, BH)",
            r.weakest.len(),
            r.weakest_cells.len(),
            args.alpha
        );
        for &i in r.weakest.iter().take(10) {
            let s = &r.marginal[i];
            println!(
                "  {} {}={}: n {}, mean {:.4} [{:.4}, {:.4}] vs {:.4}, p_adj {:.2e}",
                s.system,
                s.dimension,
                s.stratum,
                s.n,
                s.mean,
                s.ci_low,
                s.ci_high,
                s.rest_mean.unwrap_or(f64::NAN),
                s.p_adjusted.unwrap_or(f64::NAN)
            );
        }
        for &i in r.weakest_cells.iter().take(10) {
            let c = &r.bivariate[i];
            println!(
                "  {} {}={} x {}={}: n {}, mean {:.4} vs {:.4}, p_adj {:.2e}",
                c.system,
                c.dimensions[0],
                c.strata[0],
                c.dimensions[1],
                c.strata[1],
                c.n,
                c.mean,
                c.rest_mean.unwrap_or(f64::NAN),
                c.p_adjusted.unwrap_or(f64::NAN)
            );
        }
        if *unmatched > 0 {
            println!("  ({unmatched} rows without a value or without strata left out)");
        }
    }
    Ok(())
}
