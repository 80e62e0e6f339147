//! `weakness` as one job shared by every face: a score file (and the records that were scored,
//! for their strata) read in one pass, every metric analysed (HCAT §6.2), the reports as the
//! `weakness` artifact.

use super::{analyse_table, StrataTable, WeaknessError, WeaknessReport, WeaknessSettings};
use ragjudge_artifacts::Artifact;
use ragjudge_core::table::{DroppedRepeats, RecordIndex, RecordKey};
use ragjudge_core::{InputError, ReadOptions, RecordReader};
use ragjudge_eval::scores::scan_score_file;
use ragjudge_eval::EvalError;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Why a weakness job failed.
#[derive(Debug, thiserror::Error)]
pub enum WeaknessJobError {
    /// The records could not be read.
    #[error(transparent)]
    Records(#[from] InputError),
    /// The score file could not be read.
    #[error(transparent)]
    Scores(#[from] EvalError),
    /// No record has the meta key of a dimension.
    #[error("no record of --input has a `meta.{dimension}` (strata: --by)")]
    NoMeta {
        /// The dimension.
        dimension: String,
    },
    /// No score row has a value in the column of a dimension.
    #[error("{}: missing column `{column}`: no row has a value there (--by names columns of the score file, or meta keys of the --input records)", file.display())]
    NoColumn {
        /// The score file.
        file: PathBuf,
        /// The column.
        column: String,
    },
    /// A metric without a single number.
    #[error("{}: no numeric column `{metric}`", file.display())]
    NotNumeric {
        /// The score file.
        file: PathBuf,
        /// The metric.
        metric: String,
    },
    /// The analysis refused its input or settings.
    #[error(transparent)]
    Analysis(#[from] WeaknessError),
}

/// One metric's analysis, with the rows it could not use.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MetricWeakness {
    /// The metric.
    pub metric: String,
    /// Rows without a value, or without strata.
    pub rows_left_out: usize,
    /// The analysis.
    pub report: WeaknessReport,
}

/// `weakness.json`: the analysis of every metric.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WeaknessArtifact {
    /// One analysis per metric, in the order of the metrics.
    pub reports: Vec<MetricWeakness>,
}

impl Artifact for WeaknessArtifact {
    const KIND: &'static str = "weakness";
    const SCHEMA_VERSION: u32 = 1;

    /// Before versioning, `weakness.json` was the array of reports alone.
    fn is_legacy(value: &Value) -> bool {
        value.as_array().is_some_and(|a| a.iter().all(|m| m.get("report").is_some_and(|r| r.get("marginal").is_some())))
    }

    fn migrate(value: Value, from: u32) -> Value {
        match (from, value) {
            (0, reports @ Value::Array(_)) => serde_json::json!({ "reports": reports }),
            (_, v) => v,
        }
    }
}

/// What a weakness job reads and how it analyses.
#[derive(Debug, Clone)]
pub struct WeaknessJob {
    /// Per-record scores (CSV or JSONL).
    pub scores: PathBuf,
    /// The records that were scored, for the strata in their `meta`; none: the strata are
    /// columns of the score file.
    pub inputs: Vec<PathBuf>,
    /// Metric columns to analyse (none: every numeric column).
    pub metrics: Vec<String>,
    /// Dimensions, levels and tests.
    pub settings: WeaknessSettings,
}

/// The rows of the analysis: each row's system and strata as codes ([`StrataTable`]) and its
/// value in each metric, so that millions of rows take tens of megabytes.
#[derive(Debug, Clone)]
pub struct WeaknessRows {
    /// Systems and strata.
    pub table: StrataTable,
    /// Per metric, a value per row of `table` (`None`: empty or not a number).
    pub metrics: Vec<(String, Vec<Option<f64>>)>,
    /// Score rows whose id and system no record has (left out of every metric).
    pub without_record: usize,
    /// Records left out because an earlier one had their id and system.
    pub repeats: Vec<DroppedRepeats>,
}

/// A finished weakness job: the artifact and the rows it was computed from (for charts).
#[derive(Debug, Clone)]
pub struct WeaknessOutcome {
    /// The reports.
    pub artifact: WeaknessArtifact,
    /// The rows analysed.
    pub rows: WeaknessRows,
}

/// A meta value as a stratum name (`None` for null or blank).
fn stratum(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) if s.trim().is_empty() => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

impl WeaknessJob {
    /// Reads the rows and analyses every metric.
    pub fn run(&self) -> Result<WeaknessOutcome, WeaknessJobError> {
        let rows = self.load()?;
        let mut reports = Vec::with_capacity(rows.metrics.len());
        for (metric, values) in &rows.metrics {
            let rows_left_out = rows.without_record + values.iter().filter(|v| v.is_none()).count();
            let report = analyse_table(&rows.table, values, &self.settings)?;
            reports.push(MetricWeakness { metric: metric.clone(), rows_left_out, report });
        }
        Ok(WeaknessOutcome { artifact: WeaknessArtifact { reports }, rows })
    }

