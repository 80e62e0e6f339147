//! `ragjudge correlate`: Pearson, Spearman and Kendall tau-b between two numeric columns, from
//! one file or from two files joined on key columns (e.g. metric scores vs human ratings).

use anyhow::{bail, Result};
use clap::Args;
use ragjudge_core::table::{join_numbers, read_table, JoinKeys};
use ragjudge_stats::correlation::{kendall_tau_b_with_level, pearson_with_level, spearman_with_level, Correlation};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// `ragjudge correlate`.
#[derive(Debug, Args)]
pub struct CorrelateArgs {
    /// CSV or JSONL file holding both columns.
    pub file: PathBuf,
    /// First column (a CSV header, or a dotted JSON path such as `detail.ciu.value`).
    #[arg(long)]
    pub x: String,
    /// Second column (read from `--with` when given).
    #[arg(long)]
    pub y: String,
    /// A second CSV or JSONL file holding `--y` (e.g. human ratings), joined on `--on`.
    #[arg(long, value_name = "FILE")]
    pub with: Option<PathBuf>,
    /// Join keys for `--with`, comma separated [default: id,system when both files have a `system`
    /// column, else id].
    #[arg(long, value_delimiter = ',')]
    pub on: Option<Vec<String>>,
    /// Confidence level of the intervals.
    #[arg(long, default_value_t = 0.95)]
    pub level: f64,
    /// Print the result as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
struct Report<'a> {
    x: &'a str,
    y: &'a str,
    n: usize,
    rows: usize,
    missing: usize,
    level: f64,
    pearson: Correlation,
    spearman: Correlation,
    kendall_tau_b: Correlation,
}

/// Runs `ragjudge correlate`.
pub fn run(args: &CorrelateArgs) -> Result<()> {
    if !(args.level > 0.0 && args.level < 1.0) {
        bail!("--level must be between 0 and 1, got {}", args.level);
    }
    let (x, y, rows) = match &args.with {
        None => {
            let t = read_table(&args.file, &[&args.x, &args.y])?;
            let mut pairs = (Vec::new(), Vec::new());
            for i in 0..t.rows.len() {
                if let (Some(a), Some(b)) = (t.number(i, 0, &args.x)?, t.number(i, 1, &args.y)?) {
                    pairs.0.push(a);
                    pairs.1.push(b);
                }
            }
            (pairs.0, pairs.1, t.rows.len())
        }
        Some(with) => joined_pairs(args, with)?,
    };
    if x.len() < 3 {
        bail!("only {} rows have numeric `{}` and `{}`; at least 3 are needed", x.len(), args.x, args.y);
    }
    let report = Report {
        x: &args.x,
        y: &args.y,
        n: x.len(),
        rows,
        missing: rows - x.len(),
        level: args.level,
        pearson: pearson_with_level(&x, &y, args.level)?,
        spearman: spearman_with_level(&x, &y, args.level)?,
        kendall_tau_b: kendall_tau_b_with_level(&x, &y, args.level)?,
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    println!(
        "{} vs {}: n = {} ({} of {} rows without both values)",
        args.x, args.y, report.n, report.missing, report.rows
    );
    let ci_head = format!("{:.0}% CI", args.level * 100.0);
    println!("{:<14} {:>10} {:>12} {:>20}", "method", "coef", "p-value", ci_head);
    for (name, c) in
        [("pearson", &report.pearson), ("spearman", &report.spearman), ("kendall tau-b", &report.kendall_tau_b)]
    {
        let coef = c.coefficient.map_or("-".into(), |v| format!("{v:.4}"));
        let p = c.p_value.map_or("-".into(), |v| format!("{v:.3e}"));
        let ci = match (c.ci_low, c.ci_high) {
            (Some(l), Some(h)) => format!("[{l:.4}, {h:.4}]"),
            _ => "-".into(),
        };
        println!("{name:<14} {coef:>10} {p:>12} {ci:>20}");
    }
    Ok(())
}

/// Pairs `--x` from FILE with `--y` from `--with`, matched on the `--on` key columns; a key
/// repeated in FILE is joined at its first row and reported on stderr.
fn joined_pairs(args: &CorrelateArgs, with: &Path) -> Result<(Vec<f64>, Vec<f64>, usize)> {
    let on = JoinKeys::named_or_default(args.on.as_deref(), &args.file, with)?;
    if let Some(m) = &on.system_missing {
        eprintln!("note: {m}");
    }
    let keys: Vec<&str> = on.keys.iter().map(String::as_str).filter(|k| !k.is_empty()).collect();
    if keys.is_empty() {
        bail!("--on needs at least one key column");
    }
    let join = join_numbers(&args.file, &[&args.x], with, &args.y, &keys)?;
    for r in &join.repeated {
        eprintln!("warning: {r}");
    }
    let x = join.x.into_iter().map(|row| row[0]).collect();
    Ok((x, join.y, join.left_rows))
}
