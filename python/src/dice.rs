//! `compare` and `tournament`: DICE pairwise judging through `ragjudge_dice` (DICE §3.3), as
//! `ragjudge compare` and `ragjudge tournament` run it, with traces and labels in `output`.

use crate::error::{record_error, runtime_error, value_error, Origin};
use pyo3::prelude::*;
use ragjudge_core::text::Lang;
use ragjudge_core::{DuplicateKeys, Format, InputError, ReadOptions, Record, RecordReader};
use ragjudge_dice::compare::{compare as compare_job, CompareOutcome};
use ragjudge_dice::leaderboard::{Tournament, TournamentOutcome};
use ragjudge_dice::run::{run_protocol, DiceRun, DiceRunOptions};
use ragjudge_dice::tournament::{Format as TourFormat, RankBy, TournamentConfig};
use ragjudge_eval::models::backends::judge_or_dry_run;
use ragjudge_eval::models::{JudgeSettings, ModelSettings};
use std::io::Cursor;
use std::path::PathBuf;
use std::sync::Arc;

/// Reads JSON records (one per string) for pairing; a repeated `(id, system, run)` is refused
/// (pairing by question would be ambiguous).
fn read_records(lines: Vec<String>) -> Result<Vec<Record>, InputError> {
    let text = lines.join("\n").into_bytes();
    let opts = ReadOptions { format: Format::Jsonl, ..ReadOptions::default() };
    let mut reader = RecordReader::from_reader("records.jsonl", Cursor::new(text), &opts)?;
    let mut keys = DuplicateKeys::default();
    let mut out = Vec::new();
    while let Some(item) = reader.next() {
        let record = item?;
        if let Some(d) = keys.check(&record, reader.last_line()) {
            let message = format!("{d}; pairing by question would be ambiguous");
            return Err(InputError::new(reader.name(), reader.last_line(), Some("id".into()), message));
        }
        out.push(record);
    }
    Ok(out)
}

/// How a DICE run is set up from the keyword arguments.
struct DiceSetup {
    judge: JudgeSettings,
    opts: DiceRunOptions,
}

#[allow(clippy::too_many_arguments)]
fn setup(
    judge: String,
    protocol: &str,
    output: PathBuf,
    reasoning: bool,
    swap: bool,
    tau: f64,
    limit: Option<usize>,
    ids: Vec<String>,
    lang: &str,
    debias: bool,
    cache: Option<PathBuf>,
    no_cache: bool,
    threads: Option<usize>,
) -> PyResult<DiceSetup> {
    let lang = match lang.to_ascii_lowercase().as_str() {
        "auto" => None,
        "en" => Some(Lang::En),
        "zh" => Some(Lang::Zh),
        other => return Err(value_error(format!("lang must be auto, en or zh, got `{other}`"))),
    };
    let protocol = run_protocol(protocol).map_err(value_error)?;
    let judge = crate::error::judge_settings(judge, cache, no_cache, threads);
    let opts = DiceRunOptions {
        tau,
        protocol,
        reasoning,
        swap,
        lang,
        limit,
        ids,
        debias,
        output: Some(output),
        ..DiceRunOptions::default()
    };
    Ok(DiceSetup { judge, opts })
}

