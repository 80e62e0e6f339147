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

use crate::error::EvalError;
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

#[derive(Clone, Serialize, Deserialize)]
struct Column {
    moments: Summary,
    sum: ExactSum,
    boot: PoissonBootstrapMean,
}

#[derive(Clone, Serialize, Deserialize)]
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
    seed: u64,
    skipped: u64,
    shard: Option<String>,
}

/// What a [`Summarizer`] has accumulated, as data: sent from the workers that scored disjoint
/// parts of the records (Ray Data blocks) and [merged](Summarizer::merge) into one summary.
#[derive(Clone, Serialize, Deserialize)]
pub struct SummaryState {
    columns: Vec<String>,
    replicates: usize,
    seed: u64,
    skipped: u64,
    systems: Vec<SystemStats>,
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
            seed,
            skipped: 0,
            shard: None,
        }
    }

    /// The accumulated state, to merge elsewhere ([`Summarizer::from_state`], [`Summarizer::merge`]).
    pub fn into_state(self) -> SummaryState {
        SummaryState {
            columns: self.columns,
            replicates: self.replicates,
            seed: self.seed,
            skipped: self.skipped,
            systems: self.systems,
        }
    }

    /// A summarizer holding `state`; a state whose systems do not have one accumulator per
    /// column of its replicate count is refused.
    pub fn from_state(state: SummaryState) -> Result<Self, EvalError> {
        if state.replicates == 0 {
            return Err(EvalError::settings("summary state: no bootstrap replicates"));
        }
        for s in &state.systems {
            let fits = s.columns.len() == state.columns.len()
                && s.columns.iter().all(|c| c.boot.n_replicates() == state.replicates);
            if !fits {
                return Err(EvalError::settings(format!(
                    "summary state: system `{}` does not hold {} columns of {} replicates",
                    s.name,
                    state.columns.len(),
                    state.replicates
                )));
            }
        }
        let mut me = Self::new(state.columns, state.replicates, state.seed);
        me.skipped = state.skipped;
        for s in state.systems {
            me.index.insert(s.name.clone(), me.systems.len());
            me.systems.push(s);
        }
        Ok(me)
    }

    /// Adds what `other` accumulated over records disjoint from this one's, as if they had been
    /// added here: counts and means exact, replicate sums up to the order of summation (the
    /// module's note). Both must have the same columns, replicates and seed.
    pub fn merge(&mut self, other: Summarizer) -> Result<(), EvalError> {
        if other.columns != self.columns {
            return Err(EvalError::settings(format!(
                "summaries of different columns cannot be merged: {:?} and {:?}",
                self.columns, other.columns
            )));
        }
        if (other.replicates, other.seed) != (self.replicates, self.seed) {
            return Err(EvalError::settings(format!(
                "summaries of different bootstraps cannot be merged: {} replicates seed {} and {} replicates seed {}",
                self.replicates, self.seed, other.replicates, other.seed
            )));
        }
        self.skipped += other.skipped;
        for s in other.systems {
            match self.index.get(&s.name) {
                Some(&i) => {
                    let mine = &mut self.systems[i];
                    mine.records += s.records;
                    mine.failed += s.failed;
                    for (a, b) in mine.columns.iter_mut().zip(&s.columns) {
                        a.moments.merge(&b.moments);
                        a.sum.merge(&b.sum);
                        a.boot.merge(&b.boot);
                    }
                }
                None => {
                    self.index.insert(s.name.clone(), self.systems.len());
                    self.systems.push(s);
                }
            }
        }
        Ok(())
    }

    /// The value columns, in order.
    pub fn columns(&self) -> &[String] {
        &self.columns
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

#[cfg(test)]
mod tests {
    use super::*;

    /// 300 records of two systems, two columns (the second missing on every fifth record), a
    /// failure on every seventh.
    fn records() -> Vec<(String, &'static str, Vec<Option<f64>>, bool)> {
        (0..300)
            .map(|i| {
                let x = ((i * 37) % 101) as f64 / 8.0;
                let y = (i % 5 != 0).then_some(((i * 13) % 17) as f64);
                (format!("q{}", i / 2), if i % 2 == 0 { "a" } else { "b" }, vec![Some(x), y], i % 7 == 0)
            })
            .collect()
    }

    fn close(a: Option<f64>, b: Option<f64>) -> bool {
        match (a, b) {
            (Some(a), Some(b)) => (a - b).abs() <= 1e-12 * a.abs().max(1.0),
            (a, b) => a == b,
        }
    }

    #[test]
    fn merged_states_of_parts_equal_one_pass() {
        let columns = vec!["x".to_string(), "y".to_string()];
        let mut all = Summarizer::new(columns.clone(), 400, 5);
        for (id, sys, v, failed) in records() {
            all.add(&id, sys, None, &v, failed);
        }
        all.skip();
        // Three parts, each fed in reverse order, sent as JSON and merged.
        let mut parts: Vec<Summarizer> = (0..3).map(|_| Summarizer::new(columns.clone(), 400, 5)).collect();
        for (i, (id, sys, v, failed)) in records().into_iter().enumerate().rev() {
            parts[i % 3].add(&id, sys, None, &v, failed);
        }
        parts[2].skip();
        let mut merged: Option<Summarizer> = None;
        for p in parts.into_iter().rev() {
            let json = serde_json::to_string(&p.into_state()).unwrap();
            let back = Summarizer::from_state(serde_json::from_str(&json).unwrap()).unwrap();
            match merged.as_mut() {
                None => merged = Some(back),
                Some(m) => m.merge(back).unwrap(),
            }
        }
        let (one, two) = (all.report(0.95), merged.unwrap().report(0.95));
        assert_eq!((one.records, one.failed, one.skipped), (300, 43, 1));
        assert_eq!((two.records, two.failed, two.skipped), (one.records, one.failed, one.skipped));
        for s in &one.systems {
            let t = two.systems.iter().find(|t| t.system == s.system).unwrap();
            assert_eq!((s.records, s.failed), (t.records, t.failed));
            for (a, b) in s.metrics.iter().zip(&t.metrics) {
                assert_eq!((a.n, a.mean), (b.n, b.mean), "{}", a.metric);
                assert!(close(a.std, b.std) && close(a.ci_low, b.ci_low) && close(a.ci_high, b.ci_high), "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn states_of_other_columns_or_bootstraps_are_refused() {
        let a = Summarizer::new(vec!["x".into()], 10, 1);
        let mut b = Summarizer::new(vec!["x".into()], 10, 1);
        assert!(b.merge(Summarizer::new(vec!["y".into()], 10, 1)).is_err());
        assert!(b.merge(Summarizer::new(vec!["x".into()], 10, 2)).is_err());
        assert!(b.merge(Summarizer::new(vec!["x".into()], 20, 1)).is_err());
        b.merge(a).unwrap();
        // A state whose system has the wrong number of columns.
        let mut c = Summarizer::new(vec!["x".into(), "y".into()], 10, 1);
        c.add("q", "s", None, &[Some(1.0), Some(2.0)], false);
        let mut state = serde_json::to_value(c.into_state()).unwrap();
        state["columns"] = serde_json::json!(["x"]);
        let err = Summarizer::from_state(serde_json::from_value(state).unwrap()).err().unwrap();
        assert!(err.to_string().contains("does not hold 1 columns"), "{err}");
    }
}
