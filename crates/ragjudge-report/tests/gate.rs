//! The gate on hand-made summaries: every expected outcome follows from the numbers written here.

use quick_xml::events::Event;
use quick_xml::Reader;
use ragjudge_dice::tournament::Standing;
use ragjudge_eval::{ColumnReport, SummaryReport, SystemReport};
use ragjudge_report::junit::to_junit_xml;
use ragjudge_report::{Check, Gate, GateError, Statistic, Summary};

fn column(metric: &str, mean: f64, low: f64, high: f64) -> ColumnReport {
    ColumnReport {
        metric: metric.into(),
        n: 20,
        mean: Some(mean),
        std: Some(0.1),
        ci_low: Some(low),
        ci_high: Some(high),
    }
}

fn system(name: &str, metrics: Vec<ColumnReport>) -> SystemReport {
    SystemReport { system: name.into(), records: 20, failed: 0, metrics }
}

fn summary(systems: Vec<SystemReport>) -> Summary {
    Summary::Scores(SummaryReport {
        records: 40,
        skipped: 0,
        failed: 0,
        level: 0.95,
        bootstrap: 1000,
        shard: None,
        systems,
    })
}

/// `good` is high and sure; `shaky` has about the same mean but a wide interval.
fn current() -> Summary {
    summary(vec![
        system("good", vec![column("rougeL_f", 0.82, 0.78, 0.86), column("pii", 0.05, 0.0, 0.1)]),
        system("shaky", vec![column("rougeL_f", 0.81, 0.62, 0.95), column("pii", 0.1, 0.0, 0.3)]),
    ])
}

fn gate(checks: Vec<Check>, statistic: Statistic) -> Gate {
    Gate { checks, statistic, systems: Vec::new() }
}

fn passed(g: &Gate, current: &Summary, previous: Option<&Summary>) -> Vec<(String, bool)> {
    g.evaluate(current, previous).unwrap().outcomes.into_iter().map(|o| (o.system, o.passed)).collect()
}

#[test]
fn a_minimum_is_checked_on_the_lower_bound_unless_the_mean_is_asked_for() {
    let min = vec![Check::Min { column: "rougeL_f".into(), threshold: 0.75 }];
    // Lower bounds 0.78 >= 0.75 (good) and 0.62 < 0.75 (shaky); means 0.82 and 0.81 both >= 0.75.
    assert_eq!(
        passed(&gate(min.clone(), Statistic::Bound), &current(), None),
        [("good".into(), true), ("shaky".into(), false)]
    );
    assert_eq!(passed(&gate(min, Statistic::Mean), &current(), None), [("good".into(), true), ("shaky".into(), true)]);
    let report = gate(vec![Check::Min { column: "rougeL_f".into(), threshold: 0.75 }], Statistic::Bound)
        .evaluate(&current(), None)
        .unwrap();
    assert!(!report.passed());
    let reason = &report.failures().next().unwrap().reason;
    assert_eq!(reason, "shaky: rougeL_f lower 95% bound 0.6200 < 0.75 (mean 0.8100, n = 20)");
}

#[test]
fn a_maximum_is_checked_on_the_upper_bound() {
    let max = vec![Check::Max { column: "pii".into(), threshold: 0.2 }];
    // Upper bounds 0.1 <= 0.2 (good) and 0.3 > 0.2 (shaky); means 0.05 and 0.1 both <= 0.2.
    assert_eq!(
        passed(&gate(max.clone(), Statistic::Bound), &current(), None),
        [("good".into(), true), ("shaky".into(), false)]
    );
    assert_eq!(passed(&gate(max, Statistic::Mean), &current(), None), [("good".into(), true), ("shaky".into(), true)]);
}

#[test]
fn a_drop_is_measured_against_the_previous_run() {
    let previous = summary(vec![system("good", vec![column("rougeL_f", 0.90, 0.85, 0.95)])]);
    // good: 0.90 -> 0.82, a drop of 0.08; shaky has no previous value and passes.
    let strict = gate(vec![Check::MaxDrop { column: "rougeL_f".into(), delta: 0.05 }], Statistic::Bound);
    assert_eq!(passed(&strict, &current(), Some(&previous)), [("good".into(), false), ("shaky".into(), true)]);
    let loose = gate(vec![Check::MaxDrop { column: "rougeL_f".into(), delta: 0.1 }], Statistic::Bound);
    assert_eq!(passed(&loose, &current(), Some(&previous)), [("good".into(), true), ("shaky".into(), true)]);
    let e = strict.evaluate(&current(), None).unwrap_err();
    assert!(matches!(e, GateError::Unsupported(_)), "{e}");
}

