//! Arrow batches in and out through the Arrow C data interface, for `ragjudge.ray`: records
//! arrive as a PyCapsule stream (`__arrow_c_stream__`, e.g. a pyarrow Table) or array
//! (`__arrow_c_array__`, a RecordBatch), are read into Rust by arrow-rs's FFI and scored by
//! `ragjudge_eval::batches`; the rows go back as an object with `__arrow_c_array__`. No Python
//! object is made per row, and the GIL is released while a block is scored.

use crate::error::{eval_error, runtime_error, value_error, Origin};
use crate::score::ScoreOptions;
use arrow_array::ffi::{from_ffi, to_ffi, FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::ffi_stream::{FFI_ArrowArrayStream, RecordBatchStreamReader};
use arrow_array::{Array, RecordBatch, RecordBatchReader, StructArray};
use arrow_schema::SchemaRef;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyCapsuleMethods, PyDict};
use ragjudge_eval::batches::{self, batch_to_rows, summarize_batch};
use ragjudge_eval::families::{build_metrics, split_arguments};
use ragjudge_eval::models::ModelSet;
use ragjudge_eval::{render_table, EvalError, Evaluator, Summarizer, SummaryState};
use ragjudge_store::CallCache;
use std::path::PathBuf;

/// The schema and record batches of `data`, an object of the Arrow PyCapsule interface.
fn import_batches(data: &Bound<'_, PyAny>) -> PyResult<(SchemaRef, Vec<RecordBatch>)> {
    if data.hasattr("__arrow_c_stream__")? {
        let capsule = data.call_method0("__arrow_c_stream__")?;
        let capsule = capsule.cast::<PyCapsule>()?;
        let stream = capsule.pointer_checked(Some(c"arrow_array_stream"))?;
        // SAFETY: the capsule holds a valid ArrowArrayStream (the capsule interface's contract);
        // `from_raw` moves it out and marks the capsule's copy released.
        let reader = unsafe { RecordBatchStreamReader::from_raw(stream.as_ptr().cast::<FFI_ArrowArrayStream>()) }
            .map_err(value_error)?;
        let schema = reader.schema();
        let batches = reader.collect::<Result<Vec<_>, _>>().map_err(value_error)?;
        return Ok((schema, batches));
    }
    if data.hasattr("__arrow_c_array__")? {
        let pair = data.call_method0("__arrow_c_array__")?;
        let (schema, array): (Bound<'_, PyCapsule>, Bound<'_, PyCapsule>) = pair.extract()?;
        let schema = schema.pointer_checked(Some(c"arrow_schema"))?.cast::<FFI_ArrowSchema>();
        let array = array.pointer_checked(Some(c"arrow_array"))?.cast::<FFI_ArrowArray>();
        // SAFETY: both capsules hold valid C structures; the array is moved out (its capsule's
        // copy marked released), the schema only borrowed while the capsule lives.
        let data =
            unsafe { from_ffi(FFI_ArrowArray::from_raw(array.as_ptr()), schema.as_ref()) }.map_err(value_error)?;
        let batch = RecordBatch::from(StructArray::from(data));
        return Ok((batch.schema(), vec![batch]));
    }
    Err(value_error(format!(
        "expected Arrow data (an object with __arrow_c_stream__ or __arrow_c_array__, such as a pyarrow Table), got {}",
        data.get_type().name()?
    )))
}

/// One record batch that Python takes through `__arrow_c_array__` (`pyarrow.record_batch(x)`).
#[pyclass(frozen, module = "ragjudge._native")]
pub struct ArrowBatch {
    batch: RecordBatch,
}

#[pymethods]
impl ArrowBatch {
    /// The batch as the two capsules of the Arrow PyCapsule interface (schema, array).
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyCapsule>, Bound<'py, PyCapsule>)> {
        // A requested schema is a hint the producer may ignore (the interface's rule).
        let _ = requested_schema;
        let data = StructArray::from(self.batch.clone()).into_data();
        let (array, schema) = to_ffi(&data).map_err(runtime_error)?;
        // Each capsule owns its structure; one the consumer moved out is left released, and
        // dropping it then frees nothing twice.
        Ok((
            PyCapsule::new_with_value(py, schema, c"arrow_schema")?,
            PyCapsule::new_with_value(py, array, c"arrow_array")?,
        ))
    }

    fn __len__(&self) -> usize {
        self.batch.num_rows()
    }
}

/// `score`'s metrics built once (models loaded once), scoring one Arrow block at a time: what a
/// Ray Data worker holds.
#[pyclass(frozen, module = "ragjudge._native")]
pub struct BatchScorer {
    inner: batches::BatchScorer,
}

