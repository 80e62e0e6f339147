//! What machines already say about each task: a judge's verdicts (shown on request, and its
//! uncertainty) and how much the candidate scorers disagree, for a plan to weigh toward.

use crate::candidates::{from_scores, Candidate};
use crate::error::HumanError;
use crate::task::{MachineVerdict, TaskKey, TaskSet, View};
use ragjudge_core::InputError;
use ragjudge_dice::labels::Label;
use serde::Deserialize;
use std::collections::HashMap;
use std::io::BufRead;
use std::path::Path;

/// Per task: the machine verdict to reveal and an uncertainty in [0, 1].
#[derive(Debug, Clone, Default)]
pub struct Signals {
    /// Verdicts the page may reveal.
    pub verdicts: HashMap<TaskKey, MachineVerdict>,
    /// How unsure the machines are (1 = as unsure as can be), averaged over the sources that
    /// cover the task.
    pub uncertainty: HashMap<TaskKey, f64>,
}

/// One verdict of a judge's pairwise label file, turned to the task's system order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JudgeVerdict {
    /// `A` (the task's `system`), `B` (its `system_b`) or tie.
    pub label: Label,
    /// `(P(A), P(B), P(tie))` about the task's order, when the file gives them.
    pub probs: Option<(f64, f64, f64)>,
}

#[derive(Deserialize)]
struct JudgeLine {
    id: serde_json::Value,
    system_a: String,
    system_b: String,
    label: String,
    #[serde(default)]
    probs: Option<Probs>,
}

#[derive(Deserialize, Clone, Copy)]
struct Probs {
    a: f64,
    b: f64,
    tie: f64,
}

/// Reads a judge's pairwise label file (`labels.jsonl` of `compare` / `tournament`: `id`,
/// `system_a`, `system_b`, `label`, optional `probs`), each verdict turned to its task's order; a
/// malformed line or an unknown label is an error naming file and line.
pub fn read_judge_labels(path: &Path) -> Result<Vec<(TaskKey, JudgeVerdict)>, HumanError> {
    let name = path.display().to_string();
    let file =
        ragjudge_core::bom::open(path).map_err(|e| InputError::fatal(&name, None, format!("cannot open: {e}")))?;
    let mut out = Vec::new();
    for (i, line) in file.lines().enumerate() {
        let at = |m: String| InputError::fatal(&name, Some(i as u64 + 1), m);
        let line = line.map_err(|e| at(format!("unreadable line: {e}")))?;
        if line.trim().is_empty() {
            continue;
        }
        let j: JudgeLine = serde_json::from_str(&line).map_err(|e| at(format!("invalid judge label: {e}")))?;
        let Some(label) = Label::parse(&j.label) else {
            return Err(InputError::new(&name, Some(i as u64 + 1), Some("label".into()), "expected A, B or tie").into());
        };
        let id = match j.id {
            serde_json::Value::String(s) => s,
            other => other.to_string(),
        };
        let key = TaskKey::pair(&id, &j.system_a, &j.system_b);
        let probs = j.probs.map(|p| (p.a, p.b, p.tie));
        let verdict = if key.system == j.system_a {
            JudgeVerdict { label, probs }
        } else {
            JudgeVerdict { label: label.swapped(), probs: probs.map(|(a, b, t)| (b, a, t)) }
        };
        out.push((key, verdict));
    }
    Ok(out)
}

impl Signals {
    /// Reads a judge's pairwise label file (`labels.jsonl` of `compare` / `tournament`): each
    /// pair's verdict, oriented to the task's system order, and its uncertainty
    /// `1 - |P(A) - P(B)|` (1 for a hard label that gives no probabilities and says tie, 0 for
    /// one that picks a side).
    pub fn add_judge(&mut self, path: &Path) -> Result<(), HumanError> {
        let name = path.display().to_string();
        let mut source_uncertainty = HashMap::new();
        for (key, v) in read_judge_labels(path)? {
            let (uncertainty, detail) = match v.probs {
                Some((a, b, t)) => (1.0 - (a - b).abs(), format!("P(A) {a:.2}, P(B) {b:.2}, P(tie) {t:.2}")),
                None => (if v.label == Label::Tie { 1.0 } else { 0.0 }, "hard label".into()),
            };
            source_uncertainty.insert(key.clone(), uncertainty.clamp(0.0, 1.0));
            let verdict = MachineVerdict { source: name.clone(), verdict: v.label.as_str().into(), detail };
            self.verdicts.insert(key, verdict);
        }
        self.merge(source_uncertainty);
        Ok(())
    }

    /// Reads score files (any CSV / JSONL / Parquet with `id`, `system` and numeric columns) and
    /// measures, per task, how much the columns disagree. Pairwise: each column votes for the
    /// better-scored answer; uncertainty = 1 - |votes for A - votes for B| / columns. Graded and
    /// claims: each column's value as a percentile among all answers; uncertainty = twice the
    /// standard deviation of the percentiles (0 when every column ranks the answer alike).
    pub fn add_scores(&mut self, paths: &[impl AsRef<Path>], tasks: &TaskSet) -> Result<(), HumanError> {
        let mut columns = Vec::new();
        for path in paths {
            columns.extend(from_scores(path.as_ref(), tasks, false)?);
        }
        if columns.is_empty() {
            return Ok(());
        }
        let uncertainty = match tasks.view() {
            View::Pairwise => pair_disagreement(&columns, tasks),
            View::Graded | View::Claims | View::Review => rank_disagreement(&columns, tasks),
        };
        self.merge(uncertainty);
        Ok(())
    }