fn standing(system: &str, rank: usize, bt: f64, low: f64, high: f64) -> Standing {
    Standing {
        system: system.into(),
        rank,
        elo: 1000.0,
        bt,
        bt_ci_low: low,
        bt_ci_high: high,
        wins: 0,
        ties: 0,
        losses: 0,
        matches: 0,
    }
}

#[test]
fn a_win_over_the_baseline_needs_the_lower_bound_above_its_strength() {
    let board = Summary::Tournament(vec![
        standing("target", 1, 0.5, 0.2, 0.8),
        standing("weak", 2, 0.3, -0.1, 0.6),
        standing("baseline", 3, 0.1, -0.2, 0.4),
    ]);
    let beats = vec![Check::Beats { baseline: "baseline".into() }];
    // Lower bounds 0.2 > 0.1 (target) and -0.1 <= 0.1 (weak); strengths 0.5 and 0.3 both > 0.1.
    assert_eq!(
        passed(&gate(beats.clone(), Statistic::Bound), &board, None),
        [("target".into(), true), ("weak".into(), false)]
    );
    assert_eq!(passed(&gate(beats, Statistic::Mean), &board, None), [("target".into(), true), ("weak".into(), true)]);
}

#[test]
fn naming_what_the_summary_lacks_is_an_error_not_a_failed_check() {
    let g = gate(vec![Check::Min { column: "nope".into(), threshold: 0.5 }], Statistic::Bound);
    let e = g.evaluate(&current(), None).unwrap_err();
    assert_eq!(e.to_string(), "no column `nope` in the summary (columns: rougeL_f, pii)");
    let g = Gate {
        systems: vec!["other".into()],
        ..gate(vec![Check::Min { column: "pii".into(), threshold: 0.0 }], Statistic::Bound)
    };
    assert!(matches!(g.evaluate(&current(), None).unwrap_err(), GateError::UnknownSystem { .. }));
    assert_eq!(Check::parse_pair("--min", "rougeL_f=0.3").unwrap(), ("rougeL_f".into(), 0.3));
    assert!(Check::parse_pair("--min", "rougeL_f").is_err());
    assert!(Check::parse_pair("--min", "rougeL_f=high").is_err());
}

/// Attributes of an element as (name, value) pairs.
fn attributes(e: &quick_xml::events::BytesStart<'_>) -> Vec<(String, String)> {
    e.attributes()
        .map(|a| {
            let a = a.unwrap();
            (a.key.as_ref().to_string(), a.normalized_value(quick_xml::XmlVersion::Explicit1_0).unwrap().into_owned())
        })
        .collect()
}

#[test]
fn junit_xml_has_the_elements_and_attributes_the_schema_requires() {
    let report = gate(vec![Check::Min { column: "rougeL_f".into(), threshold: 0.75 }], Statistic::Bound)
        .evaluate(&current(), None)
        .unwrap();
    let xml = to_junit_xml(&report);
    let mut reader = Reader::from_str(&xml);
    let (mut suites, mut suite, mut cases, mut failures) = (None, None, 0, Vec::new());
    loop {
        match reader.read_event().unwrap() {
            Event::Start(e) | Event::Empty(e) => {
                let attrs = attributes(&e);
                let get = |k: &str| attrs.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
                match e.name().as_ref() {
                    "testsuites" => suites = Some((get("tests"), get("failures"))),
                    "testsuite" => suite = Some((get("name"), get("tests"), get("failures"), get("errors"))),
                    "testcase" => {
                        assert!(get("name").is_some() && get("classname").is_some(), "{xml}");
                        cases += 1;
                    }
                    "failure" => failures.push((get("message"), get("type"))),
                    _ => {}
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    // Two systems checked, one failed (shaky).
    assert_eq!(suites, Some((Some("2".into()), Some("1".into()))));
    assert_eq!(suite, Some((Some("ragjudge gate".into()), Some("2".into()), Some("1".into()), Some("0".into()))));
    assert_eq!(cases, 2);
    assert_eq!(
        failures,
        [(
            Some("shaky: rougeL_f lower 95% bound 0.6200 < 0.75 (mean 0.8100, n = 20)".into()),
            Some("GateCheckFailed".into())
        )]
    );
}
