//! The CI gate: checks on a run's summary that pass or fail, each with a one-line reason.
//!
//! A threshold is checked, by default, on the confidence bound that makes it strict: `--min`
//! on the lower end of the 95% interval of the mean, `--max` on the upper end. A score whose
//! interval reaches below the minimum has not shown that it meets it. `Statistic::Mean` checks
//! the mean instead. A drop is the previous run's mean minus this run's; a tournament win is a
//! higher Bradley-Terry strength than the baseline's (by default: the lower end of the system's
//! interval above the baseline's strength).

use crate::summary::Summary;
use ragjudge_dice::tournament::Standing;
use ragjudge_eval::{ColumnReport, SummaryReport};
use serde::Serialize;

/// Why a gate could not be checked at all (as opposed to a check that failed).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GateError {
    /// A summary could not be read.
    #[error("{path}: {message}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        message: String,
    },
    /// A check names a column the summary does not have.
    #[error("no column `{column}` in the summary (columns: {known})")]
    UnknownColumn {
        /// The column named.
        column: String,
        /// The columns there are.
        known: String,
    },
    /// A system named that the summary does not have.
    #[error("no system `{system}` in the summary (systems: {known})")]
    UnknownSystem {
        /// The system named.
        system: String,
        /// The systems there are.
        known: String,
    },
    /// A check that needs another kind of summary or a previous run.
    #[error("{0}")]
    Unsupported(String),
    /// A check written wrongly, e.g. `--min rougeL_f` without `=VALUE`.
    #[error("{0}")]
    BadCheck(String),
    /// An output of the gate (the JUnit report) could not be written.
    #[error("{message}")]
    Write {
        /// Why, naming the file.
        message: String,
    },
    /// A summary without a record (an empty score file): nothing was shown, so nothing can pass.
    #[error("{which} summary has no record to check ({skipped} skipped as invalid)")]
    NoRecords {
        /// `the` or `the previous`.
        which: &'static str,
        /// Records skipped as invalid.
        skipped: u64,
    },
}

/// What a threshold is compared with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Statistic {
    /// The confidence bound on the strict side (lower for minimums, upper for maximums).
    #[default]
    Bound,
    /// The point estimate.
    Mean,
}

/// One check.
#[derive(Debug, Clone, PartialEq)]
pub enum Check {
    /// The column's statistic must be at least the threshold.
    Min {
        /// Column.
        column: String,
        /// Threshold.
        threshold: f64,
    },
    /// The column's statistic must be at most the threshold.
    Max {
        /// Column.
        column: String,
        /// Threshold.
        threshold: f64,
    },
    /// The column's mean may fall by at most `delta` from the previous run's.
    MaxDrop {
        /// Column.
        column: String,
        /// Largest allowed drop.
        delta: f64,
    },
    /// Every checked system must be stronger than `baseline` in a tournament.
    Beats {
        /// The baseline system.
        baseline: String,
    },
}

impl Check {
    /// Reads `COLUMN=NUMBER` for `--min`, `--max` and `--max-drop`.
    pub fn parse_pair(flag: &str, spec: &str) -> Result<(String, f64), GateError> {
        let bad = || GateError::BadCheck(format!("{flag} `{spec}`: expected COLUMN=NUMBER, e.g. {flag} rougeL_f=0.3"));
        let (column, value) = spec.split_once('=').ok_or_else(bad)?;
        let value: f64 = value.trim().parse().map_err(|_| bad())?;
        if column.trim().is_empty() || !value.is_finite() {
            return Err(bad());
        }
        Ok((column.trim().to_string(), value))
    }

    /// The check as written on the command line, e.g. `min rougeL_f=0.3`.
    pub fn label(&self) -> String {
        match self {
            Check::Min { column, threshold } => format!("min {column}={threshold}"),
            Check::Max { column, threshold } => format!("max {column}={threshold}"),
            Check::MaxDrop { column, delta } => format!("max-drop {column}={delta}"),
            Check::Beats { baseline } => format!("beats {baseline}"),
        }
    }
}

