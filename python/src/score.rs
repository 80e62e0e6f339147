//! `score`: records -> one row per record -> per-system summary, through `ragjudge_eval`, with the
//! same settings and defaults as `ragjudge score`.

use crate::error::{describe, eval_error, Origin};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use ragjudge_core::{Format, InputError, ReadOptions, RecordReader};
use ragjudge_eval::families::{
    build_stages, build_with_definitions, split_arguments, CiuSettings, LangMode, LexicalSettings, MetricSettings,
    RetrievalSettings, SemanticSettings, StageContext, ZhRougeTokens,
};
use ragjudge_eval::models::{EncoderSettings, ModelSet, ModelSettings};
use ragjudge_eval::{render_table, EvalError, EvalReport, EvalSettings, Evaluator, MemorySink, Progress, RowSink};
use std::io::Cursor;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// Warnings and skipped records of a run, kept for the caller.
struct Collect {
    origin: Origin,
    messages: Mutex<Vec<String>>,
}

impl Collect {
    fn push(&self, m: String) {
        if let Ok(mut v) = self.messages.lock() {
            v.push(m);
        }
    }
}

impl Progress for Collect {
    fn skipped(&self, error: &InputError, _count: u64) {
        self.push(format!("skipped: {}", describe(error, self.origin)));
    }

    fn warn(&self, message: &str) {
        self.push(message.to_string());
    }
}

/// What one `score` call computed, before it becomes Python objects.
struct Scored {
    rows: MemorySink,
    report: EvalReport,
    warnings: Vec<String>,
    /// Each column's definition (family, version, settings) as JSON text `{column: definition}`.
    definitions: String,
}

/// `lang=`: `en`, `zh` or `auto` (as `ragjudge score --lang`).
fn parse_lang(name: &str) -> PyResult<LangMode> {
    LangMode::from_name(name)
        .ok_or_else(|| crate::error::value_error(format!("lang must be en, zh or auto, got {name:?}")))
}

/// `zh_rouge=`: `jieba` or `char` (as `ragjudge score --zh-rouge`).
fn parse_zh_rouge(name: &str) -> PyResult<ZhRougeTokens> {
    match name {
        "jieba" => Ok(ZhRougeTokens::Jieba),
        "char" => Ok(ZhRougeTokens::Char),
        _ => Err(crate::error::value_error(format!("zh_rouge must be jieba or char, got {name:?}"))),
    }
}

/// The layout names `format=` accepts.
fn parse_format(name: &str) -> PyResult<Format> {
    name.parse::<Format>().map_err(crate::error::value_error)
}

/// `score`'s settings (every keyword of `ragjudge.score` past the data), parsed and checked once;
/// [`score`] and each `ragjudge.ray` worker's [`crate::ray::BatchScorer`] are built from them.
#[pyclass(frozen, module = "ragjudge._native")]
pub struct ScoreOptions {
    pub(crate) metrics: Vec<String>,
    pub(crate) settings: MetricSettings,
    pub(crate) models: ModelSettings,
    pub(crate) eval: EvalSettings,
}

#[pymethods]
impl ScoreOptions {
    #[new]
    #[pyo3(signature = (
        *, metrics=vec!["lexical".to_string(), "ciu".to_string(), "retrieval".to_string()],
        system=None, format="auto", skip_invalid=false, bootstrap=1000, seed=0, threads=None,
        k=MetricSettings::default().retrieval.ks, relevance_threshold=2.0, skip_short_lists=false, rouge_stemmer=false,
        lang="en", zh_rouge="jieba",
        ciu_c_char=0.005, ciu_position=true, ciu_frequency=true, ciu_effort=true, ruber_model=None,
        embedder=ModelSettings::default().embedder, nli=None, pii_model=ModelSettings::default().pii_model,
        batch_size=32, judge=ModelSettings::default().judge.spec, cache=None, no_cache=false
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        metrics: Vec<String>,
        system: Option<String>,
        format: &str,
        skip_invalid: bool,
        bootstrap: usize,
        seed: u64,
        threads: Option<usize>,
        k: Vec<usize>,
        relevance_threshold: f64,
        skip_short_lists: bool,
        rouge_stemmer: bool,
        lang: &str,
        zh_rouge: &str,
        ciu_c_char: f64,
        ciu_position: bool,
        ciu_frequency: bool,
        ciu_effort: bool,
        ruber_model: Option<PathBuf>,
        embedder: String,
        nli: Option<String>,
        pii_model: String,
        batch_size: usize,
        judge: String,
        cache: Option<PathBuf>,
        no_cache: bool,
    ) -> PyResult<Self> {
        let settings = MetricSettings {
            lexical: LexicalSettings { rouge_stemmer, lang: parse_lang(lang)?, zh_rouge: parse_zh_rouge(zh_rouge)? },
            ciu: CiuSettings {
                c_char: ciu_c_char,
                position_discount: ciu_position,
                frequency_discount: ciu_frequency,
                effort: ciu_effort,
            },
            retrieval: RetrievalSettings {
                ks: k,
                relevance_threshold,
                skip_short_lists,
                ..RetrievalSettings::default()
            },
            semantic: SemanticSettings { ruber_model },
            ..MetricSettings::default()
        };
        let models = ModelSettings {
            embedder,
            nli,
            pii_model,
            encoder: EncoderSettings { batch_size, threads, ..EncoderSettings::default() },
            judge: crate::error::judge_settings(judge, cache, no_cache, threads),
        };
        let read = ReadOptions { format: parse_format(format)?, default_system: system, ..ReadOptions::default() };
        let eval = EvalSettings { read, skip_invalid, bootstrap, seed, threads, ..EvalSettings::default() };
        Ok(Self { metrics, settings, models, eval })
    }
}

