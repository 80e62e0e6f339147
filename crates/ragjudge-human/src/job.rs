//! The labelling jobs, one library call per command: the tasks of a session with what machines
//! say about them (`annotate serve`), a plan (`annotate plan`), an export (`annotate export`, in
//! [`crate::export`]) and a validation (`validate`).

use crate::candidates::{baselines, from_judge, from_scores};
use crate::error::HumanError;
use crate::plan::{plan, Plan, PlanSettings};
use crate::signals::Signals;
use crate::task::{Scale, TaskKey, TaskSet, View};
use crate::validate::{validate, HumanTruth, ValidateSettings, Validation};
use ragjudge_artifacts::{read_artifact, write_artifact, Provenance};
use ragjudge_dice::run::read_run;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// What a session's tasks are made from.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TaskInputs {
    /// Run files (records of one or more systems each).
    pub runs: Vec<PathBuf>,
    /// The view.
    pub view: Option<View>,
    /// The graded view's scale.
    pub scale: Scale,
    /// Judges' pairwise label files (`labels.jsonl`): verdicts to reveal, and uncertainty.
    pub judge_labels: Vec<PathBuf>,
    /// Score files: scorer disagreement.
    pub scores: Vec<PathBuf>,
    /// Review view: testgen's chunks (`chunks.jsonl`: `id`, `text`) to show each question's
    /// sources; absent: `STEM.testgen/chunks.jsonl` beside the questions file, if there.
    pub chunks: Option<PathBuf>,
}

impl TaskInputs {
    fn view(&self) -> View {
        self.view.unwrap_or(View::Pairwise)
    }
}

/// Every task of the runs, with the machines' verdicts and uncertainty.
pub fn load_tasks(inputs: &TaskInputs) -> Result<(TaskSet, Signals), HumanError> {
    if inputs.runs.is_empty() {
        return Err(HumanError::Settings("no run file given".into()));
    }
    let mut records = Vec::new();
    for path in &inputs.runs {
        match inputs.view() {
            View::Review => records.extend(read_questions(path)?),
            _ => records.extend(read_run(path)?),
        }
    }
    let mut tasks = TaskSet::build(records, inputs.view())?;
    if inputs.view() == View::Review {
        let beside = inputs.runs.first().map(|q| q.with_extension("testgen").join("chunks.jsonl"));
        if let Some(path) = inputs.chunks.clone().or(beside.filter(|p| p.exists())) {
            tasks.attach_sources(&read_chunks(&path)?);
        }
    }
    let mut signals = Signals::default();
    for path in &inputs.judge_labels {
        signals.add_judge(path)?;
    }
    signals.add_scores(&inputs.scores, &tasks)?;
    tasks.set_verdicts(signals.verdicts.clone());
    Ok((tasks, signals))
}

/// The questions of a `testgen` output (JSONL records without answers), the system named by the
/// file's stem; a malformed line is an error naming file, line and field.
pub fn read_questions(path: &Path) -> Result<Vec<ragjudge_core::Record>, HumanError> {
    use std::io::BufRead;
    let name = path.display().to_string();
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let file = ragjudge_core::bom::open(path)
        .map_err(|e| ragjudge_core::InputError::fatal(&name, None, format!("cannot open: {e}")))?;
    let mut out = Vec::new();
    for (i, line) in file.lines().enumerate() {
        let n = i as u64 + 1;
        let line =
            line.map_err(|e| ragjudge_core::InputError::fatal(&name, Some(n), format!("unreadable line: {e}")))?;
        if line.trim().is_empty() {
            continue;
        }
        let mut value: serde_json::Value = serde_json::from_str(&line)
            .map_err(|e| ragjudge_core::InputError::fatal(&name, Some(n), format!("invalid JSON: {e}")))?;
        if let Some(o) = value.as_object_mut() {
            o.entry("answer").or_insert_with(|| "".into());
        }
        let record = ragjudge_core::record_from_json(value, &format!("{name}:{n}"), format!("q{n}"), &stem)?;
        out.push(record);
    }
    if out.is_empty() {
        return Err(ragjudge_core::InputError::fatal(&name, None, "no records").into());
    }
    Ok(out)
}

/// Chunk texts by id from a `chunks.jsonl` (`id`, `text` per line).
fn read_chunks(path: &Path) -> Result<HashMap<String, String>, HumanError> {
    let t = ragjudge_core::read_table(path, &["id", "text"])?;
    Ok((0..t.rows.len())
        .map(|i| {
            let cells = t.key(i, 2);
            (cells[0].clone(), cells[1].clone())
        })
        .collect())
}