    fn merge(&mut self, source: HashMap<TaskKey, f64>) {
        for (key, u) in source {
            self.uncertainty.entry(key).and_modify(|old| *old = (*old + u) / 2.0).or_insert(u);
        }
    }
}

/// Per pair, `1 - |votes for A - votes for B| / columns`, each column voting by the sign of its
/// difference (a zero difference votes for neither).
fn pair_disagreement(columns: &[Candidate], tasks: &TaskSet) -> HashMap<TaskKey, f64> {
    let mut out = HashMap::new();
    for key in tasks.keys() {
        let diffs: Vec<f64> = columns.iter().filter_map(|c| c.predictions.get(key).copied()).collect();
        if diffs.is_empty() {
            continue;
        }
        let margin: i64 = diffs.iter().map(|&d| (d > 0.0) as i64 - (d < 0.0) as i64).sum();
        out.insert(key.clone(), 1.0 - margin.unsigned_abs() as f64 / diffs.len() as f64);
    }
    out
}

/// Per answer, twice the standard deviation of its percentiles across the columns (mid-ranks
/// for ties), at most 1.
fn rank_disagreement(columns: &[Candidate], tasks: &TaskSet) -> HashMap<TaskKey, f64> {
    let percentiles: Vec<HashMap<&TaskKey, f64>> = columns
        .iter()
        .map(|c| {
            let mut sorted: Vec<f64> = c.predictions.values().copied().collect();
            sorted.sort_by(f64::total_cmp);
            let n = sorted.len() as f64;
            c.predictions
                .iter()
                .map(|(k, v)| {
                    let below = sorted.partition_point(|x| x < v) as f64;
                    let upto = sorted.partition_point(|x| x <= v) as f64;
                    (k, (below + upto) / 2.0 / n)
                })
                .collect()
        })
        .collect();
    let mut out = HashMap::new();
    for key in tasks.keys() {
        let ps: Vec<f64> = percentiles.iter().filter_map(|p| p.get(key).copied()).collect();
        if ps.len() >= 2 {
            let mean = ps.iter().sum::<f64>() / ps.len() as f64;
            let sd = (ps.iter().map(|p| (p - mean).powi(2)).sum::<f64>() / ps.len() as f64).sqrt();
            out.insert(key.clone(), (2.0 * sd).min(1.0));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ragjudge_core::Record;

    fn tasks(view: View) -> TaskSet {
        let rec = |id: &str, s: &str| Record { id: id.into(), system: s.into(), ..Default::default() };
        TaskSet::build(vec![rec("q1", "S1"), rec("q1", "S2"), rec("q2", "S1"), rec("q2", "S2")], view).unwrap()
    }

    #[test]
    fn judge_labels_are_oriented_to_the_task_and_give_uncertainty() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("labels.jsonl");
        std::fs::write(
            &path,
            concat!(
                r#"{"id":"q1","system_a":"S2","system_b":"S1","label":"A","s_a":0.8,"probs":{"a":0.7,"b":0.2,"tie":0.1}}"#,
                "\n",
                r#"{"id":"q2","system_a":"S1","system_b":"S2","label":"tie"}"#,
                "\n"
            ),
        )
        .unwrap();
        let mut s = Signals::default();
        s.add_judge(&path).unwrap();
        let q1 = TaskKey::pair("q1", "S1", "S2");
        // The judge said S2 (its A) is better: for the task (S1, S2) that is B.
        assert_eq!(s.verdicts[&q1].verdict, "B");
        assert_eq!(s.verdicts[&q1].detail, "P(A) 0.20, P(B) 0.70, P(tie) 0.10");
        assert!((s.uncertainty[&q1] - 0.5).abs() < 1e-12);
        assert_eq!(s.uncertainty[&TaskKey::pair("q2", "S1", "S2")], 1.0);
    }

    #[test]
    fn scorers_that_disagree_make_a_pair_uncertain() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("scores.csv");
        // q1: both columns prefer S2 -> 0. q2: x prefers S1, y prefers S2 -> 1.
        std::fs::write(&path, "id,system,x,y\nq1,S1,0.1,0.2\nq1,S2,0.5,0.6\nq2,S1,0.9,0.1\nq2,S2,0.2,0.3\n").unwrap();
        let mut s = Signals::default();
        s.add_scores(&[&path], &tasks(View::Pairwise)).unwrap();
        assert_eq!(s.uncertainty[&TaskKey::pair("q1", "S1", "S2")], 0.0);
        assert_eq!(s.uncertainty[&TaskKey::pair("q2", "S1", "S2")], 1.0);
    }

    #[test]
    fn graded_disagreement_is_the_spread_of_percentiles() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("scores.csv");
        // Column x ranks q1/S1 lowest of four (percentile 1/8), column y highest (7/8):
        // sd of {1/8, 7/8} = 3/8, doubled 3/4.
        std::fs::write(&path, "id,system,x,y\nq1,S1,0,9\nq1,S2,1,1\nq2,S1,2,2\nq2,S2,3,3\n").unwrap();
        let mut s = Signals::default();
        s.add_scores(&[&path], &tasks(View::Graded)).unwrap();
        assert!((s.uncertainty[&TaskKey::single("q1", "S1")] - 0.75).abs() < 1e-12);
    }
}
