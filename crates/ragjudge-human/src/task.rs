//! The tasks an annotator is shown, built from runs: a pair of answers to one question
//! (pairwise view), one answer to grade (graded view), or one answer's claims to check (claims
//! view), with what the page shows of each.

use crate::diff::{word_diff, Span};
use crate::error::HumanError;
use ragjudge_core::text::split_sentences;
use ragjudge_core::{stable_hash, Context, Record, Turn};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, HashMap};
use std::fmt;

/// What is labelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum View {
    /// Two systems' answers to one question: A, B or tie, with a strength.
    Pairwise,
    /// One answer graded on a scale.
    Graded,
    /// Each sentence (claim) of one answer: supported by the passages and reference, or not.
    Claims,
    /// A generated test question (`testgen`): accept, reject with a reason, or edit.
    Review,
}

impl View {
    /// `pairwise`, `graded` or `claims`.
    pub fn as_str(self) -> &'static str {
        match self {
            View::Pairwise => "pairwise",
            View::Graded => "graded",
            View::Claims => "claims",
            View::Review => "review",
        }
    }
}

/// The scale of the graded view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub enum Scale {
    /// 1 (worst) to 5 (best).
    #[default]
    #[serde(rename = "1-5")]
    Likert5,
    /// CRAG's answer grades (Yang et al. 2024, "CRAG - Comprehensive RAG Benchmark", §4.1):
    /// perfect 1, acceptable 0.5, missing 0, incorrect -1.
    #[serde(rename = "crag")]
    Crag,
}

impl Scale {
    /// The grades of the scale with their names, best last.
    pub fn grades(self) -> &'static [(f64, &'static str)] {
        match self {
            Scale::Likert5 => &[(1.0, "1"), (2.0, "2"), (3.0, "3"), (4.0, "4"), (5.0, "5")],
            Scale::Crag => &[(-1.0, "incorrect"), (0.0, "missing"), (0.5, "acceptable"), (1.0, "perfect")],
        }
    }

    /// Whether `grade` is one of the scale's grades.
    pub fn contains(self, grade: f64) -> bool {
        self.grades().iter().any(|(g, _)| *g == grade)
    }
}

/// Which task a label is about: a question and one system, or a question and two systems (in
/// the order of their names, whatever the order the page showed them in).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TaskKey {
    /// Question id.
    pub id: String,
    /// The system graded, or the first system of a pair.
    pub system: String,
    /// The second system of a pair.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_b: Option<String>,
}

impl TaskKey {
    /// The key of the pair of `a` and `b` on question `id`, in name order.
    pub fn pair(id: &str, a: &str, b: &str) -> Self {
        let (first, second) = if a <= b { (a, b) } else { (b, a) };
        TaskKey { id: id.into(), system: first.into(), system_b: Some(second.into()) }
    }

    /// The key of one answer.
    pub fn single(id: &str, system: &str) -> Self {
        TaskKey { id: id.into(), system: system.into(), system_b: None }
    }
}

impl fmt::Display for TaskKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.system_b {
            Some(b) => write!(f, "{} / {} / {}", self.id, self.system, b),
            None => write!(f, "{} / {}", self.id, self.system),
        }
    }
}

/// One answer as the page shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnswerView {
    /// The system (hidden by the page until the machine verdict is revealed).
    pub system: String,
    /// The answer.
    pub text: String,
    /// The answer cut where it differs from the other answer of the pair (one span, unchanged,
    /// when the answers share too little for a word diff to help).
    pub spans: Vec<Span>,
    /// The passages this system retrieved.
    pub contexts: Vec<Context>,
}

/// One task as the page shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskView {
    /// Position in the task list (0-based).
    pub index: usize,
    /// Tasks in all.
    pub total: usize,
    /// The task.
    pub key: TaskKey,
    /// The question.
    pub query: String,
    /// Earlier turns of the conversation.
    pub history: Vec<Turn>,
    /// The reference answer, if any.
    pub reference: Option<String>,
    /// One answer, or two in the order shown (left first).
    pub answers: Vec<AnswerView>,
    /// Claims view: the sentences of the answer.
    pub claims: Vec<String>,
    /// `meta.topic` of the question, if any.
    pub topic: Option<String>,
    /// `meta.query_type` of the question (testgen's type), if any.
    pub query_type: Option<String>,
}

