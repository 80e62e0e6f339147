//! The training data of a fusion model: metric columns of a score file joined by key with one
//! human label column. Nothing is dropped silently: a labelled row with an empty or non-numeric
//! metric cell is an error naming the file, line and column; a key repeated on either side is an
//! error; scored rows without a label and labels without a scored row are counted in
//! [`JoinCounts`] and shown to the user.

use crate::FusionError;
use ragjudge_core::table::read_table;
use std::collections::HashMap;
use std::path::Path;

/// Metric values (`x`, one row per record, one value per input column) and labels (`y`).
#[derive(Debug, Clone, PartialEq)]
pub struct Dataset {
    /// The input (metric) column names, in the order of each row of `x`.
    pub inputs: Vec<String>,
    /// The label column's name.
    pub label: String,
    /// Per joined record: its key cells.
    pub keys: Vec<Vec<String>>,
    /// Per joined record: its metric values.
    pub x: Vec<Vec<f64>>,
    /// Per joined record: its label.
    pub y: Vec<f64>,
    /// What the join matched and left out.
    pub counts: JoinCounts,
}

/// How the rows of the two files matched.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct JoinCounts {
    /// Rows of the score file.
    pub score_rows: usize,
    /// Rows of the label file with a label.
    pub labels: usize,
    /// Rows of the label file whose label cell is empty.
    pub empty_labels: usize,
    /// Score rows joined with a label (the training rows).
    pub joined: usize,
    /// Score rows whose key has no label (not used for fitting).
    pub scores_without_label: usize,
    /// Labels whose key has no score row.
    pub labels_without_scores: usize,
}

impl std::fmt::Display for JoinCounts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} of {} scored rows joined a label; {} scored rows have no label, {} labels no scored row, {} label cells are empty",
            self.joined, self.score_rows, self.scores_without_label, self.labels_without_scores, self.empty_labels
        )
    }
}

/// Joins the `inputs` columns of `scores` with the `label` column of `labels` on the `keys` columns.
pub fn load(
    scores: &Path,
    inputs: &[String],
    labels: &Path,
    label: &str,
    keys: &[String],
) -> Result<Dataset, FusionError> {
    if inputs.is_empty() {
        return Err(FusionError::Data("no input columns named".into()));
    }
    if let Some(dup) = inputs.iter().enumerate().find_map(|(i, c)| inputs[..i].contains(c).then_some(c)) {
        return Err(FusionError::Data(format!("input column `{dup}` is named twice")));
    }
    let data = |e: ragjudge_core::InputError| FusionError::Data(e.to_string());
    let key_cols: Vec<&str> = keys.iter().map(String::as_str).collect();
    let mut counts = JoinCounts::default();

    let mut wanted = key_cols.clone();
    wanted.push(label);
    let lt = read_table(labels, &wanted).map_err(data)?;
    let mut by_key: HashMap<Vec<String>, (f64, bool)> = HashMap::new();
    let mut first_line: HashMap<Vec<String>, u64> = HashMap::new();
    for i in 0..lt.rows.len() {
        let line = lt.rows[i].0;
        let key = lt.key(i, keys.len());
        if let Some(first) = first_line.insert(key.clone(), line) {
            return Err(FusionError::Data(format!(
                "{}:{line}: key {key:?} repeats line {first}; each record needs one label",
                lt.name
            )));
        }
        match lt.number(i, keys.len(), label).map_err(data)? {
            Some(v) => {
                by_key.insert(key, (v, false));
                counts.labels += 1;
            }
            None => counts.empty_labels += 1,
        }
    }

    let mut wanted = key_cols.clone();
    wanted.extend(inputs.iter().map(String::as_str));
    let st = read_table(scores, &wanted).map_err(data)?;
    counts.score_rows = st.rows.len();
    let mut out = Dataset {
        inputs: inputs.to_vec(),
        label: label.to_string(),
        keys: Vec::new(),
        x: Vec::new(),
        y: Vec::new(),
        counts,
    };
    let mut seen: HashMap<Vec<String>, u64> = HashMap::new();
    for i in 0..st.rows.len() {
        let line = st.rows[i].0;
        let key = st.key(i, keys.len());
        if let Some(first) = seen.insert(key.clone(), line) {
            return Err(FusionError::Data(format!(
                "{}:{line}: key {key:?} repeats line {first}; join on more columns (--on) or score each record once",
                st.name
            )));
        }
        let Some(entry) = by_key.get_mut(&key) else {
            out.counts.scores_without_label += 1;
            continue;
        };
        entry.1 = true;
        let mut row = Vec::with_capacity(inputs.len());
        for (j, col) in inputs.iter().enumerate() {
            match st.number(i, keys.len() + j, col).map_err(data)? {
                Some(v) => row.push(v),
                None => {
                    return Err(FusionError::Data(format!(
                        "{}:{line}: field `{col}`: empty cell in a labelled row; a fit uses every labelled row, so score it or remove its label",
                        st.name
                    )))
                }
            }
        }
        out.keys.push(key);
        out.x.push(row);
        out.y.push(entry.0);
    }
    out.counts.joined = out.y.len();
    out.counts.labels_without_scores = by_key.values().filter(|(_, used)| !used).count();
    if out.y.is_empty() {
        let first_score = (!st.rows.is_empty()).then(|| st.key(0, keys.len()));
        let first_label = (!lt.rows.is_empty()).then(|| lt.key(0, keys.len()));
        return Err(FusionError::Data(format!(
            "{}: no row joins a label of {} on {:?} (first keys: {:?} and {:?})",
            st.name, lt.name, keys, first_score, first_label
        )));
    }
    if out.y.iter().all(|&v| v == out.y[0]) {
        return Err(FusionError::Data(format!(
            "{}: column `{label}`: every joined label is {}; a constant label cannot be learned",
            lt.name, out.y[0]
        )));
    }
    Ok(out)
}

