//! Retrieval metrics against known relevant passages (relevance judgments, "qrels"), the TREC
//! definitions as trec_eval computes them (Voorhees & Harman, *TREC: Experiment and Evaluation in
//! Information Retrieval*, 2005, ch. 3), and RAGAS' id-based context recall.
//!
//! The grade-based metrics of [`crate::retrieval`] can only see the passages a system retrieved:
//! their recall is "relevant passages in the top K / relevant passages *in the list*", so a system
//! that finds one of the two passages a multi-hop question needs still gets recall 1. With the
//! question's relevant passage ids (`relevant` in a question file, testgen's `meta.source_ids`, or
//! a TREC qrels file) recall is measured against everything the question needs:
//!
//! * `qrels_precision@K = relevant ids in the top K / K` (missing ranks count as non-relevant,
//!   trec_eval's `P_K`; with [`ShortList::Undefined`] a list shorter than K gives `None`);
//! * `qrels_recall@K = relevant ids in the top K / relevant ids of the question` (trec_eval's
//!   `recall_K`; the same short-list rule);
//! * `qrels_recall = relevant ids anywhere in the list / relevant ids of the question` (RAGAS'
//!   `IDBasedContextRecall`).
//!
//! A question absent from the qrels, or with no relevant passage (an unanswerable question), has
//! nothing to recall: every value is `None`, as trec_eval leaves out topics without relevant
//! documents. A passage without an id never matches; a passage id listed twice in a ranking counts
//! once, at its first rank.

use crate::retrieval::{RetrievalOptions, ShortList};
use ragjudge_core::{known_relevant, InputError, Metric, MetricError, MetricOutput, Record};
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};
use std::io::BufRead;
use std::sync::Arc;

/// The column of recall over the whole list (what `ragjudge score` counts as judged records).
pub const RECALL_COLUMN: &str = "qrels_recall";

/// The relevant passage ids of each question id.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Qrels {
    relevant: HashMap<String, HashSet<String>>,
}

impl Qrels {
    /// Qrels from `(question id, relevant passage ids)` pairs; ids of one question add up.
    pub fn from_pairs<I, S>(pairs: I) -> Self
    where
        I: IntoIterator<Item = (S, Vec<S>)>,
        S: Into<String>,
    {
        let mut relevant: HashMap<String, HashSet<String>> = HashMap::new();
        for (q, ids) in pairs {
            relevant.entry(q.into()).or_default().extend(ids.into_iter().map(Into::into));
        }
        Self { relevant }
    }

    /// The relevant ids of question `id`; `None` when the question is not judged.
    pub fn get(&self, id: &str) -> Option<&HashSet<String>> {
        self.relevant.get(id)
    }

    /// Reads a question file or a TREC qrels file; the layout is decided by the first non-blank
    /// character (`{` for JSONL).
    ///
    /// * JSONL: one question per line with `id` and its relevant ids ([`known_relevant`]: a
    ///   `relevant` list, else `meta.source_ids` unless the question is unanswerable).
    /// * TREC: `query-id iteration passage-id grade` per line, whitespace separated; a passage is
    ///   relevant when `grade >= level` (trec_eval's `-l`, 1 by default there).
    ///
    /// Every problem is an error naming the file, line and field; a question listed twice in a
    /// JSONL file is one.
    pub fn read(reader: impl BufRead, file: &str, level: f64) -> Result<Self, InputError> {
        let mut lines = Vec::new();
        for (i, line) in reader.lines().enumerate() {
            let n = i as u64 + 1;
            let line =
                line.map_err(|e| InputError::fatal(file, Some(n), format!("not UTF-8 text or unreadable: {e}")))?;
            if !line.trim().is_empty() {
                lines.push((n, line));
            }
        }
        let Some((_, first)) = lines.first() else {
            return Err(InputError::fatal(file, None, "no relevance judgments"));
        };
        if first.trim_start_matches('\u{feff}').trim_start().starts_with('{') {
            Self::from_jsonl(&lines, file)
        } else {
            Self::from_trec(&lines, file, level)
        }
    }