    /// The strata of every record, from its meta, by (id, system); the first of a repeated key.
    fn record_strata(&self) -> Result<RecordIndex<Vec<Option<String>>>, WeaknessJobError> {
        let by = &self.settings.dimensions;
        let mut index = RecordIndex::new();
        let mut seen = vec![false; by.len()];
        for path in &self.inputs {
            let file = path.display().to_string();
            for r in RecordReader::open(path, &ReadOptions::default())? {
                let r = r?;
                let values: Vec<Option<String>> = by.iter().map(|d| r.meta.get(d).and_then(stratum)).collect();
                for (s, v) in seen.iter_mut().zip(&values) {
                    *s |= v.is_some();
                }
                index.insert(&file, RecordKey::new(r.id, r.system), values);
            }
        }
        if let Some(i) = seen.iter().position(|s| !s) {
            return Err(WeaknessJobError::NoMeta { dimension: by[i].clone() });
        }
        Ok(index)
    }

    fn load(&self) -> Result<WeaknessRows, WeaknessJobError> {
        let by = &self.settings.dimensions;
        let records = if self.inputs.is_empty() { None } else { Some(self.record_strata()?) };
        let mut table = StrataTable::new(by.len());
        let mut metrics: Vec<(String, Vec<Option<f64>>)> =
            self.metrics.iter().map(|m| (m.clone(), Vec::new())).collect();
        let (mut without_record, mut seen) = (0usize, vec![false; by.len()]);
        let path: &Path = &self.scores;
        scan_score_file(path, |row| {
            let system = row.text("system").unwrap_or_default();
            let strata: Vec<Option<String>> = match &records {
                Some(index) => match index.get(&RecordKey::new(row.text("id").unwrap_or_default(), system.clone())) {
                    Some(s) => s.clone(),
                    None => {
                        without_record += 1;
                        return Ok(());
                    }
                },
                None => by.iter().map(|c| row.text(c)).collect(),
            };
            for (s, v) in seen.iter_mut().zip(&strata) {
                *s |= v.is_some();
            }
            let refs: Vec<Option<&str>> = strata.iter().map(Option::as_deref).collect();
            table.push(&system, &refs).map_err(|e| EvalError::io(path, format!("line {}: {e}", row.line)))?;
            if self.metrics.is_empty() {
                for c in row.score_columns() {
                    let new = !metrics.iter().any(|(m, _)| m == c) && (records.is_some() || !by.iter().any(|b| b == c));
                    if new && row.holds_number(c) {
                        metrics.push((c.to_string(), vec![None; table.len() - 1]));
                    }
                }
            }
            for (name, values) in &mut metrics {
                values.push(row.number(path, name)?);
            }
            Ok(())
        })?;
        if records.is_none() {
            if let Some(i) = seen.iter().position(|s| !s) {
                return Err(WeaknessJobError::NoColumn { file: path.to_path_buf(), column: by[i].clone() });
            }
        }
        if let Some((m, _)) = metrics.iter().find(|(_, v)| v.iter().all(Option::is_none)) {
            return Err(WeaknessJobError::NotNumeric { file: path.to_path_buf(), metric: m.clone() });
        }
        let repeats = records.map(|r| r.into_parts().1).unwrap_or_default();
        Ok(WeaknessRows { table, metrics, without_record, repeats })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ragjudge_artifacts::{read_artifact_value, to_json_bytes, Provenance};

    fn job(dir: &Path, scores: &str, records: Option<&str>) -> WeaknessJob {
        let s = dir.join("scores.csv");
        std::fs::write(&s, scores).unwrap();
        let inputs = records
            .map(|text| {
                let p = dir.join("records.jsonl");
                std::fs::write(&p, text).unwrap();
                vec![p]
            })
            .unwrap_or_default();
        let settings =
            WeaknessSettings { dimensions: vec!["topic".into()], min_n: 1, bootstrap: 10, ..Default::default() };
        WeaknessJob { scores: s, inputs, metrics: Vec::new(), settings }
    }

    #[test]
    fn a_repeated_record_keeps_its_first_strata_and_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let rec = |id: &str, topic: &str| {
            format!("{{\"id\":\"{id}\",\"system\":\"s\",\"query\":\"q\",\"answer\":\"a\",\"meta\":{{\"topic\":\"{topic}\"}}}}\n")
        };
        // q1 twice: its first topic (x) is used; the repeat (y) is left out and reported.
        let records = [rec("q1", "x"), rec("q2", "y"), rec("q1", "y")].concat();
        let j = job(dir.path(), "id,system,m\nq1,s,1\nq2,s,0\nq3,s,0.5\n", Some(&records));
        let out = j.run().unwrap();
        let rows = &out.rows;
        assert_eq!((rows.table.len(), rows.without_record), (2, 1));
        assert_eq!(rows.table.stratum(0, 0), Some("x"));
        assert_eq!(rows.repeats.len(), 1);
        assert_eq!((rows.repeats[0].key.id.as_str(), rows.repeats[0].dropped), ("q1", 1));
        assert_eq!(out.artifact.reports[0].rows_left_out, 1);
    }

