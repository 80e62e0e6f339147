//! Open RAG Eval's results CSV (`TRECEvaluator.to_csv`): one row per query, with every score of
//! the i-th run of that query under a `run_{i}_` prefix (runs in `query_run` order, numbered from
//! 1 as Open RAG Eval numbers them), structured scores as JSON text.
//!
//! Columns per run: `retrieved_passages`, `generated_answer`, `retrieval_score_umbrela_scores`,
//! `retrieval_score_precision_metrics`, `retrieval_score_mean_umbrela_score`,
//! `generation_score_autonugget_scores`, `generation_score_mean_nugget_assignment_score`,
//! `generation_score_vital_nuggetizer_score`, `generation_score_citation_scores`,
//! `generation_score_citation_f1_score`, then those of the answer-level metrics that ran
//! ([`ANSWER_COLUMNS`]: `generation_score_hallucination_score`, `generation_score_no_answer_score`
//! as JSON `{"query_answered": "yes"}`, and the golden-answer scores). After the runs come the
//! per-query consistency columns (`consistency_answer_{bertscore_f1,rouge1_f,rouge2_f,rougel_f}_STAT` for the answer pairs,
//! `consistency_COLUMN_STAT` for each metric column; STAT: mean, variance, cv, cai) when consistency was
//! computed. A missing value is an empty cell. When the records come from several systems a
//! leading `system` column keeps their rows apart.
//!
//! [`OpenRagCsvWriter`] receives every scored row (record, column names, values, detail), keeps
//! only the cells of each run, and writes the file once at the end.

use crate::answer::{ConsistencyReport, ConsistencyRow, RunStats, SystemAggregate, SystemConsistency};
use crate::error::TrecError;
use crate::metric::{TrecDetail, TrecOptions};
use ragjudge_core::Record;
use ragjudge_models::Reason;
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::PathBuf;

/// Per-run column suffixes of the TREC metric, in order.
pub const RUN_COLUMNS: [&str; 10] = [
    "retrieved_passages",
    "generated_answer",
    "retrieval_score_umbrela_scores",
    "retrieval_score_precision_metrics",
    "retrieval_score_mean_umbrela_score",
    "generation_score_autonugget_scores",
    "generation_score_mean_nugget_assignment_score",
    "generation_score_vital_nuggetizer_score",
    "generation_score_citation_scores",
    "generation_score_citation_f1_score",
];

/// Passage key: the passage id, or `[n]` when it has none.
fn passage_key(record: &Record, i: usize) -> String {
    record.contexts[i].id.clone().unwrap_or_else(|| format!("[{}]", i + 1))
}

fn num(x: Option<f64>) -> Value {
    x.map_or(Value::Null, Value::from)
}

fn scalar(x: Option<f64>) -> String {
    x.map(|v| v.to_string()).unwrap_or_default()
}