/// Scores `records` (JSON objects, one per string; our layout or RAGAS keys) or the files
/// `paths` under `options`, and returns a dict of columns: `id`, `system`, `run`, `values` (one
/// list per metric column), `error`, `detail` (JSON text per row), `columns`, `summary` (JSON
/// text of the per-system summary), `table` (the summary as `ragjudge score` prints it),
/// `warnings`, `definitions` (JSON text: how each column was computed, as `score -o` writes
/// beside a file).
#[pyfunction]
#[pyo3(signature = (records=None, paths=None, *, options))]
pub fn score(
    py: Python<'_>,
    records: Option<Vec<String>>,
    paths: Option<Vec<PathBuf>>,
    options: PyRef<'_, ScoreOptions>,
) -> PyResult<Py<PyDict>> {
    let origin = if paths.is_some() { Origin::Files } else { Origin::Memory };
    let (metrics, mut settings, models, eval) =
        (options.metrics.clone(), options.settings.clone(), options.models.clone(), options.eval.clone());
    let read = eval.read.clone();
    let scored = py.detach(move || -> Result<Scored, EvalError> {
        let names = split_arguments(&metrics, &mut settings)?;
        let models = Arc::new(ModelSet::new(models));
        let (metrics, definitions) = build_with_definitions(&names, &settings, &models)?;
        let definitions =
            serde_json::to_string(&definitions.columns).map_err(|e| EvalError::settings(e.to_string()))?;
        let (bootstrap, seed, level) = (eval.bootstrap, eval.seed, eval.level);
        let evaluator = Evaluator::new(metrics, eval)?;
        let ctx = StageContext {
            settings: &settings,
            columns: evaluator.columns(),
            output: None,
            models: &models,
            bootstrap,
            seed,
            level,
        };
        let stages = build_stages(&names, &ctx)?;
        let progress = Collect { origin, messages: Mutex::new(Vec::new()) };
        let mut rows = MemorySink::default();
        let report = {
            let mut run = evaluator.start(Some(&mut rows as &mut dyn RowSink), stages)?;
            match (records, paths) {
                (_, Some(paths)) => {
                    for p in &paths {
                        run.read_file(p, &progress)?;
                    }
                }
                (Some(lines), None) => {
                    let text = lines.join("\n").into_bytes();
                    let reader = RecordReader::from_reader(
                        "records.jsonl",
                        Cursor::new(text),
                        &ReadOptions { format: Format::Jsonl, ..read },
                    )?;
                    for item in reader {
                        match item {
                            Ok(record) => run.push(record, &progress)?,
                            Err(e) => run.skip(e, &progress)?,
                        }
                    }
                }
                (None, None) => return Err(EvalError::settings("no records given")),
            }
            run.finish(&progress)?
        };
        let warnings = progress.messages.into_inner().unwrap_or_default();
        Ok(Scored { rows, report, warnings, definitions })
    });
    let scored = scored.map_err(|e| eval_error(py, e, origin))?;
    to_python(py, scored)
}

/// The rows and summary as a dict of Python lists (column-major, for pandas).
fn to_python(py: Python<'_>, s: Scored) -> PyResult<Py<PyDict>> {
    let rows = &s.rows.rows;
    let d = PyDict::new(py);
    d.set_item("columns", &s.rows.columns)?;
    d.set_item("id", rows.iter().map(|r| r.id.as_str()).collect::<Vec<_>>())?;
    d.set_item("system", rows.iter().map(|r| r.system.as_str()).collect::<Vec<_>>())?;
    d.set_item("run", rows.iter().map(|r| r.run).collect::<Vec<_>>())?;
    let values: Vec<Vec<Option<f64>>> =
        (0..s.rows.columns.len()).map(|c| rows.iter().map(|r| r.values[c]).collect()).collect();
    d.set_item("values", values)?;
    d.set_item("error", rows.iter().map(|r| (!r.errors.is_empty()).then(|| r.errors.join("; "))).collect::<Vec<_>>())?;
    d.set_item(
        "detail",
        rows.iter()
            .map(|r| (!r.detail.is_empty()).then(|| serde_json::Value::Object(r.detail.clone()).to_string()))
            .collect::<Vec<_>>(),
    )?;
    let summary = serde_json::to_string(&s.report.summary).map_err(crate::error::runtime_error)?;
    d.set_item("summary", summary)?;
    d.set_item("table", render_table(&s.report.summary))?;
    d.set_item("warnings", s.warnings)?;
    d.set_item("definitions", s.definitions)?;
    Ok(d.unbind())
}

/// The metric families `score` knows, in the order `ragjudge score --help` lists them.
#[pyfunction]
pub fn metric_families() -> Vec<&'static str> {
    ragjudge_eval::families::known()
}
