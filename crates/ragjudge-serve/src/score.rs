//! `POST /v1/score`: the request's records through the engine's [`Evaluator`], one row per record
//! with the columns `ragjudge score` writes to JSONL.

use crate::error::{ApiError, ServeError};
use ragjudge_core::{record_from_json, Metric, Record};
use ragjudge_eval::families::{select, split_arguments, MetricSettings};
use ragjudge_eval::models::{ModelSet, ModelSettings};
use ragjudge_eval::{row_object, EvalError, EvalSettings, Evaluator, MemorySink, NoProgress, Row};
use serde::Serialize;
use serde_json::{Map, Value};

/// System name of a record that gives none.
pub const DEFAULT_SYSTEM: &str = "request";

/// The metrics chosen at start, ready to score records of any request.
#[derive(Debug)]
pub struct Scorer {
    evaluator: Evaluator,
    families: Vec<Family>,
}

/// A metric family as a request names it (`"metrics": ["lexical"]`): its metrics and columns.
#[derive(Debug)]
struct Family {
    name: String,
    /// Names of its metrics (the keys of `detail`, the prefixes of `error`).
    metrics: Vec<String>,
    /// Indices of its columns among the scorer's.
    columns: Vec<usize>,
}

/// The columns a request asked for (`"metrics"`): indices of the scorer's columns, and the
/// metrics whose detail and errors go with them.
#[derive(Debug, Clone, PartialEq)]
pub struct Selection {
    columns: Vec<usize>,
    metrics: Vec<String>,
}

/// A parsed `POST /v1/score` body.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreRequest {
    /// The records, in order.
    pub records: Vec<Record>,
    /// Whether rows keep each metric family's evidence (`detail`).
    pub detail: bool,
    /// The metric families whose columns to send (`None`: all of them).
    pub metrics: Option<Vec<String>>,
}

/// The answer of `POST /v1/score`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScoreResponse {
    /// The value columns, in order.
    pub columns: Vec<String>,
    /// Records scored.
    pub records: usize,
    /// Records on which at least one metric failed (their `error` says why).
    pub failed: usize,
    /// One row per record, in request order: `id`, `system`, `run`?, one value per column
    /// (`null`: not applicable or failed), `detail`?, `error`?.
    pub rows: Vec<Map<String, Value>>,
}

impl Scorer {
    /// A scorer of `metrics`, each its own family (named by [`Metric::name`]), scored on `threads`
    /// worker threads (`None`: all cores).
    pub fn from_metrics(metrics: Vec<Box<dyn Metric>>, threads: Option<usize>) -> Result<Self, ServeError> {
        let families = metrics.into_iter().map(|m| (m.name().to_string(), vec![m])).collect();
        Self::from_families(families, threads)
    }

    /// The metrics of `names` (the syntax of `--metrics`, `fused:FILE` included) with their
    /// models loaded once, scored on `threads` worker threads (`None`: all cores).
    pub fn from_names<S: AsRef<str>>(
        names: &[S],
        mut settings: MetricSettings,
        models: ModelSettings,
        threads: Option<usize>,
    ) -> Result<Self, ServeError> {
        let names = split_arguments(names, &mut settings)?;
        let models = ModelSet::new(models);
        let families = select(&names)?
            .into_iter()
            .map(|f| Ok((f.name().to_string(), f.build(&settings, &models)?)))
            .collect::<Result<Vec<_>, EvalError>>()?;
        Self::from_families(families, threads)
    }

    fn from_families(
        families: Vec<(String, Vec<Box<dyn Metric>>)>,
        threads: Option<usize>,
    ) -> Result<Self, ServeError> {
        let mut index = Vec::new();
        let mut all = Vec::new();
        let mut next = 0;
        for (name, metrics) in families {
            let width: usize = metrics.iter().map(|m| m.columns().len()).sum();
            let names = metrics.iter().map(|m| m.name().to_string()).collect();
            index.push(Family { name, metrics: names, columns: (next..next + width).collect() });
            next += width;
            all.extend(metrics);
        }
        // One replicate: the summary is not sent, so its intervals would be wasted work.
        let eval = EvalSettings { bootstrap: 1, threads, ..EvalSettings::default() };
        Ok(Scorer { evaluator: Evaluator::new(all, eval)?, families: index })
    }

    /// The names a request may select in `"metrics"`, in column order.
    pub fn family_names(&self) -> Vec<&str> {
        self.families.iter().map(|f| f.name.as_str()).collect()
    }