/// One DICE match between the records `a` and `b` (JSON objects, joined on `id`). Returns
/// `(report_json, questions_json, trust_text)`; `compare.json`, `traces.jsonl` and `labels.jsonl`
/// go to `output`.
#[pyfunction]
#[pyo3(signature = (
    a, b, output, *, judge=ModelSettings::default().judge.spec, protocol="dice", reasoning=true, swap=true, tau=0.1,
    limit=None, ids=DiceRunOptions::default().ids, lang="auto", debias=false, cache=None, no_cache=false, threads=None
))]
#[allow(clippy::too_many_arguments)]
pub fn compare(
    py: Python<'_>,
    a: Vec<String>,
    b: Vec<String>,
    output: PathBuf,
    judge: String,
    protocol: &str,
    reasoning: bool,
    swap: bool,
    tau: f64,
    limit: Option<usize>,
    ids: Vec<String>,
    lang: &str,
    debias: bool,
    cache: Option<PathBuf>,
    no_cache: bool,
    threads: Option<usize>,
) -> PyResult<(String, String, String)> {
    let a = read_records(a).map_err(|e| record_error(py, &e, Origin::Memory))?;
    let b_records = read_records(b).map_err(|e| record_error(py, &e, Origin::Memory))?;
    let s = setup(judge, protocol, output, reasoning, swap, tau, limit, ids, lang, debias, cache, no_cache, threads)?;
    let out = py.detach(move || -> Result<(String, String, String), String> {
        // The library's compare job, as `ragjudge compare` runs it: the same files.
        let judge = Arc::from(judge_or_dry_run(&s.judge, false).map_err(|e| e.to_string())?);
        let mut run = DiceRun::new(judge, &s.opts).map_err(|e| e.to_string())?;
        match compare_job(&mut run, &a, &b_records, None).map_err(|e| e.to_string())? {
            CompareOutcome::Played(doc, questions) => Ok((
                serde_json::to_string(&doc).map_err(|e| e.to_string())?,
                serde_json::to_string(&questions).map_err(|e| e.to_string())?,
                doc.body.run.trust.render(),
            )),
            CompareOutcome::DryRun(_) => Err("a dry run has no report".into()),
        }
    });
    out.map_err(runtime_error)
}

/// A DICE tournament among the systems of `records` (JSON objects; systems in order of first
/// appearance), Swiss or round robin, ranked by Bradley-Terry or Elo. Returns
/// `(report_json, trust_text)`; `leaderboard.json`, traces and labels go to `output`.
#[pyfunction]
#[pyo3(signature = (
    records, output, *, judge=ModelSettings::default().judge.spec, protocol="dice", format="swiss", rounds=None,
    rank_by="bt", seed=0, reasoning=true, swap=true, tau=0.1, limit=None, ids=DiceRunOptions::default().ids,
    lang="auto", debias=false, cache=None, no_cache=false, threads=None
))]
#[allow(clippy::too_many_arguments)]
pub fn tournament(
    py: Python<'_>,
    records: Vec<String>,
    output: PathBuf,
    judge: String,
    protocol: &str,
    format: &str,
    rounds: Option<usize>,
    rank_by: &str,
    seed: u64,
    reasoning: bool,
    swap: bool,
    tau: f64,
    limit: Option<usize>,
    ids: Vec<String>,
    lang: &str,
    debias: bool,
    cache: Option<PathBuf>,
    no_cache: bool,
    threads: Option<usize>,
) -> PyResult<(String, String)> {
    let format = match format.to_ascii_lowercase().replace('_', "-").as_str() {
        "swiss" => TourFormat::Swiss,
        "round-robin" | "roundrobin" => TourFormat::RoundRobin,
        other => return Err(value_error(format!("format must be swiss or round-robin, got `{other}`"))),
    };
    let rank_by = match rank_by.to_ascii_lowercase().as_str() {
        "bt" | "bradley-terry" => RankBy::BradleyTerry,
        "elo" => RankBy::Elo,
        other => return Err(value_error(format!("rank_by must be bt or elo, got `{other}`"))),
    };
    let records = read_records(records).map_err(|e| record_error(py, &e, Origin::Memory))?;
    let s = setup(judge, protocol, output, reasoning, swap, tau, limit, ids, lang, debias, cache, no_cache, threads)?;
    let out = py.detach(move || -> Result<(String, String), String> {
        // The library's tournament job, as `ragjudge tournament` runs it: the same files.
        let tournament = Tournament::from_records(records).map_err(|e| e.to_string())?;
        let judge = Arc::from(judge_or_dry_run(&s.judge, false).map_err(|e| e.to_string())?);
        let mut run = DiceRun::new(judge, &s.opts).map_err(|e| e.to_string())?;
        let mut cfg = TournamentConfig { format, rounds, rank_by, ..TournamentConfig::default() };
        cfg.bt.seed = seed;
        match tournament.play(&mut run, &cfg, None).map_err(|e| e.to_string())? {
            TournamentOutcome::Played(doc) => {
                let trust = doc.body.run.trust.render();
                Ok((serde_json::to_string(&doc).map_err(|e| e.to_string())?, trust))
            }
            TournamentOutcome::DryRun(_) => Err("a dry run has no leaderboard".into()),
        }
    });
    out.map_err(runtime_error)
}
