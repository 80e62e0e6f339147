//! Named columns of a CSV or JSONL file (score files, human labels), cell by cell as text, and
//! joins of two such files on key columns. JSONL columns may be dotted paths into nested objects
//! (`detail.ciu.value`); a literal key wins over a path.

use crate::error::InputError;
use serde_json::Value;
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

/// The wanted cells of every row of a file, as text, with the row's line number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    /// The file's name as used in errors.
    pub name: String,
    /// Per row: its 1-based line (CSV: the header is line 1) and one cell per wanted column
    /// (`None`: empty or null).
    pub rows: Vec<(u64, Vec<Option<String>>)>,
}

impl Table {
    /// Cell `col` of row `row` as a number; empty cells are `None`, text is an error naming the
    /// file, line and column.
    pub fn number(&self, row: usize, col: usize, col_name: &str) -> Result<Option<f64>, InputError> {
        let (line, cells) = &self.rows[row];
        match cells[col].as_deref().map(str::trim) {
            None | Some("") => Ok(None),
            Some(cell) => match cell.parse::<f64>() {
                Ok(v) if v.is_finite() => Ok(Some(v)),
                _ => Err(InputError::new(
                    &self.name,
                    Some(*line),
                    Some(col_name.to_string()),
                    format!("not a finite number: {cell:.40}"),
                )),
            },
        }
    }

    /// The first `n` cells of row `row` (the key columns when they were asked for first).
    pub fn key(&self, row: usize, n: usize) -> Vec<String> {
        self.rows[row].1[..n].iter().map(|c| c.clone().unwrap_or_default()).collect()
    }
}

/// Reads the cells of `cols` from every row of a CSV or JSONL file (by extension).
pub fn read_table(path: &Path, cols: &[&str]) -> Result<Table, InputError> {
    let name = path.display().to_string();
    let rows = match extension(path).as_str() {
        "csv" => read_csv(path, &name, cols)?,
        "jsonl" | "json" | "ndjson" => read_jsonl(path, &name, cols)?,
        _ => return Err(InputError::fatal(&name, None, "unknown format (use .csv or .jsonl)")),
    };
    if rows.is_empty() {
        return Err(InputError::fatal(&name, None, "no records"));
    }
    Ok(Table { name, rows })
}

/// Whether the file has a column `col`: in its CSV header, or as a key of its first JSONL object.
pub fn has_column(path: &Path, col: &str) -> Result<bool, InputError> {
    let name = path.display().to_string();
    let open_err = |e: std::io::Error| InputError::fatal(&name, None, format!("cannot open: {e}"));
    match extension(path).as_str() {
        "csv" => {
            let mut rdr = csv::Reader::from_path(path)
                .map_err(|e| InputError::fatal(&name, None, format!("cannot open: {e}")))?;
            let headers = rdr
                .headers()
                .map_err(|e| InputError::fatal(&name, Some(1), format!("cannot read the header: {e}")))?;
            Ok(headers.iter().any(|h| h == col))
        }
        _ => {
            let file = File::open(path).map_err(open_err)?;
            for line in BufReader::new(file).lines() {
                let Ok(line) = line else { return Ok(false) };
                if line.trim().is_empty() {
                    continue;
                }
                return Ok(serde_json::from_str::<Value>(&line).is_ok_and(|v| lookup(&v, col).is_some()));
            }
            Ok(false)
        }
    }
}

/// The join keys of two files when none are named: `id` and `system` when both files have a
/// `system` column, else `id` alone (e.g. human labels that name no system).
pub fn default_join_keys(left: &Path, right: &Path) -> Result<Vec<String>, InputError> {
    let both = has_column(left, "system")? && has_column(right, "system")?;
    Ok(if both { vec!["id".into(), "system".into()] } else { vec!["id".into()] })
}

/// The numbers of column `value` (read after the `keys`) of `path` by key. A key that appears
/// twice with a value is an error naming the second line; rows without a value are left out.
pub fn numbers_by_key(path: &Path, keys: &[&str], value: &str) -> Result<HashMap<Vec<String>, f64>, InputError> {
    let mut cols = keys.to_vec();
    cols.push(value);
    let t = read_table(path, &cols)?;
    let mut out = HashMap::new();
    for i in 0..t.rows.len() {
        if let Some(v) = t.number(i, keys.len(), value)? {
            let key = t.key(i, keys.len());
            if out.insert(key.clone(), v).is_some() {
                let line = t.rows[i].0;
                return Err(InputError::new(&t.name, Some(line), None, format!("duplicate key {key:?}")));
            }
        }
    }
    Ok(out)
}

