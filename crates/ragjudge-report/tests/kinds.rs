//! `report` and `gate` dispatch each JSON input on its artifact `kind`; files written before
//! artifacts had one are recognised by their type's `is_legacy`; an unknown kind or a newer
//! schema is one line naming the file.

use ragjudge_artifacts::Provenance;
use ragjudge_report::inputs::{read_inputs, DiceKind, Input};
use ragjudge_report::summary::Resummarize;
use ragjudge_report::{read_summary, Summary};
use ragjudge_stats::calibration::{Calibration, CalibrationParams, LabelledScores, Method};
use serde_json::json;
use std::path::{Path, PathBuf};

/// Isotonic calibration of 20 rows: scores 0.25 labelled 0 (ids 0-9), 0.75 labelled 1 (ids 10-19).
fn calibration() -> Calibration {
    let x = (0..20).map(|i| vec![if i < 10 { 0.25 } else { 0.75 }]).collect();
    let y = (0..20).map(|i| if i < 10 { 0.0 } else { 1.0 }).collect();
    let data = LabelledScores { score_columns: vec!["s".into()], label_column: "rating".into(), x, y };
    let params = CalibrationParams { method: Method::Isotonic, alpha: 0.2, ..Default::default() };
    let provenance = Provenance::with_command(vec!["ragjudge".into(), "calibrate".into()]);
    params.check().unwrap().calibrate(&data, vec!["id".into()], 20, provenance).unwrap()
}

