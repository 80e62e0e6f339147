//! Human labels and the file that keeps them: every label is written, atomically, as it is
//! given, so a labelling session survives a reload, a crash or a restart of the server.

use crate::error::HumanError;
use crate::task::{Scale, TaskKey, View};
use ragjudge_artifacts::{read_artifact, write_artifact, Artifact, OutputLock, Provenance};
use ragjudge_dice::labels::Label;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// One claim of an answer with its label.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClaimLabel {
    /// The claim (a sentence of the answer).
    pub text: String,
    /// Whether the passages or the reference support it.
    pub supported: bool,
}

/// What an annotator said about one task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "view", rename_all = "snake_case")]
pub enum LabelValue {
    /// Which answer of the pair is better.
    Pairwise {
        /// `A` (the task's `system`), `B` (its `system_b`) or `tie`.
        label: Label,
        /// 1 = better, 2 = much better (1 for a tie).
        strength: u8,
    },
    /// A grade on the session's scale.
    Graded {
        /// The grade's value (1-5, or CRAG's -1 / 0 / 0.5 / 1).
        grade: f64,
    },
    /// Each claim of the answer.
    Claims {
        /// The claims, in the answer's order.
        claims: Vec<ClaimLabel>,
    },
    /// A test question reviewed.
    Review {
        /// Kept, dropped, or kept as edited.
        decision: Decision,
        /// Why it was rejected (one of [`REJECT_REASONS`]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        /// The question as edited.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        query: Option<String>,
        /// The reference as edited.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reference: Option<String>,
    },
}

/// A reviewer's decision on a test question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Keep it as it is.
    Accept,
    /// Drop it.
    Reject,
    /// Keep it as edited.
    Edit,
}

/// Why a reviewer rejects a question (the flaws testgen's checks look for, and the rest).
pub const REJECT_REASONS: [&str; 6] =
    ["not_self_contained", "wrong_reference", "not_answerable", "duplicate", "off_topic", "other"];

impl LabelValue {
    /// The view this value belongs to.
    pub fn view(&self) -> View {
        match self {
            LabelValue::Pairwise { .. } => View::Pairwise,
            LabelValue::Graded { .. } => View::Graded,
            LabelValue::Claims { .. } => View::Claims,
            LabelValue::Review { .. } => View::Review,
        }
    }

    /// The pairwise preference on the -2..2 scale (negative: `system` better, positive:
    /// `system_b` better), as RAGChecker's annotators gave it.
    pub fn preference(&self) -> Option<f64> {
        match self {
            LabelValue::Pairwise { label: Label::A, strength } => Some(-f64::from(*strength)),
            LabelValue::Pairwise { label: Label::B, strength } => Some(f64::from(*strength)),
            LabelValue::Pairwise { label: Label::Tie, .. } => Some(0.0),
            _ => None,
        }
    }

    /// The number a graded export gives the task: the grade, the share of supported claims, or
    /// for a reviewed question 1 when kept (as it is or edited) and 0 when rejected.
    pub fn score(&self) -> Option<f64> {
        match self {
            LabelValue::Review { decision, .. } => Some(if *decision == Decision::Reject { 0.0 } else { 1.0 }),
            LabelValue::Graded { grade } => Some(*grade),
            LabelValue::Claims { claims } if !claims.is_empty() => {
                Some(claims.iter().filter(|c| c.supported).count() as f64 / claims.len() as f64)
            }
            _ => None,
        }
    }
}

/// One annotator's label of one task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct HumanLabel {
    /// Who gave it.
    pub annotator: String,
    /// The task.
    #[serde(flatten)]
    pub task: TaskKey,
    /// The label.
    #[serde(flatten)]
    pub value: LabelValue,
    /// A free-text note.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Pairwise: the system shown on the left (a check of position bias).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shown_left: Option<String>,
    /// Whether the machine verdict was revealed before the label was given.
    #[serde(default)]
    pub verdict_seen: bool,
    /// Seconds spent on the task before the label was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
    /// When it was given (seconds since the Unix epoch).
    #[serde(default)]
    pub time: u64,
}

/// The labels of one view: what `annotate` writes and `annotate export`, `validate` and `report`
/// read. One label per annotator and task: a task labelled again replaces the earlier label.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LabelSet {
    /// The view labelled.
    pub view: View,
    /// The graded view's scale.
    #[serde(default)]
    pub scale: Scale,
    /// The labels, in the order first given.
    pub labels: Vec<HumanLabel>,
}

impl Artifact for LabelSet {
    const KIND: &'static str = "human-labels";
    const SCHEMA_VERSION: u32 = 1;
}

