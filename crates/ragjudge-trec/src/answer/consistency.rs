//! Consistency across repeated runs of a query (Open RAG Eval, "Consistency Metrics").
//!
//! Records with the same `(system, id)` and different `run` form a group. For each group with at
//! least `min_runs` runs (3, as Open RAG Eval, which needs more than two answers):
//! - pairwise similarity of the non-empty answers over all unordered pairs: BERTScore F1
//!   ([`super::bertscore`], on a [`TokenEmbedder`]'s vectors, idf optional and computed over the
//!   group's answers) and ROUGE-1/2/L F-measure (`ragjudge_lexical::rouge`; F is symmetric, so Open
//!   RAG Eval's average of both orders is the same number);
//! - for the pair similarities and for every numeric metric column fed in: mean, variance,
//!   standard deviation, coefficient of variation and Open RAG Eval's consistency-adjusted index
//!   `CAI = mean / (1 + std)`.
//!
//! Variance convention: population variance (ddof = 0, divide by n), as Open RAG Eval's
//! `ConsistencyScore` (`numpy.std` with its default ddof = 0); `CV = std / mean` with that
//! std, `None` when the mean is 0. Per system, [`SystemAggregate`] averages the per-query
//! statistics over the system's queries.

use crate::error::TrecError;
use std::collections::BTreeMap;

use ragjudge_core::{MetricOutput, Record};
use ragjudge_lexical::rouge::RougeScorer;
use ragjudge_models::{TokenEmbedder, TokenEmbedding};
use serde::Serialize;

use super::bertscore::{bert_score, rescale, Idf};

/// Options of the consistency accumulator.
#[derive(Debug, Clone, PartialEq)]
pub struct ConsistencyOptions {
    /// Fewest runs (and values) a statistic needs; 3 as Open RAG Eval. At least 2.
    pub min_runs: usize,
    /// Weight BERTScore tokens by idf over the group's answers (Open RAG Eval: off).
    pub bertscore_idf: bool,
    /// Rescale BERTScore F1 with this baseline: `(F - b) / (1 - b)` (none: raw).
    pub bertscore_baseline: Option<f64>,
    /// Porter-stem ROUGE tokens.
    pub rouge_stemmer: bool,
}

impl Default for ConsistencyOptions {
    fn default() -> Self {
        Self { min_runs: 3, bertscore_idf: false, bertscore_baseline: None, rouge_stemmer: false }
    }
}

/// Statistics of one metric's values across runs (or of one similarity across answer pairs).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunStats {
    /// Number of values.
    pub n: usize,
    /// Mean.
    pub mean: f64,
    /// Population variance (ddof = 0).
    pub variance: f64,
    /// Population standard deviation.
    pub std: f64,
    /// `std / mean`; `None` when the mean is 0.
    pub cv: Option<f64>,
    /// Consistency-adjusted index `mean / (1 + std)`.
    pub cai: f64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
}

/// [`RunStats`] of `values`; `None` when empty or not all finite.
pub fn run_stats(values: &[f64]) -> Option<RunStats> {
    let mean = ragjudge_stats::describe::mean(values)?;
    let variance = ragjudge_stats::describe::population_variance(values)?;
    let std = variance.sqrt();
    let cv = (mean != 0.0).then(|| std / mean).filter(|v| v.is_finite());
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Some(RunStats { n: values.len(), mean, variance, std, cv, cai: mean / (1.0 + std), min, max })
}

/// Similarities of one pair of answers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairScore {
    /// Run numbers of the two answers.
    pub runs: (Option<u32>, Option<u32>),
    /// BERTScore F1 (rescaled when a baseline is set); `None` without a token embedder.
    pub bertscore_f1: Option<f64>,
    /// ROUGE-1 F-measure.
    pub rouge1_f: f64,
    /// ROUGE-2 F-measure.
    pub rouge2_f: f64,
    /// ROUGE-L F-measure.
    pub rougel_f: f64,
}

/// The consistency of one `(system, id)` group.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConsistencyRow {
    /// System name.
    pub system: String,
    /// Question id.
    pub id: String,
    /// Run numbers, ascending.
    pub runs: Vec<Option<u32>>,
    /// Pairwise similarities of the non-empty answers.
    pub pairs: Vec<PairScore>,
    /// Statistics over the pairs: `bertscore_f1`, `rouge1_f`, `rouge2_f`, `rougel_f`.
    pub similarity: BTreeMap<String, RunStats>,
    /// Statistics over the runs of each metric column with at least `min_runs` values.
    pub metrics: BTreeMap<String, RunStats>,
}