    /// The columns of the families `names` (any order, repeats allowed); 422 naming the first
    /// unknown one.
    pub fn select(&self, names: &[String]) -> Result<Selection, ApiError> {
        let mut chosen = vec![false; self.families.len()];
        for name in names {
            let Some(i) = self.families.iter().position(|f| &f.name == name) else {
                return Err(ApiError::unprocessable(format!(
                    "field `metrics`: unknown metric `{name}`; this server scores {}",
                    self.family_names().join(", ")
                )));
            };
            chosen[i] = true;
        }
        let picked = self.families.iter().zip(chosen).filter(|(_, c)| *c).map(|(f, _)| f);
        let (mut columns, mut metrics) = (Vec::new(), Vec::new());
        for family in picked {
            columns.extend(&family.columns);
            metrics.extend(family.metrics.iter().cloned());
        }
        Ok(Selection { columns, metrics })
    }

    /// The value columns of every row.
    pub fn columns(&self) -> &[String] {
        self.evaluator.columns()
    }

    /// Scores `records` (at least one) into rows; a metric's failure on a record is that row's
    /// `error`. Blocking CPU work: call it off the async executor.
    pub fn score(&self, records: Vec<Record>, detail: bool) -> Result<ScoreResponse, EvalError> {
        self.score_selected(records, detail, None)
    }

    /// As [`Scorer::score`], keeping only the columns, detail and errors of `selection` (`None`:
    /// all). Every metric still runs: the selection trims the answer, not the work.
    pub fn score_selected(
        &self,
        records: Vec<Record>,
        detail: bool,
        selection: Option<&Selection>,
    ) -> Result<ScoreResponse, EvalError> {
        let mut sink = MemorySink::default();
        self.evaluator.evaluate_records(records, Some(&mut sink), Vec::new(), &NoProgress)?;
        let all = self.evaluator.columns();
        let keep: Vec<usize> = match selection {
            Some(s) => s.columns.clone(),
            None => (0..all.len()).collect(),
        };
        let columns: Vec<String> = keep.iter().map(|&i| all[i].clone()).collect();
        // `detail` is keyed by metric name and every error starts with `NAME: `.
        let wanted = |metric: &str| selection.is_none_or(|s| s.metrics.iter().any(|m| m == metric));
        let empty = Map::new();
        let mut failed = 0;
        let rows = sink
            .rows
            .iter()
            .map(|r| {
                let values: Vec<Option<f64>> = keep.iter().map(|&i| r.values[i]).collect();
                let trimmed: Map<String, Value>;
                let details = match (detail, selection) {
                    (false, _) => &empty,
                    (true, None) => &r.detail,
                    (true, Some(_)) => {
                        trimmed =
                            r.detail.iter().filter(|(k, _)| wanted(k)).map(|(k, v)| (k.clone(), v.clone())).collect();
                        &trimmed
                    }
                };
                let errors: Vec<String> =
                    r.errors.iter().filter(|e| wanted(e.split(": ").next().unwrap_or(""))).cloned().collect();
                failed += usize::from(!errors.is_empty());
                let row =
                    Row { id: &r.id, system: &r.system, run: r.run, values: &values, detail: details, errors: &errors };
                row_object(&columns, row)
            })
            .collect();
        Ok(ScoreResponse { records: sink.rows.len(), failed, columns, rows })
    }

    /// Scores one small record, so that every model a metric needs is loaded before the first
    /// request; returns the reasons of metrics that failed on it.
    pub fn warm_up(&self) -> Result<Vec<String>, EvalError> {
        let record = Record {
            id: "warm-up".into(),
            system: DEFAULT_SYSTEM.into(),
            query: "What colour is the sky?".into(),
            contexts: vec![ragjudge_core::Context {
                id: Some("d1".into()),
                text: "The sky is blue on a clear day.".into(),
                relevance: Some(3.0),
            }],
            answer: "The sky is blue [1].".into(),
            reference: Some("Blue.".into()),
            ..Record::default()
        };
        let response = self.score(vec![record], false)?;
        Ok(response.rows.iter().filter_map(|r| r.get("error").and_then(Value::as_str).map(String::from)).collect())
    }
}