/// A machine verdict the annotator may reveal after (or instead of) labelling blind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MachineVerdict {
    /// Who gave it (a judge's label file, a score column).
    pub source: String,
    /// The verdict: `A` / `B` / `tie` about the task's `system` / `system_b`, or a score.
    pub verdict: String,
    /// The evidence, e.g. the label probabilities.
    pub detail: String,
}

/// The tasks of one labelling session, in the order they are shown.
#[derive(Debug, Clone)]
pub struct TaskSet {
    view: View,
    records: Vec<Record>,
    /// Each task's key and its records' positions in `records` (one, or two in key order).
    tasks: Vec<(TaskKey, Vec<usize>)>,
    verdicts: HashMap<TaskKey, MachineVerdict>,
}

impl TaskSet {
    /// Every task of `view` the records allow: each pair of systems that answered a question
    /// (pairwise), or each answer (graded, claims), questions in the order first seen. A record
    /// whose (id, system) repeats an earlier one is an error (pairing would be ambiguous).
    pub fn build(records: Vec<Record>, view: View) -> Result<Self, HumanError> {
        let mut by_id: Vec<(String, Vec<usize>)> = Vec::new();
        let mut position: HashMap<String, usize> = HashMap::new();
        let mut seen = BTreeSet::new();
        for (i, r) in records.iter().enumerate() {
            if !seen.insert((r.id.clone(), r.system.clone())) {
                return Err(HumanError::Settings(format!(
                    "question {} of system {} appears twice in the runs; pairing would be ambiguous",
                    r.id, r.system
                )));
            }
            let slot = *position.entry(r.id.clone()).or_insert_with(|| {
                by_id.push((r.id.clone(), Vec::new()));
                by_id.len() - 1
            });
            by_id[slot].1.push(i);
        }
        let mut tasks = Vec::new();
        for (id, mut members) in by_id {
            members.sort_by(|&a, &b| records[a].system.cmp(&records[b].system));
            match view {
                View::Pairwise => {
                    for (x, &a) in members.iter().enumerate() {
                        for &b in &members[x + 1..] {
                            tasks.push((TaskKey::pair(&id, &records[a].system, &records[b].system), vec![a, b]));
                        }
                    }
                }
                View::Graded | View::Claims | View::Review => {
                    tasks.extend(members.iter().map(|&a| (TaskKey::single(&id, &records[a].system), vec![a])));
                }
            }
        }
        if tasks.is_empty() {
            let why = match view {
                View::Pairwise => "no question was answered by two systems",
                _ => "the runs hold no record",
            };
            return Err(HumanError::NoTasks(why.into()));
        }
        Ok(TaskSet { view, records, tasks, verdicts: HashMap::new() })
    }

    /// Keeps only `keys`, in their order; a key no run answers is an error.
    pub fn restrict(&mut self, keys: &[TaskKey]) -> Result<(), HumanError> {
        let mut by_key: HashMap<TaskKey, Vec<usize>> = std::mem::take(&mut self.tasks).into_iter().collect();
        let mut kept = Vec::with_capacity(keys.len());
        for key in keys {
            let Some(members) = by_key.remove(key) else {
                return Err(HumanError::Settings(format!("the plan names task {key}, which the runs do not hold")));
            };
            kept.push((key.clone(), members));
        }
        self.tasks = kept;
        Ok(())
    }

    /// Gives each question its source passages (review view): the chunks its `meta.source_ids`
    /// name, from `chunks` (chunk id -> text).
    pub fn attach_sources(&mut self, chunks: &HashMap<String, String>) {
        for r in &mut self.records {
            let ids: Vec<String> = r
                .meta
                .get("source_ids")
                .and_then(|v| v.as_array())
                .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
                .unwrap_or_default();
            for id in ids {
                if let Some(text) = chunks.get(&id) {
                    r.contexts.push(Context { id: Some(id), text: text.clone(), relevance: None });
                }
            }
        }
    }