/// The ten cells of one run, in [`RUN_COLUMNS`] order.
pub fn run_cells(record: &Record, detail: &TrecDetail, opts: &TrecOptions) -> Vec<String> {
    let mut passages = Map::new();
    for (i, c) in record.contexts.iter().enumerate() {
        passages.insert(passage_key(record, i), Value::from(c.text.clone()));
    }
    let parts = ragjudge_lexical::citations::split_answer(&record.answer);
    let answer: Vec<Value> = parts
        .iter()
        .map(|p| json!({"text": p.text, "citations": p.citations.iter().map(|n| format!("[{n}]")).collect::<Vec<_>>()}))
        .collect();
    let mut cells = vec![Value::Object(passages).to_string(), Value::from(answer).to_string()];
    match &detail.umbrela {
        Some(u) => {
            let mut grades = Map::new();
            for (i, g) in u.grades.iter().enumerate() {
                grades.insert(passage_key(record, i), g.map_or(Value::Null, Value::from));
            }
            let mut precision = Map::new();
            let mut ap = Map::new();
            for (a, k) in u.at_k.iter().zip(&opts.ks) {
                // Open RAG Eval leaves out a K larger than the list.
                if a.precision.is_some() || a.ap.is_some() || k <= &u.grades.len() {
                    precision.insert(k.to_string(), num(a.precision));
                    ap.insert(k.to_string(), num(a.ap));
                }
            }
            let metrics = json!({"precision@": precision, "AP@": ap, "MRR": num(u.mrr)});
            cells.extend([Value::Object(grades).to_string(), metrics.to_string(), scalar(u.mean)]);
        }
        None => cells.extend([String::new(), String::new(), String::new()]),
    }
    match &detail.nuggets {
        Some(n) => {
            let s = &n.scores;
            let v = json!({
                "nuggetizer_scores": {
                    "All": num(s.all), "All Strict": num(s.all_strict), "Vital": num(s.vital),
                    "Vital Strict": num(s.vital_strict), "Weighted": num(s.weighted),
                    "Weighted Strict": num(s.weighted_strict),
                },
                "nuggets": n.nuggets, "labels": n.labels, "assignments": n.assignments,
                "assignment_scores": n.assignment_scores,
            });
            cells.extend([v.to_string(), scalar(n.mean_assignment), scalar(s.vital)]);
        }
        None => cells.extend([String::new(), String::new(), String::new()]),
    }
    match &detail.citations {
        Some(c) => {
            let mut m = Map::new();
            for (n, avg) in &c.citation_averages {
                m.insert(format!("citation_score_[{n}]"), Value::from(*avg));
            }
            for (i, avg) in c.part_averages.iter().enumerate() {
                if let Some(avg) = avg {
                    m.insert(format!("part_score_{}", i + 1), Value::from(*avg));
                }
            }
            m.insert("weighted_precision".into(), num(c.scores.precision));
            m.insert("weighted_recall".into(), num(c.scores.recall));
            m.insert("f1".into(), num(c.scores.f1));
            cells.extend([Value::Object(m).to_string(), scalar(c.scores.f1)]);
        }
        None => cells.extend([String::new(), String::new()]),
    }
    cells
}

/// Per-run columns of the answer-level metrics: (CSV column suffix, score column it comes from).
/// A column is written when its score column is among the scored columns.
pub const ANSWER_COLUMNS: [(&str, &str); 6] = [
    ("generation_score_hallucination_score", "generation_score_hallucination_score"),
    ("generation_score_no_answer_score", "generation_score_answered"),
    ("generation_score_semantic_similarity", "generation_score_semantic_similarity"),
    ("generation_score_factual_correctness_precision", "generation_score_factual_correctness_precision"),
    ("generation_score_factual_correctness_recall", "generation_score_factual_correctness_recall"),
    ("generation_score_factual_correctness_f1", "generation_score_factual_correctness_f1"),
];

/// Statistics written per consistency quantity, in order.
pub const CONSISTENCY_STATS: [&str; 4] = ["mean", "variance", "cv", "cai"];

/// The cells of one run.
struct Run {
    run: Option<u32>,
    cells: Vec<String>,
}

/// The runs of one query.
struct Query {
    query: String,
    runs: Vec<Run>,
}

/// Collects scored rows and writes Open RAG Eval's results CSV once, at [`OpenRagCsvWriter::finish`].
/// Only the cells of each run are kept, not the records or details.
pub struct OpenRagCsvWriter {
    path: PathBuf,
    opts: TrecOptions,
    /// (CSV suffix, index of the score column) of the answer-level columns that were scored.
    answer: Vec<(&'static str, usize)>,
    /// Index of `generation_score_answered_prob`, if scored.
    answered_prob: Option<usize>,
    queries: BTreeMap<(String, String), Query>,
}

impl OpenRagCsvWriter {
    /// A writer to `path` for rows with these score `columns`; `opts` are the TREC metric's
    /// options (its cut-offs K).
    pub fn new(path: PathBuf, opts: TrecOptions, columns: &[String]) -> Self {
        let find = |name: &str| columns.iter().position(|c| c == name);
        let answer = ANSWER_COLUMNS.iter().filter_map(|&(suffix, col)| find(col).map(|i| (suffix, i))).collect();
        Self { path, opts, answer, answered_prob: find("generation_score_answered_prob"), queries: BTreeMap::new() }
    }

    /// The path written at the end.
    pub fn path(&self) -> &std::path::Path {
        &self.path
    }