impl Dataset {
    /// Rows already joined by the caller (e.g. a data frame): `x` in `inputs` order, `y` the
    /// labels. Counts every row as joined; refuses ragged rows, non-finite values and a constant
    /// label, naming the row.
    pub fn from_rows(
        inputs: Vec<String>,
        label: String,
        x: Vec<Vec<f64>>,
        y: Vec<f64>,
    ) -> Result<Dataset, FusionError> {
        let bad = |m: String| Err(FusionError::Data(m));
        if x.len() != y.len() {
            return bad(format!("{} score rows but {} labels", x.len(), y.len()));
        }
        if x.is_empty() {
            return bad("no labelled row to fit on".into());
        }
        if let Some(i) = x.iter().position(|r| r.len() != inputs.len()) {
            return bad(format!("row {i}: {} values for {} inputs", x[i].len(), inputs.len()));
        }
        let non_finite = x.iter().enumerate().find_map(|(i, r)| r.iter().position(|v| !v.is_finite()).map(|j| (i, j)));
        if let Some((i, j)) = non_finite {
            return bad(format!("row {i}: `{}` is not a finite number", inputs[j]));
        }
        if let Some(i) = y.iter().position(|v| !v.is_finite()) {
            return bad(format!("row {i}: the label is not a finite number"));
        }
        if y.iter().all(|&v| v == y[0]) {
            return bad(format!("every label is {}; a constant label cannot be learned", y[0]));
        }
        let n = y.len();
        let counts = JoinCounts { score_rows: n, labels: n, joined: n, ..JoinCounts::default() };
        let keys = (0..n).map(|i| vec![i.to_string()]).collect();
        Ok(Dataset { inputs, label, keys, x, y, counts })
    }

    /// The rows at `idx`, as a new data set (same inputs and label).
    pub fn subset(&self, idx: &[usize]) -> Dataset {
        Dataset {
            inputs: self.inputs.clone(),
            label: self.label.clone(),
            keys: idx.iter().map(|&i| self.keys[i].clone()).collect(),
            x: idx.iter().map(|&i| self.x[i].clone()).collect(),
            y: idx.iter().map(|&i| self.y[i]).collect(),
            counts: self.counts,
        }
    }

