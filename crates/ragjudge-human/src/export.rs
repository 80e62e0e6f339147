//! Label files in the layouts the other commands read: `pairwise.jsonl` for `agree --gold`,
//! `judge-eval --labels` and `tournament --ppi-labels`; `graded.csv` for `calibrate --labels`,
//! `fuse fit --labels` and `score --ppi-labels` (label column `label`); `claims.jsonl` with each
//! claim's label; `annotations.jsonl`, every annotator's own labels; and `agreement.json`, the
//! agreement between annotators.

use crate::error::HumanError;
use crate::store::{Decision, HumanLabel, LabelSet, LabelValue};
use crate::task::{TaskKey, View};
use ragjudge_artifacts::{AtomicFile, OutputSet};
use ragjudge_core::Record;
use ragjudge_dice::labels::Label;
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The annotators' labels of one task merged into one.
#[derive(Debug, Clone, PartialEq)]
pub struct Consensus {
    /// The task.
    pub task: TaskKey,
    /// Pairwise: the mean preference (-2..2, positive = `system_b` better); graded: the mean
    /// grade; claims: the mean share of supported claims.
    pub value: f64,
    /// Pairwise: the sign of `value` as a label (a mean of exactly 0 is a tie, as RAGChecker's
    /// human labels are read).
    pub label: Option<Label>,
    /// Claims: per claim, the share of annotators who found it supported.
    pub claims: Vec<(String, f64)>,
    /// Annotators who labelled the task.
    pub annotators: usize,
}

/// One merged label per task, tasks in the order first labelled.
pub fn consensus(set: &LabelSet) -> Vec<Consensus> {
    let mut order: Vec<&TaskKey> = Vec::new();
    let mut by_task: BTreeMap<&TaskKey, Vec<&HumanLabel>> = BTreeMap::new();
    for l in &set.labels {
        let entry = by_task.entry(&l.task).or_default();
        if entry.is_empty() {
            order.push(&l.task);
        }
        entry.push(l);
    }
    order.into_iter().map(|task| merge(task, &by_task[task])).collect()
}

fn merge(task: &TaskKey, labels: &[&HumanLabel]) -> Consensus {
    let n = labels.len() as f64;
    let mean = |f: &dyn Fn(&LabelValue) -> Option<f64>| labels.iter().filter_map(|l| f(&l.value)).sum::<f64>() / n;
    let value = mean(&|v| v.preference().or_else(|| v.score()));
    let label = labels.first().and_then(|l| l.value.preference()).map(|_| match value {
        v if v < 0.0 => Label::A,
        v if v > 0.0 => Label::B,
        _ => Label::Tie,
    });
    let mut claims: Vec<(String, f64)> = Vec::new();
    for l in labels {
        if let LabelValue::Claims { claims: cs } = &l.value {
            for (i, c) in cs.iter().enumerate() {
                if claims.len() <= i {
                    claims.push((c.text.clone(), 0.0));
                }
                claims[i].1 += f64::from(u8::from(c.supported)) / n;
            }
        }
    }
    Consensus { task: task.clone(), value, label, claims, annotators: labels.len() }
}

/// A question kept by review, in testgen's layout, with the review in `meta.review`.
#[derive(Serialize)]
struct AcceptedLine<'a> {
    id: &'a str,
    query: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    reference: Option<&'a str>,
    meta: serde_json::Map<String, serde_json::Value>,
}