    /// Adds one scored record: `values` line up with the `columns` given to [`OpenRagCsvWriter::new`];
    /// `detail` holds each metric family's detail by name (the TREC one under `trec`).
    pub fn add(
        &mut self,
        record: &Record,
        values: &[Option<f64>],
        detail: &Map<String, Value>,
    ) -> Result<(), TrecError> {
        let trec: TrecDetail = match detail.get("trec") {
            Some(d) => serde_json::from_value(d.clone())
                .map_err(|e| TrecError::Contract(format!("unreadable trec detail: {e}")))?,
            None => TrecDetail::default(),
        };
        let mut cells = run_cells(record, &trec, &self.opts);
        for &(suffix, i) in &self.answer {
            let v = values.get(i).copied().flatten();
            cells.push(if suffix == "generation_score_no_answer_score" {
                no_answer_cell(v, self.answered_prob.and_then(|p| values.get(p).copied().flatten()))
            } else {
                scalar(v)
            });
        }
        let q = self
            .queries
            .entry((record.system.clone(), record.id.clone()))
            .or_insert_with(|| Query { query: record.query.clone(), runs: Vec::new() });
        q.runs.push(Run { run: record.run, cells });
        Ok(())
    }

    /// Writes the file: rows by (system, query id), runs by `run` (a record without `run` first),
    /// then the consistency columns of `consistency` when given. The error is a one-line message.
    pub fn finish(self, consistency: Option<&ConsistencyReport>) -> Result<(), TrecError> {
        let path = self.path.display().to_string();
        let mut file = ragjudge_artifacts::AtomicFile::create(&self.path).map_err(|e| TrecError::Io(Reason::of(e)))?;
        self.write(&mut file, consistency)
            .map_err(|e| TrecError::Io(Reason::caused(format!("{path}: cannot write the Open RAG Eval CSV"), e)))?;
        file.commit().map_err(|e| TrecError::Io(Reason::of(e)))
    }

    fn write<W: Write>(mut self, out: W, consistency: Option<&ConsistencyReport>) -> Result<(), csv::Error> {
        let several_systems = self.queries.keys().map(|k| k.0.as_str()).collect::<BTreeSet<_>>().len() > 1;
        let runs = self.queries.values().map(|q| q.runs.len()).max().unwrap_or(0);
        let per_run: Vec<&str> = RUN_COLUMNS.iter().copied().chain(self.answer.iter().map(|a| a.0)).collect();
        let rows: BTreeMap<(&str, &str), &ConsistencyRow> = consistency
            .map(|c| c.rows.iter().map(|r| ((r.system.as_str(), r.id.as_str()), r)).collect())
            .unwrap_or_default();
        let quantities = consistency_quantities(consistency);
        let mut w = csv::Writer::from_writer(out);
        let mut header: Vec<String> = Vec::new();
        if several_systems {
            header.push("system".into());
        }
        header.extend(["query_id".to_string(), "query".to_string()]);
        for i in 1..=runs {
            header.extend(per_run.iter().map(|c| format!("run_{i}_{c}")));
        }
        for q in &quantities {
            header.extend(CONSISTENCY_STATS.iter().map(|s| format!("consistency_{}_{s}", q.label)));
        }
        w.write_record(&header)?;
        let runs_width = header.len() - quantities.len() * CONSISTENCY_STATS.len();
        for ((system, id), query) in std::mem::take(&mut self.queries) {
            let mut row: Vec<String> = Vec::with_capacity(header.len());
            if several_systems {
                row.push(system.clone());
            }
            row.extend([id.clone(), query.query]);
            let mut group = query.runs;
            group.sort_by_key(|r| r.run);
            for run in group {
                row.extend(run.cells);
            }
            row.resize(runs_width, String::new());
            let c = rows.get(&(system.as_str(), id.as_str()));
            for q in &quantities {
                row.extend(stat_cells(c.and_then(|r| q.stats(r))));
            }
            w.write_record(&row)?;
        }
        w.flush()?;
        Ok(())
    }
}

/// One consistency quantity: a similarity of answer pairs or a metric column across runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quantity {
    /// Column label: `answer_NAME` for a pair similarity (e.g. `answer_rouge1_f`), the metric
    /// column's name otherwise.
    pub label: String,
    /// Name in the report's maps.
    pub key: String,
    /// A pair similarity (else a metric).
    pub similarity: bool,
}

