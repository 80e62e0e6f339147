//! `ragjudge._native`: the Python bindings of the ragjudge engine. Thin on purpose: records go
//! to `ragjudge_eval::Evaluator` (scoring), `ragjudge_dice` (pairwise judging),
//! `ragjudge_stats::calibration` (calibration), `ragjudge_fusion` (metric fusion),
//! `ragjudge_testgen` (test generation), `ragjudge_analysis` (weakness) and, for Ray Data,
//! `ragjudge_eval::batches` over Arrow blocks (`ray`); the pure-Python `ragjudge` package around
//! it builds the pandas DataFrames.
//!
//! Every long computation runs with the GIL released (`Python::detach`), so other Python threads
//! go on while records are scored or judged.
#![deny(missing_docs)]

mod calibrate;
mod defaults;
mod dice;
mod error;
mod fuse;
mod ray;
mod score;
mod testgen;
mod weakness;

use pyo3::prelude::*;

/// The module `ragjudge._native`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("RecordError", m.py().get_type::<error::RecordError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(score::score, m)?)?;
    m.add_function(wrap_pyfunction!(score::metric_families, m)?)?;
    m.add_class::<score::ScoreOptions>()?;
    m.add_class::<ray::BatchScorer>()?;
    m.add_class::<ray::ArrowBatch>()?;
    m.add_function(wrap_pyfunction!(ray::summary_state, m)?)?;
    m.add_function(wrap_pyfunction!(ray::summary_from_states, m)?)?;
    m.add_function(wrap_pyfunction!(ray::merge_caches, m)?)?;
    m.add_function(wrap_pyfunction!(calibrate::calibrate_fit, m)?)?;
    m.add_function(wrap_pyfunction!(calibrate::calibrate_apply, m)?)?;
    m.add_function(wrap_pyfunction!(fuse::fuse_fit, m)?)?;
    m.add_function(wrap_pyfunction!(fuse::fuse_apply, m)?)?;
    m.add_function(wrap_pyfunction!(fuse::read_definitions, m)?)?;
    m.add_function(wrap_pyfunction!(testgen::testgen, m)?)?;
    m.add_function(wrap_pyfunction!(weakness::weakness, m)?)?;
    m.add_function(wrap_pyfunction!(dice::compare, m)?)?;
    m.add_function(wrap_pyfunction!(dice::tournament, m)?)?;
    // Private (not in `__all__`, no stub): read by the tests only.
    m.setattr("_library_defaults", wrap_pyfunction!(defaults::_library_defaults, m)?)?;
    Ok(())
}
