//! The library's default settings under the Python parameter names that set them, so that a test
//! (`python/tests/test_defaults.py`) checks every default in the signatures and in the typed stubs
//! against the one place it is declared: the library's `Default` implementations.

use pyo3::prelude::*;
use ragjudge_analysis::WeaknessSettings;
use ragjudge_dice::run::DiceRunOptions;
use ragjudge_eval::families::MetricSettings;
use ragjudge_eval::models::ModelSettings;
use ragjudge_eval::EvalSettings;
use ragjudge_fusion::job::FitSettings;
use ragjudge_stats::calibration::CalibrationParams;
use ragjudge_testgen::strata::DEFAULT_MIN_POINTS;
use ragjudge_testgen::{ClusterMethod, ReadOptions, TestgenSettings};
use serde_json::{json, Value};

fn score() -> Value {
    let (m, models, eval) = (MetricSettings::default(), ModelSettings::default(), EvalSettings::default());
    json!({
        "skip_invalid": eval.skip_invalid,
        "bootstrap": eval.bootstrap,
        "seed": eval.seed,
        "k": m.retrieval.ks,
        "relevance_threshold": m.retrieval.relevance_threshold,
        "skip_short_lists": m.retrieval.skip_short_lists,
        "rouge_stemmer": m.lexical.rouge_stemmer,
        "lang": m.lexical.lang.name(),
        "zh_rouge": m.lexical.zh_rouge.name(),
        "ciu_c_char": m.ciu.c_char,
        "ciu_position": m.ciu.position_discount,
        "ciu_frequency": m.ciu.frequency_discount,
        "ciu_effort": m.ciu.effort,
        "embedder": models.embedder,
        "nli": models.nli,
        "pii_model": models.pii_model,
        "batch_size": models.encoder.batch_size,
        "judge": models.judge.spec,
    })
}

fn dice() -> Value {
    let (d, models) = (DiceRunOptions::default(), ModelSettings::default());
    json!({
        "judge": models.judge.spec,
        "protocol": d.protocol.name(),
        "reasoning": d.reasoning,
        "swap": d.swap,
        "tau": d.tau,
        "limit": d.limit,
        "ids": d.ids,
        "debias": d.debias,
    })
}

fn testgen() -> Value {
    let t = TestgenSettings::default();
    let (cluster, max_topics) = match t.strata.method {
        ClusterMethod::KMeans(k) => ("kmeans", Some(k.k_max)),
        ClusterMethod::Dbscan { .. } => ("dbscan", None),
    };
    json!({
        "judge": ModelSettings::default().judge.spec,
        "sample": t.sample.total,
        "per_chunk": t.per_chunk,
        "allocation": t.sample.allocation,
        "min_per_topic": t.sample.min_per_stratum,
        "per_topic": t.selection.per_topic,
        "cluster": cluster,
        "max_topics": max_topics,
        "min_points": DEFAULT_MIN_POINTS,
        "dims": t.strata.dims,
        "chunk_tokens": t.chunk.max_tokens,
        "overlap": t.chunk.overlap_sentences,
        "round_trip_k": t.selection.verify.round_trip_k,
        "retries": t.generation.retries,
        "seed": t.sample.seed,
        // None: chosen from the collection's language (`default_embedder_for`).
        "embedder": Value::Null,
        "skip_invalid": ReadOptions::default().skip_invalid,
    })
}

fn fuse_fit() -> Value {
    let f = FitSettings::default();
    json!({
        "model": f.model.name(), "seed": f.seed, "epochs": f.epochs, "binarize": f.binarize, "folds": f.folds,
        "monotone": f.monotone, "shrink": f.shrink,
    })
}

fn calibrate_fit() -> Value {
    let c = CalibrationParams::default();
    json!({
        "method": c.method.name(), "alpha": c.alpha, "cal_fraction": c.cal_fraction,
        "test_fraction": c.test_fraction, "seed": c.seed, "binarize": c.binarize,
    })
}

fn weakness() -> Value {
    let w = WeaknessSettings::default();
    json!({ "alpha": w.alpha, "min_n": w.min_n, "bootstrap": w.bootstrap, "seed": w.seed })
}

/// `{function: {parameter: default}}` as JSON text, from the library's settings types.
#[pyfunction]
pub fn _library_defaults() -> String {
    let defaults = json!({
        "score": score(),
        "compare": dice(),
        "tournament": dice(),
        "testgen": testgen(),
        "fuse_fit": fuse_fit(),
        "calibrate_fit": calibrate_fit(),
        "weakness": weakness(),
    });
    defaults.to_string()
}
