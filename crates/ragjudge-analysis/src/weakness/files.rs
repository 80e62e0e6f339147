//! The files of a weakness analysis: `weakness.json` (every report), `marginal.csv` and
//! `bivariate.csv` (a row per slice or cell, every metric).

use super::job::WeaknessArtifact;
use crate::files_error::stage;
pub use crate::files_error::FilesError;
use ragjudge_artifacts::{to_json_bytes, OutputSet, Provenance};
use std::path::Path;

/// `weakness.json` (the artifact), `marginal.csv` and `bivariate.csv` in `dir`.
pub fn write_files(dir: &Path, artifact: &WeaknessArtifact, provenance: &Provenance) -> Result<(), FilesError> {
    std::fs::create_dir_all(dir).map_err(|e| FilesError::new(dir, e))?;
    // Every file complete before any is put in place (`OutputSet`).
    let mut set = OutputSet::new();
    let json_path = dir.join("weakness.json");
    let bytes = to_json_bytes(provenance, artifact).map_err(|e| FilesError::new(&json_path, e))?;
    set.push_bytes(&json_path, &bytes).map_err(|e| FilesError::new(&json_path, e))?;
    // Shortest round-trip text, with an exponent for very small or large values (p-values far
    // below 1e-5 would otherwise be written as hundreds of digits).
    let num = |v: f64| format!("{v:?}");
    let cell = |x: Option<f64>| x.map(num).unwrap_or_default();
    let (mp, bp) = (dir.join("marginal.csv"), dir.join("bivariate.csv"));
    let mut m = csv::Writer::from_writer(Vec::new());
    m.write_record([
        "metric",
        "system",
        "dimension",
        "stratum",
        "n",
        "mean",
        "ci_low",
        "ci_high",
        "rest_n",
        "rest_mean",
        "difference",
        "p_value",
        "p_adjusted",
        "effect",
        "small",
        "significant",
    ])
    .map_err(|e| FilesError::new(&mp, e))?;
    let mut b = csv::Writer::from_writer(Vec::new());
    b.write_record([
        "metric",
        "system",
        "dimension_a",
        "stratum_a",
        "dimension_b",
        "stratum_b",
        "n",
        "mean",
        "rest_mean",
        "difference",
        "p_value",
        "p_adjusted",
        "small",
        "significant",
    ])
    .map_err(|e| FilesError::new(&bp, e))?;
    for w in &artifact.reports {
        let (metric, r) = (&w.metric, &w.report);
        for s in &r.marginal {
            m.write_record([
                metric.to_string(),
                s.system.clone(),
                s.dimension.clone(),
                s.stratum.clone(),
                s.n.to_string(),
                num(s.mean),
                num(s.ci_low),
                num(s.ci_high),
                s.rest_n.to_string(),
                cell(s.rest_mean),
                cell(s.difference),
                cell(s.p_value),
                cell(s.p_adjusted),
                cell(s.effect),
                s.small.to_string(),
                s.significant.to_string(),
            ])
            .map_err(|e| FilesError::new(&mp, e))?;
        }
        for c in &r.bivariate {
            b.write_record([
                metric.to_string(),
                c.system.clone(),
                c.dimensions[0].clone(),
                c.strata[0].clone(),
                c.dimensions[1].clone(),
                c.strata[1].clone(),
                c.n.to_string(),
                num(c.mean),
                cell(c.rest_mean),
                cell(c.difference),
                cell(c.p_value),
                cell(c.p_adjusted),
                c.small.to_string(),
                c.significant.to_string(),
            ])
            .map_err(|e| FilesError::new(&bp, e))?;
        }
    }
    stage(m, &mp, &mut set)?;
    stage(b, &bp, &mut set)?;
    set.commit().map_err(|e| FilesError::new(dir, e))
}
