//! Joins of two tables on key columns: numbers of a left file (machine scores) matched by key
//! with one number of a right file (human labels or ratings).
//!
//! A key repeated in the right file is an error: the match would be ambiguous. A key repeated in
//! the left file is a warning, [`RepeatedKey`]: the first row with the key is joined, the later
//! ones are left out.

use super::{has_column, read_table};
use crate::error::InputError;
use std::collections::HashMap;
use std::fmt;
use std::path::Path;

/// The key columns of a join, and whether a `system` column was left out of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JoinKeys {
    /// Key column names.
    pub keys: Vec<String>,
    /// Set when one file has a `system` column and the other has none, so the join is on `id` alone.
    pub system_missing: Option<SystemMissing>,
}

impl JoinKeys {
    /// The keys `on` when given (as given, e.g. `--on id,system`), else [`default_join_keys`]
    /// of the two files.
    pub fn named_or_default(on: Option<&[String]>, left: &Path, right: &Path) -> Result<Self, InputError> {
        match on {
            Some(on) => Ok(JoinKeys { keys: on.to_vec(), system_missing: None }),
            None => default_join_keys(left, right),
        }
    }
}

/// One file of a join has a `system` column, the other none: the join is on `id` alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemMissing {
    /// The file without a `system` column.
    pub file: String,
}

impl fmt::Display for SystemMissing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} has no `system` column; joining on `id` alone", self.file)
    }
}

/// The join keys of two files when none are named: `id` and `system` when both files have a
/// `system` column, else `id` alone. When only one file has a `system` column (e.g. human labels
/// that name no system for a score file that does) the join is on `id` and
/// [`JoinKeys::system_missing`] names the other file, so that the caller can say so.
pub fn default_join_keys(left: &Path, right: &Path) -> Result<JoinKeys, InputError> {
    let (l, r) = (has_column(left, "system")?, has_column(right, "system")?);
    let system_missing = match (l, r) {
        (true, false) => Some(right),
        (false, true) => Some(left),
        _ => None,
    }
    .map(|p| SystemMissing { file: p.display().to_string() });
    let keys = if l && r { vec!["id".into(), "system".into()] } else { vec!["id".into()] };
    Ok(JoinKeys { keys, system_missing })
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

/// What to do with a row whose key an earlier row of the same file has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RepeatedKeys {
    /// Keep every row (e.g. rows to transform one by one).
    Keep,
    /// Keep the first row with each key and report the later ones (rows to join).
    FirstWins,
}

/// A row whose key an earlier row of the same file has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepeatedKey {
    /// The file's name.
    pub file: String,
    /// The repeated row's line.
    pub line: u64,
    /// The line of the first row with the key.
    pub first_line: u64,
    /// The key.
    pub key: Vec<String>,
}

impl fmt::Display for RepeatedKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}: duplicate key {:?} (first on line {}); the first is used",
            self.file, self.line, self.key, self.first_line
        )
    }
}

/// A row with a number in every wanted column.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyedRow {
    /// The row's line.
    pub line: u64,
    /// Its key cells (empty when absent).
    pub key: Vec<String>,
    /// One number per wanted column.
    pub values: Vec<f64>,
}

/// The rows of a file with their keys and numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyedRows {
    /// Rows with a number in every wanted column (with [`RepeatedKeys::FirstWins`]: repeats left out).
    pub rows: Vec<KeyedRow>,
    /// Rows read, with or without numbers.
    pub read: usize,
    /// Rows whose key an earlier row has (with [`RepeatedKeys::Keep`]: always empty).
    pub repeated: Vec<RepeatedKey>,
}