fn extension(path: &Path) -> String {
    path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase()
}

type Rows = Vec<(u64, Vec<Option<String>>)>;

fn read_csv(path: &Path, name: &str, cols: &[&str]) -> Result<Rows, InputError> {
    let mut rdr =
        csv::Reader::from_path(path).map_err(|e| InputError::fatal(name, None, format!("cannot open: {e}")))?;
    let headers = rdr
        .headers()
        .map_err(|e| InputError::fatal(name, Some(1), format!("cannot read the header: {e}")))?
        .clone();
    let idx: Vec<usize> = cols
        .iter()
        .map(|c| {
            headers
                .iter()
                .position(|h| h == *c)
                .ok_or_else(|| InputError::fatal(name, None, format!("missing column `{c}`")))
        })
        .collect::<Result<_, _>>()?;
    let mut rows = Vec::new();
    for (i, row) in rdr.records().enumerate() {
        let line = i as u64 + 2;
        let row = row.map_err(|e| InputError::fatal(name, Some(line), format!("malformed CSV row: {e}")))?;
        rows.push((line, idx.iter().map(|&j| row.get(j).map(str::to_string)).collect()));
    }
    Ok(rows)
}

fn read_jsonl(path: &Path, name: &str, cols: &[&str]) -> Result<Rows, InputError> {
    let file = File::open(path).map_err(|e| InputError::fatal(name, None, format!("cannot open: {e}")))?;
    let mut rows = Vec::new();
    for (i, line) in BufReader::new(file).lines().enumerate() {
        let n = i as u64 + 1;
        let line = line
            .map_err(|e| InputError::fatal(name, Some(n), format!("unreadable line (invalid UTF-8?): {e}")))?;
        if line.trim().is_empty() {
            continue;
        }
        let v: Value =
            serde_json::from_str(&line).map_err(|e| InputError::fatal(name, Some(n), format!("invalid JSON: {e}")))?;
        let cells = cols
            .iter()
            .map(|c| match lookup(&v, c) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(Value::Number(x)) => Ok(Some(x.to_string())),
                Some(Value::Bool(b)) => Ok(Some(u8::from(*b).to_string())),
                Some(_) => {
                    Err(InputError::fatal(name, Some(n), format!("field `{c}`: expected a number or a string")))
                }
            })
            .collect::<Result<_, _>>()?;
        rows.push((n, cells));
    }
    Ok(rows)
}

/// Looks `path` up in `v`: first as a literal key (e.g. `precision@5`), then as a dotted path.
pub fn lookup<'a>(v: &'a Value, path: &str) -> Option<&'a Value> {
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

    #[test]
    fn join_keys_fall_back_to_id_when_a_file_has_no_system() {
        let dir = tempfile::tempdir().unwrap();
        let with = dir.path().join("with.csv");
        let without = dir.path().join("without.jsonl");
        let with2 = dir.path().join("with2.jsonl");
        std::fs::write(&with, "id,system,score\nq1,a,0.5\n").unwrap();
        std::fs::write(&without, "\n{\"id\": \"q1\", \"label\": 1}\n").unwrap();
        std::fs::write(&with2, "{\"id\": \"q1\", \"system\": \"a\", \"label\": 1}\n").unwrap();
        assert_eq!(default_join_keys(&with, &without).unwrap(), ["id"]);
        assert_eq!(default_join_keys(&with, &with2).unwrap(), ["id", "system"]);
        assert_eq!(default_join_keys(&without, &without).unwrap(), ["id"]);
    }

    #[test]
    fn numbers_by_key_reports_duplicates_and_bad_cells_by_line() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("l.csv");
        std::fs::write(&p, "id,label\nq1,1\nq2,\nq1,2\n").unwrap();
        let e = numbers_by_key(&p, &["id"], "label").unwrap_err();
        assert_eq!(e.to_string(), format!("{}:4: duplicate key [\"q1\"]", p.display()));
        std::fs::write(&p, "id,label\nq1,1\nq2,high\n").unwrap();
        let e = numbers_by_key(&p, &["id"], "label").unwrap_err();
        assert_eq!(e.to_string(), format!("{}:3: field `label`: not a finite number: high", p.display()));
        std::fs::write(&p, "id,label\nq1,1\nq2,\n").unwrap();
        let m = numbers_by_key(&p, &["id"], "label").unwrap();
        assert_eq!(m.len(), 1);
        assert_eq!(m[&vec!["q1".to_string()]], 1.0);
    }
}