impl LabelSet {
    /// Checks that `label` fits this set: its view, a grade on the scale, a strength of 1 or 2
    /// (1 for a tie), a pairwise task with two systems and any other with one.
    pub fn check(&self, label: &HumanLabel) -> Result<(), HumanError> {
        let bad = |message: String| HumanError::Label { task: label.task.to_string(), message };
        if label.annotator.trim().is_empty() {
            return Err(bad("no annotator id".into()));
        }
        if label.value.view() != self.view {
            return Err(bad(format!("a {} label in a {} session", label.value.view().as_str(), self.view.as_str())));
        }
        if (self.view == View::Pairwise) != label.task.system_b.is_some() {
            return Err(bad("a pairwise task names two systems, any other one".into()));
        }
        match &label.value {
            LabelValue::Pairwise { label: Label::Tie, strength } if *strength != 1 => {
                Err(bad(format!("a tie has strength 1, got {strength}")))
            }
            LabelValue::Pairwise { strength, .. } if !(1..=2).contains(strength) => {
                Err(bad(format!("strength must be 1 (better) or 2 (much better), got {strength}")))
            }
            LabelValue::Graded { grade } if !self.scale.contains(*grade) => {
                let grades: Vec<String> = self.scale.grades().iter().map(|(g, n)| format!("{g} ({n})")).collect();
                Err(bad(format!("grade {grade} is not on the scale: {}", grades.join(", "))))
            }
            LabelValue::Claims { claims } if claims.is_empty() => Err(bad("no claim labelled".into())),
            LabelValue::Review { decision: Decision::Reject, reason, .. }
                if !reason.as_deref().is_some_and(|r| REJECT_REASONS.contains(&r)) =>
            {
                Err(bad(format!("a rejection needs a reason: one of {}", REJECT_REASONS.join(", "))))
            }
            LabelValue::Review { decision: Decision::Edit, query, reference, .. }
                if query.as_deref().is_none_or(|q| q.trim().is_empty())
                    && reference.as_deref().is_none_or(|r| r.trim().is_empty()) =>
            {
                Err(bad("an edit needs the edited question or reference".into()))
            }
            _ => Ok(()),
        }
    }

    /// The label `annotator` gave `task`, if any.
    pub fn get(&self, annotator: &str, task: &TaskKey) -> Option<&HumanLabel> {
        self.labels.iter().find(|l| l.annotator == annotator && l.task == *task)
    }

    /// Annotators, in the order first seen.
    pub fn annotators(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for l in &self.labels {
            if !out.contains(&l.annotator.as_str()) {
                out.push(&l.annotator);
            }
        }
        out
    }
}

/// Reads a label file.
pub fn read_labels(path: &Path) -> Result<LabelSet, HumanError> {
    Ok(read_artifact::<LabelSet>(path)?.body)
}

/// A label file held by one labelling session: the file is locked for the session's life (a
/// second session on the same file is a clear error) and rewritten atomically on every label.
#[derive(Debug)]
pub struct LabelStore {
    path: PathBuf,
    set: LabelSet,
    provenance: Provenance,
    _lock: OutputLock,
}

impl LabelStore {
    /// Opens `path` for a session of `view` (and `scale`): the labels already there are kept;
    /// a file of another view or scale is an error; a missing file starts empty (written with
    /// the first label).
    pub fn open(path: &Path, view: View, scale: Scale, provenance: Provenance) -> Result<Self, HumanError> {
        ragjudge_artifacts::create_parent_dirs(path)?;
        let lock = OutputLock::acquire(&session_lock_path(path))?;
        let set = if path.exists() {
            let set = read_labels(path)?;
            if set.view != view {
                return Err(HumanError::ViewMismatch {
                    path: path.into(),
                    found: set.view.as_str(),
                    wanted: view.as_str(),
                });
            }
            if view == View::Graded && set.scale != scale {
                return Err(HumanError::Settings(format!(
                    "{}: holds grades on another scale than asked for (--scale)",
                    path.display()
                )));
            }
            set
        } else {
            LabelSet { view, scale, labels: Vec::new() }
        };
        Ok(LabelStore { path: path.into(), set, provenance, _lock: lock })
    }

    /// The labels so far.
    pub fn labels(&self) -> &LabelSet {
        &self.set
    }

    /// Adds `label` (replacing the annotator's earlier label of the task) and writes the file;
    /// when the write fails the label is not kept, so memory never holds what the file lacks.
    pub fn put(&mut self, label: HumanLabel) -> Result<(), HumanError> {
        self.set.check(&label)?;
        let mut next = self.set.clone();
        match next.labels.iter_mut().find(|l| l.annotator == label.annotator && l.task == label.task) {
            Some(old) => *old = label,
            None => next.labels.push(label),
        }
        write_artifact(&self.path, &self.provenance, &next)?;
        self.set = next;
        Ok(())
    }
}

