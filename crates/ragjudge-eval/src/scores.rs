//! Reading back per-record score files (what `score` writes, or any CSV / JSONL with `id`,
//! `system` and numeric columns), for the commands that analyse scores after the fact.

use crate::error::EvalError;
use ragjudge_core::table::{number_cell, number_value};
use ragjudge_core::InputError;
use serde_json::Value;
use std::path::Path;

/// Columns that identify a row or explain it rather than score it.
const NOT_SCORES: [&str; 5] = ["id", "system", "run", "error", "detail"];

/// One row of a score file.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreRow {
    /// Record id.
    pub id: String,
    /// System name.
    pub system: String,
    /// Repetition index, if any.
    pub run: Option<u32>,
    /// One value per column of [`ScoreFile::columns`]; blank cells are `None`.
    pub values: Vec<Option<f64>>,
}

/// A score file: its numeric columns (in order of first appearance with a value) and its rows.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ScoreFile {
    /// Columns holding at least one number.
    pub columns: Vec<String>,
    /// The rows, in file order.
    pub rows: Vec<ScoreRow>,
}

/// Reads a CSV (with a header row; needs `id` and `system` columns), Parquet (feature `parquet`)
/// or JSONL score file (`run`, `error` and `detail` are not scores). A score column is one that
/// holds a number; its other cells must be blank (missing) or numbers too
/// ([`ragjudge_core::table::number_cell`]): a `NaN` or a word among the numbers is an error
/// naming file, line and column, never a silently missing value.
pub fn read_score_file(path: &Path) -> Result<ScoreFile, EvalError> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    let raw = match ext.as_str() {
        "csv" => read_csv(path)?,
        "parquet" => read_parquet(path)?,
        _ => read_jsonl(path)?,
    };
    let mut columns: Vec<String> = Vec::new();
    for row in &raw {
        for (c, v) in &row.cells {
            if matches!(v, Ok(Some(_))) && !columns.contains(c) {
                columns.push(c.clone());
            }
        }
    }
    let mut rows = Vec::with_capacity(raw.len());
    for row in raw {
        let mut values = vec![None; columns.len()];
        for (c, v) in row.cells {
            let Some(i) = columns.iter().position(|x| *x == c) else { continue };
            values[i] = v.map_err(|m| InputError::new(path.display().to_string(), Some(row.line), Some(c), m))?;
        }
        rows.push(ScoreRow { id: row.id, system: row.system, run: row.run, values });
    }
    Ok(ScoreFile { columns, rows })
}

/// A row as read, before the score columns are known: each cell by [`number_cell`].
struct RawRow {
    line: u64,
    id: String,
    system: String,
    run: Option<u32>,
    cells: Vec<(String, Result<Option<f64>, String>)>,
}

/// An error at a 1-based line of `path`, rendered `FILE:LINE: message`.
fn at_line(path: &Path, line: usize, message: String) -> EvalError {
    InputError::new(path.display().to_string(), Some(line as u64), None, message).into()
}

fn is_score(column: &str) -> bool {
    !NOT_SCORES.contains(&column)
}

fn read_csv(path: &Path) -> Result<Vec<RawRow>, EvalError> {
    let mut r = ragjudge_core::bom::csv_reader(path).map_err(|e| EvalError::io(path, format!("cannot open: {e}")))?;
    let headers = r.headers().map_err(|e| EvalError::io(path, format!("no header: {e}")))?.clone();
    let col = |c: &str| headers.iter().position(|h| h == c);
    let run = col("run");
    let (Some(id), Some(sys)) = (col("id"), col("system")) else {
        return Err(EvalError::io(path, "needs `id` and `system` columns"));
    };
    let mut rows = Vec::new();
    for (line, rec) in r.records().enumerate() {
        let rec = rec.map_err(|e| at_line(path, line + 2, e.to_string()))?;
        let cells = headers
            .iter()
            .enumerate()
            .filter(|(_, h)| is_score(h))
            .map(|(i, h)| (h.to_string(), number_cell(rec.get(i).unwrap_or(""))))
            .collect();
        let run = run.and_then(|r| rec.get(r)).and_then(|r| r.trim().parse::<u32>().ok());
        rows.push(RawRow {
            line: line as u64 + 2,
            id: rec.get(id).unwrap_or("").to_string(),
            system: rec.get(sys).unwrap_or("").to_string(),
            run,
            cells,
        });
    }
    Ok(rows)
}

