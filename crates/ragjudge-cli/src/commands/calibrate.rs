//! `ragjudge calibrate`: map machine scores to human labels (Platt, isotonic, ordinal) and give
//! conformal prediction sets (seed 003, section 5).
//!
//! Fitting joins a score file with a label file on key columns (as `ragjudge correlate --with
//! --on`), splits the joined rows at random into a fitting part (stage 1, section 5.1), a
//! conformal calibration part (stage 2, section 5.2) and a test part, and reports the conformal
//! threshold, coverage, set sizes, Brier score and expected calibration error on the test part.
//! `--save` writes the fitted calibrator as JSON; `--apply` reads one back and writes calibrated
//! probabilities and prediction sets for a new score file.

use crate::commands::correlate::read_table;
use anyhow::{bail, Context as _, Result};
use clap::{Args, ValueEnum};
use ragjudge_stats::calibration::metrics::CalibrationQuality;
use ragjudge_stats::calibration::split::split_rows;
use ragjudge_stats::calibration::{Calibrator, Method};
use ragjudge_stats::conformal::{BinarySet, ConformalScore, Coverage, SplitConformal};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// `ragjudge calibrate`.
#[derive(Debug, Args)]
pub struct CalibrateArgs {
    /// CSV or JSONL file of machine scores (with `--apply`: the new scores to calibrate).
    #[arg(long, value_name = "FILE")]
    pub scores: PathBuf,
    /// CSV or JSONL file of human labels, joined to `--scores` on `--on` (needed to fit).
    #[arg(long, value_name = "FILE")]
    pub labels: Option<PathBuf>,
    /// Calibration method: platt and isotonic need binary labels (see `--binarize`).
    #[arg(long, value_enum, default_value_t = MethodArg::Platt)]
    pub method: MethodArg,
    /// Score column(s), comma separated (CSV headers or dotted JSON paths); isotonic takes one.
    #[arg(long = "score-col", value_delimiter = ',', value_name = "COL")]
    pub score_cols: Vec<String>,
    /// Label column of `--labels`.
    #[arg(long = "label-col", value_name = "COL")]
    pub label_col: Option<String>,
    /// Binarise the labels: 1 when label >= T, else 0.
    #[arg(long, value_name = "T")]
    pub binarize: Option<f64>,
    /// Join keys, comma separated.
    #[arg(long, value_delimiter = ',', default_value = "id,system")]
    pub on: Vec<String>,
    /// Conformal error rate: sets hold the human label with probability at least 1 - alpha.
    #[arg(long, default_value_t = 0.1)]
    pub alpha: f64,
    /// Share of the joined rows held out to set the conformal threshold.
    #[arg(long, default_value_t = 0.25)]
    pub cal_fraction: f64,
    /// Share of the joined rows held out to measure coverage and calibration (may be 0).
    #[arg(long, default_value_t = 0.25)]
    pub test_fraction: f64,
    /// Seed of the random split.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Write the fitted calibrator to this JSON file.
    #[arg(long, value_name = "FILE")]
    pub save: Option<PathBuf>,
    /// Apply a saved calibrator to `--scores` instead of fitting one.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["labels", "save"])]
    pub apply: Option<PathBuf>,
    /// With `--apply`: output file (.csv or .jsonl); stdout when absent.
    #[arg(long, value_name = "FILE", requires = "apply")]
    pub output: Option<PathBuf>,
    /// Print the report as JSON (with `--apply` to stdout: JSON lines).
    #[arg(long)]
    pub json: bool,
}

/// The `--method` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MethodArg {
    /// Platt scaling (logistic model).
    Platt,
    /// Isotonic regression.
    Isotonic,
    /// Proportional-odds ordinal logistic regression.
    Ordinal,
}

impl From<MethodArg> for Method {
    fn from(m: MethodArg) -> Self {
        match m {
            MethodArg::Platt => Method::Platt,
            MethodArg::Isotonic => Method::Isotonic,
            MethodArg::Ordinal => Method::Ordinal,
        }
    }
}

/// The JSON file written by `--save` and read by `--apply`.
#[derive(Debug, Serialize, Deserialize)]
struct SavedCalibrator {
    /// Method and fitted parameters.
    #[serde(flatten)]
    calibrator: Calibrator,
    /// Score columns, in the order of the parameters.
    score_columns: Vec<String>,
    /// Label column it was fitted on.
    label_column: String,
    /// Binarisation threshold applied to the labels, if any.
    binarize: Option<f64>,
    /// Label value of each level, in level order.
    labels: Vec<f64>,
    /// Join keys, copied to the output of `--apply`.
    on: Vec<String>,
    /// Conformal error rate.
    alpha: f64,
    /// One conformal predictor per non-conformity score (LAC; APS too for more than two levels).
    conformal: Vec<SplitConformal>,
}