#[pymethods]
impl BatchScorer {
    /// A scorer under `options`; `detail` adds each row's evidence as JSON text.
    #[new]
    #[pyo3(signature = (options, *, detail=false))]
    fn new(py: Python<'_>, options: PyRef<'_, ScoreOptions>, detail: bool) -> PyResult<Self> {
        let (names, mut settings, models, eval) =
            (options.metrics.clone(), options.settings.clone(), options.models.clone(), options.eval.clone());
        let system = eval.read.default_system.clone().unwrap_or_else(|| "records".to_string());
        let inner = py
            .detach(move || -> Result<batches::BatchScorer, EvalError> {
                let names = split_arguments(&names, &mut settings)?;
                let models = ModelSet::new(models);
                let metrics = build_metrics(&names, &settings, &models)?;
                let evaluator = Evaluator::new(metrics, batches::BatchScorer::settings(eval))?;
                Ok(batches::BatchScorer::new(evaluator, "block", &system, detail))
            })
            .map_err(|e| eval_error(py, e, Origin::Files))?;
        Ok(Self { inner })
    }

    /// The value columns of the rows, in order.
    #[getter]
    fn columns(&self) -> Vec<String> {
        self.inner.columns().to_vec()
    }

    /// The score rows of the records in `data` (Arrow: the columns of Parquet input); errors
    /// name the row counted from `first_row`.
    #[pyo3(signature = (data, first_row=1))]
    fn score(&self, py: Python<'_>, data: &Bound<'_, PyAny>, first_row: u64) -> PyResult<ArrowBatch> {
        let (_, input) = import_batches(data)?;
        let batch = py.detach(|| self.inner.score(&input, first_row)).map_err(|e| eval_error(py, e, Origin::Files))?;
        Ok(ArrowBatch { batch })
    }
}

/// The summary state (JSON text) of the score rows in `data` (Arrow, the layout the scorer
/// writes): per system and column the exact sum, moments and `bootstrap` replicate sums under
/// keyed weights of `seed`, to merge with the other blocks' in [`summary_from_states`].
#[pyfunction]
#[pyo3(signature = (data, *, bootstrap=1000, seed=0))]
pub fn summary_state(py: Python<'_>, data: &Bound<'_, PyAny>, bootstrap: usize, seed: u64) -> PyResult<String> {
    if bootstrap == 0 {
        return Err(value_error("bootstrap must be at least 1"));
    }
    let (schema, input) = import_batches(data)?;
    py.detach(|| -> Result<String, String> {
        let columns = batch_to_rows(&RecordBatch::new_empty(schema), 1)?.columns;
        let mut summary = Summarizer::new(columns, bootstrap, seed);
        let mut row = 1;
        for b in &input {
            summarize_batch(&mut summary, b, row).map_err(|e| e.to_string())?;
            row += b.num_rows() as u64;
        }
        serde_json::to_string(&summary.into_state()).map_err(|e| e.to_string())
    })
    .map_err(value_error)
}

/// Merges the states of [`summary_state`] into one summary at confidence `level`: a dict with
/// `summary` (JSON text, as `score`'s) and `table` (as `ragjudge score` prints it).
#[pyfunction]
#[pyo3(signature = (states, *, level=0.95))]
pub fn summary_from_states(py: Python<'_>, states: Vec<String>, level: f64) -> PyResult<Py<PyDict>> {
    let report = py
        .detach(|| -> Result<_, String> {
            let mut merged: Option<Summarizer> = None;
            for (i, text) in states.iter().enumerate() {
                let state: SummaryState =
                    serde_json::from_str(text).map_err(|e| format!("summary state {}: {e}", i + 1))?;
                let part = Summarizer::from_state(state).map_err(|e| format!("summary state {}: {e}", i + 1))?;
                match merged.as_mut() {
                    None => merged = Some(part),
                    Some(m) => m.merge(part).map_err(|e| format!("summary state {}: {e}", i + 1))?,
                }
            }
            let merged = merged.ok_or("no summary state to merge")?;
            if !(level > 0.0 && level < 1.0) {
                return Err(format!("level must be in (0, 1), got {level}"));
            }
            Ok(merged.report(level))
        })
        .map_err(value_error)?;
    let d = PyDict::new(py);
    d.set_item("summary", serde_json::to_string(&report).map_err(runtime_error)?)?;
    d.set_item("table", render_table(&report))?;
    Ok(d.unbind())
}

/// Adds to the call cache `into` (created if missing) every entry of the cache files `inputs` it
/// lacks, and returns how many each added: how the caches of workers that judged disjoint parts
/// of a tournament are combined before one run replays them (`ragjudge merge-caches`).
#[pyfunction]
pub fn merge_caches(py: Python<'_>, into: PathBuf, inputs: Vec<PathBuf>) -> PyResult<Vec<u64>> {
    py.detach(|| -> Result<Vec<u64>, String> {
        let cache = CallCache::open(&into).map_err(|e| format!("{}: {e}", into.display()))?;
        inputs.iter().map(|p| cache.absorb(p).map_err(|e| e.to_string())).collect()
    })
    .map_err(value_error)
}