    #[test]
    fn strata_from_columns_and_a_missing_column_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let j = job(dir.path(), "id,system,topic,m\nq1,s,x,1\nq2,s,y,0\n", None);
        let out = j.run().unwrap();
        // `topic` is a dimension, not a metric.
        assert_eq!(out.artifact.reports.iter().map(|r| r.metric.as_str()).collect::<Vec<_>>(), ["m"]);
        let j = job(dir.path(), "id,system,m\nq1,s,1\n", None);
        let e = j.run().unwrap_err().to_string();
        assert!(e.contains("missing column `topic`"), "{e}");
    }

    #[test]
    fn the_legacy_array_reads_as_the_artifact() {
        let dir = tempfile::tempdir().unwrap();
        let out = job(dir.path(), "id,system,topic,m\nq1,s,x,1\nq2,s,y,0\n", None).run().unwrap();
        let legacy = serde_json::to_value(&out.artifact.reports).unwrap();
        assert!(WeaknessArtifact::is_legacy(&legacy));
        let doc = read_artifact_value::<WeaknessArtifact>(Path::new("weakness.json"), legacy).unwrap();
        assert_eq!((doc.schema_version, &doc.body), (1, &out.artifact));
        let bytes = to_json_bytes(&Provenance::version_only(), &out.artifact).unwrap();
        let v: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!((v["kind"].as_str(), v["schema_version"].as_u64()), (Some("weakness"), Some(1)));
        assert!(!WeaknessArtifact::is_legacy(&v));
    }
}
