//! `ragjudge gate`: pass/fail for CI from a run's summary (`ragjudge_report::gate`). Exit code 0
//! when every check passes, 1 when one fails (one line per failed check), 2 when the checks
//! cannot be run (a file that cannot be read, a column or system the summary lacks).

use anyhow::Result;
use clap::{Args, ValueEnum};
use ragjudge_report::junit::to_junit_xml;
use ragjudge_report::summary::Resummarize;
use ragjudge_report::{read_summary, Check, Gate, GateError, Statistic};
use std::path::PathBuf;

/// What a threshold is compared with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OnArg {
    /// The confidence bound on the strict side: lower for --min, upper for --max.
    Bound,
    /// The mean.
    Mean,
}

/// `ragjudge gate`.
#[derive(Debug, Args)]
pub struct GateArgs {
    /// The run to check: `score --json` output, a tournament's `leaderboard.json` (or a
    /// baseline's `baseline.json`), per-record scores (`.csv`, `.jsonl`), summarised again as
    /// `score` does, or any other artifact, read as its key figures (docs/ci-gate.md).
    pub summary: PathBuf,
    /// The column's statistic must be at least VALUE (COLUMN=VALUE; repeatable).
    #[arg(long, value_name = "COLUMN=VALUE")]
    pub min: Vec<String>,
    /// The column's statistic must be at most VALUE (COLUMN=VALUE; repeatable).
    #[arg(long, value_name = "COLUMN=VALUE")]
    pub max: Vec<String>,
    /// The column's mean may fall by at most DELTA from `--previous` (COLUMN=DELTA; repeatable).
    #[arg(long, value_name = "COLUMN=DELTA", requires = "previous")]
    pub max_drop: Vec<String>,
    /// A previous run's summary, for `--max-drop`.
    #[arg(long, value_name = "FILE")]
    pub previous: Option<PathBuf>,
    /// Every checked system must be stronger than this one in the tournament.
    #[arg(long, value_name = "SYSTEM")]
    pub beats: Option<String>,
    /// Check only these systems (repeatable; default: every system).
    #[arg(long, value_name = "SYSTEM")]
    pub system: Vec<String>,
    /// What thresholds are compared with.
    #[arg(long, value_enum, default_value = "bound")]
    pub on: OnArg,
    /// Also write the outcomes as JUnit XML to this file.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Bootstrap replicates when summarising a per-record score file (as `score`).
    #[arg(long, default_value_t = 1000)]
    pub bootstrap: usize,
    /// Bootstrap seed when summarising a per-record score file (as `score`).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Print the outcomes as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

/// The checks cannot be run: exit code 2.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct GateUsageError(#[from] GateError);

/// Some check failed: exit code 1.
#[derive(Debug, thiserror::Error)]
#[error("{failed} of {total} gate checks failed")]
pub struct GateFailed {
    failed: usize,
    total: usize,
}

impl GateArgs {
    /// The gate the options describe.
    fn gate(&self) -> Result<Gate, GateError> {
        let mut checks = Vec::new();
        for spec in &self.min {
            let (column, threshold) = Check::parse_pair("--min", spec)?;
            checks.push(Check::Min { column, threshold });
        }
        for spec in &self.max {
            let (column, threshold) = Check::parse_pair("--max", spec)?;
            checks.push(Check::Max { column, threshold });
        }
        for spec in &self.max_drop {
            let (column, delta) = Check::parse_pair("--max-drop", spec)?;
            checks.push(Check::MaxDrop { column, delta });
        }
        if let Some(baseline) = &self.beats {
            checks.push(Check::Beats { baseline: baseline.clone() });
        }
        let statistic = match self.on {
            OnArg::Bound => Statistic::Bound,
            OnArg::Mean => Statistic::Mean,
        };
        Ok(Gate { checks, statistic, systems: self.system.clone() })
    }
}

/// Runs `ragjudge gate`.
pub fn run(args: &GateArgs) -> Result<()> {
    let gate = args.gate().map_err(GateUsageError)?;
    let how = Resummarize { bootstrap: args.bootstrap, seed: args.seed, ..Resummarize::default() };
    let current = read_summary(&args.summary, &how).map_err(GateUsageError)?;
    let previous = match &args.previous {
        Some(p) => Some(read_summary(p, &how).map_err(GateUsageError)?),
        None => None,
    };
    let report = gate.evaluate(&current, previous.as_ref()).map_err(GateUsageError)?;
    if let Some(path) = &args.junit {
        // A report that cannot be written is a gate that could not run (2), not a failed check.
        ragjudge_artifacts::write_atomic(path, to_junit_xml(&report).as_bytes())
            .map_err(|e| GateUsageError(GateError::Write { message: e.to_string() }))?;
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        for o in &report.outcomes {
            println!("{} {}: {}", if o.passed { "PASS" } else { "FAIL" }, o.check, o.reason);
        }
    }
    let failed = report.failures().count();
    if failed > 0 {
        return Err(GateFailed { failed, total: report.outcomes.len() }.into());
    }
    Ok(())
}
