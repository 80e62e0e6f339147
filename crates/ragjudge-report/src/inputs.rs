//! What a report is made of: each path given to `ragjudge report` is recognised as one of the
//! outputs ragjudge commands write, read, and kept; what cannot be recognised is listed with the
//! reason, never dropped silently. A JSON file is dispatched on its artifact `kind`
//! ([`crate::kinds`]); JSON of commands whose outputs have no kind yet is recognised by its fields.

use crate::figures::{figures, Figures};
use crate::kinds::{identify, read, JsonKind, KINDS};
use crate::provenance::Provenance;
use ragjudge_analysis::robustness::RobustnessReport;
use ragjudge_analysis::weakness::{MetricWeakness, WeaknessArtifact, WeaknessReport};
use ragjudge_artifacts::{Artifact, Document};
use ragjudge_core::{ReadOptions, Record, RecordReader};
use ragjudge_dice::baseline::BaselineReport;
use ragjudge_dice::compare::CompareReport;
use ragjudge_dice::labels::PairLabel;
use ragjudge_dice::leaderboard::LeaderboardReport;
use ragjudge_dice::protocol::Verdict;
use ragjudge_dice::tournament::{PlayedMatch, Standing};
use ragjudge_dice::traces::TraceRecord;
use ragjudge_eval::scores::{read_score_file, ScoreFile};
use ragjudge_eval::SummaryReport;
use ragjudge_fusion::model::FusedModel;
use ragjudge_stats::calibration::CalibrationReport;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::{Path, PathBuf};

/// One recognised input.
#[derive(Debug, Clone)]
pub enum Input {
    /// Per-record scores (`score --output FILE.csv|jsonl`).
    Scores(ScoreInput),
    /// A score summary (`score --json` saved to a file).
    ScoreSummary(SummaryReport),
    /// A DICE run directory (`compare`, `tournament` or `baseline` `--output DIR`).
    Dice(Box<DiceInput>),
    /// A calibration report (`calibrate --report FILE`).
    Calibration(Box<Document<CalibrationReport>>),
    /// A fusion model (`fuse fit --save FILE`).
    FusionModel(Box<Document<FusedModel>>),
    /// A weakness analysis (`weakness --output DIR`, its `weakness.json`).
    Weakness(Vec<WeaknessInput>),
    /// A robustness analysis (`robustness --output DIR`, its `robustness.json`).
    Robustness(Box<RobustnessReport>),
    /// Records (runs): questions and answers shown in the drill-down.
    Records(Vec<Record>),
    /// The key figures of an artifact without a section of its own (judge-eval, probes,
    /// testgen, calibrator, shard manifest, column definitions).
    Figures(Box<Figures>),
}

impl Input {
    /// What the input is, in a few words.
    pub fn kind(&self) -> &'static str {
        match self {
            Input::Scores(_) => "per-record scores",
            Input::ScoreSummary(_) => "score summary",
            Input::Dice(d) => match d.kind {
                DiceKind::Tournament => "tournament",
                DiceKind::Compare => "comparison",
                DiceKind::Baseline => "baseline placement",
            },
            Input::Calibration(_) => "calibration",
            Input::FusionModel(_) => "fusion model",
            Input::Weakness(_) => "weakness analysis",
            Input::Robustness(_) => "robustness analysis",
            Input::Records(_) => "records",
            Input::Figures(f) => match f.kind.as_str() {
                "judge-eval" => "judge meta-evaluation",
                "probe-report" => "bias probes",
                "testgen-topics" => "test-set topics",
                "testgen-summary" => "test-set generation",
                "validation" => "validation against human labels",
                "annotator-agreement" => "agreement between annotators",
                "human-labels" => "human labels",
                "annotation-plan" => "labelling plan",
                "calibrator" => "calibrator",
                "shard-manifest" => "score shard",
                "column-definitions" => "column definitions",
                _ => "key figures",
            },
        }
    }
}

/// Per-record scores with the evidence the JSONL form keeps.
#[derive(Debug, Clone)]
pub struct ScoreInput {
    /// Numeric columns and rows.
    pub file: ScoreFile,
    /// The `detail` object of each row (JSONL only), in row order; empty for CSV.
    pub details: Vec<Option<Map<String, Value>>>,
    /// The `error` cell of each row that has one: (row index, message).
    pub errors: Vec<(usize, String)>,
}

/// Which DICE command wrote a run directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiceKind {
    /// `leaderboard.json`.
    Tournament,
    /// `compare.json`.
    Compare,
    /// `baseline.json`.
    Baseline,
}