/// One joined row: keys, scores and (when fitting) the label's level index.
struct Row {
    key: Vec<String>,
    x: Vec<f64>,
}

#[derive(Serialize)]
struct SetReport {
    score: ConformalScore,
    q_hat: Option<f64>,
    /// `None` when there is no test split.
    test: Option<Coverage>,
    /// Binary labels only: counts of the sets `{0}`, `{1}`, `{0,1}` and empty on the test split.
    binary_sets: Option<BinarySetCounts>,
}

#[derive(Serialize)]
struct BinarySetCounts {
    zero: usize,
    one: usize,
    both: usize,
    empty: usize,
}

#[derive(Serialize)]
struct Report<'a> {
    method: &'static str,
    score_columns: &'a [String],
    label_column: &'a str,
    binarize: Option<f64>,
    labels: &'a [f64],
    rows: usize,
    joined: usize,
    fit: usize,
    calibration: usize,
    test: usize,
    seed: u64,
    alpha: f64,
    calibrator: &'a Calibrator,
    /// Brier score and ECE on the test split (the calibration split when there is no test split).
    quality: Option<CalibrationQuality>,
    quality_on: &'static str,
    sets: Vec<SetReport>,
}

/// Runs `ragjudge calibrate`.
pub fn run(args: &CalibrateArgs) -> Result<()> {
    if !(args.alpha > 0.0 && args.alpha < 1.0) {
        bail!("--alpha must be between 0 and 1, got {}", args.alpha);
    }
    match &args.apply {
        Some(path) => apply(args, path),
        None => fit(args),
    }
}

fn keys(on: &[String]) -> Result<Vec<&str>> {
    let keys: Vec<&str> = on.iter().map(String::as_str).filter(|k| !k.is_empty()).collect();
    if keys.is_empty() {
        bail!("--on needs at least one key column");
    }
    Ok(keys)
}

/// Reads the key and score columns of every row; rows missing a score are `None`.
fn read_scores(path: &Path, keys: &[&str], score_cols: &[String]) -> Result<(Vec<Option<Row>>, Vec<u64>)> {
    let mut cols: Vec<&str> = keys.to_vec();
    cols.extend(score_cols.iter().map(String::as_str));
    let t = read_table(path, &cols)?;
    let mut rows = Vec::with_capacity(t.rows.len());
    let mut lines = Vec::with_capacity(t.rows.len());
    for i in 0..t.rows.len() {
        let (line, cells) = &t.rows[i];
        let key: Vec<String> = cells[..keys.len()].iter().map(|c| c.clone().unwrap_or_default()).collect();
        let mut x = Vec::with_capacity(score_cols.len());
        for (j, col) in score_cols.iter().enumerate() {
            if let Some(v) = t.number(i, keys.len() + j, col)? {
                x.push(v);
            }
        }
        lines.push(*line);
        rows.push((x.len() == score_cols.len()).then_some(Row { key, x }));
    }
    Ok((rows, lines))
}

