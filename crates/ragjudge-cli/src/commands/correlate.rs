//! `ragjudge correlate`: Pearson, Spearman and Kendall tau-b between two numeric columns, from
//! one file or from two files joined on key columns (e.g. metric scores vs human ratings).

use crate::args::CorrelateArgs;
use anyhow::{bail, Context as _, Result};
use ragjudge_stats::correlation::{kendall_tau_b_with_level, pearson_with_level, spearman_with_level, Correlation};
use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

/// The wanted cells of every row of a file, as text, with the row's line number.
pub(crate) struct Table {
    pub(crate) name: String,
    pub(crate) rows: Vec<(u64, Vec<Option<String>>)>,
}

impl Table {
    /// Cell `col` of row `row` as a number; empty cells are `None`, text is an error.
    pub(crate) fn number(&self, row: usize, col: usize, col_name: &str) -> Result<Option<f64>> {
        let (line, cells) = &self.rows[row];
        match cells[col].as_deref().map(str::trim) {
            None | Some("") => Ok(None),
            Some(cell) => match cell.parse::<f64>() {
                Ok(v) if v.is_finite() => Ok(Some(v)),
                _ => bail!("{}:{line}: field `{col_name}`: not a finite number: {cell:.40}", self.name),
            },
        }
    }
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

/// Pairs `--x` from FILE with `--y` from `--with`, matched on the `--on` key columns.
fn joined_pairs(args: &CorrelateArgs, with: &Path) -> Result<(Vec<f64>, Vec<f64>, usize)> {
    let keys: Vec<&str> = args.on.iter().map(String::as_str).filter(|k| !k.is_empty()).collect();
    if keys.is_empty() {
        bail!("--on needs at least one key column");
    }
    let mut right_cols = keys.clone();
    right_cols.push(&args.y);
    let right = read_table(with, &right_cols)?;
    let mut ys: HashMap<Vec<Option<String>>, f64> = HashMap::new();
    for i in 0..right.rows.len() {
        let (line, cells) = &right.rows[i];
        if let Some(v) = right.number(i, keys.len(), &args.y)? {
            if ys.insert(cells[..keys.len()].to_vec(), v).is_some() {
                bail!("{}:{line}: duplicate key {:?}", right.name, &cells[..keys.len()]);
            }
        }
    }
    let mut left_cols = keys.clone();
    left_cols.push(&args.x);
    let left = read_table(&args.file, &left_cols)?;
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for i in 0..left.rows.len() {
        let key = &left.rows[i].1[..keys.len()];
        if let (Some(a), Some(&b)) = (left.number(i, keys.len(), &args.x)?, ys.get(key)) {
            x.push(a);
            y.push(b);
        }
    }
    Ok((x, y, left.rows.len()))
}

/// Reads the cells of `cols` from every row of a CSV or JSONL file.
pub(crate) fn read_table(path: &Path, cols: &[&str]) -> Result<Table> {
    let name = path.display().to_string();
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    let rows = match ext.as_str() {
        "csv" => read_csv(path, &name, cols)?,
        "jsonl" | "json" | "ndjson" => read_jsonl(path, &name, cols)?,
        _ => bail!("{name}: unknown format (use .csv or .jsonl)"),
    };
    if rows.is_empty() {
        bail!("{name}: no records");
    }
    Ok(Table { name, rows })
}

fn read_csv(path: &Path, name: &str, cols: &[&str]) -> Result<Vec<(u64, Vec<Option<String>>)>> {
    let mut rdr = csv::Reader::from_path(path).with_context(|| format!("{name}: cannot open"))?;
    let headers = rdr.headers().with_context(|| format!("{name}:1: cannot read the header"))?.clone();
    let idx: Vec<usize> = cols
        .iter()
        .map(|c| headers.iter().position(|h| h == *c).with_context(|| format!("{name}: missing column `{c}`")))
        .collect::<Result<_>>()?;
    let mut rows = Vec::new();
    for (i, row) in rdr.records().enumerate() {
        let line = i as u64 + 2;
        let row = row.with_context(|| format!("{name}:{line}: malformed CSV row"))?;
        rows.push((line, idx.iter().map(|&j| row.get(j).map(str::to_string)).collect()));
    }
    Ok(rows)
}

fn read_jsonl(path: &Path, name: &str, cols: &[&str]) -> Result<Vec<(u64, Vec<Option<String>>)>> {
    let file = File::open(path).with_context(|| format!("{name}: cannot open"))?;
    let mut rows = Vec::new();
    for (i, line) in BufReader::new(file).lines().enumerate() {
        let n = i as u64 + 1;
        let line = line.with_context(|| format!("{name}:{n}: unreadable line (invalid UTF-8?)"))?;
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(&line).with_context(|| format!("{name}:{n}: invalid JSON"))?;
        let cells = cols
            .iter()
            .map(|c| match lookup(&v, c) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(Value::Number(x)) => Ok(Some(x.to_string())),
                Some(Value::Bool(b)) => Ok(Some(u8::from(*b).to_string())),
                Some(_) => bail!("{name}:{n}: field `{c}`: expected a number or a string"),
            })
            .collect::<Result<_>>()?;
        rows.push((n, cells));
    }
    Ok(rows)
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
