//! The engine without the binary: a fake metric, the in-memory sink and a recording stage.
//! Expected values are worked out by hand in the comments.

use ragjudge_core::{Metric, MetricError, MetricOutput, Record};
use ragjudge_eval::{
    EvalError, EvalSettings, Evaluator, MemorySink, NoProgress, Progress, Row, RowSink, Stage, StageReport,
};
use std::cell::RefCell;
use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// Fails on record `bad`, returns NaN on `nan`, three values on `wide`, else the record's
/// `meta.x` (default 1.0).
struct Flaky;

impl Metric for Flaky {
    fn name(&self) -> &str {
        "flaky"
    }
    fn columns(&self) -> Vec<String> {
        vec!["flaky".into()]
    }
    fn score(&self, record: &Record) -> Result<MetricOutput, MetricError> {
        match record.id.as_str() {
            "bad" => Err(MetricError::Model("model call failed".into())),
            "nan" => Ok(MetricOutput { values: vec![Some(f64::NAN)], detail: None }),
            "wide" => Ok(MetricOutput { values: vec![Some(1.0); 3], detail: None }),
            _ => {
                let x = record.meta.get("x").and_then(|v| v.as_f64()).unwrap_or(1.0);
                Ok(MetricOutput { values: vec![Some(x)], detail: Some(serde_json::json!({"x": x})) })
            }
        }
    }
}

/// Always 2.0; never fails.
struct Two;

impl Metric for Two {
    fn name(&self) -> &str {
        "two"
    }
    fn columns(&self) -> Vec<String> {
        vec!["two_a".into(), "two_b".into()]
    }
    fn score(&self, _record: &Record) -> Result<MetricOutput, MetricError> {
        Ok(MetricOutput { values: vec![Some(2.0), None], detail: None })
    }
}

fn record(id: &str, system: &str, x: Option<f64>) -> Record {
    let mut r =
        Record { id: id.into(), system: system.into(), query: "q".into(), answer: "a".into(), ..Record::default() };
    if let Some(x) = x {
        r.meta.insert("x".into(), x.into());
    }
    r
}

fn evaluator(metrics: Vec<Box<dyn Metric>>) -> Evaluator {
    Evaluator::new(metrics, EvalSettings { bootstrap: 50, threads: Some(2), ..EvalSettings::default() }).unwrap()
}

#[test]
fn failures_and_non_finite_values_are_counted_not_averaged() {
    let ev = evaluator(vec![Box::new(Flaky)]);
    let records = ["ok1", "bad", "nan", "ok2"].iter().map(|id| record(id, "s", None));
    let mut sink = MemorySink::default();
    let report = ev.evaluate_records(records, Some(&mut sink), Vec::new(), &NoProgress).unwrap();
    let s = &report.summary;
    assert_eq!((s.records, s.failed), (4, 2));
    let col = &s.systems[0].metrics[0];
    // Only ok1 and ok2 (1.0 each) have a value: n 2, mean 1.
    assert_eq!((col.n, col.mean), (2, Some(1.0)));
    let errors: Vec<String> = sink.rows.iter().map(|r| r.errors.join("; ")).collect();
    assert_eq!(errors, ["", "flaky: model call failed", "flaky: non-finite value", ""]);
    assert_eq!(sink.rows[2].values, [None]);
}

#[test]
fn a_wrong_number_of_values_fails_that_metric_only() {
    let ev = evaluator(vec![Box::new(Flaky), Box::new(Two)]);
    let mut sink = MemorySink::default();
    ev.evaluate_records([record("wide", "s", None)], Some(&mut sink), Vec::new(), &NoProgress).unwrap();
    assert_eq!(sink.columns, ["flaky", "two_a", "two_b"]);
    assert_eq!(sink.rows[0].values, [None, Some(2.0), None]);
    assert_eq!(sink.rows[0].errors, ["flaky: 3 values for 1 columns"]);
}

#[test]
fn rows_keep_input_order_across_batches_and_systems_are_summarised_apart() {
    // 1,300 records (more than two batches of 512), alternating systems a and b; x = index.
    let ev = evaluator(vec![Box::new(Flaky)]);
    let records = (0..1300).map(|i| record(&format!("q{i}"), if i % 2 == 0 { "a" } else { "b" }, Some(i as f64)));
    let mut sink = MemorySink::default();
    let report = ev.evaluate_records(records, Some(&mut sink), Vec::new(), &NoProgress).unwrap();
    let ids: Vec<String> = sink.rows.iter().map(|r| r.id.clone()).collect();
    assert_eq!(ids, (0..1300).map(|i| format!("q{i}")).collect::<Vec<_>>());
    let systems: Vec<(&str, u64, Option<f64>)> =
        report.summary.systems.iter().map(|s| (s.system.as_str(), s.metrics[0].n, s.metrics[0].mean)).collect();
    // a: 0, 2, ..., 1298 -> mean 649; b: 1, 3, ..., 1299 -> mean 650.
    assert_eq!(systems, [("a", 650, Some(649.0)), ("b", 650, Some(650.0))]);
    let ci = &report.summary.systems[0].metrics[0];
    assert!(ci.ci_low.unwrap() < 649.0 && ci.ci_high.unwrap() > 649.0);
}

/// Records every row it sees; its report says how many and what the stage before it reported.
struct Counting {
    seen: Arc<Mutex<Vec<String>>>,
}

