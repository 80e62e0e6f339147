//! Fan-out and fan-in: what `score --shard i/n -o OUT` writes beside its rows (`OUT.shard.json`,
//! a [`ShardManifest`]) and [`merge_shards`], which checks that a set of shard outputs is complete
//! and consistent, writes their rows as one file and summarises them as one run would.
//!
//! Merging re-reads the shards' per-record rows and summarises them again. The bootstrap weights
//! of a record depend only on the seed and the record's key (see [`crate::summary`]), so the
//! merged means are those of a single run bit for bit, and the intervals agree up to the rounding
//! of replicate sums taken in another order.

use crate::error::EvalError;
use crate::families::{read_definitions, stage_definitions, ColumnDefinitions};
use crate::sink::{commit_output, create_file_sink, OwnedRow};
use crate::summary::{Summarizer, SummaryReport};
use ragjudge_artifacts::{read_artifact, to_json_bytes, Artifact, ArtifactError, OutputSet, Provenance};
use ragjudge_core::{InputError, Shard};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// What one shard's run was: written beside its per-record rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ShardManifest {
    /// The shard, `i/n`.
    pub shard: String,
    /// Records scored in the shard (rows in the file).
    pub records: u64,
    /// Malformed records skipped in the shard.
    pub skipped: u64,
    /// Bootstrap replicates of the run.
    pub bootstrap: usize,
    /// Bootstrap seed of the run.
    pub seed: u64,
    /// Confidence level of the run's intervals.
    pub level: f64,
    /// The value columns, in order.
    pub columns: Vec<String>,
}

impl ShardManifest {
    /// The manifest of a shard's run from its summary and columns.
    pub fn new(shard: Shard, summary: &SummaryReport, seed: u64, columns: &[String]) -> Self {
        Self {
            shard: shard.to_string(),
            records: summary.records,
            skipped: summary.skipped,
            bootstrap: summary.bootstrap,
            seed,
            level: summary.level,
            columns: columns.to_vec(),
        }
    }
}

/// Where the manifest of the score file `scores` is kept: `scores` with `.shard.json` added.
pub fn manifest_path(scores: &Path) -> PathBuf {
    let mut name = scores.as_os_str().to_owned();
    name.push(".shard.json");
    PathBuf::from(name)
}

impl Artifact for ShardManifest {
    const KIND: &'static str = "shard-manifest";
    const SCHEMA_VERSION: u32 = 1;

    /// Before artifacts were versioned the file held the manifest's fields alone.
    fn is_legacy(value: &Value) -> bool {
        value.get("shard").is_some() && value.get("records").is_some()
    }
}

/// Adds the manifest beside the score file `scores` to `set` (written with the scores).
pub fn stage_manifest(
    scores: &Path,
    manifest: &ShardManifest,
    provenance: &Provenance,
    set: &mut OutputSet,
) -> Result<PathBuf, EvalError> {
    let path = manifest_path(scores);
    let bytes = to_json_bytes(provenance, manifest).map_err(|e| EvalError::io(&path, format!("cannot encode: {e}")))?;
    set.push_bytes(&path, &bytes)?;
    Ok(path)
}

/// Reads the manifest beside the score file `scores`.
pub fn read_manifest(scores: &Path) -> Result<ShardManifest, EvalError> {
    let path = manifest_path(scores);
    if !path.exists() {
        return Err(EvalError::io(
            scores,
            format!("no shard manifest {}; was it written by `score --shard i/n`?", path.display()),
        ));
    }
    match read_artifact::<ShardManifest>(&path) {
        Ok(doc) => Ok(doc.body),
        Err(e @ ArtifactError::NewerSchema { .. }) => Err(e.into()),
        Err(e) => Err(EvalError::io(&path, format!("not a shard manifest: {}", e.detail()))),
    }
}

/// Per-record rows read back in full: value columns in file order, and every row as written.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RowTable {
    /// The value columns, in order.
    pub columns: Vec<String>,
    /// The rows, in file order.
    pub rows: Vec<OwnedRow>,
}

/// Columns of a score file that are not values.
const KEY_COLUMNS: [&str; 5] = ["id", "system", "run", "error", "detail"];

/// Reads back the rows `score` wrote, by extension: CSV, JSONL (with each row's evidence) or
/// Parquet. Every cell must be what the sink writes: a number or empty in a value column.
pub fn read_rows(path: &Path) -> Result<RowTable, EvalError> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    match ext.as_str() {
        "csv" => read_csv_rows(path),
        "jsonl" | "json" | "ndjson" => read_jsonl_rows(path),
        "parquet" => crate::parquet::read_rows(path),
        _ => Err(EvalError::io(path, "unknown score file format (use .csv, .jsonl or .parquet)")),
    }
}

fn cell_error(path: &Path, line: u64, field: &str, message: impl Into<String>) -> EvalError {
    InputError::new(path.display().to_string(), Some(line), Some(field.to_string()), message).into()
}