/// Parses a `POST /v1/score` body: `{"records": [RECORD, ...], "detail": bool?, "metrics":
/// [NAME, ...]?}`, each record as one JSONL line holds it. Malformed JSON is 400; any other problem
/// (an unknown top-level field included) 422 naming the record index and field, e.g.
/// `records[2]: field `query`: expected a string, found number`. Whether the metrics named exist
/// is for [`Scorer::select`] to say.
pub fn parse_score_request(body: &[u8]) -> Result<ScoreRequest, ApiError> {
    let value: Value = serde_json::from_slice(body).map_err(|e| {
        let full = e.to_string();
        ApiError::bad_request(format!("malformed JSON: {full}"))
    })?;
    let Value::Object(mut top) = value else {
        return Err(ApiError::unprocessable(format!(
            "expected a JSON object with a `records` array, found {}",
            type_name(&value)
        )));
    };
    let detail = match top.remove("detail") {
        None | Some(Value::Null) => true,
        Some(Value::Bool(b)) => b,
        Some(other) => {
            return Err(ApiError::unprocessable(format!(
                "field `detail`: expected a boolean, found {}",
                type_name(&other)
            )))
        }
    };
    let metrics = match top.remove("metrics") {
        None | Some(Value::Null) => None,
        Some(Value::Array(items)) if items.is_empty() => {
            return Err(ApiError::unprocessable("field `metrics`: empty; leave it out to get every metric"))
        }
        Some(Value::Array(items)) => Some(
            items
                .into_iter()
                .enumerate()
                .map(|(i, v)| match v {
                    Value::String(name) => Ok(name),
                    other => Err(ApiError::unprocessable(format!(
                        "field `metrics[{i}]`: expected a string, found {}",
                        type_name(&other)
                    ))),
                })
                .collect::<Result<Vec<_>, _>>()?,
        ),
        Some(other) => {
            return Err(ApiError::unprocessable(format!(
                "field `metrics`: expected an array of names, found {}",
                type_name(&other)
            )))
        }
    };
    let items = match top.remove("records") {
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(ApiError::unprocessable(format!(
                "field `records`: expected an array, found {}",
                type_name(&other)
            )))
        }
        None => return Err(ApiError::unprocessable("field `records`: missing")),
    };
    if let Some(key) = top.keys().next() {
        return Err(ApiError::unprocessable(format!(
            "field `{key}`: unknown; a request has `records`, `detail` and `metrics`"
        )));
    }
    if items.is_empty() {
        return Err(ApiError::unprocessable("field `records`: empty; send at least one record"));
    }
    let records = items
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            record_from_json(v, &format!("records[{i}]"), (i + 1).to_string(), DEFAULT_SYSTEM)
                .map_err(|e| ApiError::unprocessable(e.to_string()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(ScoreRequest { records, detail, metrics })
}

pub(crate) use ragjudge_core::read::type_name;

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::StatusCode;
    use ragjudge_core::{MetricError, MetricOutput};

    fn err(body: &str) -> ApiError {
        parse_score_request(body.as_bytes()).unwrap_err()
    }

    #[test]
    fn malformed_json_is_400_with_its_position() {
        let e = err("{\"records\": [");
        assert_eq!(e.status, StatusCode::BAD_REQUEST);
        assert!(e.message.starts_with("malformed JSON: EOF while parsing"), "{}", e.message);
        assert!(e.message.contains("line 1 column 13"), "{}", e.message);
    }

    #[test]
    fn wrong_shapes_are_422_naming_index_and_field() {
        let e = err("[1, 2]");
        assert_eq!(e.status, StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(e.message, "expected a JSON object with a `records` array, found array");
        assert_eq!(err("{}").message, "field `records`: missing");
        assert_eq!(err("{\"records\": {}}").message, "field `records`: expected an array, found object");
        assert_eq!(err("{\"records\": []}").message, "field `records`: empty; send at least one record");
        let e = err(r#"{"records": [{"query": "q", "answer": "a"}, {"query": 5, "answer": "a"}]}"#);
        assert_eq!(e.message, "records[1]: field `query`: expected a string, found number");
        let e = err(r#"{"records": [{"query": "q"}]}"#);
        assert_eq!(e.message, "records[0]: field `answer`: missing");
        let e = err(r#"{"records": [{"query": "q", "answer": "a", "contexts": [{"id": "x"}]}]}"#);
        assert_eq!(e.message, "records[0]: field `contexts[0].text`: missing");
        assert_eq!(err(r#"{"records": [], "detail": 1}"#).message, "field `detail`: expected a boolean, found number");
    }

    #[test]
    fn metrics_and_unknown_fields() {
        let r = parse_score_request(br#"{"records": [{"query": "q", "answer": "a"}], "metrics": ["ciu"]}"#).unwrap();
        assert_eq!(r.metrics, Some(vec!["ciu".to_string()]));
        assert_eq!(parse_score_request(br#"{"records": [{"query": "q", "answer": "a"}]}"#).unwrap().metrics, None);
        let e = err(r#"{"records": [{"query": "q", "answer": "a"}], "metrics": ["ciu", 3]}"#);
        assert_eq!(
            (e.status, e.message.as_str()),
            (StatusCode::UNPROCESSABLE_ENTITY, "field `metrics[1]`: expected a string, found number")
        );
        assert_eq!(
            err(r#"{"records": [], "metrics": "ciu"}"#).message,
            "field `metrics`: expected an array of names, found string"
        );
        assert_eq!(
            err(r#"{"records": [], "metrics": []}"#).message,
            "field `metrics`: empty; leave it out to get every metric"
        );
        let e = err(r#"{"records": [{"query": "q", "answer": "a"}], "metric": ["ciu"]}"#);
        assert_eq!(e.message, "field `metric`: unknown; a request has `records`, `detail` and `metrics`");
    }

    /// Two columns `NAME_a`, `NAME_b` valued 1 and 2, with detail `{"v": 1}`; fails on query `fail`.
    struct Two(&'static str);

    impl Metric for Two {
        fn name(&self) -> &str {
            self.0
        }
        fn columns(&self) -> Vec<String> {
            vec![format!("{}_a", self.0), format!("{}_b", self.0)]
        }
        fn score(&self, record: &Record) -> Result<MetricOutput, MetricError> {
            if record.query == "fail" {
                return Err(MetricError::Record("no good".into()));
            }
            Ok(MetricOutput { values: vec![Some(1.0), Some(2.0)], detail: Some(serde_json::json!({"v": 1})) })
        }
    }

    #[test]
    fn a_selection_keeps_the_named_families_only() {
        let metrics: Vec<Box<dyn Metric>> = vec![Box::new(Two("x")), Box::new(Two("y")), Box::new(Two("z"))];
        let scorer = Scorer::from_metrics(metrics, Some(1)).unwrap();
        assert_eq!(scorer.family_names(), ["x", "y", "z"]);
        let e = scorer.select(&["z".into(), "nope".into()]).unwrap_err();
        assert_eq!(e.status, StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(e.message, "field `metrics`: unknown metric `nope`; this server scores x, y, z");

        // Named z then x: the columns keep the scorer's order.
        let selection = scorer.select(&["z".into(), "x".into()]).unwrap();
        let record = |q: &str| Record { id: "r".into(), system: "s".into(), query: q.into(), ..Record::default() };
        let r = scorer.score_selected(vec![record("ok")], true, Some(&selection)).unwrap();
        assert_eq!(r.columns, ["x_a", "x_b", "z_a", "z_b"]);
        let row = Value::Object(r.rows[0].clone());
        assert_eq!(row["x_a"], 1.0);
        assert_eq!(row["z_b"], 2.0);
        assert!(row.get("y_a").is_none(), "{row}");
        let detail: Vec<&String> = row["detail"].as_object().unwrap().keys().collect();
        assert_eq!(detail, ["x", "z"]);

        // Every metric fails on the record: the row names the selected ones only.
        let r = scorer.score_selected(vec![record("fail")], false, Some(&selection)).unwrap();
        assert_eq!((r.records, r.failed), (1, 1));
        assert_eq!(r.rows[0]["error"], "x: no good; z: no good");
        let all = scorer.score(vec![record("fail")], false).unwrap();
        assert_eq!(all.rows[0]["error"], "x: no good; y: no good; z: no good");
    }

    #[test]
    fn records_get_default_ids_and_system() {
        let r = parse_score_request(br#"{"records": [{"query": "q", "answer": "a"}, {"id": 7, "system": "s", "query": "q", "answer": "b"}], "detail": false}"#).unwrap();
        assert!(!r.detail);
        assert_eq!((r.records[0].id.as_str(), r.records[0].system.as_str()), ("1", DEFAULT_SYSTEM));
        assert_eq!((r.records[1].id.as_str(), r.records[1].system.as_str()), ("7", "s"));
    }
}