/// The tasks of a labelling session: every task of the runs, or those of `plan` in its order.
pub fn session_tasks(inputs: &TaskInputs, plan: Option<&Path>) -> Result<TaskSet, HumanError> {
    let (mut tasks, _) = load_tasks(inputs)?;
    if let Some(path) = plan {
        let plan = read_artifact::<Plan>(path)?.body;
        if plan.view != tasks.view() {
            return Err(HumanError::Settings(format!(
                "{}: a plan for the {} view, not {}",
                path.display(),
                plan.view.as_str(),
                tasks.view().as_str()
            )));
        }
        tasks.restrict(&plan.keys())?;
    }
    Ok(tasks)
}

/// The largest standard deviation one label can have on the view's scale: 0.5 for a win
/// indicator or a claim's support, half the grade range for grades.
pub fn label_sd(view: View, scale: Scale) -> f64 {
    match view {
        View::Pairwise | View::Claims | View::Review => 0.5,
        View::Graded => {
            let g = scale.grades();
            let (lo, hi) = (g.first().map_or(0.0, |x| x.0), g.last().map_or(0.0, |x| x.0));
            (hi - lo) / 2.0
        }
    }
}

/// Plans what to label and writes the plan to `output` (atomically).
pub fn plan_job(
    inputs: &TaskInputs,
    settings: &PlanSettings,
    output: &Path,
    mut provenance: Provenance,
) -> Result<Plan, HumanError> {
    let all_inputs: Vec<&PathBuf> = inputs.runs.iter().chain(&inputs.judge_labels).chain(&inputs.scores).collect();
    ragjudge_artifacts::check_not_input(output, &all_inputs)?;
    let (tasks, signals) = load_tasks(inputs)?;
    let plan = plan(&tasks, &signals, settings, label_sd(inputs.view(), inputs.scale))?;
    provenance.add_inputs(&inputs.runs)?;
    provenance.add_inputs(&inputs.judge_labels)?;
    provenance.add_inputs(&inputs.scores)?;
    ragjudge_artifacts::create_parent_dirs(output)?;
    write_artifact(output, &provenance, &plan)?;
    Ok(plan)
}

/// What `validate` reads.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ValidateInputs {
    /// Human labels: the `annotate` label file, a pairwise JSONL (`id`, `system_a`, `system_b`,
    /// `label`, optionally `preference` on -2..2), or a graded CSV / JSONL (`id`, `system`, and
    /// `label_col`).
    pub labels: PathBuf,
    /// The label column of a graded file.
    pub label_col: String,
    /// The plan the labels followed: only its uniform draws feed the PPI estimates.
    pub plan: Option<PathBuf>,
    /// The runs (every task, labelled or not; the baselines read their answers).
    pub runs: Vec<PathBuf>,
    /// Score files: every numeric column is a candidate.
    pub scores: Vec<PathBuf>,
    /// Judges' pairwise label files, by name.
    pub judges: Vec<(String, PathBuf)>,
}

/// Reads the human labels of `inputs` (see [`ValidateInputs::labels`]).
pub fn read_truth(inputs: &ValidateInputs) -> Result<HumanTruth, HumanError> {
    let path = &inputs.labels;
    let is_artifact = matches!(ragjudge_artifacts::peek_header(path), Ok(Some(h)) if h.kind == "human-labels");
    let truth = if is_artifact {
        HumanTruth::from_label_set(&crate::store::read_labels(path)?)?
    } else if ragjudge_core::table::has_column(path, "system_a")? {
        read_pairwise(path)?
    } else {
        read_graded(path, &inputs.label_col)?
    };
    match &inputs.plan {
        Some(p) => Ok(truth.with_plan(&read_artifact::<Plan>(p)?.body)),
        None => Ok(truth),
    }
}

fn read_pairwise(path: &Path) -> Result<HumanTruth, HumanError> {
    let t = ragjudge_core::read_table(path, &["id", "system_a", "system_b", "label", "preference"])?;
    let mut values = HashMap::new();
    for i in 0..t.rows.len() {
        let key = t.key(i, 3);
        let line = Some(t.rows[i].0);
        let value = match t.number(i, 4, "preference")? {
            Some(p) => p,
            None => match ragjudge_dice::labels::Label::parse(t.rows[i].1[3].as_deref().unwrap_or("")) {
                Some(ragjudge_dice::labels::Label::A) => -1.0,
                Some(ragjudge_dice::labels::Label::B) => 1.0,
                Some(ragjudge_dice::labels::Label::Tie) => 0.0,
                None => {
                    let e = ragjudge_core::InputError::new(&t.name, line, Some("label".into()), "expected A, B or tie");
                    return Err(e.into());
                }
            },
        };
        // The value is about (system_a, system_b); the task puts the systems in name order.
        let task = TaskKey::pair(&key[0], &key[1], &key[2]);
        let value = if task.system == key[1] { value } else { -value };
        if values.insert(task, value).is_some() {
            return Err(ragjudge_core::InputError::fatal(&t.name, line, "the same pair is labelled twice").into());
        }
    }
    Ok(HumanTruth { view: View::Pairwise, values, uniform: None, ceiling: None })
}

