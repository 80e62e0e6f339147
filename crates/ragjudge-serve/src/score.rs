//! `POST /v1/score`: the request's records through the engine's [`Evaluator`], one row per record
//! with the columns `ragjudge score` writes to JSONL.

use crate::error::{ApiError, ServeError};
use ragjudge_core::{record_from_json, Record};
use ragjudge_eval::families::{build_metrics, split_arguments, MetricSettings};
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
}

/// A parsed `POST /v1/score` body.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreRequest {
    /// The records, in order.
    pub records: Vec<Record>,
    /// Whether rows keep each metric family's evidence (`detail`).
    pub detail: bool,
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
    /// A scorer over `evaluator` (its bootstrap is not used: rows only).
    pub fn new(evaluator: Evaluator) -> Self {
        Scorer { evaluator }
    }

    /// The metrics of `names` (the syntax of `--metrics`, `fused:FILE` included) with their
    /// models loaded once, scored on `threads` worker threads (`None`: all cores).
    pub fn from_names<S: AsRef<str>>(
        names: &[S],
        mut settings: MetricSettings,
        models: ModelSettings,
        threads: Option<usize>,
    ) -> Result<Self, ServeError> {
        let families = split_arguments(names, &mut settings)?;
        let models = ModelSet::new(models);
        let metrics = build_metrics(&families, &settings, &models)?;
        // One replicate: the summary is not sent, so its intervals would be wasted work.
        let eval = EvalSettings { bootstrap: 1, threads, ..EvalSettings::default() };
        Ok(Scorer::new(Evaluator::new(metrics, eval)?))
    }

    /// The value columns of every row.
    pub fn columns(&self) -> &[String] {
        self.evaluator.columns()
    }

    /// Scores `records` (at least one) into rows; a metric's failure on a record is that row's
    /// `error`. Blocking CPU work: call it off the async executor.
    pub fn score(&self, records: Vec<Record>, detail: bool) -> Result<ScoreResponse, EvalError> {
        let mut sink = MemorySink::default();
        self.evaluator.evaluate_records(records, Some(&mut sink), Vec::new(), &NoProgress)?;
        let columns = self.evaluator.columns().to_vec();
        let empty = Map::new();
        let failed = sink.rows.iter().filter(|r| !r.errors.is_empty()).count();
        let rows = sink
            .rows
            .iter()
            .map(|r| {
                let row = Row {
                    id: &r.id,
                    system: &r.system,
                    run: r.run,
                    values: &r.values,
                    detail: if detail { &r.detail } else { &empty },
                    errors: &r.errors,
                };
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

/// Parses a `POST /v1/score` body: `{"records": [RECORD, ...], "detail": bool?}`, each record as
/// one JSONL line holds it. Malformed JSON is 400; any other problem 422 naming the record index
/// and field, e.g. `records[2]: field `query`: expected a string, found number`.
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
    Ok(ScoreRequest { records, detail })
}

pub(crate) use ragjudge_core::read::type_name;

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::StatusCode;

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
    fn records_get_default_ids_and_system() {
        let r = parse_score_request(br#"{"records": [{"query": "q", "answer": "a"}, {"id": 7, "system": "s", "query": "q", "answer": "b"}], "detail": false}"#).unwrap();
        assert!(!r.detail);
        assert_eq!((r.records[0].id.as_str(), r.records[0].system.as_str()), ("1", DEFAULT_SYSTEM));
        assert_eq!((r.records[1].id.as_str(), r.records[1].system.as_str()), ("7", "s"));
    }
}