impl Quantity {
    /// The statistic of this quantity in one consistency row.
    pub fn stats<'a>(&self, row: &'a ConsistencyRow) -> Option<&'a RunStats> {
        if self.similarity {
            row.similarity.get(&self.key)
        } else {
            row.metrics.get(&self.key)
        }
    }

    /// The per-system aggregate of this quantity.
    pub fn aggregate<'a>(&self, system: &'a SystemConsistency) -> Option<&'a SystemAggregate> {
        if self.similarity {
            system.similarity.get(&self.key)
        } else {
            system.metrics.get(&self.key)
        }
    }
}

/// The consistency quantities of a report: the pair similarities, then the metric columns, each
/// sorted by name.
pub fn consistency_quantities(report: Option<&ConsistencyReport>) -> Vec<Quantity> {
    let Some(report) = report else { return Vec::new() };
    let sims: BTreeSet<&String> = report.rows.iter().flat_map(|r| r.similarity.keys()).collect();
    let metrics: BTreeSet<&String> = report.rows.iter().flat_map(|r| r.metrics.keys()).collect();
    let sims = sims.into_iter().map(|k| Quantity { label: format!("answer_{k}"), key: k.clone(), similarity: true });
    let metrics = metrics.into_iter().map(|k| Quantity { label: k.clone(), key: k.clone(), similarity: false });
    sims.chain(metrics).collect()
}

/// The [`CONSISTENCY_STATS`] cells of one statistic (empty cells when absent; CV empty at mean 0).
pub fn stat_cells(s: Option<&RunStats>) -> [String; 4] {
    match s {
        Some(s) => [s.mean.to_string(), s.variance.to_string(), scalar(s.cv), s.cai.to_string()],
        None => Default::default(),
    }
}