fn read_graded(path: &Path, label_col: &str) -> Result<HumanTruth, HumanError> {
    let t = ragjudge_core::read_table(path, &["id", "system", label_col])?;
    let mut values = HashMap::new();
    for i in 0..t.rows.len() {
        let key = t.key(i, 2);
        let Some(v) = t.number(i, 2, label_col)? else { continue };
        if values.insert(TaskKey::single(&key[0], &key[1]), v).is_some() {
            return Err(ragjudge_core::InputError::fatal(
                &t.name,
                Some(t.rows[i].0),
                "the same answer is labelled twice",
            )
            .into());
        }
    }
    Ok(HumanTruth { view: View::Graded, values, uniform: None, ceiling: None })
}

/// Reads the labels, the runs and every candidate, validates, and writes the `validation`
/// artifact to `output` when given.
pub fn validate_job(
    inputs: &ValidateInputs,
    settings: &ValidateSettings,
    output: Option<&Path>,
    mut provenance: Provenance,
) -> Result<Validation, HumanError> {
    if let Some(output) = output {
        let mut all_inputs: Vec<&PathBuf> = vec![&inputs.labels];
        all_inputs.extend(inputs.plan.iter().chain(&inputs.runs).chain(&inputs.scores));
        all_inputs.extend(inputs.judges.iter().map(|(_, p)| p));
        ragjudge_artifacts::check_not_input(output, &all_inputs)?;
    }
    let truth = read_truth(inputs)?;
    let task_inputs = TaskInputs { runs: inputs.runs.clone(), view: Some(truth.view), ..TaskInputs::default() };
    let (tasks, _) = load_tasks(&task_inputs)?;
    let mut candidates = Vec::new();
    let prefix = inputs.scores.len() > 1;
    for path in &inputs.scores {
        candidates.extend(from_scores(path, &tasks, prefix)?);
    }
    for (name, path) in &inputs.judges {
        candidates.push(from_judge(name, path, &tasks)?);
    }
    // A score column that is a baseline (`token_f1` of the lexical family) is that baseline.
    for b in baselines(&tasks) {
        match candidates.iter_mut().find(|c| c.name == b.name) {
            Some(c) => c.source = crate::candidates::Source::Baseline,
            None => candidates.push(b),
        }
    }
    let validation = validate(&truth, &candidates, &tasks, settings)?;
    if let Some(output) = output {
        provenance.add_inputs(&[&inputs.labels])?;
        provenance.add_inputs(&inputs.runs)?;
        provenance.add_inputs(&inputs.scores)?;
        provenance.settings = serde_json::to_value(settings).unwrap_or_default();
        ragjudge_artifacts::create_parent_dirs(output)?;
        write_artifact(output, &provenance, &validation)?;
    }
    Ok(validation)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairwise_labels_are_turned_to_the_task_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("labels.jsonl");
        // "wrong" sorts after "oracle": the first line's task is (oracle, wrong); its label B
        // says oracle is better, which for that task is A: -1. The second line is as written.
        std::fs::write(
            &path,
            concat!(
                r#"{"id":"q1","system_a":"wrong","system_b":"oracle","label":"B"}"#,
                "\n",
                r#"{"id":"q2","system_a":"oracle","system_b":"wrong","label":"B","preference":2}"#,
                "\n"
            ),
        )
        .unwrap();
        let inputs = ValidateInputs { labels: path, label_col: "label".into(), ..Default::default() };
        let t = read_truth(&inputs).unwrap();
        assert_eq!(t.view, View::Pairwise);
        assert_eq!(t.values[&TaskKey::pair("q1", "oracle", "wrong")], -1.0);
        assert_eq!(t.values[&TaskKey::pair("q2", "oracle", "wrong")], 2.0);
    }

    #[test]
    fn an_output_that_is_an_input_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let labels = dir.path().join("labels.jsonl");
        std::fs::write(&labels, "{}").unwrap();
        let inputs = ValidateInputs { labels: labels.clone(), ..Default::default() };
        let e = validate_job(&inputs, &ValidateSettings::default(), Some(&labels), Provenance::default()).unwrap_err();
        assert!(matches!(e, HumanError::Artifact(_)), "{e}");
        assert_eq!(std::fs::read_to_string(&labels).unwrap(), "{}");
    }

    #[test]
    fn graded_labels_read_their_column() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ratings.csv");
        std::fs::write(&path, "id,system,usefulness\nq1,S1,4\nq2,S1,\nq3,S2,2\n").unwrap();
        let inputs = ValidateInputs { labels: path, label_col: "usefulness".into(), ..Default::default() };
        let t = read_truth(&inputs).unwrap();
        assert_eq!(t.view, View::Graded);
        assert_eq!(t.values.len(), 2);
        assert_eq!(t.values[&TaskKey::single("q3", "S2")], 2.0);
    }
}