/// A DICE run directory.
#[derive(Debug, Clone)]
pub struct DiceInput {
    /// Which command.
    pub kind: DiceKind,
    /// The report file as written.
    pub report: Value,
    /// Tournament standings (tournaments only).
    pub standings: Vec<Standing>,
    /// Matches played, in order (tournaments only).
    pub matches: Vec<PlayedMatch>,
    /// `traces.jsonl`.
    pub traces: Vec<TraceRecord>,
    /// `labels.jsonl`.
    pub labels: Vec<PairLabel>,
    /// `verdicts.jsonl`: the verdicts of a protocol other than DICE's, with their evidence.
    pub verdicts: Vec<ProtocolVerdict>,
    /// The report's provenance, when it has one.
    pub provenance: Option<Provenance>,
}

/// One line of a run's `verdicts.jsonl`.
#[derive(Debug, Clone, Deserialize)]
pub struct ProtocolVerdict {
    /// Question id.
    pub id: String,
    /// First system.
    pub system_a: String,
    /// Second system.
    pub system_b: String,
    /// The verdict and its evidence.
    pub verdict: Verdict,
}

/// One metric of a weakness analysis.
#[derive(Debug, Clone, Deserialize)]
pub struct WeaknessInput {
    /// The metric.
    pub metric: String,
    /// Rows without a value or strata.
    pub rows_left_out: usize,
    /// The analysis.
    pub report: WeaknessReport,
}

/// A path that was read and recognised.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// Where it came from.
    pub path: PathBuf,
    /// What it is.
    pub input: Input,
}

/// A path, or a file inside a directory, that was not used, and why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Skipped {
    /// The path.
    pub path: PathBuf,
    /// Why it was not used.
    pub reason: String,
}

/// Everything read for one report.
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    /// Recognised inputs, in the order given (files of a directory in name order).
    pub loaded: Vec<Loaded>,
    /// What was skipped.
    pub skipped: Vec<Skipped>,
}

/// Files a DICE run directory holds beside its report.
const DICE_FILES: [&str; 4] = ["traces.jsonl", "labels.jsonl", "leaderboard.csv", "verdicts.jsonl"];
/// Files a weakness directory holds beside `weakness.json` (its charts are drawn again).
const WEAKNESS_FILES: [&str; 3] = ["marginal.csv", "bivariate.csv", "plots"];
/// Files a robustness directory holds beside `robustness.json` (its charts are drawn again).
const ROBUSTNESS_FILES: [&str; 4] = ["deltas.csv", "worst.csv", "ood.csv", "plots"];

/// Reads every path: files by their content, directories by the files ragjudge commands write
/// there (other files of a directory are read one by one).
pub fn read_inputs(paths: &[PathBuf]) -> Inputs {
    let mut out = Inputs::default();
    for path in paths {
        if path.is_dir() {
            read_dir(path, &mut out);
        } else {
            read_one(path, &mut out);
        }
    }
    out
}

fn read_dir(dir: &Path, out: &mut Inputs) {
    let mut names: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries.filter_map(|e| e.ok().map(|e| e.path())).collect(),
        Err(e) => {
            out.skipped.push(Skipped { path: dir.to_path_buf(), reason: format!("cannot read directory: {e}") });
            return;
        }
    };
    names.sort();
    let has = |n: &str| dir.join(n).is_file();
    let mut used: Vec<&str> = Vec::new();
    for (report, kind) in [
        ("leaderboard.json", DiceKind::Tournament),
        ("compare.json", DiceKind::Compare),
        ("baseline.json", DiceKind::Baseline),
    ] {
        if has(report) {
            match read_dice(dir, report, kind) {
                Ok(d) => out.loaded.push(Loaded { path: dir.join(report), input: Input::Dice(Box::new(d)) }),
                Err(reason) => out.skipped.push(Skipped { path: dir.join(report), reason }),
            }
            used.push(report);
            used.extend(DICE_FILES);
        }
    }
    if has("weakness.json") {
        read_one(&dir.join("weakness.json"), out);
        used.push("weakness.json");
        used.extend(WEAKNESS_FILES);
    }
    if has("robustness.json") {
        read_one(&dir.join("robustness.json"), out);
        used.push("robustness.json");
        used.extend(ROBUSTNESS_FILES);
    }
    for path in names {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if used.contains(&name) {
            continue;
        }
        if path.is_dir() {
            out.skipped
                .push(Skipped { path, reason: "a directory inside an input directory (give it on its own)".into() });
        } else {
            read_one(&path, out);
        }
    }
}

