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
                 weakness, robustness, calibration-report, fusion-model; score summaries)",
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
fn the_gate_reads_leaderboards_and_refuses_other_kinds_in_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let how = Resummarize::default();
    let board = legacy_leaderboard(dir);
    let Summary::Tournament(standings) = read_summary(&board, &how).unwrap() else { panic!("not a tournament") };
    assert_eq!(standings.iter().map(|s| s.system.as_str()).collect::<Vec<_>>(), ["s0", "s1"]);

    let report = dir.join("calibration.json");
    calibration().write(None, Some(&report)).unwrap();
    let e = read_summary(&report, &how).unwrap_err().to_string();
    let reads = "the gate reads score summaries (`score --json`), per-record scores and leaderboards";
    assert_eq!(e, format!("{}: a `calibration-report` file; {reads}", report.display()));
    let unknown = write(dir, "x.json", r#"{"kind": "hologram", "schema_version": 1}"#);
    let e = read_summary(&unknown, &how).unwrap_err().to_string();
    assert_eq!(e, format!("{}: a `hologram` file; {reads}", unknown.display()));
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