fn fit(args: &CalibrateArgs) -> Result<()> {
    let labels_path = args.labels.as_deref().context("--labels is needed to fit (or give --apply FILE)")?;
    let label_col = args.label_col.as_deref().context("--label-col is needed to fit")?;
    if args.score_cols.is_empty() {
        bail!("--score-col is needed: at least one score column");
    }
    let keys = keys(&args.on)?;
    let method = Method::from(args.method);

    // Labels by key.
    let mut label_cols = keys.clone();
    label_cols.push(label_col);
    let lt = read_table(labels_path, &label_cols)?;
    let mut by_key: HashMap<Vec<String>, f64> = HashMap::new();
    for i in 0..lt.rows.len() {
        let (line, cells) = &lt.rows[i];
        if let Some(v) = lt.number(i, keys.len(), label_col)? {
            let key: Vec<String> = cells[..keys.len()].iter().map(|c| c.clone().unwrap_or_default()).collect();
            if by_key.insert(key.clone(), v).is_some() {
                bail!("{}:{line}: duplicate key {key:?}", lt.name);
            }
        }
    }

    // Join.
    let (score_rows, _) = read_scores(&args.scores, &keys, &args.score_cols)?;
    let total = score_rows.len();
    let mut xs = Vec::new();
    let mut raw = Vec::new();
    for row in score_rows.into_iter().flatten() {
        if let Some(&v) = by_key.get(&row.key) {
            xs.push(row.x);
            raw.push(match args.binarize {
                Some(t) => f64::from(u8::from(v >= t)),
                None => v,
            });
        }
    }
    if xs.is_empty() {
        bail!(
            "no row of {} has all score columns and a label in {} on keys {}",
            args.scores.display(),
            labels_path.display(),
            keys.join(",")
        );
    }
    let mut levels: Vec<f64> = raw.clone();
    levels.sort_by(f64::total_cmp);
    levels.dedup();
    if levels.len() < 2 {
        bail!("`{label_col}` has a single value ({}) on the joined rows; nothing to calibrate", levels[0]);
    }
    if method != Method::Ordinal && levels.len() != 2 {
        bail!(
            "{} needs binary labels, but `{label_col}` has {} levels; use --binarize T or --method ordinal",
            method.name(),
            levels.len()
        );
    }
    let y: Vec<usize> = raw.iter().map(|v| levels.iter().position(|l| l == v).unwrap_or(0)).collect();

    // Split and fit (stage 1).
    let split = split_rows(xs.len(), args.cal_fraction, args.test_fraction, args.seed).with_context(|| {
        format!(
            "--cal-fraction {} and --test-fraction {} must lie in [0, 1) and sum to less than 1",
            args.cal_fraction, args.test_fraction
        )
    })?;
    if split.fit.is_empty() || split.calibration.is_empty() {
        bail!(
            "{} joined rows give {} fitting and {} calibration rows; both must be non-empty",
            xs.len(),
            split.fit.len(),
            split.calibration.len()
        );
    }
    let pick = |idx: &[usize]| -> (Vec<Vec<f64>>, Vec<usize>) {
        (idx.iter().map(|&i| xs[i].clone()).collect(), idx.iter().map(|&i| y[i]).collect())
    };
    let (fx, fy) = pick(&split.fit);
    let calibrator = Calibrator::fit(method, &fx, &fy, levels.len())
        .with_context(|| format!("fitting {} on {} rows", method.name(), fx.len()))?;

    // Conformal threshold (stage 2) and test figures.
    let probs = |x: &[Vec<f64>]| -> Result<Vec<Vec<f64>>> {
        x.iter().map(|r| calibrator.predict_proba(r).map_err(anyhow::Error::from)).collect()
    };
    let (cx, cy) = pick(&split.calibration);
    let (tx, ty) = pick(&split.test);
    let (pc, pt) = (probs(&cx)?, probs(&tx)?);
    let scores: &[ConformalScore] =
        if levels.len() == 2 { &[ConformalScore::Lac] } else { &[ConformalScore::Lac, ConformalScore::Aps] };
    let mut conformal = Vec::new();
    let mut sets = Vec::new();
    for &score in scores {
        let c = SplitConformal::calibrate(score, &pc, &cy, args.alpha)?;
        let test = Coverage::measure(&c, &pt, &ty);
        let binary_sets = (levels.len() == 2 && !pt.is_empty()).then(|| {
            let mut n = BinarySetCounts { zero: 0, one: 0, both: 0, empty: 0 };
            for p in &pt {
                match BinarySet::of(&c.predict_set(p)) {
                    BinarySet::Zero => n.zero += 1,
                    BinarySet::One => n.one += 1,
                    BinarySet::Both => n.both += 1,
                    BinarySet::Empty => n.empty += 1,
                }
            }
            n
        });
        sets.push(SetReport { score, q_hat: c.q_hat, test, binary_sets });
        conformal.push(c);
    }
    let (quality, quality_on) = if pt.is_empty() {
        (CalibrationQuality::of(&pc, &cy), "calibration")
    } else {
        (CalibrationQuality::of(&pt, &ty), "test")
    };

    let report = Report {
        method: method.name(),
        score_columns: &args.score_cols,
        label_column: label_col,
        binarize: args.binarize,
        labels: &levels,
        rows: total,
        joined: xs.len(),
        fit: split.fit.len(),
        calibration: split.calibration.len(),
        test: split.test.len(),
        seed: args.seed,
        alpha: args.alpha,
        calibrator: &calibrator,
        quality,
        quality_on,
        sets,
    };
    if let Some(path) = &args.save {
        let saved = SavedCalibrator {
            calibrator: calibrator.clone(),
            score_columns: args.score_cols.clone(),
            label_column: label_col.to_string(),
            binarize: args.binarize,
            labels: levels.clone(),
            on: keys.iter().map(|k| k.to_string()).collect(),
            alpha: args.alpha,
            conformal,
        };
        let text = serde_json::to_string_pretty(&saved)?;
        std::fs::write(path, text + "\n").with_context(|| format!("{}: cannot write", path.display()))?;
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_report(&report);
    }
    Ok(())
}