/// The session lock of a label file: distinct from the lock each atomic write takes.
fn session_lock_path(path: &Path) -> PathBuf {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    path.with_file_name(format!("{name}.session"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::pair;

    #[test]
    fn labels_persist_and_a_relabel_replaces() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("labels.json");
        {
            let mut store = LabelStore::open(&path, View::Pairwise, Scale::Likert5, Provenance::default()).unwrap();
            store.put(pair("ann", "q1", Label::A, 2)).unwrap();
            store.put(pair("ann", "q2", Label::Tie, 1)).unwrap();
            store.put(pair("ann", "q1", Label::B, 1)).unwrap();
            store.put(pair("bob", "q1", Label::A, 1)).unwrap();
        }
        let set = read_labels(&path).unwrap();
        assert_eq!(set.labels.len(), 3);
        assert_eq!(set.get("ann", &TaskKey::pair("q1", "S1", "S2")).unwrap().value.preference(), Some(1.0));
        assert_eq!(set.get("bob", &TaskKey::pair("q1", "S2", "S1")).unwrap().value.preference(), Some(-1.0));
        assert_eq!(set.annotators(), ["ann", "bob"]);
        // A restart keeps them.
        let store = LabelStore::open(&path, View::Pairwise, Scale::Likert5, Provenance::default()).unwrap();
        assert_eq!(store.labels().labels.len(), 3);
    }

    #[test]
    fn a_second_session_on_one_file_and_a_view_mismatch_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("labels.json");
        let mut first = LabelStore::open(&path, View::Pairwise, Scale::Likert5, Provenance::default()).unwrap();
        let e = LabelStore::open(&path, View::Pairwise, Scale::Likert5, Provenance::default()).unwrap_err();
        assert!(matches!(e, HumanError::Artifact(_)), "{e}");
        first.put(pair("ann", "q1", Label::A, 1)).unwrap();
        drop(first);
        let e = LabelStore::open(&path, View::Graded, Scale::Likert5, Provenance::default()).unwrap_err();
        assert!(e.to_string().contains("holds pairwise labels, not graded"), "{e}");
    }

    #[test]
    fn labels_that_do_not_fit_are_refused_and_not_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("labels.json");
        let mut store = LabelStore::open(&path, View::Pairwise, Scale::Likert5, Provenance::default()).unwrap();
        for (label, strength, why) in [(Label::Tie, 2, "a tie has strength 1"), (Label::A, 3, "strength must be 1")] {
            let e = store.put(pair("ann", "q1", label, strength)).unwrap_err();
            assert!(e.to_string().contains(why), "{e}");
        }
        let mut graded = pair("ann", "q1", Label::A, 1);
        graded.value = LabelValue::Graded { grade: 3.0 };
        assert!(store.put(graded).unwrap_err().to_string().contains("a graded label in a pairwise session"));
        assert!(!path.exists());
        let set = LabelSet { view: View::Graded, scale: Scale::Crag, labels: vec![] };
        let mut l = pair("ann", "q1", Label::A, 1);
        l.task = TaskKey::single("q1", "S1");
        l.value = LabelValue::Graded { grade: 0.5 };
        assert!(set.check(&l).is_ok());
        l.value = LabelValue::Graded { grade: 3.0 };
        assert!(set.check(&l).unwrap_err().to_string().contains("not on the scale"));
    }

    #[test]
    fn a_rejection_needs_a_known_reason_and_an_edit_needs_text() {
        let set = LabelSet { view: View::Review, scale: Scale::Likert5, labels: vec![] };
        let mut l = pair("ann", "q1", Label::A, 1);
        l.task = TaskKey::single("q1", "qs");
        let review = |decision, reason: Option<&str>, query: Option<&str>| LabelValue::Review {
            decision,
            reason: reason.map(String::from),
            query: query.map(String::from),
            reference: None,
        };
        for (value, ok) in [
            (review(Decision::Accept, None, None), true),
            (review(Decision::Reject, Some("duplicate"), None), true),
            (review(Decision::Reject, None, None), false),
            (review(Decision::Reject, Some("boring"), None), false),
            (review(Decision::Edit, None, Some("Which river?")), true),
            (review(Decision::Edit, None, Some("  ")), false),
        ] {
            l.value = value.clone();
            assert_eq!(set.check(&l).is_ok(), ok, "{value:?}");
        }
    }

    #[test]
    fn a_label_line_reads_as_written() {
        let l = pair("ann", "q1", Label::B, 2);
        let json = serde_json::to_string(&l).unwrap();
        assert_eq!(
            json,
            r#"{"annotator":"ann","id":"q1","system":"S1","system_b":"S2","view":"pairwise","label":"B","strength":2,"verdict_seen":false,"time":0}"#
        );
        assert_eq!(serde_json::from_str::<HumanLabel>(&json).unwrap(), l);
    }

    #[test]
    fn claim_labels_score_as_the_supported_share() {
        let v = LabelValue::Claims {
            claims: vec![
                ClaimLabel { text: "a".into(), supported: true },
                ClaimLabel { text: "b".into(), supported: false },
                ClaimLabel { text: "c".into(), supported: true },
            ],
        };
        assert_eq!(v.score(), Some(2.0 / 3.0));
    }
}