/// The reviewed questions kept by most of their reviewers (a tie drops it), in the questions'
/// order, with the latest edit of a reviewer who kept it applied and the review recorded in
/// `meta.review` (`decision`, `reviewers`, `kept_by`, and the text before an edit).
fn accepted_lines(set: &LabelSet, questions: &[Record]) -> Result<Vec<u8>, HumanError> {
    let mut buf = Vec::new();
    for q in questions {
        let task = TaskKey::single(&q.id, &q.system);
        let mut labels: Vec<&HumanLabel> = set.labels.iter().filter(|l| l.task == task).collect();
        if labels.is_empty() {
            continue;
        }
        labels.sort_by_key(|l| l.time);
        let kept: Vec<&&HumanLabel> = labels
            .iter()
            .filter(|l| !matches!(l.value, LabelValue::Review { decision: Decision::Reject, .. }))
            .collect();
        if 2 * kept.len() <= labels.len() {
            continue;
        }
        let edit = kept.iter().rev().find_map(|l| match &l.value {
            LabelValue::Review { decision: Decision::Edit, query, reference, .. } => Some((query, reference)),
            _ => None,
        });
        let mut query = q.query.as_str();
        let mut reference = q.reference.as_deref();
        let mut review = serde_json::json!({
            "decision": if edit.is_some() { "edit" } else { "accept" },
            "reviewers": labels.len(),
            "kept_by": kept.len(),
        });
        if let Some((new_query, new_reference)) = edit {
            if let Some(nq) = new_query.as_deref().filter(|s| !s.trim().is_empty()) {
                review["original_query"] = q.query.clone().into();
                query = nq;
            }
            if let Some(nr) = new_reference.as_deref().filter(|s| !s.trim().is_empty()) {
                review["original_reference"] = q.reference.clone().into();
                reference = Some(nr);
            }
        }
        let mut meta = q.meta.clone();
        meta.insert("review".into(), review);
        serde_json::to_writer(&mut buf, &AcceptedLine { id: &q.id, query, reference, meta }).map_err(json_error)?;
        buf.push(b'\n');
    }
    Ok(buf)
}

#[derive(Serialize)]
struct PairLine<'a> {
    id: &'a str,
    system_a: &'a str,
    system_b: &'a str,
    label: &'static str,
    preference: f64,
    annotators: usize,
}

#[derive(Serialize)]
struct ClaimLine<'a> {
    id: &'a str,
    system: &'a str,
    claim: usize,
    text: &'a str,
    supported: bool,
    support: f64,
    annotators: usize,
}

/// What an export wrote.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExportSummary {
    /// The files written.
    pub files: Vec<PathBuf>,
    /// Tasks with at least one label.
    pub tasks: usize,
    /// Labels in all (every annotator's).
    pub labels: usize,
    /// Annotators.
    pub annotators: usize,
}

/// Writes the label files of `set` into `dir` (created if needed), all replaced together; a
/// review needs the `questions` reviewed, whose kept ones it writes back.
pub fn export(set: &LabelSet, questions: Option<&[Record]>, dir: &Path) -> Result<ExportSummary, HumanError> {
    if set.labels.is_empty() {
        return Err(HumanError::NoTasks("the label file holds no label yet".into()));
    }
    std::fs::create_dir_all(dir).map_err(|e| HumanError::Settings(format!("{}: cannot create: {e}", dir.display())))?;
    let merged = consensus(set);
    let mut out = OutputSet::new();
    let mut files = Vec::new();
    let mut add = |name: &str, bytes: Vec<u8>| -> Result<(), HumanError> {
        let path = dir.join(name);
        out.push(AtomicFile::with_bytes(&path, &bytes)?);
        files.push(path);
        Ok(())
    };
    match set.view {
        View::Pairwise => add("pairwise.jsonl", pairwise_lines(&merged)?)?,
        View::Graded => add("graded.csv", graded_csv(&merged)?)?,
        View::Claims => {
            add("claims.jsonl", claim_lines(&merged)?)?;
            add("graded.csv", graded_csv(&merged)?)?;
        }
        View::Review => {
            let Some(questions) = questions else {
                return Err(HumanError::Settings("a review export needs the questions file (--questions)".into()));
            };
            add("accepted.jsonl", accepted_lines(set, questions)?)?;
        }
    }
    let mut raw = Vec::new();
    for l in &set.labels {
        serde_json::to_writer(&mut raw, l).map_err(json_error)?;
        raw.push(b'\n');
    }
    add("annotations.jsonl", raw)?;
    let agreement = crate::agreement::agreement(set)?;
    let provenance = ragjudge_artifacts::Provenance::of_this_process();
    add("agreement.json", ragjudge_artifacts::to_json_bytes(&provenance, &agreement).map_err(json_error)?)?;
    out.commit()?;
    Ok(ExportSummary { files, tasks: merged.len(), labels: set.labels.len(), annotators: set.annotators().len() })
}