fn read_parquet(path: &Path) -> Result<Vec<RawRow>, EvalError> {
    let table = crate::parquet::read_rows(path)?;
    Ok(table
        .rows
        .into_iter()
        .enumerate()
        .map(|(i, r)| RawRow {
            line: i as u64 + 1,
            id: r.id,
            system: r.system,
            run: r.run,
            cells: table.columns.iter().cloned().zip(r.values.into_iter().map(Ok)).collect(),
        })
        .collect())
}

fn read_jsonl(path: &Path) -> Result<Vec<RawRow>, EvalError> {
    let text = std::fs::read_to_string(path).map_err(|e| EvalError::io(path, format!("cannot read: {e}")))?;
    let mut rows = Vec::new();
    for (line, l) in ragjudge_core::bom::strip(&text).lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(l).map_err(|e| at_line(path, line + 1, format!("not JSON: {e}")))?;
        let Value::Object(o) = v else { return Err(at_line(path, line + 1, "not a JSON object".into())) };
        let get = |k: &str| o.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        let cells = o.iter().filter(|(k, _)| is_score(k)).map(|(k, v)| (k.clone(), number_value(v))).collect();
        let run = o.get("run").and_then(Value::as_u64).and_then(|r| u32::try_from(r).ok());
        rows.push(RawRow { line: line as u64 + 1, id: get("id"), system: get("system"), run, cells });
    }
    Ok(rows)
}

/// One row of a score file as [`scan_score_file`] streams it: its cells by column name.
pub struct ScoreCells<'a> {
    /// 1-based line of the row in its file (the row's position for Parquet).
    pub line: usize,
    cells: Cells<'a>,
}

enum Cells<'a> {
    Csv { headers: &'a csv::StringRecord, record: &'a csv::StringRecord },
    Json(&'a Value),
    Parsed { columns: &'a [String], row: &'a ScoreRow },
}

impl ScoreCells<'_> {
    /// The cell of `column` as text; `None` when absent, null or blank. JSONL columns may be
    /// dotted paths into nested objects; a JSON number or boolean gives its JSON text.
    pub fn text(&self, column: &str) -> Option<String> {
        let text = match &self.cells {
            Cells::Csv { headers, record } => {
                headers.iter().position(|h| h == column).and_then(|i| record.get(i)).map(str::to_string)
            }
            Cells::Json(v) => match ragjudge_core::table::lookup(v, column)? {
                Value::Null => None,
                Value::String(s) => Some(s.clone()),
                other => Some(other.to_string()),
            },
            Cells::Parsed { columns, row } => match column {
                "id" => Some(row.id.clone()),
                "system" => Some(row.system.clone()),
                _ => columns.iter().position(|c| c == column).and_then(|i| row.values[i]).map(|v| v.to_string()),
            },
        };
        text.filter(|t| !t.trim().is_empty())
    }

    /// The cell of `column` as a number by [`number_cell`]: `None` when absent or blank; text,
    /// `NaN` or an infinity is an error naming the file, line and column.
    pub fn number(&self, path: &Path, column: &str) -> Result<Option<f64>, EvalError> {
        self.cell(column).map_err(|m| {
            InputError::new(path.display().to_string(), Some(self.line as u64), Some(column.into()), m).into()
        })
    }

    /// Whether the cell of `column` holds a number (for finding the score columns of a file
    /// whose other columns hold text).
    pub fn holds_number(&self, column: &str) -> bool {
        matches!(self.cell(column), Ok(Some(_)))
    }

    /// The cell of `column` by [`number_cell`], the error without its place.
    fn cell(&self, column: &str) -> Result<Option<f64>, String> {
        match &self.cells {
            Cells::Csv { headers, record } => {
                number_cell(headers.iter().position(|h| h == column).and_then(|i| record.get(i)).unwrap_or(""))
            }
            Cells::Json(v) => ragjudge_core::table::lookup(v, column).map_or(Ok(None), number_value),
            Cells::Parsed { columns, row } => Ok(columns.iter().position(|c| c == column).and_then(|i| row.values[i])),
        }
    }

    /// The row's columns that may hold scores (all but `id`, `system`, `run`, `error`, `detail`),
    /// in file order; JSONL: its top-level keys.
    pub fn score_columns(&self) -> Vec<&str> {
        match &self.cells {
            Cells::Csv { headers, .. } => headers.iter().filter(|h| is_score(h)).collect(),
            Cells::Json(v) => v
                .as_object()
                .map(|o| o.keys().map(String::as_str).filter(|k| is_score(k)).collect())
                .unwrap_or_default(),
            Cells::Parsed { columns, .. } => columns.iter().map(String::as_str).collect(),
        }
    }
}

