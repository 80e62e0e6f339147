//! `ragjudge weakness`: where a system fails (HCAT §6.2), through `ragjudge_analysis::weakness`.
//! Scores come from a per-record score file; strata from the records' `meta` (`--input`) or
//! from columns of the score file itself.

use anyhow::Result;
use clap::Args;
use ragjudge_analysis::weakness::{write_files, WeaknessJob, WeaknessOutcome};
use ragjudge_analysis::WeaknessSettings;
use ragjudge_artifacts::Provenance;
use ragjudge_report::charts::{stratum_distributions, weakness_charts, write_all};
use ragjudge_report::inputs::WeaknessInput;
use std::path::{Path, PathBuf};

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

impl WeaknessArgs {
    /// The library job these options describe.
    pub(crate) fn job(&self) -> WeaknessJob {
        let settings = WeaknessSettings {
            dimensions: self.by.iter().map(|s| s.trim().to_string()).collect(),
            alpha: self.alpha,
            min_n: self.min_n,
            bootstrap: self.bootstrap,
            seed: self.seed,
            ..WeaknessSettings::default()
        };
        WeaknessJob { scores: self.scores.clone(), inputs: self.inputs.clone(), metrics: self.metric.clone(), settings }
    }
}

/// Runs `ragjudge weakness`.
pub fn run(args: &WeaknessArgs) -> Result<()> {
    let job = args.job();
    let outcome = job.run()?;
    for r in &outcome.rows.repeats {
        eprintln!("warning: {r}");
    }
    if let Some(dir) = &args.output {
        let mut provenance = Provenance::of_this_process();
        provenance.add_inputs(&[&args.scores])?;
        provenance.add_inputs(&args.inputs)?;
        write_files(dir, &outcome.artifact, &provenance)?;
        charts(dir, &job, &outcome)?;
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&outcome.artifact.reports)?);
        return Ok(());
    }
    for w in &outcome.artifact.reports {
        let (metric, r, unmatched) = (&w.metric, &w.report, w.rows_left_out);
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
        if unmatched > 0 {
            println!("  ({unmatched} rows without a value or without strata left out)");
        }
    }
    Ok(())
}

/// The charts of `plots/`: slices with intervals, a heatmap per system, distributions per stratum.
fn charts(dir: &Path, job: &WeaknessJob, outcome: &WeaknessOutcome) -> Result<()> {
    let inputs: Vec<WeaknessInput> = outcome
        .artifact
        .reports
        .iter()
        .map(|w| WeaknessInput { metric: w.metric.clone(), rows_left_out: w.rows_left_out, report: w.report.clone() })
        .collect();
    let mut charts = weakness_charts(&inputs);
    let table = &outcome.rows.table;
    for (metric, values) in &outcome.rows.metrics {
        for (d, dimension) in job.settings.dimensions.iter().enumerate() {
            let rows = (0..table.len()).filter_map(|i| Some((table.system(i), table.stratum(i, d)?, values[i]?)));
            charts.extend(stratum_distributions(metric, dimension, rows));
        }
    }
    let files = write_all(&charts, &dir.join("plots"))?;
    eprintln!("{} charts written to {}", files.len() / 2, dir.join("plots").display());
    Ok(())
}
