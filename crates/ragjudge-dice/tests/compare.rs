//! The compare job: its artifact, its per-question rows, and streams that appear with the report
//! or not at all. A scripted judge that follows the content; no model is loaded.

use ragjudge_artifacts::read_artifact;
use ragjudge_core::Record;
use ragjudge_dice::compare::{compare, CompareOutcome, CompareReport};
use ragjudge_dice::run::{DiceRun, DiceRunOptions};
use ragjudge_models::{GenParams, Generation, Judge, LabelProbs, ModelError, ProbSource, Prompt, Usage};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

const GOOD: &str = "Paris is the capital of France.";
const BAD: &str = "Lyon is the capital of France.";

/// Prefers the answer with GOOD: "A" (0.7) when it is shown first, else "B" (0.7).
struct FollowsContent;

impl Judge for FollowsContent {
    fn identity(&self) -> String {
        "scripted:follows-content".into()
    }

    fn generate(&self, _prompt: &Prompt, _params: &GenParams) -> Result<Generation, ModelError> {
        Ok(Generation { text: "no analysis".into(), finish_reason: "stop".into(), ..Default::default() })
    }

    fn label_probs(&self, prompt: &Prompt, labels: &[String]) -> Result<LabelProbs, ModelError> {
        let user = &prompt.messages.iter().find(|m| m.role == "user").map(|m| m.content.clone()).unwrap_or_default();
        let probs = match (user.find(GOOD), user.find(BAD)) {
            (Some(g), Some(b)) if g < b => vec![0.7, 0.2, 0.1],
            _ => vec![0.2, 0.7, 0.1],
        };
        let logits = probs.iter().map(|p: &f64| p.ln()).collect();
        Ok(LabelProbs { labels: labels.to_vec(), probs, logits, label_mass: Some(1.0), source: ProbSource::Logits })
    }

    fn usage(&self) -> Usage {
        Usage::default()
    }
}

fn records(system: &str, answer: &str) -> Vec<Record> {
    ["q1", "q2"]
        .iter()
        .map(|id| Record {
            id: id.to_string(),
            system: system.into(),
            query: "What is the capital of France?".into(),
            answer: answer.into(),
            reference: Some("Paris.".into()),
            ..Default::default()
        })
        .collect()
}

fn start(dir: &Path) -> DiceRun {
    let opts = DiceRunOptions { reasoning: false, output: Some(dir.to_path_buf()), ..DiceRunOptions::default() };
    DiceRun::new(Arc::new(FollowsContent), &opts).unwrap()
}

fn partial_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect()
}

#[test]
fn compare_writes_a_typed_report_with_its_questions_and_streams() {
    let dir = tempfile::tempdir().unwrap();
    let mut run = start(dir.path());
    let outcome = compare(&mut run, &records("good", GOOD), &records("bad", BAD), None).unwrap();
    let CompareOutcome::Played(doc, questions) = outcome else { panic!("not a dry run") };
    // By hand (DICE §3.3): both orders name `good` the winner with a margin 0.7 - 0.2 = 0.5 above
    // tau = 0.1, so each question is a hard win, s_A = 1, S_A = 1 over 2 questions.
    assert_eq!(doc.kind, "compare");
    assert_eq!((doc.body.questions, doc.body.wins_a, doc.body.ties, doc.body.wins_b), (2, 2, 0, 0));
    assert_eq!(doc.body.s_a, 1.0);
    assert_eq!(questions.iter().map(|q| q.s_a).collect::<Vec<_>>(), [1.0, 1.0]);
    let read = read_artifact::<CompareReport>(&dir.path().join("compare.json")).unwrap();
    assert_eq!(read.body, doc.body);
    assert_eq!(read.provenance.models["judge"], "scripted:follows-content");
    let csv = std::fs::read_to_string(dir.path().join("questions.csv")).unwrap();
    assert_eq!(csv.lines().next(), Some("id,s_a,s_b,order_consistent,category_a,category_b"));
    assert_eq!(csv.lines().count(), 3);
    // Two questions, two orders each: four traces; one label line per question.
    let traces = std::fs::read_to_string(dir.path().join("traces.jsonl")).unwrap();
    assert_eq!(traces.lines().count(), 4);
    let labels = std::fs::read_to_string(dir.path().join("labels.jsonl")).unwrap();
    assert_eq!(labels.lines().count(), 2);
    assert!(partial_files(dir.path()).is_empty(), "{:?}", partial_files(dir.path()));
}

#[test]
fn dice_run_streams_of_an_unfinished_run_leave_the_previous_ones_intact() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["traces.jsonl", "labels.jsonl", "compare.json"] {
        std::fs::write(dir.path().join(name), "previous run\n").unwrap();
    }
    {
        let mut run = start(dir.path());
        let b = records("bad", BAD);
        let by_id: HashMap<String, &Record> = b.iter().map(|r| (r.id.clone(), r)).collect();
        let played = run.play(&records("good", GOOD), &by_id).unwrap();
        assert_eq!(played.rows.len(), 2);
        // Dropped here without a report: as an error or an interrupt would leave it.
    }
    for name in ["traces.jsonl", "labels.jsonl", "compare.json"] {
        assert_eq!(std::fs::read_to_string(dir.path().join(name)).unwrap(), "previous run\n", "{name}");
    }
    assert!(partial_files(dir.path()).is_empty(), "{:?}", partial_files(dir.path()));
}