impl ConsistencyRow {
    /// Flat numeric columns: `consistency_NAME_{mean,variance,cv,cai}` for every similarity and
    /// metric (a `cv` of zero mean is left out).
    pub fn flat(&self) -> Vec<(String, f64)> {
        let mut out = Vec::new();
        for (name, s) in self.similarity.iter().chain(&self.metrics) {
            out.push((format!("consistency_{name}_mean"), s.mean));
            out.push((format!("consistency_{name}_variance"), s.variance));
            if let Some(cv) = s.cv {
                out.push((format!("consistency_{name}_cv"), cv));
            }
            out.push((format!("consistency_{name}_cai"), s.cai));
        }
        out
    }
}

/// One statistic averaged over a system's queries.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SystemAggregate {
    /// Queries with this statistic.
    pub queries: usize,
    /// Mean of the per-query means.
    pub mean: f64,
    /// Mean of the per-query (population) variances.
    pub variance: f64,
    /// Mean of the per-query CVs that are defined; `None` if none is.
    pub cv: Option<f64>,
    /// Mean of the per-query CAIs.
    pub cai: f64,
}

/// Consistency of one system over its queries.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SystemConsistency {
    /// System name.
    pub system: String,
    /// Queries with a consistency row.
    pub queries: usize,
    /// Per similarity, averaged over queries.
    pub similarity: BTreeMap<String, SystemAggregate>,
    /// Per metric, averaged over queries.
    pub metrics: BTreeMap<String, SystemAggregate>,
}

/// Everything the accumulator yields.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConsistencyReport {
    /// One row per `(system, id)` group with enough runs, ordered by system then id.
    pub rows: Vec<ConsistencyRow>,
    /// Per-system aggregates, ordered by system.
    pub systems: Vec<SystemConsistency>,
    /// Groups left out for having fewer than `min_runs` runs.
    pub skipped_groups: usize,
    /// The token embedder used for BERTScore, if any.
    pub bertscore_model: Option<String>,
}

/// Reads one similarity of a pair.
type PairValue = fn(&PairScore) -> Option<f64>;

struct Entry {
    run: Option<u32>,
    answer: String,
    values: BTreeMap<String, f64>,
}

/// Collects records with their metric values, then computes consistency per `(system, id)`.
pub struct ConsistencyAccumulator {
    opts: ConsistencyOptions,
    groups: BTreeMap<(String, String), Vec<Entry>>,
}

impl ConsistencyAccumulator {
    /// An empty accumulator; `Err` when `min_runs < 2`.
    pub fn new(opts: ConsistencyOptions) -> Result<Self, TrecError> {
        if opts.min_runs < 2 {
            return Err(TrecError::Options(format!("consistency needs min_runs >= 2, got {}", opts.min_runs)));
        }
        Ok(Self { opts, groups: BTreeMap::new() })
    }

    /// Adds one run: the record (its system, id, run and answer) and its metric values by column
    /// name (`None` and non-finite values are skipped). `Err` when this `(system, id, run)` was
    /// already added or the names and values differ in length.
    pub fn push(&mut self, record: &Record, columns: &[String], values: &[Option<f64>]) -> Result<(), TrecError> {
        if columns.len() != values.len() {
            return Err(TrecError::Contract(format!("{} column names for {} values", columns.len(), values.len())));
        }
        let group = self.groups.entry((record.system.clone(), record.id.clone())).or_default();
        if group.iter().any(|e| e.run == record.run) {
            let run = record.run.map_or("(none)".to_string(), |r| r.to_string());
            return Err(TrecError::Record(format!(
                "duplicate run {run} of query {} of system {}",
                record.id, record.system
            )));
        }
        let values = columns
            .iter()
            .zip(values)
            .filter_map(|(c, v)| v.filter(|x| x.is_finite()).map(|x| (c.clone(), x)))
            .collect();
        group.push(Entry { run: record.run, answer: record.answer.clone(), values });
        Ok(())
    }

    /// [`ConsistencyAccumulator::push`] with a metric's output.
    pub fn push_output(&mut self, record: &Record, columns: &[String], output: &MetricOutput) -> Result<(), TrecError> {
        self.push(record, columns, &output.values)
    }

    /// Number of `(system, id)` groups so far.
    pub fn groups(&self) -> usize {
        self.groups.len()
    }

