//! Property tests of the engine with the model-free families: shards merged equal the single run
//! (rows and summary), and every value is a finite number in its range or empty for a reason.

use proptest::prelude::*;
use ragjudge_artifacts::{OutputSet, Provenance};
use ragjudge_core::{Context, Record, Shard};
use ragjudge_eval::families::{build_metrics, MetricSettings};
use ragjudge_eval::merge::{stage_manifest, ShardManifest};
use ragjudge_eval::models::{ModelSet, ModelSettings};
use ragjudge_eval::{
    commit_output, create_file_sink, merge_shards, read_rows, EvalSettings, Evaluator, MemorySink, NoProgress,
    OwnedRow, SummaryReport,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const BOOTSTRAP: usize = 50;
const SEED: u64 = 7;

fn evaluator(families: &[&str], shard: Option<Shard>) -> Evaluator {
    let metrics =
        build_metrics(families, &MetricSettings::default(), &ModelSet::new(ModelSettings::default())).unwrap();
    let settings =
        EvalSettings { bootstrap: BOOTSTRAP, seed: SEED, threads: Some(1), shard, ..EvalSettings::default() };
    Evaluator::new(metrics, settings).unwrap()
}

/// Text with words shared between answers and references, and any Unicode.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![any::<String>(), "(the|cat|sat|on|mat|北京|é|,|\\.| ){0,12}"]
}

/// Questions `q0..` answered by some of three systems, some twice (`run` 1 and 2); keys unique.
fn records() -> impl Strategy<Value = Vec<Record>> {
    let answer = (text(), prop::option::of(text()));
    prop::collection::vec(prop::collection::vec((0usize..3, any::<bool>(), answer), 1..4), 1..10).prop_map(|qs| {
        let mut out = Vec::new();
        for (q, answers) in qs.into_iter().enumerate() {
            let mut seen = std::collections::HashSet::new();
            for (s, twice, (answer, reference)) in answers {
                if !seen.insert(s) {
                    continue;
                }
                for run in if twice { vec![Some(1), Some(2)] } else { vec![None] } {
                    out.push(Record {
                        id: format!("q{q}"),
                        system: ["bm25", "dense", "hybrid"][s].into(),
                        run,
                        query: "which?".into(),
                        answer: answer.clone(),
                        reference: reference.clone(),
                        ..Record::default()
                    });
                }
            }
        }
        out
    })
}

/// Scores `records` in shard `i/k` into `dir/shard-i.EXT` with its manifest, as `score --shard i/k -o` does.
fn score_shard(records: &[Record], shard: Shard, dir: &Path, ext: &str) -> PathBuf {
    let out = dir.join(format!("shard-{}.{ext}", shard.index()));
    let ev = evaluator(&["lexical"], Some(shard));
    let mut sink = create_file_sink(&out).unwrap();
    let report = ev.evaluate_records(records.to_vec(), Some(&mut *sink), Vec::new(), &NoProgress).unwrap();
    let mut sidecars = OutputSet::new();
    let manifest = ShardManifest::new(shard, &report.summary, SEED, ev.columns());
    stage_manifest(&out, &manifest, &Provenance::version_only(), &mut sidecars).unwrap();
    commit_output(sink, sidecars).unwrap();
    out
}

type Key = (String, String, Option<u32>);

fn by_key(rows: &[OwnedRow]) -> BTreeMap<Key, (Vec<Option<f64>>, Vec<String>)> {
    rows.iter().map(|r| ((r.id.clone(), r.system.clone(), r.run), (r.values.clone(), r.errors.clone()))).collect()
}

fn close(x: Option<f64>, y: Option<f64>) -> bool {
    match (x, y) {
        (Some(x), Some(y)) => (x - y).abs() <= 1e-12 * x.abs().max(1.0),
        (x, y) => x == y,
    }
}

/// The merged summary is the single run's: same counts, means bit for bit, intervals up to the
/// rounding of replicate sums taken in another order (see `ragjudge_eval::merge`).
fn assert_same_summary(single: &SummaryReport, merged: &SummaryReport) -> Result<(), TestCaseError> {
    prop_assert_eq!((single.records, single.failed, single.skipped), (merged.records, merged.failed, merged.skipped));
    let systems =
        |s: &SummaryReport| s.systems.iter().map(|x| (x.system.clone(), x.clone())).collect::<BTreeMap<_, _>>();
    let (a, b) = (systems(single), systems(merged));
    prop_assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (name, sa) in &a {
        let sb = &b[name];
        prop_assert_eq!((sa.records, sa.failed), (sb.records, sb.failed));
        for (ca, cb) in sa.metrics.iter().zip(&sb.metrics) {
            prop_assert_eq!(&ca.metric, &cb.metric);
            prop_assert_eq!(ca.n, cb.n);
            prop_assert_eq!(ca.mean.map(f64::to_bits), cb.mean.map(f64::to_bits), "{} {}", name, ca.metric);
            prop_assert!(close(ca.std, cb.std), "{:?} {:?}", ca, cb);
            prop_assert!(close(ca.ci_low, cb.ci_low) && close(ca.ci_high, cb.ci_high), "{:?} {:?}", ca, cb);
        }
    }
    Ok(())
}