/// The result of one check on one system.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckOutcome {
    /// The check, e.g. `min rougeL_f=0.3`.
    pub check: String,
    /// The system checked.
    pub system: String,
    /// Whether it passed.
    pub passed: bool,
    /// The value compared, when there was one.
    pub observed: Option<f64>,
    /// One line saying what was compared.
    pub reason: String,
}

/// Every check's outcome.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GateReport {
    /// In check order, then system order.
    pub outcomes: Vec<CheckOutcome>,
}

impl GateReport {
    /// Whether every check passed.
    pub fn passed(&self) -> bool {
        self.outcomes.iter().all(|o| o.passed)
    }

    /// The checks that failed.
    pub fn failures(&self) -> impl Iterator<Item = &CheckOutcome> {
        self.outcomes.iter().filter(|o| !o.passed)
    }
}

/// Checks, the statistic thresholds compare, and the systems they apply to.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Gate {
    /// The checks, in order.
    pub checks: Vec<Check>,
    /// What thresholds are compared with.
    pub statistic: Statistic,
    /// The systems checked (all when empty).
    pub systems: Vec<String>,
}

impl Gate {
    /// Runs every check on `current`; `previous` is needed by drop checks.
    pub fn evaluate(&self, current: &Summary, previous: Option<&Summary>) -> Result<GateReport, GateError> {
        if self.checks.is_empty() {
            return Err(GateError::BadCheck("no check given (use --min, --max, --max-drop or --beats)".into()));
        }
        for (which, summary) in [("the", Some(current)), ("the previous", previous)] {
            if let Some(Summary::Scores(s)) = summary {
                if s.systems.is_empty() {
                    return Err(GateError::NoRecords { which, skipped: s.skipped });
                }
            }
        }
        let mut outcomes = Vec::new();
        for check in &self.checks {
            match (check, current) {
                (Check::Min { column, threshold }, Summary::Scores(s)) => {
                    self.thresholds(s, column, *threshold, true, check, &mut outcomes)?
                }
                (Check::Max { column, threshold }, Summary::Scores(s)) => {
                    self.thresholds(s, column, *threshold, false, check, &mut outcomes)?
                }
                (Check::MaxDrop { column, delta }, Summary::Scores(s)) => {
                    let Some(Summary::Scores(prev)) = previous else {
                        return Err(GateError::Unsupported(format!(
                            "{}: needs the score summary of a previous run (--previous FILE)",
                            check.label()
                        )));
                    };
                    self.drops(s, prev, column, *delta, check, &mut outcomes)?
                }
                (Check::Beats { baseline }, Summary::Tournament(t)) => self.wins(t, baseline, check, &mut outcomes)?,
                (Check::Beats { .. }, Summary::Scores(_)) => {
                    return Err(GateError::Unsupported(format!(
                        "{}: needs a tournament leaderboard (leaderboard.json), not a score summary",
                        check.label()
                    )))
                }
                (_, Summary::Tournament(_)) => {
                    return Err(GateError::Unsupported(format!(
                        "{}: needs a score summary (score --json, or a per-record score file), not a leaderboard",
                        check.label()
                    )))
                }
            }
        }
        Ok(GateReport { outcomes })
    }