    /// Computes the rows and per-system aggregates; BERTScore only when `embedder` is given
    /// (all answers embedded in one call).
    pub fn finish(self, embedder: Option<&dyn TokenEmbedder>) -> Result<ConsistencyReport, TrecError> {
        let min_runs = self.opts.min_runs;
        let mut skipped_groups = 0;
        let mut kept = Vec::new();
        for ((system, id), mut entries) in self.groups {
            if entries.len() < min_runs {
                skipped_groups += 1;
                continue;
            }
            entries.sort_by_key(|e| e.run);
            kept.push((system, id, entries));
        }
        // One embedding call over every distinct non-empty answer.
        let mut index: BTreeMap<&str, usize> = BTreeMap::new();
        for (_, _, entries) in &kept {
            for e in entries.iter().filter(|e| !e.answer.trim().is_empty()) {
                let n = index.len();
                index.entry(e.answer.trim()).or_insert(n);
            }
        }
        let tokens: Option<Vec<TokenEmbedding>> = match embedder {
            Some(m) if !index.is_empty() => {
                let mut texts = vec![""; index.len()];
                for (t, &i) in &index {
                    texts[i] = t;
                }
                let out = m
                    .embed_tokens(&texts)
                    .map_err(|e| TrecError::Model(ragjudge_models::Reason::caused("token embedding failed", e)))?;
                if out.len() != texts.len() {
                    return Err(TrecError::Contract(format!(
                        "token embedder returned {} results for {} texts",
                        out.len(),
                        texts.len()
                    )));
                }
                Some(out)
            }
            _ => None,
        };
        let rouge = RougeScorer::new(self.opts.rouge_stemmer);
        let mut rows = Vec::new();
        for (system, id, entries) in &kept {
            let answered: Vec<&Entry> = entries.iter().filter(|e| !e.answer.trim().is_empty()).collect();
            let embs: Option<Vec<&TokenEmbedding>> =
                tokens.as_ref().map(|t| answered.iter().map(|e| &t[index[e.answer.trim()]]).collect());
            let idf = match (&embs, self.opts.bertscore_idf) {
                (Some(v), true) => Some(Idf::new(v)),
                _ => None,
            };
            let mut pairs = Vec::new();
            for i in 0..answered.len() {
                for j in i + 1..answered.len() {
                    let bertscore_f1 = match &embs {
                        Some(v) => {
                            bert_score(v[i], v[j], idf.as_ref()).and_then(|s| match self.opts.bertscore_baseline {
                                Some(b) => rescale(s.f1, b),
                                None => Some(s.f1),
                            })
                        }
                        None => None,
                    };
                    let r = rouge.score(&answered[i].answer, &answered[j].answer);
                    pairs.push(PairScore {
                        runs: (answered[i].run, answered[j].run),
                        bertscore_f1,
                        rouge1_f: r.rouge1.fmeasure,
                        rouge2_f: r.rouge2.fmeasure,
                        rougel_f: r.rouge_l.fmeasure,
                    });
                }
            }
            let mut similarity = BTreeMap::new();
            if answered.len() >= min_runs {
                let columns: [(&str, PairValue); 4] = [
                    ("bertscore_f1", |p| p.bertscore_f1),
                    ("rouge1_f", |p| Some(p.rouge1_f)),
                    ("rouge2_f", |p| Some(p.rouge2_f)),
                    ("rougel_f", |p| Some(p.rougel_f)),
                ];
                for (name, get) in columns {
                    let vals: Vec<f64> = pairs.iter().filter_map(get).collect();
                    // Every pair must have the value (a failed BERTScore drops the statistic).
                    if vals.len() == pairs.len() {
                        if let Some(s) = run_stats(&vals) {
                            similarity.insert(name.to_string(), s);
                        }
                    }
                }
            }
            let mut by_metric: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
            for e in entries {
                for (k, &v) in &e.values {
                    by_metric.entry(k.as_str()).or_default().push(v);
                }
            }
            let metrics = by_metric
                .into_iter()
                .filter(|(_, v)| v.len() >= min_runs)
                .filter_map(|(k, v)| run_stats(&v).map(|s| (k.to_string(), s)))
                .collect();
            rows.push(ConsistencyRow {
                system: system.clone(),
                id: id.clone(),
                runs: entries.iter().map(|e| e.run).collect(),
                pairs,
                similarity,
                metrics,
            });
        }
        let systems = aggregate(&rows);
        Ok(ConsistencyReport { rows, systems, skipped_groups, bertscore_model: embedder.map(|m| m.identity()) })
    }
}