/// Reads one file, recognised by its content.
fn read_one(path: &Path, out: &mut Inputs) {
    match recognise(path) {
        Ok(input) => out.loaded.push(Loaded { path: path.to_path_buf(), input }),
        Err(reason) => out.skipped.push(Skipped { path: path.to_path_buf(), reason }),
    }
}

fn recognise(path: &Path) -> Result<Input, String> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    match ext.as_str() {
        "json" => recognise_json(path),
        "jsonl" | "ndjson" => recognise_jsonl(path),
        "csv" => {
            let file = read_score_file(path).map_err(|e| e.to_string())?;
            if file.columns.is_empty() {
                return Err("a CSV without numeric score columns".into());
            }
            let n = file.rows.len();
            Ok(Input::Scores(ScoreInput { file, details: vec![None; n], errors: Vec::new() }))
        }
        _ => Err("not an output ragjudge reports on (expected .json, .jsonl or .csv)".into()),
    }
}

fn recognise_json(path: &Path) -> Result<Input, String> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let dir = path.parent().unwrap_or(Path::new(""));
    let kind = match identify(path)? {
        JsonKind::Other(v) => return recognise_unversioned(dir, name, v),
        kind => kind,
    };
    let label = kind.kind().unwrap_or_default().to_string();
    match label.as_str() {
        LeaderboardReport::KIND => read_dice(dir, name, DiceKind::Tournament).map(|d| Input::Dice(Box::new(d))),
        CalibrationReport::KIND => read(path, kind).map(|d| Input::Calibration(Box::new(d))),
        FusedModel::KIND => read(path, kind).map(|d| Input::FusionModel(Box::new(d))),
        CompareReport::KIND => read_dice(dir, name, DiceKind::Compare).map(|d| Input::Dice(Box::new(d))),
        BaselineReport::KIND => read_dice(dir, name, DiceKind::Baseline).map(|d| Input::Dice(Box::new(d))),
        WeaknessArtifact::KIND => {
            let doc = read::<WeaknessArtifact>(path, kind)?;
            let metric = |m: MetricWeakness| WeaknessInput {
                metric: m.metric,
                rows_left_out: m.rows_left_out,
                report: m.report,
            };
            Ok(Input::Weakness(doc.body.reports.into_iter().map(metric).collect()))
        }
        RobustnessReport::KIND => read::<RobustnessReport>(path, kind).map(|d| Input::Robustness(Box::new(d.body))),
        other => match figures(path, kind)? {
            Some(f) => Ok(Input::Figures(Box::new(f))),
            None => Err(format!(
                "a `{other}` file, of no kind `ragjudge report` reads ({}; score summaries)",
                KINDS.join(", ")
            )),
        },
    }
}

/// JSON without a `kind`, written by commands whose outputs are not artifacts yet: recognised by
/// its name or fields.
fn recognise_unversioned(dir: &Path, name: &str, v: Value) -> Result<Input, String> {
    let first = v.get("systems").and_then(Value::as_array).and_then(|s| s.first());
    if first.is_some_and(|s| s.get("metrics").is_some()) {
        return serde_json::from_value(v)
            .map(Input::ScoreSummary)
            .map_err(|e| format!("a score summary with a bad field: {e}"));
    }
    if name == "leaderboard.json" {
        return read_dice(dir, name, DiceKind::Tournament).map(|d| Input::Dice(Box::new(d)));
    }
    Err("a JSON file of no known kind (score summary, leaderboard, calibration, weakness, robustness)".into())
}

fn recognise_jsonl(path: &Path) -> Result<Input, String> {
    let first = first_object(path)?;
    if first.contains_key("query") && first.contains_key("answer") {
        let reader = RecordReader::open(path, &ReadOptions::default()).map_err(|e| e.to_string())?;
        let records: Result<Vec<Record>, _> = reader.collect();
        return records.map(Input::Records).map_err(|e| e.to_string());
    }
    if first.contains_key("question_id") && first.contains_key("label_probs") {
        return Err("DICE traces: give the run directory instead".into());
    }
    if first.contains_key("id") && first.contains_key("system") {
        let file = read_score_file(path).map_err(|e| e.to_string())?;
        let (details, errors) = read_details(path)?;
        if details.len() != file.rows.len() {
            return Err(format!("{} rows of scores but {} detail lines", file.rows.len(), details.len()));
        }
        return Ok(Input::Scores(ScoreInput { file, details, errors }));
    }
    Err("JSON lines of no known kind (records with query and answer, or scores with id and system)".into())
}

