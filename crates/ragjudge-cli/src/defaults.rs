//! Settings are declared once, in the libraries: every option of a command left at its default
//! gives the library's default settings. A flag whose default drifts from the library's fails
//! here, naming the settings that differ.

use crate::cli::{Cli, Command};
use clap::Parser;
use ragjudge_analysis::perturb::job::PerturbSettings;
use ragjudge_analysis::robustness::RobustnessSettings;
use ragjudge_analysis::WeaknessSettings;
use ragjudge_dice::meta::job::JudgeEvalSettings;
use ragjudge_dice::run::DiceRunOptions;
use ragjudge_eval::families::MetricSettings;
use ragjudge_eval::models::ModelSettings;
use ragjudge_eval::EvalSettings;
use ragjudge_fusion::job::FitSettings;
use ragjudge_stats::calibration::CalibrationParams;
use ragjudge_testgen::TestgenSettings;

fn parse(args: &[&str]) -> Command {
    Cli::try_parse_from(std::iter::once("ragjudge").chain(args.iter().copied())).unwrap().command
}

#[test]
fn score_options_left_alone_are_the_library_defaults() {
    let Command::Score(a) = parse(&["score", "--input", "x.jsonl"]) else { panic!("not score") };
    assert_eq!(a.metric_settings().unwrap(), MetricSettings::default());
    assert_eq!(a.models.settings(None, a.metric_settings().unwrap().lexical.lang), ModelSettings::default());
    let (got, want) = (a.eval_settings().unwrap(), EvalSettings::default());
    assert_eq!(
        (got.skip_invalid, got.bootstrap, got.seed, got.level, got.threads, got.shard),
        (want.skip_invalid, want.bootstrap, want.seed, want.level, want.threads, want.shard)
    );
    assert_eq!(got.read, want.read);
}

#[test]
fn dice_options_left_alone_are_the_library_defaults() {
    for args in [
        &["compare", "a.jsonl", "b.jsonl", "--output", "out"][..],
        &["tournament", "a.jsonl", "--output", "out"],
        &["baseline", "t.jsonl", "--high", "h", "--medium", "m", "--low", "l", "--output", "out"],
    ] {
        let dice = match parse(args) {
            Command::Compare(a) => a.dice,
            Command::Tournament(a) => a.dice,
            Command::Baseline(a) => a.dice,
            _ => panic!("not a DICE command"),
        };
        let want = DiceRunOptions { output: Some("out".into()), ..DiceRunOptions::default() };
        assert_eq!(dice.options().unwrap(), want, "{}", args[0]);
    }
}

#[test]
fn analysis_options_left_alone_are_the_library_defaults() {
    let Command::Weakness(a) = parse(&["weakness", "--scores", "s.csv", "--by", "topic"]) else {
        panic!("not weakness")
    };
    let want = WeaknessSettings { dimensions: vec!["topic".into()], ..WeaknessSettings::default() };
    assert_eq!(a.job().settings, want);
    let Command::Robustness(a) = parse(&["robustness", "--original", "o.csv", "--variants", "v.csv"]) else {
        panic!("not robustness")
    };
    assert_eq!(a.job().unwrap().settings, RobustnessSettings::default());
    let Command::Perturb(a) = parse(&["perturb", "--input", "r.jsonl", "--output", "v.jsonl"]) else {
        panic!("not perturb")
    };
    assert_eq!(a.settings(), PerturbSettings::default());
}

#[test]
fn judge_eval_options_left_alone_are_the_library_defaults() {
    let Command::JudgeEval(a) = parse(&["judge-eval", "--set", "s.json", "--output", "out"]) else {
        panic!("not judge-eval")
    };
    assert_eq!(a.settings().unwrap(), JudgeEvalSettings::default());
}

#[test]
fn testgen_options_left_alone_are_the_library_defaults() {
    let Command::Testgen(a) = parse(&["testgen", "--corpus", "docs.jsonl", "--output", "q.jsonl"]) else {
        panic!("not testgen")
    };
    // Compared as the JSON the summary records them in (the option types have no PartialEq).
    let json = |s: &TestgenSettings| serde_json::to_value(s).unwrap();
    assert_eq!(json(&crate::commands::testgen::settings(&a).unwrap()), json(&TestgenSettings::default()));
}

#[test]
fn fuse_fit_options_left_alone_are_the_library_defaults() {
    let args = ["fuse", "fit", "--scores", "s.csv", "--labels", "l.csv", "--label-col", "y", "--save", "m.json"];
    let Command::Fuse(a) = parse(&args) else { panic!("not fuse") };
    let crate::commands::fuse::FuseCommand::Fit(fit) = a.command else { panic!("not fuse fit") };
    assert_eq!(fit.settings(), FitSettings::default());
}

#[test]
fn calibrate_options_left_alone_are_the_library_defaults() {
    let Command::Calibrate(a) = parse(&["calibrate", "--scores", "s.csv", "--labels", "l.csv"]) else {
        panic!("not calibrate")
    };
    assert_eq!(a.params(), CalibrationParams::default());
}
