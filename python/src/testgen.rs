//! `testgen`: `ragjudge_testgen` (HCAT §2: chunk -> embed -> topic strata -> stratified sample ->
//! generation -> selection), with the same settings and defaults as `ragjudge testgen`.

use crate::error::value_error;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use ragjudge_eval::models::backends::{embedder as load_embedder, judge as load_judge};
use ragjudge_eval::models::{default_embedder_for, EncoderSettings, ModelSettings};
use ragjudge_testgen::cluster::KMeansOptions;
use ragjudge_testgen::generate::GenOptions;
use ragjudge_testgen::select::SelectOptions;
use ragjudge_testgen::verify::VerifyOptions;
use ragjudge_testgen::{
    plan_collection, read_corpus, Allocation, ChunkOptions, ClusterMethod, QueryType, ReadOptions, SampleOptions,
    StrataOptions, TestgenError, TestgenSettings,
};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Each row as one line of JSON text.
fn to_text<T: Serialize>(rows: impl IntoIterator<Item = T>) -> Result<Vec<String>, String> {
    rows.into_iter().map(|r| serde_json::to_string(&r).map_err(|e| e.to_string())).collect()
}

/// The summary of a dry run: no model was called.
#[derive(Serialize)]
struct DryRun {
    dry_run: bool,
}

fn text(bytes: Result<Vec<u8>, TestgenError>) -> Result<String, String> {
    let bytes = bytes.map_err(|e| e.to_string())?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Generates questions from the collection `corpus` (files or directories, as `--corpus`).
/// Returns a dict of JSON texts: `questions` and `rejected` (one per item), `chunks` (one per
/// chunk, with its topic), `topics` (the `topics.json` artifact) and `summary` (the
/// `summary.json` artifact: per type, per topic, rejections by reason; `{"dry_run": true}` and no
/// model call with `dry_run`).
#[pyfunction]
#[pyo3(signature = (
    corpus, *, judge=ModelSettings::default().judge.spec, sample=24, per_chunk=1, types=None,
    allocation="proportional", weights=None, min_per_topic=1, per_topic=0, cluster="kmeans", topics=None,
    max_topics=12, eps=None, min_points=4, dims=10, chunk_tokens=160, overlap=1, round_trip_k=5, retries=2, seed=0,
    embedder=None, skip_invalid=false, dry_run=false, cache=None, no_cache=false, threads=None
))]
#[allow(clippy::too_many_arguments)]
pub fn testgen(
    py: Python<'_>,
    corpus: Vec<PathBuf>,
    judge: String,
    sample: usize,
    per_chunk: usize,
    types: Option<Vec<String>>,
    allocation: &str,
    weights: Option<BTreeMap<String, f64>>,
    min_per_topic: usize,
    per_topic: usize,
    cluster: &str,
    topics: Option<usize>,
    max_topics: usize,
    eps: Option<f64>,
    min_points: usize,
    dims: usize,
    chunk_tokens: usize,
    overlap: usize,
    round_trip_k: usize,
    retries: u32,
    seed: u64,
    embedder: Option<String>,
    skip_invalid: bool,
    dry_run: bool,
    cache: Option<PathBuf>,
    no_cache: bool,
    threads: Option<usize>,
) -> PyResult<Py<PyDict>> {
    let types = match types {
        None => QueryType::ALL.to_vec(),
        Some(names) => names
            .iter()
            .map(|t| QueryType::parse(t).ok_or_else(|| value_error(format!("types: unknown query type `{t}`"))))
            .collect::<PyResult<Vec<_>>>()?,
    };
    let allocation = match (weights, allocation) {
        (Some(w), _) => Allocation::Weights(w),
        (None, "proportional") => Allocation::Proportional,
        (None, "equal") => Allocation::Equal,
        (None, other) => return Err(value_error(format!("allocation must be proportional or equal, got `{other}`"))),
    };
    let method = match cluster {
        "kmeans" => {
            ClusterMethod::KMeans(KMeansOptions { k: topics, k_max: max_topics, seed, ..KMeansOptions::default() })
        }
        "dbscan" => ClusterMethod::Dbscan { eps, min_points },
        other => return Err(value_error(format!("cluster must be kmeans or dbscan, got `{other}`"))),
    };
    let settings = TestgenSettings {
        chunk: ChunkOptions { max_tokens: chunk_tokens, overlap_sentences: overlap },
        strata: StrataOptions { dims, method, top_terms: 8 },
        sample: SampleOptions { total: sample, allocation, min_per_stratum: min_per_topic, seed },
        types,
        per_chunk,
        generation: GenOptions { retries, seed, ..GenOptions::default() },
        selection: SelectOptions {
            per_topic,
            verify: VerifyOptions { round_trip_k, ..VerifyOptions::default() },
            ..SelectOptions::default()
        },
        batch: 32,
        ..TestgenSettings::default()
    };
    let judge = crate::error::judge_settings(judge, cache, no_cache, threads);
    let out = py.detach(move || -> Result<_, String> {
        let read = read_corpus(&corpus, ReadOptions { skip_invalid }).map_err(|e| e.to_string())?;
        let encoder = EncoderSettings { batch_size: 32, threads, ..EncoderSettings::default() };
        let name =
            embedder.unwrap_or_else(|| default_embedder_for(read.documents.iter().map(|d| d.text.as_str())).into());
        let embedder = load_embedder(&name, encoder).map_err(|e| e.to_string())?;
        let planned = plan_collection(read, &corpus, embedder.as_ref(), &settings).map_err(|e| e.to_string())?;
        let topics = text(planned.topics_json())?;
        let chunks = to_text(planned.plan.chunk_rows())?;
        if dry_run {
            let summary = serde_json::to_string(&DryRun { dry_run: true }).map_err(|e| e.to_string())?;
            return Ok((Vec::new(), Vec::new(), chunks, topics, summary));
        }
        let judge = load_judge(&judge).map_err(|e| e.to_string())?;
        let generated = planned.generate(judge.as_ref(), embedder.as_ref(), &settings).map_err(|e| e.to_string())?;
        let questions = to_text(generated.output.questions.iter().map(|q| &q.record))?;
        let rejected = to_text(&generated.output.rejected)?;
        Ok((questions, rejected, chunks, topics, text(generated.summary_json())?))
    });
    let (questions, rejected, chunks, topics, summary) = out.map_err(value_error)?;
    let d = PyDict::new(py);
    d.set_item("questions", questions)?;
    d.set_item("rejected", rejected)?;
    d.set_item("chunks", chunks)?;
    d.set_item("topics", topics)?;
    d.set_item("summary", summary)?;
    Ok(d.unbind())
}