/// The first non-blank line of a JSONL file, as an object.
fn first_object(path: &Path) -> Result<Map<String, Value>, String> {
    let file = ragjudge_core::bom::open(path).map_err(|e| format!("cannot open: {e}"))?;
    for (i, line) in file.lines().enumerate() {
        let line = line.map_err(|e| format!("line {}: cannot read: {e}", i + 1))?;
        if line.trim().is_empty() {
            continue;
        }
        return match serde_json::from_str::<Value>(&line) {
            Ok(Value::Object(m)) => Ok(m),
            Ok(_) => Err(format!("line {}: not a JSON object", i + 1)),
            Err(e) => Err(format!("line {}: not JSON: {e}", i + 1)),
        };
    }
    Err("empty".into())
}

type Details = (Vec<Option<Map<String, Value>>>, Vec<(usize, String)>);

/// The `detail` object and `error` cell of each line of a JSONL score file.
fn read_details(path: &Path) -> Result<Details, String> {
    let file = ragjudge_core::bom::open(path).map_err(|e| format!("cannot open: {e}"))?;
    let (mut details, mut errors) = (Vec::new(), Vec::new());
    for (i, line) in file.lines().enumerate() {
        let line = line.map_err(|e| format!("line {}: cannot read: {e}", i + 1))?;
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(&line).map_err(|e| format!("line {}: not JSON: {e}", i + 1))?;
        if let Some(e) = v.get("error").and_then(Value::as_str).filter(|e| !e.is_empty()) {
            errors.push((details.len(), e.to_string()));
        }
        details.push(v.get("detail").and_then(Value::as_object).cloned());
    }
    Ok((details, errors))
}

/// Reads a DICE run directory whose report is `report`.
fn read_dice(dir: &Path, report: &str, kind: DiceKind) -> Result<DiceInput, String> {
    let path = dir.join(report);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read: {e}"))?;
    let v: Value = serde_json::from_str(ragjudge_core::bom::strip(&text)).map_err(|e| format!("not JSON: {e}"))?;
    // A versioned leaderboard is checked against its type (a newer schema is refused in one
    // line); files of earlier versions are read by their fields.
    if kind == DiceKind::Tournament && v.get("kind").is_some() {
        ragjudge_artifacts::read_artifact_value::<LeaderboardReport>(&path, v.clone()).map_err(|e| e.detail())?;
    }
    let field = |name: &str| v.get(name).cloned().unwrap_or(Value::Null);
    let standings_field = match kind {
        DiceKind::Tournament => "systems",
        DiceKind::Baseline => "leaderboard",
        DiceKind::Compare => "",
    };
    let standings: Vec<Standing> = match field(standings_field) {
        Value::Null => Vec::new(),
        s => serde_json::from_value(s).map_err(|e| format!("field `{standings_field}`: {e}"))?,
    };
    let matches: Vec<PlayedMatch> = match field("matches") {
        Value::Null => Vec::new(),
        m => serde_json::from_value(m).map_err(|e| format!("field `matches`: {e}"))?,
    };
    let provenance = serde_json::from_value(field("provenance")).ok();
    Ok(DiceInput {
        kind,
        standings,
        matches,
        traces: read_lines(&dir.join("traces.jsonl"))?,
        labels: read_lines(&dir.join("labels.jsonl"))?,
        verdicts: read_lines(&dir.join("verdicts.jsonl"))?,
        provenance,
        report: v,
    })
}

/// Every line of a JSONL file as `T`; a missing file is empty.
fn read_lines<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<Vec<T>, String> {
    let Ok(file) = ragjudge_core::bom::open(path) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for (i, line) in file.lines().enumerate() {
        let line = line.map_err(|e| format!("{}:{}: cannot read: {e}", path.display(), i + 1))?;
        if line.trim().is_empty() {
            continue;
        }
        out.push(serde_json::from_str(&line).map_err(|e| format!("{}:{}: {e}", path.display(), i + 1))?);
    }
    Ok(out)
}

/// The records of every `Records` input, by (id, system).
pub fn records_by_key(inputs: &Inputs) -> BTreeMap<(String, String), &Record> {
    let mut out = BTreeMap::new();
    for l in &inputs.loaded {
        if let Input::Records(rs) = &l.input {
            for r in rs {
                out.entry((r.id.clone(), r.system.clone())).or_insert(r);
            }
        }
    }
    out
}
