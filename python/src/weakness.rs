//! `weakness`: `ragjudge_analysis::analyse` (HCAT §6.2): per system, each stratum and pair of
//! strata tested against the rest (Mann-Whitney U, Benjamini-Hochberg over all tests).

use crate::error::value_error;
use pyo3::prelude::*;
use ragjudge_analysis::{analyse, WeaknessRow, WeaknessSettings};

/// Weakness analysis of one metric: `systems[i]` scored `values[i]` on a record whose strata are
/// `strata[i]` (one per dimension of `by`, `None` when unknown). Returns the report as JSON text,
/// the `report` of `ragjudge weakness --json`.
#[pyfunction]
#[pyo3(signature = (systems, values, strata, by, *, alpha=0.05, min_n=5, bootstrap=1000, seed=0))]
#[allow(clippy::too_many_arguments)]
pub fn weakness(
    py: Python<'_>,
    systems: Vec<String>,
    values: Vec<f64>,
    strata: Vec<Vec<Option<String>>>,
    by: Vec<String>,
    alpha: f64,
    min_n: usize,
    bootstrap: usize,
    seed: u64,
) -> PyResult<String> {
    if systems.len() != values.len() || systems.len() != strata.len() {
        return Err(value_error(format!(
            "{} systems, {} values and {} strata rows: they must be as many",
            systems.len(),
            values.len(),
            strata.len()
        )));
    }
    if let Some(i) = strata.iter().position(|s| s.len() != by.len()) {
        return Err(value_error(format!("row {i}: {} strata for {} dimensions", strata[i].len(), by.len())));
    }
    let rows: Vec<WeaknessRow> = systems
        .into_iter()
        .zip(values)
        .zip(strata)
        .map(|((system, value), strata)| WeaknessRow { system, value, strata })
        .collect();
    let settings = WeaknessSettings { dimensions: by, alpha, min_n, bootstrap, seed, ..WeaknessSettings::default() };
    let report = py.detach(|| analyse(&rows, &settings)).map_err(value_error)?;
    serde_json::to_string(&report).map_err(value_error)
}
