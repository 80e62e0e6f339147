//! A run's summary, read back from what a command wrote: the JSON summary of `score --json`, a
//! tournament's `leaderboard.json` or a baseline's round robin, the key figures of any other
//! artifact ([`crate::figures`]), or a per-record score file (CSV or JSONL), summarised again
//! with the same Poisson bootstrap `score` uses (same seed and replicates: the same intervals).

use crate::figures::figures;
use crate::gate::GateError;
use crate::kinds::{identify, read, JsonKind, KINDS};
use ragjudge_artifacts::Artifact;
use ragjudge_dice::baseline::BaselineReport;
use ragjudge_dice::leaderboard::LeaderboardReport;
use ragjudge_dice::tournament::Standing;
use ragjudge_eval::scores::{read_score_file, ScoreFile};
use ragjudge_eval::{Summarizer, SummaryReport};
use serde_json::Value;
use std::path::Path;

/// What a gate can check.
#[derive(Debug, Clone, PartialEq)]
pub enum Summary {
    /// Per-system means with confidence intervals (`score`).
    Scores(SummaryReport),
    /// Tournament standings with Elo and Bradley-Terry strengths (`tournament`).
    Tournament(Vec<Standing>),
}

/// How a per-record score file is summarised.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Resummarize {
    /// Bootstrap replicates (as `score --bootstrap`).
    pub bootstrap: usize,
    /// Bootstrap seed (as `score --seed`).
    pub seed: u64,
    /// Confidence level of the intervals.
    pub level: f64,
}

impl Default for Resummarize {
    fn default() -> Self {
        Self { bootstrap: 1000, seed: 0, level: 0.95 }
    }
}

/// The per-system summary of a score file's rows, as `score` computes it; `failed(i)` says
/// whether row `i` recorded a metric failure.
pub fn summarize_file(file: &ScoreFile, failed: impl Fn(usize) -> bool, how: &Resummarize) -> SummaryReport {
    let mut s = Summarizer::new(file.columns.clone(), how.bootstrap.max(1), how.seed);
    for (i, row) in file.rows.iter().enumerate() {
        s.add(&row.id, &row.system, row.run, &row.values, failed(i));
    }
    s.report(how.level)
}

/// Reads the summary in `path`: `.json` holds a score summary or a leaderboard; `.csv`,
/// `.jsonl` and `.ndjson` hold per-record scores, summarised per system with `how`.
pub fn read_summary(path: &Path, how: &Resummarize) -> Result<Summary, GateError> {
    let read_err = |message: String| GateError::Read { path: path.display().to_string(), message };
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    if ext != "json" {
        let file = read_score_file(path).map_err(|e| read_err(e.to_string()))?;
        return Ok(Summary::Scores(summarize_file(&file, |_| false, how)));
    }
    // An artifact says what it is; files written before artifacts had a kind are recognised by
    // their type's `is_legacy`, other JSON by its fields.
    let kind = match identify(path).map_err(read_err)? {
        JsonKind::Other(v) => return read_unversioned(path, v),
        kind => kind,
    };
    match kind.kind().unwrap_or_default().to_string().as_str() {
        LeaderboardReport::KIND => match kind {
            // Legacy leaderboards are read by their standings alone, as before they had a kind.
            JsonKind::Legacy { value, .. } => read_unversioned(path, value),
            kind => Ok(Summary::Tournament(read::<LeaderboardReport>(path, kind).map_err(read_err)?.body.systems)),
        },
        // A baseline's round robin, so that `--beats` places the system among the tiers.
        BaselineReport::KIND => {
            Ok(Summary::Tournament(read::<BaselineReport>(path, kind).map_err(read_err)?.body.leaderboard))
        }
        other => match figures(path, kind).map_err(read_err)? {
            Some(f) => Ok(Summary::Scores(f.table)),
            None => Err(read_err(format!(
                "a `{other}` file, of no kind the gate reads ({}; score summaries, per-record scores)",
                KINDS.join(", ")
            ))),
        },
    }
}

/// A summary without a `kind`: a score summary, or standings with Bradley-Terry strengths.
fn read_unversioned(path: &Path, v: Value) -> Result<Summary, GateError> {
    let read_err = |message: String| GateError::Read { path: path.display().to_string(), message };
    let first = v.get("systems").and_then(Value::as_array).and_then(|s| s.first());
    match first {
        Some(s) if s.get("metrics").is_some() => {
            serde_json::from_value(v).map(Summary::Scores).map_err(|e| read_err(format!("not a score summary: {e}")))
        }
        Some(s) if s.get("bt").is_some() => serde_json::from_value(v["systems"].clone())
            .map(Summary::Tournament)
            .map_err(|e| read_err(format!("not a leaderboard: {e}"))),
        _ => Err(read_err("neither a score summary (`score --json`) nor a leaderboard (`leaderboard.json`)".into())),
    }
}
