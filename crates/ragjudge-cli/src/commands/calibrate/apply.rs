//! `calibrate --apply FILE`: calibrated probabilities and prediction sets for a new score file.

use super::{keys, CalibrateArgs};
use anyhow::{bail, Context as _, Result};
use ragjudge_core::table::{read_keyed, RepeatedKeys};
use ragjudge_stats::calibration::FittedCalibration;
use std::io::Write;
use std::path::Path;

/// Applies the calibrator saved in `path` to `--scores`, writing `--output` (CSV or JSONL) or stdout.
pub(super) fn run(args: &CalibrateArgs, path: &Path) -> Result<()> {
    let saved = FittedCalibration::read(path)?.body;
    let keys = keys(&saved.on)?;
    let score_cols: Vec<&str> = saved.score_columns.iter().map(String::as_str).collect();
    let table = read_keyed(&args.scores, &keys, &score_cols, RepeatedKeys::Keep)?;
    let (rows, total) = (table.rows, table.read);
    let label_text: Vec<String> = saved.labels.iter().map(|l| l.to_string()).collect();
    let set_text = |set: &[usize]| -> String {
        format!("{{{}}}", set.iter().map(|&k| label_text[k].as_str()).collect::<Vec<_>>().join(","))
    };

    let jsonl = match &args.output {
        Some(p) => match p.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
            Some("csv") => false,
            Some("jsonl") | Some("ndjson") => true,
            _ => bail!("{}: unknown output format (use .csv or .jsonl)", p.display()),
        },
        None => args.json,
    };
    if let Some(p) = &args.output {
        ragjudge_artifacts::check_not_input(p, &[args.scores.as_path(), path])?;
    }
    // Written in full before it goes anywhere: an output file appears complete or not at all.
    let sink: Vec<u8> = Vec::new();
    let mut header: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
    header.extend(label_text.iter().map(|l| format!("p_{l}")));
    header.extend(saved.conformal.iter().map(|c| c.score.set_column()));

    let (mut csv_out, mut json_out) =
        if jsonl { (None, Some(sink)) } else { (Some(csv::Writer::from_writer(sink)), None) };
    if let Some(w) = csv_out.as_mut() {
        w.write_record(&header)?;
    }
    for row in &rows {
        let c = saved
            .apply(&row.values)
            .with_context(|| format!("{}:{}: cannot calibrate", args.scores.display(), row.line))?;
        let sets: Vec<String> = c.sets.iter().map(|s| set_text(s)).collect();
        if let Some(w) = csv_out.as_mut() {
            let mut rec: Vec<String> = row.key.clone();
            rec.extend(c.probs.iter().map(|v| v.to_string()));
            rec.extend(sets);
            w.write_record(&rec)?;
        } else if let Some(w) = json_out.as_mut() {
            let mut obj = serde_json::Map::new();
            for (k, v) in keys.iter().zip(&row.key) {
                obj.insert(k.to_string(), v.clone().into());
            }
            for (l, v) in label_text.iter().zip(&c.probs) {
                obj.insert(format!("p_{l}"), (*v).into());
            }
            for (cp, s) in saved.conformal.iter().zip(sets) {
                obj.insert(cp.score.set_column(), s.into());
            }
            writeln!(w, "{}", serde_json::Value::Object(obj))?;
        }
    }
    let bytes = match (csv_out, json_out) {
        (Some(w), _) => w.into_inner().map_err(|e| anyhow::anyhow!("{}", e.error()))?,
        (None, Some(w)) => w,
        (None, None) => Vec::new(),
    };
    match &args.output {
        Some(p) => ragjudge_artifacts::write_atomic(p, &bytes)?,
        None => std::io::stdout().lock().write_all(&bytes)?,
    }
    let skipped = total - rows.len();
    if skipped > 0 {
        eprintln!("{} rows calibrated; {skipped} rows without all score columns left out", rows.len());
    }
    Ok(())
}
