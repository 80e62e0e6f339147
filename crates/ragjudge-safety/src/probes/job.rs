//! The probes as library calls shared by every face (HCAT §4): [`generate_probes`] writes each
//! record that mentions listed terms followed by its swapped variants; [`probe_report`] compares
//! the variants with their originals into a [`ProbeReport`] (artifact kind `probe-report`).

use super::generate::Swapper;
use super::report::{report, ProbeReport, ScoreTable};
use super::{terms, META_VARIANT, ORIGINAL};
use crate::error::SafetyError;
use ragjudge_artifacts::{check_not_input, write_artifact, ArtifactError, AtomicFile, Provenance};
use ragjudge_core::{InputError, ReadOptions, Record, RecordReader};
use serde::Serialize;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Why a probe job failed.
#[derive(Debug, thiserror::Error)]
pub enum ProbeJobError {
    /// Records that cannot be read.
    #[error(transparent)]
    Input(#[from] InputError),
    /// The comparison itself (an unknown score column).
    #[error(transparent)]
    Report(#[from] SafetyError),
    /// A threshold that is negative or not a number.
    #[error("threshold must be a non-negative number, got {0}")]
    Threshold(f64),
    /// No variant could be paired with its original.
    #[error("no variant/original pairs found (records need probe_* meta from `probes generate`, and scores for both)")]
    NoPairs,
    /// Settings that cannot be recorded in the report's provenance.
    #[error("cannot record the settings: {0}")]
    Settings(#[source] serde_json::Error),
    /// An output that cannot be written.
    #[error(transparent)]
    Artifact(#[from] ArtifactError),
    /// A record that cannot be written.
    #[error("{}: cannot write: {source}", path.display())]
    Write {
        /// The output.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

/// Every record of `path` (any input layout); the first bad record is the error.
pub fn read_records(path: &Path) -> Result<Vec<Record>, InputError> {
    RecordReader::open(path, &ReadOptions::default())?.collect()
}

/// What `probes generate` wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GenerateSummary {
    /// Records read.
    pub records: usize,
    /// Records that mention listed terms (written as originals).
    pub probed: usize,
    /// Variants written.
    pub variants: usize,
    /// The version of the term lists.
    pub terms: &'static str,
}

/// Writes every record of `records` that mentions listed terms, tagged as the original, followed
/// by its variants (answers emptied), to `output` as JSONL, atomically.
pub fn generate_probes(records: &[Record], output: &Path) -> Result<GenerateSummary, ProbeJobError> {
    let out = Swapper::default().generate(records);
    let mut w = AtomicFile::create(output)?;
    for r in &out {
        serde_json::to_writer(&mut w, r)
            .map_err(std::io::Error::from)
            .and_then(|()| w.write_all(b"\n"))
            .map_err(|source| ProbeJobError::Write { path: output.into(), source })?;
    }
    w.commit()?;
    let probed = out.iter().filter(|r| r.meta.get(META_VARIANT) == Some(&Value::from(ORIGINAL))).count();
    Ok(GenerateSummary { records: records.len(), probed, variants: out.len() - probed, terms: terms::VERSION })
}

/// The settings of a probe report (its provenance's `settings`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReportSettings {
    /// Score columns compared; empty: every column of the score table.
    pub columns: Vec<String>,
    /// Flag groups whose |mean score difference| exceeds this on some column.
    pub threshold: Option<f64>,
}

/// Compares the probe variants of `records` with their originals on the chosen columns of
/// `scores`; a report without a single pair is an error.
pub fn probe_report(
    records: &[Record],
    scores: &ScoreTable,
    settings: &ReportSettings,
) -> Result<ProbeReport, ProbeJobError> {
    if let Some(t) = settings.threshold {
        if !(t.is_finite() && t >= 0.0) {
            return Err(ProbeJobError::Threshold(t));
        }
    }
    let columns = if settings.columns.is_empty() { &scores.columns } else { &settings.columns };
    let r = report(records, scores, columns, settings.threshold)?;
    if r.pairs.is_empty() {
        return Err(ProbeJobError::NoPairs);
    }
    Ok(r)
}

/// Writes `report` to `output` as its artifact, with the inputs (hashed) and settings as its
/// provenance; an output that is one of the inputs is refused.
pub fn write_report(
    output: &Path,
    report: &ProbeReport,
    inputs: &[&Path],
    settings: &ReportSettings,
) -> Result<(), ProbeJobError> {
    check_not_input(output, inputs)?;
    let mut p = Provenance::version_only();
    p.add_inputs(inputs)?;
    p.settings = serde_json::to_value(settings).map_err(ProbeJobError::Settings)?;
    Ok(write_artifact(output, &p, report)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ragjudge_artifacts::read_artifact;
    use std::collections::BTreeMap;

    fn rec(id: &str, query: &str) -> Record {
        Record { id: id.into(), system: "s".into(), query: query.into(), answer: "A.".into(), ..Record::default() }
    }

    #[test]
    fn generate_writes_originals_then_variants_and_counts_them() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("v.jsonl");
        let records = [rec("q1", "Is he a good doctor?"), rec("q2", "What is two plus two?")];
        let s = generate_probes(&records, &out).unwrap();
        // q1 mentions "he" (gender) only; q2 no listed term.
        assert_eq!((s.records, s.probed), (2, 1));
        let lines: Vec<Value> =
            std::fs::read_to_string(&out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines.len(), 1 + s.variants);
        assert_eq!(lines[0]["meta"][META_VARIANT], ORIGINAL);
        assert!(s.variants >= 1);
    }

    #[test]
    fn a_report_is_written_as_its_artifact_and_bad_settings_are_refused() {
        let mut original = rec("q1", "Is he a doctor?");
        original.meta = BTreeMap::from([
            ("probe_group".to_string(), Value::from("gender")),
            ("probe_of".to_string(), Value::from("q1")),
            ("probe_variant".to_string(), Value::from("original")),
        ])
        .into_iter()
        .collect();
        let mut variant = rec("q1~g", "Is she a doctor?");
        variant.meta = BTreeMap::from([
            ("probe_group".to_string(), Value::from("gender")),
            ("probe_of".to_string(), Value::from("q1")),
            ("probe_variant".to_string(), Value::from("male->female")),
        ])
        .into_iter()
        .collect();
        let mut table = ScoreTable::new(vec!["f".into()]);
        table.insert("q1", "s", vec![Some(0.75)]);
        table.insert("q1~g", "s", vec![Some(0.5)]);
        let settings = ReportSettings { columns: Vec::new(), threshold: Some(0.1) };
        let records = [original, variant];
        let r = probe_report(&records, &table, &settings).unwrap();
        // By hand: 0.5 - 0.75 = -0.25, beyond the threshold 0.1.
        assert_eq!(r.pairs[0].diffs, vec![Some(-0.25)]);
        assert!(r.groups.iter().all(|g| g.flagged));
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("report.json");
        write_report(&out, &r, &[], &settings).unwrap();
        assert_eq!(read_artifact::<ProbeReport>(&out).unwrap().body, r);
        let bad = ReportSettings { columns: Vec::new(), threshold: Some(-1.0) };
        let e = probe_report(&records, &table, &bad).unwrap_err();
        assert_eq!(e.to_string(), "threshold must be a non-negative number, got -1");
        let e = probe_report(&records[..1], &table, &settings).unwrap_err();
        assert!(matches!(e, ProbeJobError::NoPairs));
    }
}