/// A leaderboard of two systems as a tournament wrote it before artifacts had a kind.
fn legacy_leaderboard(dir: &Path) -> PathBuf {
    let t = dir.join("t");
    std::fs::create_dir_all(&t).unwrap();
    let standing = |i: usize| {
        json!({"system": format!("s{i}"), "rank": i + 1, "elo": 1000.0, "bt": 1.0 - i as f64, "bt_ci_low": 0.0,
               "bt_ci_high": 2.0, "wins": 1 - i, "ties": 0, "losses": i, "matches": 1})
    };
    let matches = json!([{"round": 0, "a": "s0", "b": "s1", "s_a": 1.0, "elo_a": 1016.0, "elo_b": 984.0}]);
    let board = json!({"systems": [standing(0), standing(1)], "rank_by": "bt", "matches": matches});
    let path = t.join("leaderboard.json");
    std::fs::write(&path, board.to_string()).unwrap();
    path
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn each_json_input_is_read_by_its_kind_and_the_rest_refused_in_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let c = calibration();
    let report = dir.join("calibration.json");
    c.write(None, Some(&report)).unwrap();
    let legacy = write(dir, "old-calibration.json", &serde_json::to_string(&c.report.body).unwrap());
    let board = legacy_leaderboard(dir);
    let unknown = write(dir, "x.json", r#"{"kind": "hologram", "schema_version": 1}"#);
    let newer = write(dir, "new.json", r#"{"kind": "calibration-report", "schema_version": 2, "sets": []}"#);

    let inputs = read_inputs(&[report.clone(), legacy.clone(), board.clone(), unknown.clone(), newer.clone()]);
    let loaded: Vec<(&Path, &str)> = inputs.loaded.iter().map(|l| (l.path.as_path(), l.input.kind())).collect();
    assert_eq!(
        loaded,
        [(report.as_path(), "calibration"), (legacy.as_path(), "calibration"), (board.as_path(), "tournament")]
    );
    let Input::Calibration(typed) = &inputs.loaded[0].input else { unreachable!() };
    let Input::Calibration(old) = &inputs.loaded[1].input else { unreachable!() };
    assert_eq!(typed.body, c.report.body);
    assert_eq!(typed.provenance.command, ["ragjudge", "calibrate"]);
    assert_eq!(old.body, c.report.body);
    // By hand: 20 rows, round(20 * 0.25) = 5 calibration and 5 test rows, 10 fitting rows.
    assert_eq!((typed.body.joined, typed.body.fit, typed.body.calibration, typed.body.test), (20, 10, 5, 5));
    let Input::Dice(d) = &inputs.loaded[2].input else { unreachable!() };
    assert_eq!((d.kind, d.standings.len(), d.matches.len()), (DiceKind::Tournament, 2, 1));

    let lines: Vec<String> = inputs.skipped.iter().map(|s| format!("{}: {}", s.path.display(), s.reason)).collect();
    assert_eq!(
        lines,
        [
            format!(
                "{}: a `hologram` file, of no kind `ragjudge report` reads (leaderboard, compare, baseline, \
                 judge-eval, weakness, robustness, calibration-report, calibrator, fusion-model, probe-report, \
                 testgen-topics, testgen-summary, shard-manifest, column-definitions, validation, \
                 annotator-agreement, human-labels, annotation-plan; score summaries)",
                unknown.display()
            ),
            format!(
                "{}: `calibration-report` schema version 2 was written by a newer ragjudge (this one reads up to \
                 version 1); upgrade ragjudge",
                newer.display()
            ),
        ]
    );
}

#[test]
fn the_gate_reads_leaderboards_and_the_figures_of_other_kinds_and_refuses_unknown_ones_in_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let how = Resummarize::default();
    let board = legacy_leaderboard(dir);
    let Summary::Tournament(standings) = read_summary(&board, &how).unwrap() else { panic!("not a tournament") };
    assert_eq!(standings.iter().map(|s| s.system.as_str()).collect::<Vec<_>>(), ["s0", "s1"]);

    // A calibration report: one subject, the label, with the quality measured on the test split.
    let report = dir.join("calibration.json");
    calibration().write(None, Some(&report)).unwrap();
    let Summary::Scores(s) = read_summary(&report, &how).unwrap() else { panic!("not figures") };
    let figures: Vec<(&str, Option<f64>)> = s.systems[0].metrics.iter().map(|m| (m.metric.as_str(), m.mean)).collect();
    assert_eq!(s.systems[0].system, "rating");
    // Separated scores: isotonic gives probabilities 0 and 1, so Brier and ECE are 0 and the LAC
    // sets cover every test row with one label each.
    assert_eq!(
        figures,
        [("brier", Some(0.0)), ("ece", Some(0.0)), ("coverage_lac", Some(1.0)), ("mean_set_size_lac", Some(1.0))]
    );

    let reads = "leaderboard, compare, baseline, judge-eval, weakness, robustness, calibration-report, calibrator, \
                 fusion-model, probe-report, testgen-topics, testgen-summary, shard-manifest, column-definitions, \
                 validation, annotator-agreement, human-labels, annotation-plan; score summaries, per-record scores";
    let unknown = write(dir, "x.json", r#"{"kind": "hologram", "schema_version": 1}"#);
    let e = read_summary(&unknown, &how).unwrap_err().to_string();
    assert_eq!(e, format!("{}: a `hologram` file, of no kind the gate reads ({reads})", unknown.display()));
    let newer = write(dir, "lb.json", r#"{"kind": "leaderboard", "schema_version": 2, "systems": []}"#);
    let e = read_summary(&newer, &how).unwrap_err().to_string();
    assert_eq!(
        e,
        format!(
            "{}: `leaderboard` schema version 2 was written by a newer ragjudge (this one reads up to version 1); \
             upgrade ragjudge",
            newer.display()
        )
    );
}

/// Kinds whose producers need a corpus and embedder (testgen) or probe variants: written as the
/// producers write them, read by the report (one table each) and the gate (their figures).
#[test]
fn testgen_and_probe_reports_are_read_as_figures_by_report_and_gate() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let topics = write(
        dir,
        "topics.json",
        r#"{"kind": "testgen-topics", "schema_version": 1, "documents": 3, "skipped": [], "chunks": 12,
            "cut_sentences": 0, "dims": 8, "variance_kept": 0.9, "silhouette": 0.25, "k_scores": [[2, 0.25]],
            "topics": [{"id": "t0", "label": "rain", "terms": [["rain", 1.5]], "chunks": 7, "sampled": 2},
                       {"id": "t1", "label": "sun", "terms": [["sun", 1.0]], "chunks": 5, "sampled": 2}],
            "calls": {"tasks": 4, "generation_calls": 4, "generation_calls_max": 12, "selection_calls_max": 0,
                      "generation_prompt_tokens": 900, "per_type": {"factoid": 4}}}"#,
    );
    let summary = write(
        dir,
        "summary.json",
        r#"{"kind": "testgen-summary", "schema_version": 1, "questions": 3, "tasks": 4, "attempts": 6,
            "rejected": 1, "rejected_by_reason": {"too long": 1}, "per_type": {"factoid": 3},
            "per_topic": {"t0": 2, "t1": 1}, "topics_without_questions": []}"#,
    );
    let probes = write(
        dir,
        "probes.json",
        r#"{"kind": "probe-report", "schema_version": 1, "columns": ["m"], "term_versions": ["1"], "threshold": 0.1,
            "groups": [{"system": "s", "group": "gender", "variant": "*", "pairs": 4,
                        "metrics": [{"column": "m", "n": 4, "mean_diff": -0.25, "mean_abs_diff": 0.25}],
                        "answer_token_f1": 0.5, "answer_rouge_l": 0.5, "identical_answers": 0.25, "flagged": true}],
            "pairs": [], "unmatched": []}"#,
    );
    let inputs = read_inputs(&[topics.clone(), summary.clone(), probes.clone()]);
    assert!(inputs.skipped.is_empty(), "{:?}", inputs.skipped);
    let kinds: Vec<&str> = inputs.loaded.iter().map(|l| l.input.kind()).collect();
    assert_eq!(kinds, ["test-set topics", "test-set generation", "bias probes"]);
    let html = ragjudge_report::html::render(&inputs, &Default::default());
    assert_eq!(html.sections, ["Summary", "Test set", "Other outputs", "Provenance"]);
    // The summary points to them rather than saying nothing was recognised.
    assert!(html.html.contains("see <a href=\"#test-set\">Test set</a>"), "summary of the test set");
    assert!(html.html.contains("2 other output(s) read as key figures"), "summary of figures only");

    let how = Resummarize::default();
    let figure = |path: &Path, subject: &str, name: &str| {
        let Summary::Scores(s) = read_summary(path, &how).unwrap() else { panic!("not figures") };
        let row = s.systems.iter().find(|r| r.system == subject).unwrap_or_else(|| panic!("no {subject}"));
        row.metrics.iter().find(|m| m.metric == name).unwrap_or_else(|| panic!("no {name}")).mean
    };
    assert_eq!(figure(&topics, "collection", "topics"), Some(2.0));
    assert_eq!(figure(&topics, "collection", "silhouette"), Some(0.25));
    // 3 of 4 tasks kept a question.
    assert_eq!(figure(&summary, "testgen", "kept_share"), Some(0.75));
    assert_eq!(figure(&summary, "testgen", "questions.factoid"), Some(3.0));
    assert_eq!(figure(&probes, "s/gender/*", "m.mean_diff"), Some(-0.25));
    assert_eq!(figure(&probes, "s/gender/*", "flagged"), Some(1.0));
}

