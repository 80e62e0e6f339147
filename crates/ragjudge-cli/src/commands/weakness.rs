//! `ragjudge weakness`: where a system fails (HCAT §6.2), through `ragjudge_analysis::weakness`.
//! Scores come from a per-record score file; strata from the records' `meta` (`--input`) or
//! from columns of the score file itself.

use anyhow::{bail, Context as _, Result};
use clap::Args;
use ragjudge_analysis::weakness::write_files;
use ragjudge_analysis::{analyse, WeaknessReport, WeaknessRow, WeaknessSettings};
use ragjudge_core::table::read_table;
use ragjudge_core::{ReadOptions, RecordReader};
use ragjudge_eval::scores::read_score_file;
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

/// A meta value or cell as a stratum name.
fn stratum(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) if s.trim().is_empty() => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

/// The strata of every record: from the records' meta, or from the score file's own columns.
fn strata(args: &WeaknessArgs) -> Result<Strata> {
    let mut out = Strata::new();
    if args.inputs.is_empty() {
        let mut cols = vec!["id", "system"];
        cols.extend(args.by.iter().map(String::as_str));
        let t = read_table(&args.scores, &cols).context("--by without --input names columns of the score file")?;
        for (_, cells) in &t.rows {
            let key = (cells[0].clone().unwrap_or_default(), cells[1].clone().unwrap_or_default());
            let values = cells[2..].iter().map(|c| c.clone().filter(|s| !s.trim().is_empty())).collect();
            out.insert(key, values);
        }
        return Ok(out);
    }
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
    let strata = strata(args)?;
    let scores = read_score_file(&args.scores)?;
    let metrics: Vec<String> = if args.metric.is_empty() { scores.columns.clone() } else { args.metric.clone() };
    let mut reports: Vec<(String, WeaknessReport, usize)> = Vec::new();
    let mut distributions = Vec::new();
    for metric in &metrics {
        let Some(col) = scores.columns.iter().position(|c| c == metric) else {
            bail!("{}: no numeric column `{metric}`", args.scores.display());
        };
        let (mut rows, mut unmatched) = (Vec::new(), 0usize);
        for r in &scores.rows {
            let (Some(value), Some(s)) = (r.values[col], strata.get(&(r.id.clone(), r.system.clone()))) else {
                unmatched += 1;
                continue;
            };
            rows.push(WeaknessRow { system: r.system.clone(), value, strata: s.clone() });
        }
        reports.push((metric.clone(), analyse(&rows, &settings)?, unmatched));
        for (d, dimension) in settings.dimensions.iter().enumerate() {
            let values = rows.iter().filter_map(|r| Some((r.system.as_str(), r.strata[d].as_deref()?, r.value)));
            distributions.extend(stratum_distributions(metric, dimension, values));
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