fn read_csv_rows(path: &Path) -> Result<RowTable, EvalError> {
    let mut r = ragjudge_core::bom::csv_reader(path).map_err(|e| EvalError::io(path, format!("cannot open: {e}")))?;
    let headers = r.headers().map_err(|e| EvalError::io(path, format!("no header: {e}")))?.clone();
    let col = |c: &str| headers.iter().position(|h| h == c);
    let (Some(id), Some(sys)) = (col("id"), col("system")) else {
        return Err(EvalError::io(path, "needs `id` and `system` columns"));
    };
    let (run, error) = (col("run"), col("error"));
    let value_cols: Vec<usize> = (0..headers.len()).filter(|&i| !KEY_COLUMNS.contains(&&headers[i])).collect();
    let columns = value_cols.iter().map(|&i| headers[i].to_string()).collect();
    let mut rows = Vec::new();
    for (i, rec) in r.records().enumerate() {
        let line = i as u64 + 2;
        let rec = rec.map_err(|e| InputError::new(path.display().to_string(), Some(line), None, e.to_string()))?;
        let cell = |c: usize| rec.get(c).unwrap_or("");
        let run = match run.map(cell).unwrap_or("") {
            "" => None,
            r => Some(r.parse::<u32>().map_err(|_| cell_error(path, line, "run", format!("not a run number: `{r}`")))?),
        };
        let mut values = Vec::with_capacity(value_cols.len());
        for &c in &value_cols {
            values.push(match cell(c) {
                "" => None,
                v => Some(
                    v.parse::<f64>()
                        .map_err(|_| cell_error(path, line, &headers[c], format!("not a number: `{v}`")))?,
                ),
            });
        }
        let err = error.map(cell).unwrap_or("");
        rows.push(OwnedRow {
            id: cell(id).to_string(),
            system: cell(sys).to_string(),
            run,
            values,
            detail: Map::new(),
            errors: if err.is_empty() { Vec::new() } else { vec![err.to_string()] },
        });
    }
    Ok(RowTable { columns, rows })
}

fn read_jsonl_rows(path: &Path) -> Result<RowTable, EvalError> {
    let text = std::fs::read_to_string(path).map_err(|e| EvalError::io(path, format!("cannot read: {e}")))?;
    let mut columns: Option<Vec<String>> = None;
    let mut rows = Vec::new();
    for (i, l) in ragjudge_core::bom::strip(&text).lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let line = i as u64 + 1;
        let at = |field: &str, m: String| cell_error(path, line, field, m);
        let v: Value = serde_json::from_str(l).map_err(|e| at("", format!("not JSON: {e}")))?;
        let Value::Object(mut o) = v else { return Err(at("", "not a JSON object".into())) };
        let cols = columns.get_or_insert_with(|| {
            o.keys().filter(|k| !KEY_COLUMNS.contains(&k.as_str())).cloned().collect::<Vec<String>>()
        });
        let text_of = |o: &Map<String, Value>, k: &str| -> Result<String, EvalError> {
            match o.get(k) {
                Some(Value::String(s)) => Ok(s.clone()),
                None | Some(Value::Null) => Ok(String::new()),
                Some(other) => Err(at(k, format!("expected a string, got {other}"))),
            }
        };
        let (id, system, error) = (text_of(&o, "id")?, text_of(&o, "system")?, text_of(&o, "error")?);
        let run = match o.get("run") {
            None | Some(Value::Null) => None,
            Some(r) => Some(
                r.as_u64()
                    .and_then(|r| u32::try_from(r).ok())
                    .ok_or_else(|| at("run", format!("not a run number: {r}")))?,
            ),
        };
        let mut values = Vec::with_capacity(cols.len());
        for c in cols.iter() {
            values.push(match o.get(c) {
                None | Some(Value::Null) => None,
                Some(v) => Some(v.as_f64().ok_or_else(|| at(c, format!("not a number: {v}")))?),
            });
        }
        let detail = match o.remove("detail") {
            Some(Value::Object(d)) => d,
            None | Some(Value::Null) => Map::new(),
            Some(other) => return Err(at("detail", format!("expected an object, got {other}"))),
        };
        rows.push(OwnedRow {
            id,
            system,
            run,
            values,
            detail,
            errors: if error.is_empty() { Vec::new() } else { vec![error] },
        });
    }
    Ok(RowTable { columns: columns.unwrap_or_default(), rows })
}

/// What a merge produced.
#[derive(Debug, Clone)]
pub struct MergeReport {
    /// The per-system summary of all shards' rows, as one `score` run prints it.
    pub summary: SummaryReport,
    /// The number of shards merged.
    pub shards: u32,
    /// How the columns were computed, when the shards kept their definitions.
    pub definitions: Option<ColumnDefinitions>,
}