fn aggregate_stats<'a>(stats: impl Iterator<Item = (&'a String, &'a RunStats)>) -> BTreeMap<String, SystemAggregate> {
    let mut by: BTreeMap<String, Vec<&RunStats>> = BTreeMap::new();
    for (k, s) in stats {
        by.entry(k.clone()).or_default().push(s);
    }
    by.into_iter()
        .map(|(k, v)| {
            let n = v.len() as f64;
            let cvs: Vec<f64> = v.iter().filter_map(|s| s.cv).collect();
            let agg = SystemAggregate {
                queries: v.len(),
                mean: v.iter().map(|s| s.mean).sum::<f64>() / n,
                variance: v.iter().map(|s| s.variance).sum::<f64>() / n,
                cv: (!cvs.is_empty()).then(|| cvs.iter().sum::<f64>() / cvs.len() as f64),
                cai: v.iter().map(|s| s.cai).sum::<f64>() / n,
            };
            (k, agg)
        })
        .collect()
}

fn aggregate(rows: &[ConsistencyRow]) -> Vec<SystemConsistency> {
    let mut by: BTreeMap<&str, Vec<&ConsistencyRow>> = BTreeMap::new();
    for r in rows {
        by.entry(r.system.as_str()).or_default().push(r);
    }
    by.into_iter()
        .map(|(system, rs)| SystemConsistency {
            system: system.to_string(),
            queries: rs.len(),
            similarity: aggregate_stats(rs.iter().flat_map(|r| r.similarity.iter())),
            metrics: aggregate_stats(rs.iter().flat_map(|r| r.metrics.iter())),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::test_support::FakeTokenEmbedder;

    fn rec(system: &str, id: &str, run: u32, answer: &str) -> Record {
        Record { id: id.into(), system: system.into(), answer: answer.into(), run: Some(run), ..Default::default() }
    }

    #[test]
    fn stats_by_hand() {
        // Values 0.2, 0.4, 0.9: mean = 1.5/3 = 0.5; squared deviations 0.09, 0.01, 0.16;
        // population variance = 0.26/3 = 0.086667; std = 0.294392; CV = 0.588784;
        // CAI = 0.5 / 1.294392 = 0.386282 (numpy 2.4: 0.38628174).
        let s = run_stats(&[0.2, 0.4, 0.9]).unwrap();
        assert!((s.mean - 0.5).abs() < 1e-12);
        assert!((s.variance - 0.26 / 3.0).abs() < 1e-12);
        assert!((s.std - (0.26f64 / 3.0).sqrt()).abs() < 1e-12);
        assert!((s.cv.unwrap() - 0.588_784).abs() < 1e-6);
        assert!((s.cai - 0.386_282).abs() < 1e-6);
        assert_eq!((s.min, s.max, s.n), (0.2, 0.9, 3));
        assert_eq!(run_stats(&[0.0, 0.0, 0.0]).unwrap().cv, None);
        assert_eq!(run_stats(&[]), None);
        assert_eq!(run_stats(&[1.0, f64::NAN]), None);
    }

    fn cols() -> Vec<String> {
        vec!["hallucination_score".into(), "answered".into()]
    }

    #[test]
    fn groups_metrics_and_system_aggregates() {
        let mut acc = ConsistencyAccumulator::new(ConsistencyOptions::default()).unwrap();
        // S1/q1: 3 runs; hallucination 0.2, 0.4, 0.9 (stats above); answered 1, 1, 0 with one None.
        acc.push(&rec("S1", "q1", 2, "b c"), &cols(), &[Some(0.4), Some(1.0)]).unwrap();
        acc.push(&rec("S1", "q1", 1, "a b"), &cols(), &[Some(0.2), None]).unwrap();
        acc.push(&rec("S1", "q1", 3, "a b"), &cols(), &[Some(0.9), Some(1.0)]).unwrap();
        // S1/q2: 3 runs, hallucination 1, 1, 1 (variance 0, CV 0, CAI 1).
        for run in 1..=3 {
            acc.push(&rec("S1", "q2", run, "x"), &cols(), &[Some(1.0), Some(0.0)]).unwrap();
        }
        // S2/q1: 2 runs only: skipped.
        acc.push(&rec("S2", "q1", 1, "x"), &cols(), &[Some(1.0), Some(1.0)]).unwrap();
        acc.push(&rec("S2", "q1", 2, "x"), &cols(), &[Some(1.0), Some(1.0)]).unwrap();
        assert!(acc
            .push(&rec("S2", "q1", 2, "y"), &cols(), &[None, None])
            .unwrap_err()
            .to_string()
            .contains("duplicate run 2"));
        let report = acc.finish(None).unwrap();
        assert_eq!(report.skipped_groups, 1);
        assert_eq!(report.rows.len(), 2);
        let r = &report.rows[0];
        assert_eq!(r.runs, vec![Some(1), Some(2), Some(3)]);
        let h = &r.metrics["hallucination_score"];
        assert!((h.variance - 0.26 / 3.0).abs() < 1e-12);
        // `answered` has only 2 values in q1 (< min_runs 3): no statistic.
        assert!(!r.metrics.contains_key("answered"));
        // Pairs (1,2) "a b"/"b c": ROUGE-1 F = 1/2; (1,3) identical: 1; (2,3): 1/2.
        // Mean 2/3; population variance ((1/6)^2 * 2 + (1/3)^2) / 3 = (1/18 + 1/9) / 3 = 1/18.
        let r1 = &r.similarity["rouge1_f"];
        assert!((r1.mean - 2.0 / 3.0).abs() < 1e-12);
        assert!((r1.variance - 1.0 / 18.0).abs() < 1e-12);
        assert!(!r.similarity.contains_key("bertscore_f1"));
        // ROUGE-2 of "a b" vs "b c": no shared bigram, 0; identical: 1. Mean 1/3.
        assert!((r.similarity["rouge2_f"].mean - 1.0 / 3.0).abs() < 1e-12);
        assert!(r.flat().iter().any(|(k, _)| k == "consistency_hallucination_score_cv"));

        let s1 = &report.systems[0];
        assert_eq!((s1.system.as_str(), s1.queries), ("S1", 2));
        let agg = &s1.metrics["hallucination_score"];
        // Means 0.5 and 1 -> 0.75; variances 0.086667 and 0 -> 0.043333; CVs 0.588784 and 0 ->
        // 0.294392; CAIs 0.386282 and 1 -> 0.693141.
        assert_eq!(agg.queries, 2);
        assert!((agg.mean - 0.75).abs() < 1e-12);
        assert!((agg.variance - 0.26 / 6.0).abs() < 1e-12);
        assert!((agg.cv.unwrap() - 0.294_392).abs() < 1e-6);
        assert!((agg.cai - 0.693_141).abs() < 1e-6);
        assert_eq!(report.systems.len(), 1);
    }

    #[test]
    fn pairwise_bertscore_with_a_token_embedder() {
        // Words: "cat" (1,0,0), "dog" (0.6,0.8,0), specials (0,0,1)... unknown words (0,0,1).
        // Answers "cat", "cat", "dog": pairs (cat,cat) F = 1; (cat,dog): P = max(cos(cat,dog) = 0.6,
        // cos(cat,[CLS]/[SEP]) = 0) = 0.6, R = 0.6, F = 0.6; same for the third pair.
        // Mean (1 + 0.6 + 0.6) / 3 = 0.733333; with baseline 0.5: (1, 0.2, 0.2) -> mean 0.466667.
        let emb = FakeTokenEmbedder {
            vectors: vec![("cat".into(), vec![1.0, 0.0, 0.0]), ("dog".into(), vec![0.6, 0.8, 0.0])],
            cls: vec![0.0, 0.0, 1.0],
        };
        for (baseline, want) in [(None, 2.2 / 3.0), (Some(0.5), 1.4 / 3.0)] {
            let opts = ConsistencyOptions { bertscore_baseline: baseline, ..Default::default() };
            let mut acc = ConsistencyAccumulator::new(opts).unwrap();
            for (run, a) in [(1, "cat"), (2, "cat"), (3, "dog"), (4, "  ")] {
                acc.push(&rec("S", "q", run, a), &[], &[]).unwrap();
            }
            let report = acc.finish(Some(&emb)).unwrap();
            let row = &report.rows[0];
            // The empty answer of run 4 joins no pair.
            assert_eq!(row.pairs.len(), 3);
            assert!((row.similarity["bertscore_f1"].mean - want).abs() < 1e-6, "{:?}", row.similarity);
            assert_eq!(report.bertscore_model.as_deref(), Some("fake-tokens"));
        }
    }

    #[test]
    fn too_small_min_runs_is_refused() {
        assert!(ConsistencyAccumulator::new(ConsistencyOptions { min_runs: 1, ..Default::default() }).is_err());
    }
}
