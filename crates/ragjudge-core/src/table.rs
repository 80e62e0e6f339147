//! Named columns of a CSV or JSONL file (score files, human labels), cell by cell as text, and
//! joins of two such files on key columns ([`join`]). JSONL columns may be dotted paths into
//! nested objects (`detail.ciu.value`); a literal key wins over a path.
//!
//! Errors are [`InputError`]s: one line naming the file, the line and the column at fault.

pub mod by_record;
pub mod join;

pub use by_record::{DroppedRepeats, RecordIndex, RecordKey};
pub use join::{
    default_join_keys, join_numbers, numbers_by_key, read_keyed, Join, JoinKeys, KeyedRow, KeyedRows, RepeatedKey,
    RepeatedKeys, SystemMissing,
};

use crate::error::InputError;
use serde_json::Value;
use std::io::BufRead;
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

/// The one rule for a numeric cell, in every file ragjudge reads numbers from (score files,
/// labels, ratings): blank is missing (`Ok(None)`); a finite number is the value; anything else
/// (text, `NaN`, infinities, numbers beyond `f64`) is `Err` with the message naming the cell,
/// which callers turn into an error naming file, line and column. Nothing is silently dropped.
pub fn number_cell(cell: &str) -> Result<Option<f64>, String> {
    let cell = cell.trim();
    if cell.is_empty() {
        return Ok(None);
    }
    match cell.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(Some(v)),
        _ => Err(format!("not a finite number: {cell:.40}")),
    }
}

/// [`number_cell`] for a JSON value: null is missing, a number or a string holding one is the
/// value, anything else is not a number.
pub fn number_value(v: &Value) -> Result<Option<f64>, String> {
    match v {
        Value::Null => Ok(None),
        Value::Number(n) => {
            n.as_f64().filter(|x| x.is_finite()).map(Some).ok_or_else(|| format!("not a finite number: {n}"))
        }
        Value::String(s) => number_cell(s),
        other => Err(format!("not a finite number: {:.40}", other.to_string())),
    }
}

impl Table {
    /// Cell `col` of row `row` as a number by [`number_cell`]; an error names the file, line
    /// and column.
    pub fn number(&self, row: usize, col: usize, col_name: &str) -> Result<Option<f64>, InputError> {
        let (line, cells) = &self.rows[row];
        number_cell(cells[col].as_deref().unwrap_or(""))
            .map_err(|m| InputError::new(&self.name, Some(*line), Some(col_name.to_string()), m))
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
            let mut rdr = crate::bom::csv_reader(path)
                .map_err(|e| InputError::fatal(&name, None, format!("cannot open: {e}")))?;
            let headers =
                rdr.headers().map_err(|e| InputError::fatal(&name, Some(1), format!("cannot read the header: {e}")))?;
            Ok(headers.iter().any(|h| h == col))
        }
        _ => {
            for line in crate::bom::open(path).map_err(open_err)?.lines() {
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

fn extension(path: &Path) -> String {
    path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase()
}

type Rows = Vec<(u64, Vec<Option<String>>)>;

fn read_csv(path: &Path, name: &str, cols: &[&str]) -> Result<Rows, InputError> {
    let mut rdr =
        crate::bom::csv_reader(path).map_err(|e| InputError::fatal(name, None, format!("cannot open: {e}")))?;
    let headers =
        rdr.headers().map_err(|e| InputError::fatal(name, Some(1), format!("cannot read the header: {e}")))?.clone();
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
    let file = crate::bom::open(path).map_err(|e| InputError::fatal(name, None, format!("cannot open: {e}")))?;
    let mut rows = Vec::new();
    for (i, line) in file.lines().enumerate() {
        let n = i as u64 + 1;
        let line =
            line.map_err(|e| InputError::fatal(name, Some(n), format!("unreadable line (invalid UTF-8?): {e}")))?;
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
                Some(_) => Err(InputError::fatal(name, Some(n), format!("field `{c}`: expected a number or a string"))),
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
    fn csv_cells_come_with_their_lines_and_bad_numbers_name_the_cell() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.csv");
        std::fs::write(&p, "id,x,y\nq1,0.5,\nq2, 2 ,nan\n").unwrap();
        let t = read_table(&p, &["y", "id", "x"]).unwrap();
        // The header is line 1; cells come in the order asked for; an empty cell is `None` for numbers.
        assert_eq!(t.rows[0], (2, vec![Some(String::new()), Some("q1".into()), Some("0.5".into())]));
        assert_eq!(t.key(1, 2), ["nan", "q2"]);
        assert_eq!(t.number(0, 2, "x").unwrap(), Some(0.5));
        assert_eq!(t.number(0, 0, "y").unwrap(), None);
        assert_eq!(t.number(1, 2, "x").unwrap(), Some(2.0));
        let e = t.number(1, 0, "y").unwrap_err();
        assert_eq!(e.to_string(), format!("{}:3: field `y`: not a finite number: nan", p.display()));
        let e = read_table(&p, &["id", "z"]).unwrap_err();
        assert_eq!(e.to_string(), format!("{}: missing column `z`", p.display()));
    }

    #[test]
    fn jsonl_cells_follow_dotted_paths_and_skip_blank_lines() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.jsonl");
        let text = "{\"id\": 7, \"d\": {\"v\": 1.5}, \"ok\": true}\n\n{\"id\": \"b\", \"d\": null}\n";
        std::fs::write(&p, text).unwrap();
        let t = read_table(&p, &["id", "d.v", "ok"]).unwrap();
        assert_eq!(t.rows.len(), 2);
        assert_eq!(t.rows[0], (1, vec![Some("7".into()), Some("1.5".into()), Some("1".into())]));
        assert_eq!(t.rows[1], (3, vec![Some("b".into()), None, None]));
        std::fs::write(&p, "{\"id\": 1}\n{\"id\": [1]}\n").unwrap();
        let e = read_table(&p, &["id"]).unwrap_err();
        assert_eq!(e.to_string(), format!("{}:2: field `id`: expected a number or a string", p.display()));
        std::fs::write(&p, "{\"id\": 1}\nnot json\n").unwrap();
        let e = read_table(&p, &["id"]).unwrap_err().to_string();
        assert!(e.starts_with(&format!("{}:2: invalid JSON: ", p.display())), "{e}");
        std::fs::write(&p, "\n").unwrap();
        assert_eq!(read_table(&p, &["id"]).unwrap_err().to_string(), format!("{}: no records", p.display()));
        let txt = dir.path().join("s.txt");
        std::fs::write(&txt, "id\n1\n").unwrap();
        let e = read_table(&txt, &["id"]).unwrap_err();
        assert_eq!(e.to_string(), format!("{}: unknown format (use .csv or .jsonl)", txt.display()));
    }
}