    fn from_jsonl(lines: &[(u64, String)], file: &str) -> Result<Self, InputError> {
        let mut relevant = HashMap::new();
        for (n, line) in lines {
            let at = |field: &str, message: String| InputError::new(file, Some(*n), Some(field.into()), message);
            let v: Value = serde_json::from_str(line.trim_start_matches('\u{feff}'))
                .map_err(|e| InputError::new(file, Some(*n), None, format!("not JSON: {e}")))?;
            let Some(map) = v.as_object() else {
                return Err(InputError::new(file, Some(*n), None, "expected a JSON object"));
            };
            let id = match map.get("id") {
                Some(Value::String(s)) if !s.is_empty() => s.clone(),
                Some(Value::Number(x)) => x.to_string(),
                _ => return Err(at("id", "missing or empty".into())),
            };
            if let Some(r) = map.get("relevant") {
                if !r.as_array().is_some_and(|a| a.iter().all(Value::is_string)) {
                    return Err(at("relevant", "expected a list of passage ids".into()));
                }
            }
            let no_meta = Map::new();
            let meta = map.get("meta").and_then(Value::as_object).unwrap_or(&no_meta);
            let ids: HashSet<String> = known_relevant(map.get("relevant"), meta).into_iter().collect();
            if relevant.insert(id.clone(), ids).is_some() {
                return Err(at("id", format!("question {id:?} is listed twice")));
            }
        }
        Ok(Self { relevant })
    }

    fn from_trec(lines: &[(u64, String)], file: &str, level: f64) -> Result<Self, InputError> {
        let mut relevant: HashMap<String, HashSet<String>> = HashMap::new();
        for (n, line) in lines {
            let parts: Vec<&str> = line.split_whitespace().collect();
            let [q, _iter, doc, grade] = parts[..] else {
                let msg = format!("expected `query-id iteration passage-id grade`, found {} fields", parts.len());
                return Err(InputError::new(file, Some(*n), None, msg));
            };
            let grade: f64 = grade.parse().ok().filter(|g: &f64| g.is_finite()).ok_or_else(|| {
                InputError::new(file, Some(*n), Some("grade".into()), format!("not a number: {grade:?}"))
            })?;
            // A question judged with no relevant passage is still judged.
            let ids = relevant.entry(q.to_string()).or_default();
            if grade >= level {
                ids.insert(doc.to_string());
            }
        }
        Ok(Self { relevant })
    }
}

/// The qrels metrics of one ranked list (module docs).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QrelsScores {
    /// `(K, precision@K, recall@K)` for each requested K.
    pub at_k: Vec<(usize, Option<f64>, Option<f64>)>,
    /// Recall over the whole list.
    pub recall: Option<f64>,
    /// Relevant ids of the question.
    pub relevant: usize,
    /// Relevant ids retrieved anywhere in the list.
    pub retrieved_relevant: usize,
    /// Relevant ids the list missed, sorted.
    pub missed: Vec<String>,
}

/// Computes the qrels metrics of `ranking` (passage ids in rank order, `None` for a passage
/// without id) against `relevant`; `None` when `relevant` is empty.
pub fn qrels_scores(
    ranking: &[Option<&str>],
    relevant: &HashSet<String>,
    ks: &[usize],
    short_list: ShortList,
) -> Option<QrelsScores> {
    if relevant.is_empty() {
        return None;
    }
    // hit[i]: rank i holds a relevant id not seen at an earlier rank.
    let mut seen = HashSet::new();
    let hit: Vec<bool> =
        ranking.iter().map(|id| id.is_some_and(|id| relevant.contains(id) && seen.insert(id))).collect();
    let total = relevant.len() as f64;
    let hits_in = |n: usize| hit[..n].iter().filter(|&&h| h).count() as f64;
    let opts = RetrievalOptions { short_list, ..RetrievalOptions::default() };
    let at_k = ks
        .iter()
        .map(|&k| match crate::retrieval::cutoff(ranking.len(), k, &opts) {
            Some(n) => (k, Some(hits_in(n) / k as f64), Some(hits_in(n) / total)),
            None => (k, None, None),
        })
        .collect();
    let mut missed: Vec<String> = relevant.iter().filter(|id| !seen.contains(id.as_str())).cloned().collect();
    missed.sort();
    Some(QrelsScores {
        at_k,
        recall: Some(seen.len() as f64 / total),
        relevant: relevant.len(),
        retrieved_relevant: seen.len(),
        missed,
    })
}

