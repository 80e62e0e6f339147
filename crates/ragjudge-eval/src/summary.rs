//! Per-system summary of per-record scores: mean with a bootstrap confidence interval per column.
//!
//! Memory stays constant in the number of records: each column keeps an exact sum, a Welford
//! accumulator and a Poisson bootstrap (online bootstrap: every record gets one Poisson(1) weight
//! per replicate, shared by all columns of that record), so a million records cost no more than a
//! hundred.
//!
//! Shards add up: a record's bootstrap weights are a pure function of (seed, record key,
//! replicate), the record key being a stable hash of its `id`, `system` and `run`, and the mean is
//! the correctly rounded sum over the count. So the summary of the rows of `score --shard i/n`
//! for every `i`, taken together in any order, has the same means, bit for bit, as one run over
//! all records; the standard deviation and the interval ends differ only by the rounding of sums
//! taken in another order (relative 1e-12 at most in practice, see `docs/scale.md`).

use ragjudge_core::stable_hash;
use ragjudge_stats::bootstrap::{PoissonBootstrapMean, PoissonWeights};
use ragjudge_stats::describe::{ExactSum, Summary};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Mean and interval of one column for one system.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ColumnReport {
    /// Column name.
    pub metric: String,
    /// Records with a value in this column.
    pub n: u64,
    /// Mean over those records.
    pub mean: Option<f64>,
    /// Sample standard deviation.
    pub std: Option<f64>,
    /// Lower end of the bootstrap interval of the mean.
    pub ci_low: Option<f64>,
    /// Upper end of the bootstrap interval of the mean.
    pub ci_high: Option<f64>,
}

/// Everything known about one system after scoring.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SystemReport {
    /// System name.
    pub system: String,
    /// Records scored (metric failures included).
    pub records: u64,
    /// Records on which at least one metric failed.
    pub failed: u64,
    /// One entry per column.
    pub metrics: Vec<ColumnReport>,
}

/// The whole summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SummaryReport {
    /// Per system, in order of first appearance.
    pub systems: Vec<SystemReport>,
    /// Records scored over all systems.
    pub records: u64,
    /// Malformed records skipped (`--skip-invalid`).
    pub skipped: u64,
    /// Records on which at least one metric failed.
    pub failed: u64,
    /// Confidence level of the intervals.
    pub level: f64,
    /// Bootstrap replicates behind the intervals.
    pub bootstrap: usize,
    /// The shard `i/n` these records are (`score --shard`); absent for all records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
}

struct Column {
    moments: Summary,
    sum: ExactSum,
    boot: PoissonBootstrapMean,
}

struct SystemStats {
    name: String,
    records: u64,
    failed: u64,
    columns: Vec<Column>,
}

/// Accumulates rows into per-system statistics.
pub struct Summarizer {
    columns: Vec<String>,
    systems: Vec<SystemStats>,
    index: HashMap<String, usize>,
    weights: PoissonWeights,
    replicates: usize,
    skipped: u64,
    shard: Option<String>,
}

impl Summarizer {
    /// A summarizer over `columns` with `replicates` bootstrap replicates seeded by `seed`.
    pub fn new(columns: Vec<String>, replicates: usize, seed: u64) -> Self {
        Self {
            columns,
            systems: Vec::new(),
            index: HashMap::new(),
            weights: PoissonWeights::new(replicates, seed),
            replicates,
            skipped: 0,
            shard: None,
        }
    }

    /// Marks the summary as that of one shard (`i/n`).
    pub fn set_shard(&mut self, shard: Option<String>) {
        self.shard = shard;
    }

    /// Counts one malformed record that was skipped.
    pub fn skip(&mut self) {
        self.skipped += 1;
    }

    /// Counts `n` malformed records skipped elsewhere (by the shards of a merged run).
    pub fn add_skipped(&mut self, n: u64) {
        self.skipped += n;
    }

    /// Malformed records skipped so far.
    pub fn skipped(&self) -> u64 {
        self.skipped
    }