fn print_report(r: &Report<'_>) {
    let labels: Vec<String> = r.labels.iter().map(|l| l.to_string()).collect();
    println!(
        "{} calibration of {} -> {}{} (levels {})",
        r.method,
        r.score_columns.join(","),
        r.label_column,
        r.binarize.map_or(String::new(), |t| format!(" >= {t}")),
        labels.join(", ")
    );
    println!(
        "rows: {} joined of {}; split (seed {}): fit {}, calibration {}, test {}",
        r.joined, r.rows, r.seed, r.fit, r.calibration, r.test
    );
    println!("parameters: {}", serde_json::to_string(r.calibrator).unwrap_or_default());
    if let Some(q) = &r.quality {
        println!("{} split: Brier {:.4}, ECE {:.4} ({} equal-width bins)", r.quality_on, q.brier, q.ece, q.ece_bins);
    }
    for s in &r.sets {
        let name = match s.score {
            ConformalScore::Lac => "LAC",
            ConformalScore::Aps => "APS",
        };
        let q = s.q_hat.map_or("inf (all labels)".into(), |q| format!("{q:.4}"));
        println!("{name} sets, alpha {}: q_hat {q}", r.alpha);
        if let Some(c) = &s.test {
            let sizes: Vec<String> = c.size_counts.iter().enumerate().map(|(k, n)| format!("{k}:{n}")).collect();
            println!(
                "  test coverage {:.4} (target >= {:.2}), mean set size {:.3}, sizes {}",
                c.coverage,
                1.0 - r.alpha,
                c.mean_size,
                sizes.join(" ")
            );
        }
        if let Some(b) = &s.binary_sets {
            println!("  sets {{0}}: {}, {{1}}: {}, {{0,1}}: {}, empty: {}", b.zero, b.one, b.both, b.empty);
        }
    }
}

fn apply(args: &CalibrateArgs, path: &Path) -> Result<()> {
    let name = path.display();
    let text = std::fs::read_to_string(path).with_context(|| format!("{name}: cannot read"))?;
    let saved: SavedCalibrator =
        serde_json::from_str(&text).with_context(|| format!("{name}: not a calibrator file"))?;
    if saved.score_columns.len() != saved.calibrator.n_features() || saved.labels.len() != saved.calibrator.levels() {
        bail!("{name}: score columns or labels do not match the parameters");
    }
    let keys = keys(&saved.on)?;
    let (rows, lines) = read_scores(&args.scores, &keys, &saved.score_columns)?;
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
    let sink: Box<dyn Write> = match &args.output {
        Some(p) => Box::new(std::fs::File::create(p).with_context(|| format!("{}: cannot create", p.display()))?),
        None => Box::new(std::io::stdout().lock()),
    };
    let mut header: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
    header.extend(label_text.iter().map(|l| format!("p_{l}")));
    header.extend(saved.conformal.iter().map(|c| set_column(c.score)));

    let (mut csv_out, mut json_out) =
        if jsonl { (None, Some(sink)) } else { (Some(csv::Writer::from_writer(sink)), None) };
    if let Some(w) = csv_out.as_mut() {
        w.write_record(&header)?;
    }
    let (mut written, mut skipped) = (0usize, 0usize);
    for (row, line) in rows.iter().zip(&lines) {
        let Some(row) = row else {
            skipped += 1;
            continue;
        };
        let p = saved
            .calibrator
            .predict_proba(&row.x)
            .with_context(|| format!("{}:{line}: cannot calibrate", args.scores.display()))?;
        let sets: Vec<String> = saved.conformal.iter().map(|c| set_text(&c.predict_set(&p))).collect();
        if let Some(w) = csv_out.as_mut() {
            let mut rec: Vec<String> = row.key.clone();
            rec.extend(p.iter().map(|v| v.to_string()));
            rec.extend(sets);
            w.write_record(&rec)?;
        } else if let Some(w) = json_out.as_mut() {
            let mut obj = serde_json::Map::new();
            for (k, v) in keys.iter().zip(&row.key) {
                obj.insert(k.to_string(), v.clone().into());
            }
            for (l, v) in label_text.iter().zip(&p) {
                obj.insert(format!("p_{l}"), (*v).into());
            }
            for (c, s) in saved.conformal.iter().zip(sets) {
                obj.insert(set_column(c.score), s.into());
            }
            writeln!(w, "{}", serde_json::Value::Object(obj))?;
        }
        written += 1;
    }
    if let Some(mut w) = csv_out {
        w.flush()?;
    }
    if let Some(mut w) = json_out {
        w.flush()?;
    }
    if skipped > 0 {
        eprintln!("{written} rows calibrated; {skipped} rows without all score columns left out");
    }
    Ok(())
}

fn set_column(score: ConformalScore) -> String {
    match score {
        ConformalScore::Lac => "set_lac".into(),
        ConformalScore::Aps => "set_aps".into(),
    }
}
