//! The files of a robustness analysis (HCAT §6.1): `robustness.json` (the whole report),
//! `deltas.csv` (a row per metric x system x perturbation x severity), `worst.csv` (the pairs
//! with the largest drops) and `ood.csv` (out-of-distribution queries per system).

use super::RobustnessReport;
use crate::files_error::stage;
pub use crate::files_error::FilesError;
use ragjudge_artifacts::{to_json_bytes, OutputSet, Provenance};
use std::path::Path;

fn cell(x: Option<f64>) -> String {
    x.map(|v| v.to_string()).unwrap_or_default()
}

fn text(x: &Option<String>) -> String {
    x.clone().unwrap_or_default()
}

/// The CSV columns of `deltas.csv`.
pub const DELTA_COLUMNS: [&str; 19] = [
    "metric",
    "system",
    "perturbation",
    "severity",
    "n",
    "empty",
    "original_mean",
    "variant_mean",
    "delta",
    "ci_low",
    "ci_high",
    "worse",
    "worse_share",
    "flip_n",
    "original_correct",
    "correct_to_incorrect",
    "incorrect_to_correct",
    "flip_rate",
    "reverse_flip_rate",
];

/// `robustness.json` (the artifact), `deltas.csv`, `worst.csv` and `ood.csv` in `dir`.
pub fn write_files(dir: &Path, report: &RobustnessReport, provenance: &Provenance) -> Result<(), FilesError> {
    std::fs::create_dir_all(dir).map_err(|e| FilesError::new(dir, e))?;
    // Every file complete before any is put in place (`OutputSet`).
    let mut set = OutputSet::new();
    let json_path = dir.join("robustness.json");
    let json = to_json_bytes(provenance, report).map_err(|e| FilesError::new(&json_path, e))?;
    set.push_bytes(&json_path, &json).map_err(|e| FilesError::new(&json_path, e))?;

    let p = dir.join("deltas.csv");
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(DELTA_COLUMNS).map_err(|e| FilesError::new(&p, e))?;
    for d in &report.deltas {
        let f = d.flips.as_ref();
        let count = |x: Option<usize>| x.map(|v| v.to_string()).unwrap_or_default();
        w.write_record([
            d.metric.clone(),
            d.system.clone(),
            d.perturbation.clone(),
            d.severity.clone(),
            d.n.to_string(),
            d.empty.to_string(),
            cell(d.original_mean),
            cell(d.variant_mean),
            cell(d.delta),
            cell(d.ci_low),
            cell(d.ci_high),
            d.worse.to_string(),
            cell(d.worse_share),
            count(f.map(|f| f.n)),
            count(f.map(|f| f.original_correct)),
            count(f.map(|f| f.correct_to_incorrect)),
            count(f.map(|f| f.incorrect_to_correct)),
            cell(f.map(|f| f.rate)),
            cell(f.map(|f| f.reverse_rate)),
        ])
        .map_err(|e| FilesError::new(&p, e))?;
    }
    stage(w, &p, &mut set)?;

    let p = dir.join("worst.csv");
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "metric",
        "system",
        "perturbation",
        "severity",
        "original_id",
        "variant_id",
        "run",
        "original",
        "variant",
        "delta",
        "original_query",
        "variant_query",
        "original_answer",
        "variant_answer",
    ])
    .map_err(|e| FilesError::new(&p, e))?;
    for x in &report.worst {
        w.write_record([
            x.metric.clone(),
            x.system.clone(),
            x.perturbation.clone(),
            x.severity.clone(),
            x.original_id.clone(),
            x.variant_id.clone(),
            text(&x.run),
            x.original.to_string(),
            x.variant.to_string(),
            x.delta.to_string(),
            text(&x.original_query),
            text(&x.variant_query),
            text(&x.original_answer),
            text(&x.variant_answer),
        ])
        .map_err(|e| FilesError::new(&p, e))?;
    }
    stage(w, &p, &mut set)?;

    let p = dir.join("ood.csv");
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "system",
        "severity",
        "n",
        "abstention_column",
        "abstention_n",
        "abstained",
        "abstention_rate",
        "hallucination_column",
        "hallucination_n",
        "hallucination_mean",
    ])
    .map_err(|e| FilesError::new(&p, e))?;
    for o in &report.ood {
        let a = o.abstention.as_ref();
        let h = o.hallucination.as_ref();
        w.write_record([
            o.system.clone(),
            o.severity.clone(),
            o.n.to_string(),
            a.map(|a| a.rule.column.clone()).unwrap_or_default(),
            a.map(|a| a.n.to_string()).unwrap_or_default(),
            a.map(|a| a.abstained.to_string()).unwrap_or_default(),
            cell(a.and_then(|a| a.rate)),
            h.map(|h| h.column.clone()).unwrap_or_default(),
            h.map(|h| h.n.to_string()).unwrap_or_default(),
            cell(h.and_then(|h| h.mean)),
        ])
        .map_err(|e| FilesError::new(&p, e))?;
    }
    stage(w, &p, &mut set)?;
    set.commit().map_err(|e| FilesError::new(dir, e))
}