/// A test-set summary with its quality report gets a section of its own: each check with its
/// counts and examples, the answer letters with their test, and coverage per topic.
#[test]
fn a_test_set_summary_gets_a_section_with_its_quality_report() {
    let tmp = tempfile::tempdir().unwrap();
    let summary = write(
        tmp.path(),
        "summary.json",
        r#"{"kind": "testgen-summary", "schema_version": 3, "questions": 5, "tasks": 7, "attempts": 11,
            "rejected": 2, "rejected_by_reason": {"no valid reply in 3 attempt(s)": 2},
            "per_type": {"factual": 3, "multiple_choice": 2}, "per_topic": {"t0": 5},
            "topics_without_questions": ["t1"],
            "quality": {
              "checks": {"format": {"passed": 6, "regenerated": 0, "dropped": 1},
                         "round_trip": {"passed": 3, "regenerated": 2, "dropped": 1},
                         "near_duplicate": {"passed": 5, "regenerated": 0, "dropped": 0},
                         "follow_up": {"passed": 4, "regenerated": 1, "dropped": 2}},
              "examples": {"round_trip": ["When did <printing> spread? -- the question does not find its source"],
                           "multi_hop_type": ["Which module? -- multi_hop -> factual: d2:0 holds the answer alone"]},
              "answer_letters": {"A": 2, "B": 0, "C": 0, "D": 0}, "answer_letters_p": null,
              "near_duplicate_rate": 0.0, "retyped": 1,
              "topics": [{"id": "t0", "label": "print/press/type", "chunks": 9, "sampled": 5, "questions": 5},
                         {"id": "t1", "label": "reef/coral/fish", "chunks": 3, "sampled": 2, "questions": 0}]}}"#,
    );
    let inputs = read_inputs(&[summary]);
    assert!(inputs.skipped.is_empty(), "{:?}", inputs.skipped);
    let html = ragjudge_report::html::render(&inputs, &Default::default());
    assert_eq!(html.sections, ["Summary", "Test set", "Provenance"], "not also among other outputs");
    let h = &html.html;
    assert!(h.contains("<b>5</b> questions kept from 7 generation tasks (11 replies); 2 tasks without a question"));
    // The round trip's row: passed, regenerated, dropped.
    assert!(h.contains("<td><code>round_trip</code></td>"), "no round-trip row");
    assert!(h.contains("<td class=\"n\">3</td><td class=\"n\">2</td><td class=\"n\">1</td>"), "counts");
    // Follow-ups get their row too.
    assert!(h.contains("<td><code>follow_up</code></td>"), "no follow-up row");
    assert!(h.contains("<td class=\"n\">4</td><td class=\"n\">1</td><td class=\"n\">2</td>"), "follow-up counts");
    // Examples are escaped.
    assert!(h.contains("When did &lt;printing&gt; spread? -- the question does not find its source"));
    assert!(h.contains("Multi-hop questions kept as factual (one source holds the whole answer): 1."));
    assert!(h.contains("Multiple-choice answer letters: A 2, B 0, C 0, D 0 (too few to test)"));
    // A topic without a question stands out.
    assert!(
        h.contains("<td>reef/coral/fish</td><td class=\"n\">3</td><td class=\"n\">2</td><td class=\"n\"><b>0</b></td>")
    );
}