    /// Adds one scored record, keyed by its `id`, `system` and `run`.
    pub fn add(&mut self, id: &str, system: &str, run: Option<u32>, values: &[Option<f64>], failed: bool) {
        let i = match self.index.get(system) {
            Some(&i) => i,
            None => {
                let columns = (0..self.columns.len())
                    .map(|_| Column {
                        moments: Summary::new(),
                        sum: ExactSum::new(),
                        boot: PoissonBootstrapMean::new(self.replicates, 0),
                    })
                    .collect();
                self.systems.push(SystemStats { name: system.to_string(), records: 0, failed: 0, columns });
                self.index.insert(system.to_string(), self.systems.len() - 1);
                self.systems.len() - 1
            }
        };
        let stats = &mut self.systems[i];
        stats.records += 1;
        stats.failed += u64::from(failed);
        if values.iter().all(Option::is_none) {
            return;
        }
        let w = self.weights.draw_keyed(record_key(id, system, run));
        for (col, v) in stats.columns.iter_mut().zip(values) {
            if let Some(x) = *v {
                col.moments.push(x);
                col.sum.push(x);
                col.boot.push_weighted(x, w);
            }
        }
    }

    /// The summary at confidence `level`.
    pub fn report(&self, level: f64) -> SummaryReport {
        let systems: Vec<SystemReport> = self
            .systems
            .iter()
            .map(|s| SystemReport {
                system: s.name.clone(),
                records: s.records,
                failed: s.failed,
                metrics: self
                    .columns
                    .iter()
                    .zip(&s.columns)
                    .map(|(name, c)| {
                        let ci = c.boot.ci(level);
                        ColumnReport {
                            metric: name.clone(),
                            n: c.moments.count(),
                            mean: (c.moments.count() > 0).then(|| c.sum.value() / c.moments.count() as f64),
                            std: c.moments.std_dev(),
                            ci_low: ci.as_ref().map(|c| c.low),
                            ci_high: ci.as_ref().map(|c| c.high),
                        }
                    })
                    .collect(),
            })
            .collect();
        SummaryReport {
            records: systems.iter().map(|s| s.records).sum(),
            failed: systems.iter().map(|s| s.failed).sum(),
            systems,
            skipped: self.skipped,
            level,
            bootstrap: self.replicates,
            shard: self.shard.clone(),
        }
    }
}

/// The stable key of a record for its bootstrap weights: a hash of `id`, `system` and `run`.
pub fn record_key(id: &str, system: &str, run: Option<u32>) -> u64 {
    let run = run.map(|r| r.to_string()).unwrap_or_default();
    stable_hash(&[id.as_bytes(), system.as_bytes(), run.as_bytes()])
}

/// Renders the summary as a plain table: one row per metric, one column per system.
pub fn render_table(report: &SummaryReport) -> String {
    let mut header = vec!["metric".to_string()];
    header.extend(report.systems.iter().map(|s| s.system.clone()));
    let mut rows: Vec<Vec<String>> = vec![header];
    let n_metrics = report.systems.first().map_or(0, |s| s.metrics.len());
    for m in 0..n_metrics {
        let mut row = vec![report.systems[0].metrics[m].metric.clone()];
        for s in &report.systems {
            let c = &s.metrics[m];
            row.push(match (c.mean, c.ci_low, c.ci_high) {
                (Some(mean), Some(lo), Some(hi)) => format!("{mean:.4} [{lo:.4}, {hi:.4}]"),
                (Some(mean), _, _) => format!("{mean:.4}"),
                _ => "-".to_string(),
            });
        }
        rows.push(row);
    }
    for (label, get) in [
        ("records scored", (|s: &SystemReport| s.records) as fn(&SystemReport) -> u64),
        ("metric failures", |s: &SystemReport| s.failed),
    ] {
        let mut row = vec![label.to_string()];
        row.extend(report.systems.iter().map(|s| get(s).to_string()));
        rows.push(row);
    }
    let widths: Vec<usize> =
        (0..rows[0].len()).map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0)).collect();
    let mut out = String::new();
    for (i, row) in rows.iter().enumerate() {
        let line: Vec<String> = row
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(c, (cell, w))| if c == 0 { format!("{cell:<w$}") } else { format!("{cell:>w$}") })
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
        if i == 0 {
            out.push_str(&"-".repeat(widths.iter().sum::<usize>() + 2 * (widths.len() - 1)));
            out.push('\n');
        }
    }
    let shard = report.shard.as_ref().map(|s| format!(" in shard {s}")).unwrap_or_default();
    out.push_str(&format!(
        "{} records scored{shard}, {} skipped as invalid, {} with metric failures; intervals: {:.0}% Poisson bootstrap, {} replicates\n",
        report.records,
        report.skipped,
        report.failed,
        report.level * 100.0,
        report.bootstrap
    ));
    out
}