fn json_error(e: serde_json::Error) -> HumanError {
    HumanError::Settings(format!("cannot write JSON: {e}"))
}

fn pairwise_lines(merged: &[Consensus]) -> Result<Vec<u8>, HumanError> {
    let mut buf = Vec::new();
    for c in merged {
        let line = PairLine {
            id: &c.task.id,
            system_a: &c.task.system,
            system_b: c.task.system_b.as_deref().unwrap_or_default(),
            label: c.label.unwrap_or(Label::Tie).as_str(),
            preference: c.value,
            annotators: c.annotators,
        };
        serde_json::to_writer(&mut buf, &line).map_err(json_error)?;
        buf.push(b'\n');
    }
    Ok(buf)
}

fn graded_csv(merged: &[Consensus]) -> Result<Vec<u8>, HumanError> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let csv_error = |e: csv::Error| HumanError::Settings(format!("cannot write CSV: {e}"));
    w.write_record(["id", "system", "label", "annotators"]).map_err(csv_error)?;
    for c in merged {
        w.write_record([&c.task.id, &c.task.system, &c.value.to_string(), &c.annotators.to_string()])
            .map_err(csv_error)?;
    }
    let mut bytes = w.into_inner().map_err(|e| HumanError::Settings(format!("cannot write CSV: {e}")))?;
    bytes.flush().map_err(|e| HumanError::Settings(format!("cannot write CSV: {e}")))?;
    Ok(bytes)
}