/// Reads the `keys` and the numbers of `cols` of every row of `path`. Rows missing a number
/// are left out; a cell that is not a number is an error naming its file, line and column.
pub fn read_keyed(path: &Path, keys: &[&str], cols: &[&str], repeats: RepeatedKeys) -> Result<KeyedRows, InputError> {
    let mut wanted = keys.to_vec();
    wanted.extend_from_slice(cols);
    let t = read_table(path, &wanted)?;
    let mut out = KeyedRows { rows: Vec::with_capacity(t.rows.len()), read: t.rows.len(), repeated: Vec::new() };
    let mut first: HashMap<Vec<String>, u64> = HashMap::new();
    for i in 0..t.rows.len() {
        let line = t.rows[i].0;
        let key = t.key(i, keys.len());
        if repeats == RepeatedKeys::FirstWins {
            if let Some(&first_line) = first.get(&key) {
                out.repeated.push(RepeatedKey { file: t.name.clone(), line, first_line, key });
                continue;
            }
            first.insert(key.clone(), line);
        }
        let mut values = Vec::with_capacity(cols.len());
        for (j, col) in cols.iter().enumerate() {
            if let Some(v) = t.number(i, keys.len() + j, col)? {
                values.push(v);
            }
        }
        if values.len() == cols.len() {
            out.rows.push(KeyedRow { line, key, values });
        }
    }
    Ok(out)
}

/// Left rows matched with a right number.
#[derive(Debug, Clone, PartialEq)]
pub struct Join {
    /// Per joined row: the left numbers, in the order of the left columns.
    pub x: Vec<Vec<f64>>,
    /// Per joined row: the right number.
    pub y: Vec<f64>,
    /// Rows read from the left file.
    pub left_rows: usize,
    /// Left rows left out because an earlier left row has their key.
    pub repeated: Vec<RepeatedKey>,
}