/// Streams a score file (CSV or JSONL, as [`read_score_file`] reads them) row by row, so that
/// a file of millions of rows needs no more memory than what `visit` keeps. Parquet files are
/// read whole, and only their numeric columns besides `id` and `system` can be seen.
pub fn scan_score_file(
    path: &Path,
    mut visit: impl FnMut(&ScoreCells<'_>) -> Result<(), EvalError>,
) -> Result<(), EvalError> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    match ext.as_str() {
        "csv" => {
            let mut r =
                ragjudge_core::bom::csv_reader(path).map_err(|e| EvalError::io(path, format!("cannot open: {e}")))?;
            let headers = r.headers().map_err(|e| EvalError::io(path, format!("no header: {e}")))?.clone();
            if !(headers.iter().any(|h| h == "id") && headers.iter().any(|h| h == "system")) {
                return Err(EvalError::io(path, "needs `id` and `system` columns"));
            }
            let mut record = csv::StringRecord::new();
            let mut line = 1;
            while r.read_record(&mut record).map_err(|e| at_line(path, line + 1, e.to_string()))? {
                line += 1;
                visit(&ScoreCells { line, cells: Cells::Csv { headers: &headers, record: &record } })?;
            }
        }
        "parquet" => {
            let file = read_score_file(path)?;
            for (i, row) in file.rows.iter().enumerate() {
                visit(&ScoreCells { line: i + 1, cells: Cells::Parsed { columns: &file.columns, row } })?;
            }
        }
        _ => {
            use std::io::BufRead as _;
            let f = ragjudge_core::bom::open(path).map_err(|e| EvalError::io(path, format!("cannot open: {e}")))?;
            for (i, l) in f.lines().enumerate() {
                let l = l.map_err(|e| at_line(path, i + 1, format!("cannot read: {e}")))?;
                if l.trim().is_empty() {
                    continue;
                }
                let v: Value = serde_json::from_str(&l).map_err(|e| at_line(path, i + 1, format!("not JSON: {e}")))?;
                if !v.is_object() {
                    return Err(at_line(path, i + 1, "not a JSON object".into()));
                }
                visit(&ScoreCells { line: i + 1, cells: Cells::Json(&v) })?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_and_jsonl_give_the_same_table() {
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("s.csv");
        std::fs::write(&csv, "id,system,run,a,b,error\nq1,s,,0.5,,\nq2,s,1, ,2,boom\n").unwrap();
        let jsonl = dir.path().join("s.jsonl");
        std::fs::write(
            &jsonl,
            "{\"id\":\"q1\",\"system\":\"s\",\"a\":0.5,\"b\":null}\n\n{\"id\":\"q2\",\"system\":\"s\",\"run\":1,\"a\":\"\",\"b\":2,\"error\":\"boom\"}\n",
        )
        .unwrap();
        for path in [&csv, &jsonl] {
            let f = read_score_file(path).unwrap();
            assert_eq!(f.columns, ["a", "b"]);
            assert_eq!(
                f.rows[0],
                ScoreRow { id: "q1".into(), system: "s".into(), run: None, values: vec![Some(0.5), None] }
            );
            assert_eq!(f.rows[1].values, [None, Some(2.0)]);
            assert_eq!(f.rows[1].run, Some(1));
        }
        let bad = dir.path().join("bad.csv");
        std::fs::write(&bad, "id,a\nq1,1\n").unwrap();
        assert_eq!(
            read_score_file(&bad).unwrap_err().to_string(),
            format!("{}: needs `id` and `system` columns", bad.display())
        );
    }

    #[test]
    fn a_word_or_nan_among_the_numbers_of_a_score_column_is_an_error_with_its_cell() {
        let dir = tempfile::tempdir().unwrap();
        let cases = [
            ("s.csv", "id,system,a,note\nq1,s,0.5,fine\nq2,s,NaN,ok\n", 3, "NaN"),
            ("t.csv", "id,system,a\nq1,s,0.5\nq2,s,high\n", 3, "high"),
            (
                "s.jsonl",
                "{\"id\":\"q1\",\"system\":\"s\",\"a\":0.5}\n{\"id\":\"q2\",\"system\":\"s\",\"a\":\"x\"}\n",
                2,
                "x",
            ),
        ];
        for (name, text, line, cell) in cases {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            let want = format!("{}:{line}: field `a`: not a finite number: {cell}", path.display());
            assert_eq!(read_score_file(&path).unwrap_err().to_string(), want);
            let mut err = None;
            let _ = scan_score_file(&path, |c| {
                if let Err(e) = c.number(&path, "a") {
                    err.get_or_insert(e.to_string());
                }
                Ok(())
            });
            assert_eq!(err.as_deref(), Some(want.as_str()), "{name}");
        }
        // A column of words alone is not a score column.
        let words = dir.path().join("w.csv");
        std::fs::write(&words, "id,system,a,note\nq1,s,0.5,fine\n").unwrap();
        assert_eq!(read_score_file(&words).unwrap().columns, ["a"]);
    }

    #[test]
    fn scanning_streams_the_same_cells() {
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("s.csv");
        std::fs::write(&csv, "id,system,topic,a,b\nq1,s,Rome, 0.5 ,\nq2,s,,,2\n").unwrap();
        let jsonl = dir.path().join("s.jsonl");
        std::fs::write(
            &jsonl,
            "{\"id\":\"q1\",\"system\":\"s\",\"topic\":\"Rome\",\"a\":0.5,\"b\":null}\n\n{\"id\":\"q2\",\"system\":\"s\",\"topic\":\" \",\"a\":null,\"b\":2}\n",
        )
        .unwrap();
        for (path, lines) in [(&csv, [2, 3]), (&jsonl, [1, 3])] {
            let mut seen = Vec::new();
            scan_score_file(path, |c| {
                let (a, b) = (c.number(path, "a")?, c.number(path, "b")?);
                seen.push((c.line, c.text("topic"), a, b, c.score_columns().join(",")));
                Ok(())
            })
            .unwrap();
            let cols = "topic,a,b".to_string();
            assert_eq!(
                seen,
                [
                    (lines[0], Some("Rome".into()), Some(0.5), None, cols.clone()),
                    (lines[1], None, None, Some(2.0), cols.clone()),
                ],
                "{}",
                path.display()
            );
        }
        let no_system = dir.path().join("no-system.csv");
        std::fs::write(&no_system, "id,a\nq1,1\n").unwrap();
        let err = scan_score_file(&no_system, |_| Ok(())).unwrap_err().to_string();
        assert_eq!(err, format!("{}: needs `id` and `system` columns", no_system.display()));
        let bad = dir.path().join("bad.jsonl");
        std::fs::write(&bad, "{\"id\":\"q1\"}\n[1]\n").unwrap();
        let err = scan_score_file(&bad, |_| Ok(())).unwrap_err().to_string();
        assert_eq!(err, format!("{}:2: not a JSON object", bad.display()));
    }
}
