//! Fan-out in the engine: `EvalSettings::shard` partitions the records by question key, and the
//! shards' rows summarised together give the single run's summary.

use ragjudge_core::{Metric, MetricError, MetricOutput, Record, Shard};
use ragjudge_eval::{EvalSettings, Evaluator, MemorySink, NoProgress, OwnedRow, Summarizer, SummaryReport};
use std::collections::{BTreeMap, BTreeSet};

/// The record's `meta.x`, and its square (empty when x is negative).
struct X;

impl Metric for X {
    fn name(&self) -> &str {
        "x"
    }
    fn columns(&self) -> Vec<String> {
        vec!["x".into(), "x2".into()]
    }
    fn score(&self, record: &Record) -> Result<MetricOutput, MetricError> {
        let x = record.meta.get("x").and_then(|v| v.as_f64()).unwrap();
        Ok(MetricOutput { values: vec![Some(x), (x >= 0.0).then_some(x * x)], detail: None })
    }
}

fn records() -> Vec<Record> {
    let mut out = Vec::new();
    for q in 0..300 {
        for (s, system) in ["bm25", "dense", "hybrid"].iter().enumerate() {
            let x = ((q * 7919 + s * 104_729) % 1000) as f64 / 999.0 - 0.1;
            let mut r = Record {
                id: format!("q{q}"),
                system: system.to_string(),
                query: "q".into(),
                answer: "a".into(),
                run: (q % 5 == 0).then_some(1),
                ..Record::default()
            };
            r.meta.insert("x".into(), x.into());
            out.push(r);
        }
    }
    out
}

fn run(records: Vec<Record>, shard: Option<Shard>) -> (SummaryReport, Vec<OwnedRow>) {
    let settings = EvalSettings { bootstrap: 200, seed: 11, threads: Some(2), shard, ..EvalSettings::default() };
    let ev = Evaluator::new(vec![Box::new(X)], settings).unwrap();
    let mut sink = MemorySink::default();
    let report = ev.evaluate_records(records, Some(&mut sink), Vec::new(), &NoProgress).unwrap();
    (report.summary, sink.rows)
}

fn key(r: &OwnedRow) -> (String, String, Option<u32>) {
    (r.id.clone(), r.system.clone(), r.run)
}

#[test]
fn shards_partition_the_records_by_question() {
    let (_, all) = run(records(), None);
    let mut seen: BTreeMap<String, u32> = BTreeMap::new();
    let mut union = BTreeSet::new();
    for i in 1..=4 {
        let (summary, rows) = run(records(), Some(Shard::new(i, 4).unwrap()));
        assert_eq!(summary.shard.as_deref(), Some(format!("{i}/4").as_str()));
        assert_eq!(summary.skipped, 0);
        for r in &rows {
            // Every system's answer to a question is in the same shard, and only in one.
            assert_eq!(*seen.entry(r.id.clone()).or_insert(i), i, "{}", r.id);
            assert!(union.insert(key(r)), "{:?} in two shards", key(r));
        }
    }
    assert_eq!(union, all.iter().map(key).collect::<BTreeSet<_>>());
    // 300 questions in 4 shards: none empty.
    let sizes: Vec<usize> = (1..=4).map(|i| seen.values().filter(|&&s| s == i).count()).collect();
    assert!(sizes.iter().all(|&n| n > 40), "{sizes:?}");
}

#[test]
fn membership_does_not_depend_on_order_or_system() {
    let shard = Some(Shard::new(2, 4).unwrap());
    let (_, a) = run(records(), shard);
    let mut shuffled = records();
    shuffled.reverse();
    for r in &mut shuffled {
        r.system = format!("renamed-{}", r.system);
    }
    let (_, b) = run(shuffled, shard);
    let ids = |rows: &[OwnedRow]| rows.iter().map(|r| r.id.clone()).collect::<BTreeSet<_>>();
    assert_eq!(ids(&a), ids(&b));
    assert_eq!(a.len(), b.len());
}

#[test]
fn shard_rows_summarised_together_equal_the_single_run() {
    let (single, _) = run(records(), None);
    let mut rows = Vec::new();
    for i in (1..=4).rev() {
        rows.extend(run(records(), Some(Shard::new(i, 4).unwrap())).1);
    }
    rows.reverse();
    let mut s = Summarizer::new(vec!["x".into(), "x2".into()], 200, 11);
    for r in &rows {
        s.add(&r.id, &r.system, r.run, &r.values, !r.errors.is_empty());
    }
    let merged = s.report(0.95);
    assert_eq!(merged.records, single.records);
    let by_name =
        |rep: &SummaryReport| rep.systems.iter().map(|s| (s.system.clone(), s.clone())).collect::<BTreeMap<_, _>>();
    let (a, b) = (by_name(&single), by_name(&merged));
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    let close = |x: Option<f64>, y: Option<f64>| match (x, y) {
        (Some(x), Some(y)) => (x - y).abs() <= 1e-12 * x.abs().max(1.0),
        (x, y) => x == y,
    };
    for (name, sa) in &a {
        let sb = &b[name];
        assert_eq!(sa.records, sb.records);
        for (ca, cb) in sa.metrics.iter().zip(&sb.metrics) {
            assert_eq!(ca.n, cb.n);
            // Means: the correctly rounded sum over the count, bit for bit in any order.
            assert_eq!(ca.mean.map(f64::to_bits), cb.mean.map(f64::to_bits), "{name} {}", ca.metric);
            assert!(close(ca.std, cb.std), "{ca:?} {cb:?}");
            assert!(close(ca.ci_low, cb.ci_low) && close(ca.ci_high, cb.ci_high), "{ca:?} {cb:?}");
            assert!(ca.ci_low.unwrap() < ca.mean.unwrap() && ca.mean.unwrap() < ca.ci_high.unwrap());
        }
    }
}
