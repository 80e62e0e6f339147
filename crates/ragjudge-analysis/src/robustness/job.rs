//! `robustness` as one job shared by every face: two score files joined with the records that
//! were scored (for their variant meta, question and answer), the metrics in common chosen, and
//! the analysis run (HCAT §6.1); the report is the `robustness` artifact.

use super::{
    analyse, RobustnessError, RobustnessReport, RobustnessSettings, ScoreTable, ScoredRecord, VariantMeta, OOD,
};
use ragjudge_artifacts::Artifact;
use ragjudge_core::table::{has_column, read_table, DroppedRepeats, RecordIndex, RecordKey};
use ragjudge_core::{InputError, ReadOptions, RecordReader};
use ragjudge_eval::scores::read_score_file;
use ragjudge_eval::EvalError;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Columns that describe a variant rather than score it.
const META_COLUMNS: [&str; 4] = ["variant_of", "perturbation", "severity", "seed"];

impl Artifact for RobustnessReport {
    const KIND: &'static str = "robustness";
    const SCHEMA_VERSION: u32 = 1;

    /// Before versioning, `robustness.json` was the report alone.
    fn is_legacy(value: &Value) -> bool {
        value.get("deltas").is_some() && value.get("exclusions").is_some()
    }
}

/// Why a robustness job failed.
#[derive(Debug, thiserror::Error)]
pub enum RobustnessJobError {
    /// The records could not be read.
    #[error(transparent)]
    Records(#[from] InputError),
    /// A score file could not be read.
    #[error(transparent)]
    Scores(#[from] EvalError),
    /// A score file whose rows read differently as scores and as cells.
    #[error("{}: rows could not be read alike as scores and as cells", file.display())]
    Rows {
        /// The score file.
        file: PathBuf,
    },
    /// No variant among the variants' rows.
    #[error("{}: no variant: give the records with --input (meta.variant_of, meta.perturbation) or columns `variant_of` and `perturbation`", file.display())]
    NoVariant {
        /// The variants' score file.
        file: PathBuf,
    },
    /// No metric to compare, and variants that are not out-of-distribution queries.
    #[error("{}: no numeric column in common with {}: name metrics with --metric", variants.display(), original.display())]
    NoMetric {
        /// The variants' score file.
        variants: PathBuf,
        /// The originals' score file.
        original: PathBuf,
    },
    /// The analysis refused its input or settings.
    #[error(transparent)]
    Analysis(#[from] RobustnessError),
}

/// What a robustness job reads and how it compares.
#[derive(Debug, Clone)]
pub struct RobustnessJob {
    /// Per-record scores of the original records.
    pub original: PathBuf,
    /// Per-record scores of the variant records.
    pub variants: PathBuf,
    /// The records that were scored (originals and variants), for `meta.variant_of`,
    /// `meta.perturbation`, `meta.severity` and the texts of the worst pairs.
    pub inputs: Vec<PathBuf>,
    /// The analysis; no [`RobustnessSettings::metrics`]: every numeric column of both files.
    pub settings: RobustnessSettings,
}

/// A finished robustness job.
#[derive(Debug, Clone)]
pub struct RobustnessOutcome {
    /// The report.
    pub report: RobustnessReport,
    /// Records left out because an earlier one had their id, system and run.
    pub repeats: Vec<DroppedRepeats>,
}

/// What the records say about a key: variant meta, question and answer.
type Known = RecordIndex<(VariantMeta, String, String)>;

/// A meta value as text (`None` for null or blank).
fn text(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::Null => None,
        Value::String(s) if s.trim().is_empty() => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

impl RobustnessJob {
    /// Joins, pairs and compares.
    pub fn run(&self) -> Result<RobustnessOutcome, RobustnessJobError> {
        let known = records(&self.inputs)?;
        let originals = table(&self.original, true, &known)?;
        let variants = table(&self.variants, false, &known)?;
        if variants.rows.iter().all(|r| r.variant.variant_of.is_none() && r.variant.perturbation.is_none()) {
            return Err(RobustnessJobError::NoVariant { file: self.variants.clone() });
        }
        let mut settings = self.settings.clone();
        if settings.metrics.is_empty() {
            let both = originals.columns.iter().filter(|c| variants.columns.contains(c));
            settings.metrics = both.filter(|c| !META_COLUMNS.contains(&c.as_str())).cloned().collect();
        }
        if settings.metrics.is_empty() && variants.rows.iter().any(|r| r.variant.perturbation.as_deref() != Some(OOD)) {
            return Err(RobustnessJobError::NoMetric {
                variants: self.variants.clone(),
                original: self.original.clone(),
            });
        }
        let report = analyse(&originals, &variants, &settings)?;
        Ok(RobustnessOutcome { report, repeats: known.into_parts().1 })
    }
}

/// The records' meta, question and answer by (id, system, run); the first of a repeated key.
fn records(paths: &[PathBuf]) -> Result<Known, RobustnessJobError> {
    let mut out = Known::new();
    for path in paths {
        let file = path.display().to_string();
        for r in RecordReader::open(path, &ReadOptions::default())? {
            let r = r?;
            let meta = VariantMeta {
                variant_of: text(r.meta.get("variant_of")),
                perturbation: text(r.meta.get("perturbation")),
                severity: text(r.meta.get("severity")),
            };
            let key = RecordKey::with_run(r.id, r.system, r.run.map(|n| n.to_string()));
            out.insert(&file, key, (meta, r.query, r.answer));
        }
    }
    Ok(out)
}

/// A score file with each row's run and variant meta (from `known`, else from its own columns).
fn table(path: &Path, metrics_only: bool, known: &Known) -> Result<ScoreTable, RobustnessJobError> {
    let scores = read_score_file(path)?;
    let mut cols = vec!["id", "system"];
    for c in ["run", "variant_of", "perturbation", "severity"] {
        if has_column(path, c)? {
            cols.push(c);
        }
    }
    let cells = read_table(path, &cols)?;
    if cells.rows.len() != scores.rows.len() {
        return Err(RobustnessJobError::Rows { file: path.to_path_buf() });
    }
    let at = |name: &str| cols.iter().position(|c| *c == name);
    let mut rows = Vec::with_capacity(scores.rows.len());
    for (r, (_, c)) in scores.rows.into_iter().zip(&cells.rows) {
        let cell = |name: &str| at(name).and_then(|i| c[i].clone()).filter(|s| !s.trim().is_empty());
        let run = cell("run");
        let key = RecordKey::with_run(r.id.clone(), r.system.clone(), run.clone());
        let (variant, query, answer) = match known.get(&key) {
            Some((m, q, a)) => (m.clone(), Some(q.clone()), Some(a.clone())),
            None if metrics_only => (VariantMeta::default(), None, None),
            None => (
                VariantMeta {
                    variant_of: cell("variant_of"),
                    perturbation: cell("perturbation"),
                    severity: cell("severity"),
                },
                None,
                None,
            ),
        };
        rows.push(ScoredRecord { id: r.id, system: r.system, run, values: r.values, variant, query, answer });
    }
    let columns = scores.columns.into_iter().collect();
    Ok(ScoreTable { name: path.display().to_string(), columns, rows })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_record_keeps_its_first_meta_and_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let w = |name: &str, text: &str| {
            let p = dir.path().join(name);
            std::fs::write(&p, text).unwrap();
            p
        };
        let rec = |id: &str, of: &str, how: &str| {
            format!(
                "{{\"id\":\"{id}\",\"system\":\"s\",\"query\":\"q\",\"answer\":\"a\",\"meta\":{{\"variant_of\":\"{of}\",\"perturbation\":\"{how}\"}}}}\n"
            )
        };
        // v1 twice: first as a typo of q1, then as a shuffle; the first is used.
        let records = w("r.jsonl", &[rec("v1", "q1", "typo"), rec("v1", "q1", "shuffle")].concat());
        let original = w("o.csv", "id,system,m\nq1,s,1\n");
        let variants = w("v.csv", "id,system,m\nv1,s,0.5\n");
        let job = RobustnessJob { original, variants, inputs: vec![records.clone()], settings: Default::default() };
        let out = job.run().unwrap();
        assert_eq!(out.report.pairs, 1);
        assert_eq!(out.report.deltas[0].perturbation, "typo");
        assert_eq!(out.repeats.len(), 1);
        assert_eq!((out.repeats[0].key.id.as_str(), out.repeats[0].dropped), ("v1", 1));
        assert_eq!(out.repeats[0].file, records.display().to_string());
        assert!(RobustnessReport::is_legacy(&serde_json::to_value(&out.report).unwrap()));
    }
}