/// [`Metric`] over [`Record::contexts`]' ids against the record's question in [`Qrels`].
///
/// Columns: `qrels_precision@K`, `qrels_recall@K` for each K, then `qrels_recall`.
#[derive(Debug, Clone)]
pub struct QrelsMetric {
    /// Cut-offs.
    pub ks: Vec<usize>,
    /// Lists shorter than K.
    pub short_list: ShortList,
    /// The judgments.
    pub qrels: Arc<Qrels>,
}

impl Metric for QrelsMetric {
    fn name(&self) -> &str {
        "qrels"
    }

    fn columns(&self) -> Vec<String> {
        let mut c = Vec::new();
        for k in &self.ks {
            c.push(format!("qrels_precision@{k}"));
            c.push(format!("qrels_recall@{k}"));
        }
        c.push(RECALL_COLUMN.to_string());
        c
    }

    fn score(&self, record: &Record) -> Result<MetricOutput, MetricError> {
        let ranking: Vec<Option<&str>> = record.contexts.iter().map(|c| c.id.as_deref()).collect();
        let scores = self.qrels.get(&record.id).and_then(|rel| qrels_scores(&ranking, rel, &self.ks, self.short_list));
        let Some(s) = scores else {
            return Ok(MetricOutput { values: vec![None; self.ks.len() * 2 + 1], detail: None });
        };
        let mut values: Vec<Option<f64>> = s.at_k.iter().flat_map(|&(_, p, r)| [p, r]).collect();
        values.push(s.recall);
        Ok(MetricOutput { values, detail: Some(serde_json::to_value(&s)?) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(ids: &[&str]) -> HashSet<String> {
        ids.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_multi_hop_question_with_one_of_two_passages_found_has_recall_one_half() {
        // Ranking: related, relevant a, unrelated; b is never retrieved.
        let ranking = [Some("r"), Some("a"), Some("u")];
        let s = qrels_scores(&ranking, &set(&["a", "b"]), &[1, 3, 5], ShortList::PadNonRelevant).unwrap();
        // P@1 = 0/1, R@1 = 0/2; P@3 = 1/3, R@3 = 1/2; P@5 = 1/5 (padded), R@5 = 1/2.
        assert_eq!(s.at_k, vec![(1, Some(0.0), Some(0.0)), (3, Some(1.0 / 3.0), Some(0.5)), (5, Some(0.2), Some(0.5))]);
        assert_eq!(s.recall, Some(0.5));
        assert_eq!(s.missed, vec!["b".to_string()]);
        let u = qrels_scores(&ranking, &set(&["a", "b"]), &[5], ShortList::Undefined).unwrap();
        assert_eq!(u.at_k, vec![(5, None, None)]);
    }

    #[test]
    fn duplicates_count_once_and_passages_without_id_never_match() {
        let ranking = [Some("a"), None, Some("a"), Some("b")];
        let s = qrels_scores(&ranking, &set(&["a", "b", "c"]), &[3, 4], ShortList::PadNonRelevant).unwrap();
        assert_eq!(s.at_k, vec![(3, Some(1.0 / 3.0), Some(1.0 / 3.0)), (4, Some(0.5), Some(2.0 / 3.0))]);
        assert_eq!(s.retrieved_relevant, 2);
        assert!(qrels_scores(&ranking, &HashSet::new(), &[3], ShortList::PadNonRelevant).is_none());
    }

    #[test]
    fn reads_question_files_and_trec_qrels() {
        let jsonl = "{\"id\": \"q1\", \"query\": \"?\", \"relevant\": [\"d1#2\", \"d1#3\"]}\n\n\
                     {\"id\": \"q2\", \"meta\": {\"source_ids\": [\"c:0\"]}}\n\
                     {\"id\": \"q3\", \"meta\": {\"source_ids\": [\"c:1\"], \"query_type\": \"unanswerable\"}}\n";
        let q = Qrels::read(jsonl.as_bytes(), "q.jsonl", 1.0).unwrap();
        assert_eq!(q.get("q1"), Some(&set(&["d1#2", "d1#3"])));
        assert_eq!(q.get("q2"), Some(&set(&["c:0"])));
        assert_eq!(q.get("q3"), Some(&HashSet::new()));
        let trec = "q1 0 d1#2 2\nq1 0 d1#4 1\nq1 0 d2#1 0\nq2 0 d3#1 0\n";
        let t = Qrels::read(trec.as_bytes(), "q.txt", 2.0).unwrap();
        assert_eq!(t.get("q1"), Some(&set(&["d1#2"])));
        assert_eq!(t.get("q2"), Some(&HashSet::new()));
        assert_eq!(Qrels::read(trec.as_bytes(), "q.txt", 1.0).unwrap().get("q1"), Some(&set(&["d1#2", "d1#4"])));
    }

    #[test]
    fn bad_lines_name_file_line_and_field() {
        let e = Qrels::read("q1 0 d1 2\nq2 0 d2 high\n".as_bytes(), "q.txt", 1.0).unwrap_err();
        assert_eq!((e.line, e.field.as_deref()), (Some(2), Some("grade")));
        let e = Qrels::read("q1 0 d1\n".as_bytes(), "q.txt", 1.0).unwrap_err();
        assert_eq!(e.line, Some(1));
        assert!(e.to_string().contains("q.txt"), "{e}");
        let e = Qrels::read("{\"id\": \"q1\"}\n{\"id\": \"q1\"}\n".as_bytes(), "q.jsonl", 1.0).unwrap_err();
        assert_eq!((e.line, e.field.as_deref()), (Some(2), Some("id")));
        let e = Qrels::read("{\"id\": \"q1\", \"relevant\": \"d1\"}\n".as_bytes(), "q.jsonl", 1.0).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("relevant"));
        assert!(Qrels::read("\n\n".as_bytes(), "q.jsonl", 1.0).is_err());
    }

    #[test]
    fn the_metric_leaves_unjudged_and_unanswerable_questions_empty() {
        let qrels = Arc::new(Qrels::from_pairs([("q1", vec!["a", "b"]), ("q2", vec![])]));
        let m = QrelsMetric { ks: vec![1, 2], short_list: ShortList::PadNonRelevant, qrels };
        assert_eq!(
            m.columns(),
            ["qrels_precision@1", "qrels_recall@1", "qrels_precision@2", "qrels_recall@2", "qrels_recall"]
        );
        let record = |id: &str| -> Record {
            serde_json::from_value(serde_json::json!({
                "id": id, "query": "?", "answer": "", "contexts": [{"id": "b", "text": "t"}, {"id": "x", "text": "u"}]
            }))
            .unwrap()
        };
        let out = m.score(&record("q1")).unwrap();
        assert_eq!(out.values, vec![Some(1.0), Some(0.5), Some(0.5), Some(0.5), Some(0.5)]);
        assert_eq!(m.score(&record("q2")).unwrap().values, vec![None; 5]);
        assert_eq!(m.score(&record("q9")).unwrap().values, vec![None; 5]);
    }
}