    /// Every record, in input order.
    pub fn all_records(&self) -> &[Record] {
        &self.records
    }

    /// Attaches machine verdicts (shown on request); verdicts of tasks not in the set are ignored.
    pub fn set_verdicts(&mut self, verdicts: HashMap<TaskKey, MachineVerdict>) {
        self.verdicts = verdicts;
    }

    /// The view.
    pub fn view(&self) -> View {
        self.view
    }

    /// Number of tasks.
    pub fn len(&self) -> usize {
        self.tasks.len()
    }

    /// Whether there is no task.
    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    /// The keys, in order.
    pub fn keys(&self) -> impl Iterator<Item = &TaskKey> {
        self.tasks.iter().map(|(k, _)| k)
    }

    /// The records of task `index` (one, or two in key order).
    pub fn records(&self, index: usize) -> Vec<&Record> {
        self.tasks.get(index).map(|(_, m)| m.iter().map(|&i| &self.records[i]).collect()).unwrap_or_default()
    }

    /// The machine verdict of task `index`, if one was attached.
    pub fn verdict(&self, index: usize) -> Option<&MachineVerdict> {
        self.tasks.get(index).and_then(|(k, _)| self.verdicts.get(k))
    }

    /// Task `index` as the page shows it. A pair is shown in an order fixed by its key (the same
    /// on every reload), the first-named system on the left for half of the pairs, so that a
    /// preference for one side cannot favour one system.
    pub fn view_of(&self, index: usize) -> Option<TaskView> {
        let (key, members) = self.tasks.get(index)?;
        let mut shown: Vec<&Record> = members.iter().map(|&i| &self.records[i]).collect();
        if shown.len() == 2 && swaps(key) {
            shown.swap(0, 1);
        }
        let first = shown[0];
        let answers = match shown.as_slice() {
            [a, b] => {
                let (sa, sb) = word_diff(&a.answer, &b.answer);
                vec![answer_view(a, sa), answer_view(b, sb)]
            }
            _ => shown.iter().map(|r| answer_view(r, vec![Span::same(&r.answer)])).collect(),
        };
        let claims = match self.view {
            View::Claims => claims_of(&first.answer),
            _ => Vec::new(),
        };
        Some(TaskView {
            index,
            total: self.tasks.len(),
            key: key.clone(),
            query: first.query.clone(),
            history: first.history.clone(),
            reference: shown.iter().find_map(|r| r.reference.clone()),
            answers,
            claims,
            topic: first
                .meta
                .get("topic_label")
                .or(first.meta.get("topic"))
                .and_then(|v| v.as_str())
                .map(str::to_string),
            query_type: first.meta.get("query_type").and_then(|v| v.as_str()).map(str::to_string),
        })
    }
}

fn answer_view(r: &Record, spans: Vec<Span>) -> AnswerView {
    AnswerView { system: r.system.clone(), text: r.answer.clone(), spans, contexts: r.contexts.clone() }
}

/// The claims of an answer checked one by one: its sentences.
pub fn claims_of(answer: &str) -> Vec<String> {
    split_sentences(answer).into_iter().map(str::to_string).collect()
}