fn claim_lines(merged: &[Consensus]) -> Result<Vec<u8>, HumanError> {
    let mut buf = Vec::new();
    for c in merged {
        for (i, (text, support)) in c.claims.iter().enumerate() {
            let line = ClaimLine {
                id: &c.task.id,
                system: &c.task.system,
                claim: i + 1,
                text,
                supported: *support >= 0.5,
                support: *support,
                annotators: c.annotators,
            };
            serde_json::to_writer(&mut buf, &line).map_err(json_error)?;
            buf.push(b'\n');
        }
    }
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::ClaimLabel;
    use crate::task::Scale;
    use crate::test_support::{label, pair};
    use ragjudge_dice::labels::PairLabels;

    #[test]
    fn pairwise_export_is_the_mean_preference_and_reads_as_gold_labels() {
        // q1: A much better (-2) and B better (+1): mean -0.5 -> A. q2: A (-1) and B (+1): mean 0
        // -> tie. q3: one annotator, B much better: +2 -> B.
        let set = LabelSet {
            view: View::Pairwise,
            scale: Scale::Likert5,
            labels: vec![
                pair("ann", "q1", Label::A, 2),
                pair("bob", "q1", Label::B, 1),
                pair("ann", "q2", Label::A, 1),
                pair("bob", "q2", Label::B, 1),
                pair("ann", "q3", Label::B, 2),
            ],
        };
        let dir = tempfile::tempdir().unwrap();
        let summary = export(&set, None, dir.path()).unwrap();
        assert_eq!((summary.tasks, summary.labels, summary.annotators), (3, 5, 2));
        let text = std::fs::read_to_string(dir.path().join("pairwise.jsonl")).unwrap();
        assert_eq!(
            text.lines().next().unwrap(),
            r#"{"id":"q1","system_a":"S1","system_b":"S2","label":"A","preference":-0.5,"annotators":2}"#
        );
        let gold = PairLabels::read(&dir.path().join("pairwise.jsonl")).unwrap();
        let key = |id: &str| (id.to_string(), "S1".to_string(), "S2".to_string());
        assert_eq!(gold.get(&key("q1")), Some(Label::A));
        assert_eq!(gold.get(&key("q2")), Some(Label::Tie));
        assert_eq!(gold.get(&key("q3")), Some(Label::B));
        let raw = std::fs::read_to_string(dir.path().join("annotations.jsonl")).unwrap();
        assert_eq!(raw.lines().count(), 5);
    }

    #[test]
    fn graded_and_claims_exports_are_means_per_answer() {
        let task = TaskKey::single("q1", "S1");
        let claims = |a: bool, b: bool| LabelValue::Claims {
            claims: vec![
                ClaimLabel { text: "x.".into(), supported: a },
                ClaimLabel { text: "y.".into(), supported: b },
            ],
        };
        let set = LabelSet {
            view: View::Claims,
            scale: Scale::Likert5,
            labels: vec![label("ann", task.clone(), claims(true, false)), label("bob", task, claims(true, true))],
        };
        let dir = tempfile::tempdir().unwrap();
        export(&set, None, dir.path()).unwrap();
        // Shares 1/2 and 2/2: mean 0.75. Claim 1 supported by both, claim 2 by one of two.
        let csv = std::fs::read_to_string(dir.path().join("graded.csv")).unwrap();
        assert_eq!(csv, "id,system,label,annotators\nq1,S1,0.75,2\n");
        let lines: Vec<String> =
            std::fs::read_to_string(dir.path().join("claims.jsonl")).unwrap().lines().map(String::from).collect();
        assert_eq!(
            lines[1],
            r#"{"id":"q1","system":"S1","claim":2,"text":"y.","supported":true,"support":0.5,"annotators":2}"#
        );
    }

    #[test]
    fn a_review_keeps_what_most_reviewers_kept_with_the_latest_edit() {
        let q = |id: &str| Record {
            id: id.into(),
            system: "qs".into(),
            query: format!("question {id}?"),
            reference: Some("ref".into()),
            ..Default::default()
        };
        let questions = vec![q("q1"), q("q2"), q("q3"), q("q4")];
        let review = |annotator: &str, id: &str, decision: Decision, query: Option<&str>, time: u64| {
            let mut l = label(
                annotator,
                TaskKey::single(id, "qs"),
                LabelValue::Review {
                    decision,
                    reason: (decision == Decision::Reject).then(|| "wrong_reference".into()),
                    query: query.map(String::from),
                    reference: None,
                },
            );
            l.time = time;
            l
        };
        // q1: accepted by one. q2: accepted and rejected (a tie: dropped). q3: edited twice, the
        // later edit wins. q4: not reviewed (not accepted).
        let set = LabelSet {
            view: View::Review,
            scale: Scale::Likert5,
            labels: vec![
                review("ann", "q1", Decision::Accept, None, 1),
                review("ann", "q2", Decision::Accept, None, 2),
                review("bob", "q2", Decision::Reject, None, 3),
                review("bob", "q3", Decision::Edit, Some("Late edit?"), 9),
                review("ann", "q3", Decision::Edit, Some("Early edit?"), 4),
            ],
        };
        let dir = tempfile::tempdir().unwrap();
        assert!(export(&set, None, dir.path()).unwrap_err().to_string().contains("--questions"));
        export(&set, Some(&questions), dir.path()).unwrap();
        let lines: Vec<serde_json::Value> = std::fs::read_to_string(dir.path().join("accepted.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0]["id"], "q1");
        assert_eq!(lines[0]["meta"]["review"]["decision"], "accept");
        assert_eq!(lines[1]["query"], "Late edit?");
        assert_eq!(lines[1]["meta"]["review"]["original_query"], "question q3?");
        assert_eq!(lines[1]["reference"], "ref");
    }

    #[test]
    fn an_empty_label_file_exports_nothing() {
        let set = LabelSet { view: View::Graded, scale: Scale::Crag, labels: vec![] };
        let dir = tempfile::tempdir().unwrap();
        assert!(export(&set, None, dir.path()).is_err());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
