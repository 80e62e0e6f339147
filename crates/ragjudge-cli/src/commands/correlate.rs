//! `ragjudge correlate`: Pearson, Spearman and Kendall tau-b between two numeric columns.

use crate::args::CorrelateArgs;
use anyhow::{bail, Context as _, Result};
use ragjudge_stats::correlation::{
    kendall_tau_b_with_level, pearson_with_level, spearman_with_level, Correlation,
};
use serde::Serialize;
use serde_json::Value;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

/// The pairs read from a file, and how many rows had no usable pair.
struct Pairs {
    x: Vec<f64>,
    y: Vec<f64>,
    rows: u64,
    missing: u64,
}

#[derive(Serialize)]
struct Report<'a> {
    x: &'a str,
    y: &'a str,
    n: usize,
    rows: u64,
    missing: u64,
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
    let pairs = read_pairs(&args.file, &args.x, &args.y)?;
    if pairs.x.len() < 3 {
        bail!(
            "{}: only {} rows have numeric `{}` and `{}`; at least 3 are needed",
            args.file.display(),
            pairs.x.len(),
            args.x,
            args.y
        );
    }
    let report = Report {
        x: &args.x,
        y: &args.y,
        n: pairs.x.len(),
        rows: pairs.rows,
        missing: pairs.missing,
        level: args.level,
        pearson: pearson_with_level(&pairs.x, &pairs.y, args.level)?,
        spearman: spearman_with_level(&pairs.x, &pairs.y, args.level)?,
        kendall_tau_b: kendall_tau_b_with_level(&pairs.x, &pairs.y, args.level)?,
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    println!(
        "{} vs {}: n = {} ({} of {} rows without both values)",
        args.x, args.y, report.n, report.missing, report.rows
    );
    println!("{:<14} {:>10} {:>12} {:>24}", "method", "coef", "p-value", format!("{:.0}% CI", args.level * 100.0));
    for (name, c) in [("pearson", &report.pearson), ("spearman", &report.spearman), ("kendall tau-b", &report.kendall_tau_b)] {
        let coef = c.coefficient.map_or("-".into(), |v| format!("{v:.4}"));
        let p = c.p_value.map_or("-".into(), |v| format!("{v:.3e}"));
        let ci = match (c.ci_low, c.ci_high) {
            (Some(l), Some(h)) => format!("[{l:.4}, {h:.4}]"),
            _ => "-".into(),
        };
        println!("{name:<14} {coef:>10} {p:>12} {ci:>24}");
    }
    Ok(())
}

fn read_pairs(path: &Path, x: &str, y: &str) -> Result<Pairs> {
    let name = path.display().to_string();
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    match ext.as_str() {
        "csv" => read_csv(path, &name, x, y),
        "jsonl" | "json" | "ndjson" => read_jsonl(path, &name, x, y),
        _ => bail!("{name}: unknown format (use .csv or .jsonl)"),
    }
}

fn read_csv(path: &Path, name: &str, x: &str, y: &str) -> Result<Pairs> {
    let mut rdr = csv::Reader::from_path(path).with_context(|| format!("{name}: cannot open"))?;
    let headers = rdr.headers().with_context(|| format!("{name}:1: cannot read the header"))?.clone();
    let col = |c: &str| {
        headers.iter().position(|h| h == c).with_context(|| format!("{name}: missing column `{c}`"))
    };
    let (ix, iy) = (col(x)?, col(y)?);
    let mut pairs = Pairs { x: Vec::new(), y: Vec::new(), rows: 0, missing: 0 };
    for (i, row) in rdr.records().enumerate() {
        let row = row.with_context(|| format!("{name}:{}: malformed CSV row", i + 2))?;
        pairs.rows += 1;
        let parse = |idx: usize, col: &str| -> Result<Option<f64>> {
            let cell = row.get(idx).unwrap_or("").trim();
            if cell.is_empty() {
                return Ok(None);
            }
            number(cell).map(Some).with_context(|| format!("{name}:{}: field `{col}`: not a number: {cell:.40}", i + 2))
        };
        match (parse(ix, x)?, parse(iy, y)?) {
            (Some(a), Some(b)) => {
                pairs.x.push(a);
                pairs.y.push(b);
            }
            _ => pairs.missing += 1,
        }
    }
    Ok(pairs)
}

fn read_jsonl(path: &Path, name: &str, x: &str, y: &str) -> Result<Pairs> {
    let file = File::open(path).with_context(|| format!("{name}: cannot open"))?;
    let mut pairs = Pairs { x: Vec::new(), y: Vec::new(), rows: 0, missing: 0 };
    for (i, line) in BufReader::new(file).lines().enumerate() {
        let line = line.with_context(|| format!("{name}:{}: unreadable line (invalid UTF-8?)", i + 1))?;
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(&line).with_context(|| format!("{name}:{}: invalid JSON", i + 1))?;
        pairs.rows += 1;
        let get = |col: &str| -> Result<Option<f64>> {
            match lookup(&v, col) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::Number(n)) => Ok(n.as_f64()),
                Some(Value::Bool(b)) => Ok(Some(f64::from(u8::from(*b)))),
                Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
                Some(Value::String(s)) => number(s.trim())
                    .map(Some)
                    .with_context(|| format!("{name}:{}: field `{col}`: not a number: {s:.40}", i + 1)),
                Some(_) => bail!("{name}:{}: field `{col}`: expected a number", i + 1),
            }
        };
        match (get(x)?, get(y)?) {
            (Some(a), Some(b)) => {
                pairs.x.push(a);
                pairs.y.push(b);
            }
            _ => pairs.missing += 1,
        }
    }
    if pairs.rows == 0 {
        bail!("{name}: no records");
    }
    Ok(pairs)
}

/// A finite number, or an error.
fn number(s: &str) -> Result<f64> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => bail!("not a finite number"),
    }
}

/// Looks `path` up in `v`: first as a literal key (e.g. `precision@5`), then as a dotted path.
fn lookup<'a>(v: &'a Value, path: &str) -> Option<&'a Value> {
    if let Some(found) = v.get(path) {
        return Some(found);
    }
    let mut cur = v;
    for part in path.split('.') {
        cur = match cur {
            Value::Object(m) => m.get(part)?,
            Value::Array(a) => a.get(part.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(cur)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lookup_prefers_literal_keys_then_dotted_paths() {
        let v = json!({"precision@5": 0.4, "detail": {"ciu": {"value": 1.5}}, "a.b": 2, "list": [1, {"k": 3}]});
        assert_eq!(lookup(&v, "precision@5"), Some(&json!(0.4)));
        assert_eq!(lookup(&v, "detail.ciu.value"), Some(&json!(1.5)));
        assert_eq!(lookup(&v, "a.b"), Some(&json!(2)));
        assert_eq!(lookup(&v, "list.1.k"), Some(&json!(3)));
        assert_eq!(lookup(&v, "detail.nope"), None);
    }
}