/// Whether the pair `key` is shown with its second system on the left: a fixed function of the
/// key ([`stable_hash`]), about half of all pairs.
pub fn swaps(key: &TaskKey) -> bool {
    let b = key.system_b.as_deref().unwrap_or("");
    stable_hash(&[key.id.as_bytes(), key.system.as_bytes(), b.as_bytes()]) & 1 == 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(id: &str, system: &str, answer: &str) -> Record {
        Record {
            id: id.into(),
            system: system.into(),
            query: format!("q {id}"),
            answer: answer.into(),
            ..Default::default()
        }
    }

    #[test]
    fn pairs_are_every_two_systems_of_a_question_in_name_order() {
        let records = vec![rec("q1", "S2", "x"), rec("q1", "S1", "y"), rec("q1", "S3", "z"), rec("q2", "S1", "w")];
        let set = TaskSet::build(records, View::Pairwise).unwrap();
        let keys: Vec<String> = set.keys().map(|k| k.to_string()).collect();
        assert_eq!(keys, ["q1 / S1 / S2", "q1 / S1 / S3", "q1 / S2 / S3"]);
        // The records of a task come in key order whatever the order shown.
        let r = set.records(0);
        assert_eq!((r[0].system.as_str(), r[1].system.as_str()), ("S1", "S2"));
    }

    #[test]
    fn graded_tasks_are_every_answer() {
        let records = vec![rec("q1", "S2", "x"), rec("q1", "S1", "y"), rec("q2", "S1", "w")];
        let set = TaskSet::build(records, View::Graded).unwrap();
        let keys: Vec<String> = set.keys().map(|k| k.to_string()).collect();
        assert_eq!(keys, ["q1 / S1", "q1 / S2", "q2 / S1"]);
    }

    #[test]
    fn a_repeated_answer_and_an_unpaired_run_are_errors() {
        let e = TaskSet::build(vec![rec("q1", "S1", "x"), rec("q1", "S1", "y")], View::Graded).unwrap_err();
        assert!(e.to_string().contains("q1 of system S1 appears twice"), "{e}");
        let e = TaskSet::build(vec![rec("q1", "S1", "x"), rec("q2", "S2", "y")], View::Pairwise).unwrap_err();
        assert!(e.to_string().contains("no question was answered by two systems"), "{e}");
    }

    #[test]
    fn the_side_shown_first_varies_with_the_pair_and_is_stable() {
        let keys: Vec<TaskKey> = (0..200).map(|i| TaskKey::pair(&format!("q{i}"), "S1", "S2")).collect();
        let swapped = keys.iter().filter(|k| swaps(k)).count();
        // A fair split: 100 expected, within four standard deviations (sd ~ 7.1).
        assert!((72..=128).contains(&swapped), "{swapped}");
        let records = vec![rec("q1", "S1", "a b"), rec("q1", "S2", "a c")];
        let set = TaskSet::build(records, View::Pairwise).unwrap();
        let v = set.view_of(0).unwrap();
        let left = if swaps(&TaskKey::pair("q1", "S1", "S2")) { "S2" } else { "S1" };
        assert_eq!(v.answers[0].system, left);
    }

    #[test]
    fn restrict_keeps_the_plan_order_and_refuses_unknown_tasks() {
        let records = vec![rec("q1", "S1", "x"), rec("q2", "S1", "y"), rec("q3", "S1", "z")];
        let mut set = TaskSet::build(records.clone(), View::Graded).unwrap();
        set.restrict(&[TaskKey::single("q3", "S1"), TaskKey::single("q1", "S1")]).unwrap();
        assert_eq!(set.keys().map(|k| k.id.as_str()).collect::<Vec<_>>(), ["q3", "q1"]);
        let mut set = TaskSet::build(records, View::Graded).unwrap();
        let e = set.restrict(&[TaskKey::single("q9", "S1")]).unwrap_err();
        assert!(e.to_string().contains("q9 / S1"), "{e}");
    }

    #[test]
    fn claims_are_the_sentences_of_the_answer() {
        let records = vec![rec("q1", "S1", "Paris is the capital. It lies on the Seine.")];
        let set = TaskSet::build(records, View::Claims).unwrap();
        assert_eq!(set.view_of(0).unwrap().claims, ["Paris is the capital.", "It lies on the Seine."]);
    }

    #[test]
    fn scales_hold_their_grades() {
        assert!(Scale::Likert5.contains(3.0) && !Scale::Likert5.contains(0.0));
        assert!(Scale::Crag.contains(-1.0) && Scale::Crag.contains(0.5) && !Scale::Crag.contains(2.0));
    }
}