    /// One input column's values.
    pub fn column(&self, j: usize) -> Vec<f64> {
        self.x.iter().map(|r| r[j]).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn joins_in_score_order_and_counts_what_is_left_out() {
        let dir = tempfile::tempdir().unwrap();
        // q3 has no label, q4 is labelled but not scored, q5's label cell is empty.
        let sc = write(dir.path(), "s.csv", "id,a,b\nq2,0.2,2\nq1,0.1,1\nq3,0.3,3\n");
        let lb = write(dir.path(), "l.csv", "id,h\nq1,10\nq2,20\nq4,40\nq5,\n");
        let d = load(&sc, &s(&["a", "b"]), &lb, "h", &s(&["id"])).unwrap();
        assert_eq!(d.x, vec![vec![0.2, 2.0], vec![0.1, 1.0]]);
        assert_eq!(d.y, vec![20.0, 10.0]);
        assert_eq!(d.keys, vec![s(&["q2"]), s(&["q1"])]);
        let c = d.counts;
        assert_eq!(
            (c.score_rows, c.labels, c.empty_labels, c.joined, c.scores_without_label, c.labels_without_scores),
            (3, 3, 1, 2, 1, 1)
        );
        assert_eq!(c.to_string(), "2 of 3 scored rows joined a label; 1 scored rows have no label, 1 labels no scored row, 1 label cells are empty");
    }

    #[test]
    fn bad_input_is_one_line_naming_file_line_and_column() {
        let dir = tempfile::tempdir().unwrap();
        let lb = write(dir.path(), "l.csv", "id,h\nq1,1\nq2,2\n");
        let sc = write(dir.path(), "s.csv", "id,a\nq1,0.1\nq2,\n");
        let e = load(&sc, &s(&["a"]), &lb, "h", &s(&["id"])).unwrap_err().to_string();
        assert!(e.starts_with(&format!("{}:3: field `a`: empty cell in a labelled row", sc.display())), "{e}");
        let sc = write(dir.path(), "s.csv", "id,a\nq1,0.1\nq2,high\n");
        let e = load(&sc, &s(&["a"]), &lb, "h", &s(&["id"])).unwrap_err().to_string();
        assert_eq!(e, format!("{}:3: field `a`: not a finite number: high", sc.display()));
        let e = load(&sc, &s(&["zz"]), &lb, "h", &s(&["id"])).unwrap_err().to_string();
        assert_eq!(e, format!("{}: missing column `zz`", sc.display()));
        let sc = write(dir.path(), "s.csv", "id,a\nq9,0.1\n");
        let e = load(&sc, &s(&["a"]), &lb, "h", &s(&["id"])).unwrap_err().to_string();
        assert!(e.contains("no row joins a label of") && e.contains("[\"q9\"]"), "{e}");
        let sc = write(dir.path(), "s.csv", "id,a\nq1,0.1\nq2,0.2\n");
        let flat = write(dir.path(), "f.csv", "id,h\nq1,3\nq2,3\n");
        let e = load(&sc, &s(&["a"]), &flat, "h", &s(&["id"])).unwrap_err().to_string();
        assert_eq!(
            e,
            format!("{}: column `h`: every joined label is 3; a constant label cannot be learned", flat.display())
        );
        let dup = write(dir.path(), "d.csv", "id,h\nq1,3\nq1,4\n");
        let e = load(&sc, &s(&["a"]), &dup, "h", &s(&["id"])).unwrap_err().to_string();
        assert_eq!(e, format!("{}:3: key [\"q1\"] repeats line 2; each record needs one label", dup.display()));
        let sc2 = write(dir.path(), "s2.csv", "id,a\nq1,0.1\nq1,0.2\n");
        let e = load(&sc2, &s(&["a"]), &lb, "h", &s(&["id"])).unwrap_err().to_string();
        assert!(e.starts_with(&format!("{}:3: key [\"q1\"] repeats line 2", sc2.display())), "{e}");
    }
}