    /// The systems of `s` the checks apply to; a named system that `s` lacks is an error.
    fn selected<'a, T>(&self, items: &'a [T], name: impl Fn(&T) -> &str) -> Result<Vec<&'a T>, GateError> {
        if self.systems.is_empty() {
            return Ok(items.iter().collect());
        }
        self.systems
            .iter()
            .map(|want| {
                items.iter().find(|i| name(i) == want).ok_or_else(|| GateError::UnknownSystem {
                    system: want.clone(),
                    known: items.iter().map(|i| name(i).to_string()).collect::<Vec<_>>().join(", "),
                })
            })
            .collect()
    }

    fn thresholds(
        &self,
        s: &SummaryReport,
        column: &str,
        threshold: f64,
        minimum: bool,
        check: &Check,
        out: &mut Vec<CheckOutcome>,
    ) -> Result<(), GateError> {
        for sys in self.selected(&s.systems, |x| x.system.as_str())? {
            let c = find_column(s, &sys.metrics, column)?;
            let (observed, what) = match (self.statistic, minimum) {
                (Statistic::Mean, _) => (c.mean, "mean".to_string()),
                (Statistic::Bound, true) => (c.ci_low, format!("lower {:.0}% bound", s.level * 100.0)),
                (Statistic::Bound, false) => (c.ci_high, format!("upper {:.0}% bound", s.level * 100.0)),
            };
            let (passed, reason) = match observed {
                None => (false, format!("{}: {column} has no value (n = {})", sys.system, c.n)),
                Some(v) => {
                    let ok = if minimum { v >= threshold } else { v <= threshold };
                    let op = match (minimum, ok) {
                        (true, true) => ">=",
                        (true, false) => "<",
                        (false, true) => "<=",
                        (false, false) => ">",
                    };
                    let mean = c.mean.map_or(String::new(), |m| format!(" (mean {m:.4}, n = {})", c.n));
                    (ok, format!("{}: {column} {what} {v:.4} {op} {threshold}{mean}", sys.system))
                }
            };
            out.push(CheckOutcome { check: check.label(), system: sys.system.clone(), passed, observed, reason });
        }
        Ok(())
    }

    fn drops(
        &self,
        s: &SummaryReport,
        prev: &SummaryReport,
        column: &str,
        delta: f64,
        check: &Check,
        out: &mut Vec<CheckOutcome>,
    ) -> Result<(), GateError> {
        for sys in self.selected(&s.systems, |x| x.system.as_str())? {
            let now = find_column(s, &sys.metrics, column)?.mean;
            let before = match prev.systems.iter().find(|p| p.system == sys.system) {
                Some(p) => find_column(prev, &p.metrics, column)?.mean,
                None => None,
            };
            let (passed, observed, reason) = match (now, before) {
                (Some(n), Some(b)) => {
                    let drop = b - n;
                    let ok = drop <= delta;
                    let op = if ok { "<=" } else { ">" };
                    (
                        ok,
                        Some(drop),
                        format!("{}: {column} mean {n:.4}, was {b:.4}: drop {drop:.4} {op} {delta}", sys.system),
                    )
                }
                (None, _) => (false, None, format!("{}: {column} has no value in this run", sys.system)),
                (Some(n), None) => {
                    (true, None, format!("{}: {column} mean {n:.4}; no previous value to compare", sys.system))
                }
            };
            out.push(CheckOutcome { check: check.label(), system: sys.system.clone(), passed, observed, reason });
        }
        Ok(())
    }

    fn wins(
        &self,
        standings: &[Standing],
        baseline: &str,
        check: &Check,
        out: &mut Vec<CheckOutcome>,
    ) -> Result<(), GateError> {
        let known = || standings.iter().map(|s| s.system.clone()).collect::<Vec<_>>().join(", ");
        let base = standings
            .iter()
            .find(|s| s.system == baseline)
            .ok_or_else(|| GateError::UnknownSystem { system: baseline.to_string(), known: known() })?;
        for sys in self.selected(standings, |x| x.system.as_str())? {
            if sys.system == baseline {
                continue;
            }
            let (observed, what) = match self.statistic {
                Statistic::Bound => (sys.bt_ci_low, "lower bound of its Bradley-Terry strength"),
                Statistic::Mean => (sys.bt, "Bradley-Terry strength"),
            };
            let ok = observed > base.bt;
            let op = if ok { ">" } else { "<=" };
            let reason = format!(
                "{}: {what} {observed:.3} {op} {baseline}'s {:.3} (ranks {} and {})",
                sys.system, base.bt, sys.rank, base.rank
            );
            out.push(CheckOutcome {
                check: check.label(),
                system: sys.system.clone(),
                passed: ok,
                observed: Some(observed),
                reason,
            });
        }
        Ok(())
    }
}

fn find_column<'a>(
    s: &SummaryReport,
    metrics: &'a [ColumnReport],
    column: &str,
) -> Result<&'a ColumnReport, GateError> {
    metrics.iter().find(|m| m.metric == column).ok_or_else(|| GateError::UnknownColumn {
        column: column.to_string(),
        known: s
            .systems
            .first()
            .map(|x| x.metrics.iter().map(|m| m.metric.as_str()).collect::<Vec<_>>().join(", "))
            .unwrap_or_default(),
    })
}