impl Stage for Counting {
    fn name(&self) -> &'static str {
        "counting"
    }
    fn add(&mut self, record: &Record, row: Row<'_>, _progress: &dyn Progress) -> Result<(), EvalError> {
        self.seen.lock().unwrap().push(format!("{}:{:?}", record.id, row.values));
        Ok(())
    }
    fn finish(self: Box<Self>, earlier: &[StageReport], _progress: &dyn Progress) -> Result<StageReport, EvalError> {
        let n = self.seen.lock().unwrap().len();
        Ok(StageReport::OpenRagCsv(PathBuf::from(format!("rows={n} earlier={}", earlier.len()))))
    }
}

#[test]
fn stages_see_every_row_and_finish_in_order() {
    let ev = evaluator(vec![Box::new(Flaky)]);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let stages: Vec<Box<dyn Stage>> =
        vec![Box::new(Counting { seen: seen.clone() }), Box::new(Counting { seen: Arc::new(Mutex::new(Vec::new())) })];
    let records = [record("q1", "s", Some(0.5)), record("bad", "s", None)];
    let report = ev.evaluate_records(records, None, stages, &NoProgress).unwrap();
    assert_eq!(*seen.lock().unwrap(), ["q1:[Some(0.5)]", "bad:[None]"]);
    let names: Vec<String> = report
        .stages
        .iter()
        .map(|r| match r {
            StageReport::OpenRagCsv(p) => p.display().to_string(),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(names, ["rows=2 earlier=0", "rows=2 earlier=1"]);
}

/// Collects what the engine reports.
#[derive(Default)]
struct Log(RefCell<Vec<String>>);

impl Progress for Log {
    fn skipped(&self, error: &ragjudge_core::InputError, count: u64) {
        self.0.borrow_mut().push(format!("skip {count}: {error}"));
    }
    fn scored(&self, n: u64) {
        self.0.borrow_mut().push(format!("scored {n}"));
    }
}

#[test]
fn malformed_records_stop_the_run_or_are_skipped_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("runs.jsonl");
    let mut f = std::fs::File::create(&path).unwrap();
    writeln!(f, r#"{{"id": "q1", "query": "q", "answer": "a"}}"#).unwrap();
    writeln!(f, r#"{{"id": "q2", "answer": "a"}}"#).unwrap();
    writeln!(f, r#"{{"id": "q3", "query": "q", "answer": "a"}}"#).unwrap();
    drop(f);
    let inputs = vec![path.clone()];

    let ev = evaluator(vec![Box::new(Flaky)]);
    let err = ev.evaluate_files(&inputs, None, Vec::new(), &NoProgress).unwrap_err();
    assert_eq!(err.to_string(), format!("{}:2: field `query`: missing", path.display()));

    let settings = EvalSettings { skip_invalid: true, bootstrap: 10, ..EvalSettings::default() };
    let ev = Evaluator::new(vec![Box::new(Flaky)], settings).unwrap();
    let log = Log::default();
    let mut sink = MemorySink::default();
    let report = ev.evaluate_files(&inputs, Some(&mut sink as &mut dyn RowSink), Vec::new(), &log).unwrap();
    assert_eq!((report.summary.records, report.summary.skipped), (2, 1));
    // The system defaults to the file stem.
    assert_eq!(
        sink.rows.iter().map(|r| (r.id.as_str(), r.system.as_str())).collect::<Vec<_>>(),
        [("q1", "runs"), ("q3", "runs")]
    );
    assert_eq!(*log.0.borrow(), [format!("skip 1: {}:2: field `query`: missing", path.display()), "scored 2".into()]);
}

#[test]
fn no_valid_record_is_an_error_and_settings_are_checked() {
    let ev = evaluator(vec![Box::new(Flaky)]);
    let err = ev.evaluate_records(Vec::new(), None, Vec::new(), &NoProgress).unwrap_err();
    assert_eq!(err.to_string(), "no valid records to score (0 skipped as invalid)");
    let bad = EvalSettings { bootstrap: 0, ..EvalSettings::default() };
    assert_eq!(Evaluator::new(vec![Box::new(Flaky)], bad).unwrap_err().to_string(), "--bootstrap must be at least 1");
    assert!(Evaluator::new(Vec::new(), EvalSettings::default()).is_err());
}

/// Collects warnings.
#[derive(Default)]
struct Warnings(RefCell<Vec<String>>);

impl Progress for Warnings {
    fn warn(&self, message: &str) {
        self.0.borrow_mut().push(message.to_string());
    }
}

#[test]
fn duplicate_keys_are_scored_and_reported_with_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("runs.jsonl");
    // Lines 1 and 3 share (q1, runs, no run); line 4 differs by its run.
    std::fs::write(
        &path,
        "{\"id\": \"q1\", \"query\": \"q\", \"answer\": \"a\"}\n\
         {\"id\": \"q2\", \"query\": \"q\", \"answer\": \"a\"}\n\
         {\"id\": \"q1\", \"query\": \"q\", \"answer\": \"b\"}\n\
         {\"id\": \"q1\", \"run\": 2, \"query\": \"q\", \"answer\": \"c\"}\n",
    )
    .unwrap();
    let ev = evaluator(vec![Box::new(Flaky)]);
    let log = Warnings::default();
    let report = ev.evaluate_files(std::slice::from_ref(&path), None, Vec::new(), &log).unwrap();
    assert_eq!(report.summary.records, 4);
    assert_eq!(
        *log.0.borrow(),
        [format!("warning: {}:3: duplicate record: id `q1`, system `runs` (seen before)", path.display())]
    );
}