/// Merges the outputs of `score --shard i/n` for every `i` (each exactly once, any order): checks
/// that they come from the same number of shards, the same bootstrap, the same columns and the
/// same column definitions, writes their rows to `output` (if any; shard 1's rows first, each
/// shard's in its own order) with the definitions beside it, and summarises them.
///
/// The output appears complete or not at all, together with its definitions; an output that is
/// one of the shards is refused before anything is read.
pub fn merge_shards(inputs: &[PathBuf], output: Option<&Path>) -> Result<MergeReport, EvalError> {
    let Some(first) = inputs.first() else {
        return Err(EvalError::settings("merge: no shard outputs given"));
    };
    if let Some(out) = output {
        ragjudge_artifacts::check_not_input(out, inputs)?;
    }
    let mut parts: Vec<(Shard, &PathBuf, ShardManifest)> = Vec::with_capacity(inputs.len());
    for path in inputs {
        let m = read_manifest(path)?;
        let shard = Shard::parse(&m.shard).map_err(|e| EvalError::io(manifest_path(path), e))?;
        parts.push((shard, path, m));
    }
    let (n, base) = (parts[0].0.count(), parts[0].2.clone());
    for (shard, path, m) in &parts {
        let differs = |what: &str, a: String, b: String| {
            EvalError::io(
                path.as_path(),
                format!("{what} {b} differs from {a} in {} (shards of different runs?)", first.display()),
            )
        };
        if shard.count() != n {
            return Err(differs("shard count", n.to_string(), shard.count().to_string()));
        }
        if (m.bootstrap, m.seed) != (base.bootstrap, base.seed) || m.level != base.level {
            let show = |m: &ShardManifest| format!("bootstrap {} / seed {} / level {}", m.bootstrap, m.seed, m.level);
            return Err(differs("settings", show(&base), show(m)));
        }
        if m.columns != base.columns {
            return Err(differs("columns", base.columns.join(","), m.columns.join(",")));
        }
    }
    parts.sort_by_key(|(s, _, _)| s.index());
    for w in parts.windows(2) {
        if w[0].0 == w[1].0 {
            return Err(EvalError::settings(format!(
                "merge: shard {} given twice: {} and {}",
                w[0].0,
                w[0].1.display(),
                w[1].1.display()
            )));
        }
    }
    let missing: Vec<String> =
        (1..=n).filter(|i| !parts.iter().any(|(s, _, _)| s.index() == *i)).map(|i| format!("{i}/{n}")).collect();
    if !missing.is_empty() {
        return Err(EvalError::settings(format!("merge: missing shard(s) {}", missing.join(", "))));
    }
    let definitions = same_definitions(&parts)?;
    let mut summary = Summarizer::new(base.columns.clone(), base.bootstrap.max(1), base.seed);
    let mut sink = output.map(create_file_sink).transpose()?;
    if let Some(s) = sink.as_deref_mut() {
        s.start(&base.columns)?;
    }
    for (shard, path, m) in &parts {
        let table = read_rows(path)?;
        // An empty JSONL file names no columns.
        if table.columns != m.columns && !table.rows.is_empty() {
            return Err(EvalError::io(
                path.as_path(),
                format!("columns {} differ from its manifest's {}", table.columns.join(","), m.columns.join(",")),
            ));
        }
        if table.rows.len() as u64 != m.records {
            return Err(EvalError::io(
                path.as_path(),
                format!("{} rows where its manifest says {} records (truncated?)", table.rows.len(), m.records),
            ));
        }
        if let Some(row) = table.rows.iter().find(|r| !shard.contains(&r.id)) {
            return Err(EvalError::io(path.as_path(), format!("record `{}` does not belong to shard {shard}", row.id)));
        }
        summary.add_skipped(m.skipped);
        for row in &table.rows {
            summary.add(&row.id, &row.system, row.run, &row.values, !row.errors.is_empty());
            if let Some(s) = sink.as_deref_mut() {
                s.write(crate::sink::Row {
                    id: &row.id,
                    system: &row.system,
                    run: row.run,
                    values: &row.values,
                    detail: &row.detail,
                    errors: &row.errors,
                })?;
            }
        }
    }
    if let (Some(mut s), Some(out)) = (sink, output) {
        s.finish()?;
        let mut sidecars = OutputSet::new();
        if let Some(defs) = &definitions {
            stage_definitions(out, defs, &mut sidecars)?;
        }
        sidecars.remove_if_unwritten(&crate::families::sidecar_path(out));
        sidecars.remove_if_unwritten(&manifest_path(out));
        commit_output(s, sidecars)?;
    }
    Ok(MergeReport { summary: summary.report(base.level), shards: n, definitions })
}

/// The column definitions all shards share; an error naming the first shard that differs.
fn same_definitions(parts: &[(Shard, &PathBuf, ShardManifest)]) -> Result<Option<ColumnDefinitions>, EvalError> {
    let mut defs: Vec<Option<ColumnDefinitions>> = Vec::with_capacity(parts.len());
    for (_, path, _) in parts {
        defs.push(read_definitions(path)?);
    }
    for (d, (_, path, _)) in defs.iter().zip(parts).skip(1) {
        if d != &defs[0] {
            let why = match (&defs[0], d) {
                (Some(a), Some(b)) => a.differences(b).join("; "),
                (Some(_), None) => "has no column definitions".into(),
                _ => "has column definitions where the first shard has none".into(),
            };
            return Err(EvalError::io(
                path.as_path(),
                format!("column definitions differ from shard {}'s: {why}", parts[0].0),
            ));
        }
    }
    Ok(defs.swap_remove(0))
}
