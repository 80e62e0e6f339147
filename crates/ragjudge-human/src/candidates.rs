//! The scorers `validate` compares: every numeric column of score files, each judge's pairwise
//! verdicts, and two trivial baselines any scorer must beat (answer length in words, and SQuAD
//! token F1 against the reference). Each gives one prediction per task: for a pair, the second
//! system's score minus the first's (a judge: `P(B) - P(A)`); for one answer, its score.

use crate::error::HumanError;
use crate::signals::read_judge_labels;
use crate::task::{TaskKey, TaskSet, View};
use ragjudge_dice::labels::Label;
use ragjudge_eval::scores::read_score_file;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::Path;

/// Where a candidate comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// A column of a score file (a metric, a fused model).
    Metric,
    /// A judge's pairwise verdicts.
    Judge,
    /// A trivial baseline.
    Baseline,
    /// The agreement-weighted consensus of the scorers that agree with the labels.
    Consensus,
}

impl Source {
    /// `metric`, `judge`, `baseline` or `consensus`.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Metric => "metric",
            Source::Judge => "judge",
            Source::Baseline => "baseline",
            Source::Consensus => "consensus",
        }
    }
}

/// One candidate scorer with its prediction for each task it covers.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// Its name: the column, the judge's name, `length` or `token_f1`.
    pub name: String,
    /// Where it comes from.
    pub source: Source,
    /// Prediction per task.
    pub predictions: HashMap<TaskKey, f64>,
}

fn per_task(tasks: &TaskSet, value: impl Fn(&str, &str) -> Option<f64>) -> HashMap<TaskKey, f64> {
    let mut out = HashMap::new();
    for key in tasks.keys() {
        let v = match &key.system_b {
            Some(b) => value(&key.id, b).zip(value(&key.id, &key.system)).map(|(vb, va)| vb - va),
            None => value(&key.id, &key.system),
        };
        if let Some(v) = v {
            out.insert(key.clone(), v);
        }
    }
    out
}

/// The two baselines, from the runs' answers: `length` (words) and `token_f1` (SQuAD F1
/// against the reference, for records that have one).
pub fn baselines(tasks: &TaskSet) -> Vec<Candidate> {
    let mut length: HashMap<(String, String), f64> = HashMap::new();
    let mut f1: HashMap<(String, String), f64> = HashMap::new();
    for i in 0..tasks.len() {
        for r in tasks.records(i) {
            let k = (r.id.clone(), r.system.clone());
            length.insert(k.clone(), r.answer.split_whitespace().count() as f64);
            if let Some(reference) = &r.reference {
                f1.insert(k, ragjudge_lexical::squad::token_f1(&r.answer, reference));
            }
        }
    }
    let lookup =
        |m: &HashMap<(String, String), f64>, id: &str, s: &str| m.get(&(id.to_string(), s.to_string())).copied();
    let mut out = vec![Candidate {
        name: "length".into(),
        source: Source::Baseline,
        predictions: per_task(tasks, |id, s| lookup(&length, id, s)),
    }];
    if !f1.is_empty() {
        out.push(Candidate {
            name: "token_f1".into(),
            source: Source::Baseline,
            predictions: per_task(tasks, |id, s| lookup(&f1, id, s)),
        });
    }
    out
}

/// Every numeric column of a score file, named `column` (or `file:column` with `prefix`).
pub fn from_scores(path: &Path, tasks: &TaskSet, prefix: bool) -> Result<Vec<Candidate>, HumanError> {
    let file = read_score_file(path).map_err(|e| HumanError::Settings(e.to_string()))?;
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let mut out = Vec::new();
    for (c, name) in file.columns.iter().enumerate() {
        let mut values: HashMap<(String, String), f64> = HashMap::new();
        for row in &file.rows {
            if let Some(v) = row.values[c] {
                values.entry((row.id.clone(), row.system.clone())).or_insert(v);
            }
        }
        let predictions = per_task(tasks, |id, s| values.get(&(id.to_string(), s.to_string())).copied());
        let name = if prefix { format!("{stem}:{name}") } else { name.clone() };
        out.push(Candidate { name, source: Source::Metric, predictions });
    }
    Ok(out)
}

/// A judge's pairwise verdicts (`labels.jsonl` of `compare` / `tournament`), as
/// `P(B) - P(A)` about the task's system order (a hard label: 1, 0 or -1). Pairwise view only.
pub fn from_judge(name: &str, path: &Path, tasks: &TaskSet) -> Result<Candidate, HumanError> {
    if tasks.view() != View::Pairwise {
        return Err(HumanError::Settings(format!("--judge {name}: judge verdicts are pairwise; the labels are not")));
    }
    let predictions = read_judge_labels(path)?
        .into_iter()
        .map(|(key, v)| {
            let d = match (v.probs, v.label) {
                (Some((a, b, _)), _) => b - a,
                (None, Label::A) => -1.0,
                (None, Label::B) => 1.0,
                (None, Label::Tie) => 0.0,
            };
            (key, d)
        })
        .collect();
    Ok(Candidate { name: name.into(), source: Source::Judge, predictions })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ragjudge_core::Record;

    fn tasks() -> TaskSet {
        let rec = |id: &str, s: &str, answer: &str| Record {
            id: id.into(),
            system: s.into(),
            answer: answer.into(),
            reference: Some("the cat sat".into()),
            ..Default::default()
        };
        TaskSet::build(vec![rec("q1", "S1", "the cat"), rec("q1", "S2", "a dog sat here now")], View::Pairwise).unwrap()
    }

    #[test]
    fn baselines_are_differences_of_length_and_token_f1() {
        let b = baselines(&tasks());
        let key = TaskKey::pair("q1", "S1", "S2");
        // Lengths 2 and 5 words: 5 - 2.
        assert_eq!(b[0].predictions[&key], 3.0);
        // Token F1 vs "the cat sat" (normalised: articles dropped -> "cat sat"): S1 "cat" ->
        // P 1, R 1/2, F1 2/3; S2 "dog sat here now" -> P 1/4, R 1/2, F1 1/3. 1/3 - 2/3.
        assert!((b[1].predictions[&key] + 1.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn judge_verdicts_are_oriented_to_the_task() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("labels.jsonl");
        std::fs::write(
            &path,
            r#"{"id":"q1","system_a":"S2","system_b":"S1","label":"A","probs":{"a":0.7,"b":0.2,"tie":0.1}}"#,
        )
        .unwrap();
        let c = from_judge("judge", &path, &tasks()).unwrap();
        // The judge favours S2 (its A) by 0.5: for (S1, S2) that is +0.5 toward the second system.
        assert!((c.predictions[&TaskKey::pair("q1", "S1", "S2")] - 0.5).abs() < 1e-12);
    }

    #[test]
    fn score_columns_become_candidates() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("scores.csv");
        std::fs::write(&path, "id,system,rougeL_f,error\nq1,S1,0.25,\nq1,S2,0.75,\n").unwrap();
        let c = from_scores(&path, &tasks(), false).unwrap();
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].name, "rougeL_f");
        assert_eq!(c[0].predictions[&TaskKey::pair("q1", "S1", "S2")], 0.5);
    }
}