/// Joins the numbers of `x_cols` of `left` with the number `y_col` of `right` on the `keys`
/// columns, in the order of the left rows. Left rows without every number, or whose key has no
/// number on the right, are left out. A key repeated on the right is an error (see
/// [`numbers_by_key`]); one repeated on the left is joined once, at its first row, and the later
/// rows are listed in [`Join::repeated`].
pub fn join_numbers(
    left: &Path,
    x_cols: &[&str],
    right: &Path,
    y_col: &str,
    keys: &[&str],
) -> Result<Join, InputError> {
    let by_key = numbers_by_key(right, keys, y_col)?;
    let l = read_keyed(left, keys, x_cols, RepeatedKeys::FirstWins)?;
    let mut join = Join { x: Vec::new(), y: Vec::new(), left_rows: l.read, repeated: l.repeated };
    for row in l.rows {
        if let Some(&v) = by_key.get(&row.key) {
            join.x.push(row.values);
            join.y.push(v);
        }
    }
    Ok(join)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn join_keys_fall_back_to_id_when_a_file_has_no_system() {
        let dir = tempfile::tempdir().unwrap();
        let with = write(dir.path(), "with.csv", "id,system,score\nq1,a,0.5\n");
        let without = write(dir.path(), "without.jsonl", "\n{\"id\": \"q1\", \"label\": 1}\n");
        let with2 = write(dir.path(), "with2.jsonl", "{\"id\": \"q1\", \"system\": \"a\", \"label\": 1}\n");
        let k = default_join_keys(&with, &without).unwrap();
        assert_eq!(k.keys, ["id"]);
        let missing = k.system_missing.unwrap();
        assert_eq!(missing.to_string(), format!("{} has no `system` column; joining on `id` alone", without.display()));
        let k = default_join_keys(&without, &with).unwrap();
        assert_eq!(k.system_missing.unwrap().file, without.display().to_string());
        assert_eq!(
            default_join_keys(&with, &with2).unwrap(),
            JoinKeys { keys: vec!["id".into(), "system".into()], system_missing: None }
        );
        assert_eq!(
            default_join_keys(&without, &without).unwrap(),
            JoinKeys { keys: vec!["id".into()], system_missing: None }
        );
        // Named keys are taken as they are, even where a file lacks one of them.
        let on = ["id".to_string(), "system".to_string()];
        let k = JoinKeys::named_or_default(Some(&on), &with, &without).unwrap();
        assert_eq!(k, JoinKeys { keys: on.to_vec(), system_missing: None });
        assert_eq!(JoinKeys::named_or_default(None, &with, &without).unwrap().keys, ["id"]);
    }

    #[test]
    fn numbers_by_key_reports_duplicates_and_bad_cells_by_line() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(dir.path(), "l.csv", "id,label\nq1,1\nq2,\nq1,2\n");
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

    #[test]
    fn files_with_id_columns_only_join_in_left_order() {
        let dir = tempfile::tempdir().unwrap();
        // q2 has no score, q4 no label and q5 no row on the right: q3 and q1 join, in that order.
        let left = write(dir.path(), "s.csv", "id,a,b\nq3,0.3,3\nq2,,2\nq1,0.1,1\nq4,0.4,4\nq5,0.5,5\n");
        let right =
            write(dir.path(), "l.jsonl", "{\"id\":\"q1\",\"h\":10}\n{\"id\":\"q3\",\"h\":30}\n{\"id\":\"q4\"}\n");
        let keys = default_join_keys(&left, &right).unwrap();
        assert_eq!(keys, JoinKeys { keys: vec!["id".into()], system_missing: None });
        let j = join_numbers(&left, &["a", "b"], &right, "h", &["id"]).unwrap();
        assert_eq!(j.x, [vec![0.3, 3.0], vec![0.1, 1.0]]);
        assert_eq!(j.y, [30.0, 10.0]);
        assert_eq!(j.left_rows, 5);
        assert!(j.repeated.is_empty());
    }

    #[test]
    fn a_mixed_pair_joins_on_id() {
        let dir = tempfile::tempdir().unwrap();
        let left = write(dir.path(), "s.csv", "id,system,m\nq1,a,1\nq2,a,2\n");
        let right = write(dir.path(), "l.csv", "id,h\nq2,20\nq1,10\n");
        let keys = default_join_keys(&left, &right).unwrap();
        let keys: Vec<&str> = keys.keys.iter().map(String::as_str).collect();
        let j = join_numbers(&left, &["m"], &right, "h", &keys).unwrap();
        assert_eq!((j.x, j.y), (vec![vec![1.0], vec![2.0]], vec![10.0, 20.0]));
    }

    #[test]
    fn a_repeated_left_key_joins_once_and_is_reported_with_its_lines() {
        let dir = tempfile::tempdir().unwrap();
        // Three rows: line 2 has q1 first; line 4 repeats it (left out, reported); q2 on line 3 joins.
        let left = write(dir.path(), "s.csv", "id,m\nq1,1\nq2,2\nq1,9\n");
        let right = write(dir.path(), "l.csv", "id,h\nq1,10\nq2,20\n");
        let j = join_numbers(&left, &["m"], &right, "h", &["id"]).unwrap();
        assert_eq!((j.x, j.y, j.left_rows), (vec![vec![1.0], vec![2.0]], vec![10.0, 20.0], 3));
        assert_eq!(j.repeated.len(), 1);
        let want = format!("{}:4: duplicate key [\"q1\"] (first on line 2); the first is used", left.display());
        assert_eq!(j.repeated[0].to_string(), want);
        // Kept rows: all three, nothing reported.
        let k = read_keyed(&left, &["id"], &["m"], RepeatedKeys::Keep).unwrap();
        assert_eq!(k.rows.iter().map(|r| r.line).collect::<Vec<_>>(), [2, 3, 4]);
        assert!(k.repeated.is_empty());
        // A key repeated on the right is an error naming the repeat's line.
        let right = write(dir.path(), "l2.csv", "id,h\nq1,10\nq1,11\n");
        let e = join_numbers(&left, &["m"], &right, "h", &["id"]).unwrap_err();
        assert_eq!(e.to_string(), format!("{}:3: duplicate key [\"q1\"]", right.display()));
    }
}