/// Why a value may be empty without a failure being recorded (each metric's documented rule).
fn may_be_empty(column: &str, record: &Record) -> bool {
    let grades: Vec<Option<f64>> = record.contexts.iter().map(|c| c.relevance).collect();
    let judged = grades.iter().any(Option::is_some);
    let relevant = grades.iter().any(|g| g.is_some_and(|g| g >= 2.0));
    let positive = grades.iter().any(|g| g.is_some_and(|g| g > 0.0));
    let k = column.split_once('@').and_then(|(_, k)| k.parse::<usize>().ok());
    let short = k.is_some_and(|k| grades.len() < k);
    match column {
        "ciu" => false,
        "mrr" => !judged,
        c if c.starts_with("precision@") || c.starts_with("ap@") => !judged || short,
        c if c.starts_with("recall@") => !judged || short || !relevant,
        c if c.starts_with("ndcg@") => !judged || short || !positive,
        // ROUGE, BLEU, chrF, SQuAD, exact match and METEOR compare with the reference.
        _ => record.reference.is_none(),
    }
}

fn contexts() -> impl Strategy<Value = Vec<Context>> {
    let grade = prop_oneof![Just(None), (0u8..4).prop_map(|g| Some(f64::from(g))), (-2.0f64..5.0).prop_map(Some)];
    prop::collection::vec((text(), grade), 0..7)
        .prop_map(|c| c.into_iter().map(|(text, relevance)| Context { id: None, text, relevance }).collect())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn lexical_scores_in_shards_merge_to_the_single_run(recs in records(), k in 1u32..4, csv in any::<bool>()) {
        let dir = tempfile::tempdir().unwrap();
        let ext = if csv { "csv" } else { "jsonl" };
        let mut single_rows = MemorySink::default();
        let single = evaluator(&["lexical"], None)
            .evaluate_records(recs.clone(), Some(&mut single_rows), Vec::new(), &NoProgress)
            .unwrap()
            .summary;
        // Shards scored in reverse order, merged from the files alone.
        let paths: Vec<PathBuf> =
            (1..=k).rev().map(|i| score_shard(&recs, Shard::new(i, k).unwrap(), dir.path(), ext)).collect();
        let out = dir.path().join(format!("merged.{ext}"));
        let merged = merge_shards(&paths, Some(&out)).unwrap();
        prop_assert_eq!(merged.shards, k);
        let back = read_rows(&out).unwrap();
        prop_assert_eq!(&back.columns, &single_rows.columns);
        prop_assert_eq!(by_key(&back.rows), by_key(&single_rows.rows));
        assert_same_summary(&single, &merged.summary)?;
    }

    #[test]
    fn every_score_is_finite_in_range_or_empty_for_a_reason(
        answer in text(), reference in prop::option::of(text()), query in text(), ctx in contexts(),
    ) {
        let record = Record {
            id: "q".into(), system: "s".into(), query, answer, reference, contexts: ctx, ..Record::default()
        };
        let mut sink = MemorySink::default();
        evaluator(&["lexical", "ciu", "retrieval"], None)
            .evaluate_records(vec![record.clone()], Some(&mut sink), Vec::new(), &NoProgress)
            .unwrap();
        let row = &sink.rows[0];
        for (column, value) in sink.columns.iter().zip(&row.values) {
            match value {
                Some(v) => {
                    prop_assert!(v.is_finite(), "{} = {}", column, v);
                    // CIU is a sum of discounted matches less an effort term: any finite value.
                    if column != "ciu" {
                        prop_assert!((0.0..=1.0).contains(v), "{} = {} outside [0, 1]", column, v);
                    }
                }
                None => prop_assert!(
                    !row.errors.is_empty() || may_be_empty(column, &record),
                    "{} empty without a reason on {:?}", column, record
                ),
            }
        }
    }
}