/// Open RAG Eval's no-answer cell: `{"query_answered": "yes"}` or `"no"`, with the judge's
/// probability of "yes" as `prob_answered` when there is one.
fn no_answer_cell(answered: Option<f64>, prob: Option<f64>) -> String {
    let Some(a) = answered else { return String::new() };
    let mut m = Map::new();
    m.insert("query_answered".into(), Value::from(if a >= 0.5 { "yes" } else { "no" }));
    if let Some(p) = prob {
        m.insert("prob_answered".into(), Value::from(p));
    }
    Value::Object(m).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::citations::{CitationEval, CitationScores};
    use crate::umbrela;
    use ragjudge_core::Context;
    use ragjudge_lexical::citations::AnswerPart;

    fn record(id: &str, run: Option<u32>) -> Record {
        Record {
            id: id.into(),
            query: format!("query {id}"),
            contexts: vec![Context { id: Some("d1".into()), text: "t1".into(), relevance: None }],
            answer: "A [1].".into(),
            run,
            ..Record::default()
        }
    }

    #[test]
    fn runs_get_numbered_prefixes_in_run_order() {
        let opts = TrecOptions { ks: vec![1, 3], ..TrecOptions::default() };
        let detail = TrecDetail {
            umbrela: Some(umbrela::scores(&[Some(2)], &opts.ks, false)),
            citations: Some(CitationEval {
                parts: vec![AnswerPart { text: "A".into(), citations: vec![1] }],
                citation_averages: vec![(1, 1.0)],
                part_averages: vec![Some(1.0)],
                scores: CitationScores { precision: Some(1.0), recall: Some(1.0), f1: Some(1.0) },
                ..CitationEval::default()
            }),
            ..TrecDetail::default()
        };
        let mut w = OpenRagCsvWriter::new(PathBuf::new(), opts.clone(), &[]);
        let mut d = Map::new();
        d.insert("trec".into(), serde_json::to_value(&detail).unwrap());
        for (id, run) in [("q2", None), ("q1", Some(2)), ("q1", Some(1))] {
            w.add(&record(id, run), &[], &d).unwrap();
        }
        let mut buf = Vec::new();
        w.write(&mut buf, None).unwrap();
        let mut rdr = csv::Reader::from_reader(buf.as_slice());
        let header: Vec<String> = rdr.headers().unwrap().iter().map(str::to_string).collect();
        assert_eq!(header.len(), 2 + 2 * RUN_COLUMNS.len());
        assert_eq!(header[2], "run_1_retrieved_passages");
        assert_eq!(header[12], "run_2_retrieved_passages");
        let rows: Vec<csv::StringRecord> = rdr.records().map(Result::unwrap).collect();
        assert_eq!(&rows[0][0], "q1");
        assert_eq!(&rows[1][0], "q2");
        let col = |n: &str| header.iter().position(|h| h == n).unwrap();
        assert_eq!(&rows[0][col("run_1_retrieval_score_umbrela_scores")], "{\"d1\":2}");
        // K = 3 is larger than the one-passage list: left out, as Open RAG Eval does.
        assert_eq!(
            &rows[0][col("run_1_retrieval_score_precision_metrics")],
            "{\"precision@\":{\"1\":1.0},\"AP@\":{\"1\":1.0},\"MRR\":1.0}"
        );
        assert_eq!(&rows[0][col("run_2_generation_score_citation_f1_score")], "1");
        assert_eq!(&rows[0][col("run_1_generated_answer")], "[{\"text\":\"A\",\"citations\":[\"[1]\"]}]");
        // q2 has one run: the second run's cells are empty; no nugget part was run.
        assert_eq!(&rows[1][col("run_2_retrieved_passages")], "");
        assert_eq!(&rows[1][col("run_1_generation_score_vital_nuggetizer_score")], "");
    }

    #[test]
    fn answer_and_consistency_columns() {
        use crate::answer::{ConsistencyAccumulator, ConsistencyOptions};
        let columns: Vec<String> =
            ["generation_score_hallucination_score", "generation_score_answered", "generation_score_answered_prob"]
                .map(String::from)
                .to_vec();
        let mut w = OpenRagCsvWriter::new(PathBuf::new(), TrecOptions::default(), &columns);
        let mut acc = ConsistencyAccumulator::new(ConsistencyOptions::default()).unwrap();
        // Hallucination 0.2, 0.4, 0.9 over three runs: mean 0.5, population variance 0.26 / 3.
        for (run, h, a) in [(1, 0.2, 1.0), (2, 0.4, 1.0), (3, 0.9, 0.0)] {
            let values = [Some(h), Some(a), Some(0.75)];
            w.add(&record("q1", Some(run)), &values, &Map::new()).unwrap();
            acc.push(&record("q1", Some(run)), &columns, &values).unwrap();
        }
        let report = acc.finish(None).unwrap();
        let mut buf = Vec::new();
        w.write(&mut buf, Some(&report)).unwrap();
        let mut rdr = csv::Reader::from_reader(buf.as_slice());
        let header: Vec<String> = rdr.headers().unwrap().iter().map(str::to_string).collect();
        let row = rdr.records().next().unwrap().unwrap();
        let col = |n: &str| header.iter().position(|h| h == n).unwrap_or_else(|| panic!("no column {n}"));
        assert_eq!(&row[col("run_2_generation_score_hallucination_score")], "0.4");
        assert_eq!(
            &row[col("run_1_generation_score_no_answer_score")],
            r#"{"query_answered":"yes","prob_answered":0.75}"#
        );
        assert_eq!(
            &row[col("run_3_generation_score_no_answer_score")],
            r#"{"query_answered":"no","prob_answered":0.75}"#
        );
        assert!(!header.iter().any(|h| h.contains("semantic_similarity")));
        assert_eq!(&row[col("consistency_generation_score_hallucination_score_mean")], "0.5");
        let var: f64 = row[col("consistency_generation_score_hallucination_score_variance")].parse().unwrap();
        assert!((var - 0.26 / 3.0).abs() < 1e-12);
        // Identical answers: every ROUGE-1 pair is 1.
        assert_eq!(&row[col("consistency_answer_rouge1_f_mean")], "1");
        assert_eq!(&row[col("consistency_answer_rouge1_f_variance")], "0");
        // Answered 1, 1, 0: mean 2/3.
        let m: f64 = row[col("consistency_generation_score_answered_mean")].parse().unwrap();
        assert!((m - 2.0 / 3.0).abs() < 1e-12);
    }
}
