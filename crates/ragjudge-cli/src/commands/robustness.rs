//! `ragjudge robustness`: how scores move from original records to their variants (input
//! variations, adversarial contexts) and how systems answer out-of-distribution queries
//! (HCAT §6.1), through `ragjudge_analysis::robustness`. Which record is a variant of which comes
//! from the records' `meta` (`--input`) or from `variant_of`, `perturbation`, `severity` columns
//! of the score files.

use anyhow::{bail, Context as _, Result};
use clap::Args;
use ragjudge_analysis::robustness::{
    analyse, write_files, Abstention, Correctness, RobustnessReport, RobustnessSettings, ScoreTable, ScoredRecord,
    VariantMeta, OOD,
};
use ragjudge_core::table::{has_column, read_table};
use ragjudge_core::{ReadOptions, RecordReader};
use ragjudge_eval::scores::read_score_file;
use ragjudge_report::charts::{robustness_charts, write_all};
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Columns that describe a variant rather than score it.
const META_COLUMNS: [&str; 4] = ["variant_of", "perturbation", "severity", "seed"];

/// `ragjudge robustness`.
#[derive(Debug, Args)]
pub struct RobustnessArgs {
    /// Per-record scores of the original records (`score --output`, CSV or JSONL).
    #[arg(long, value_name = "FILE")]
    pub original: PathBuf,
    /// Per-record scores of the variant records.
    #[arg(long, value_name = "FILE")]
    pub variants: PathBuf,
    /// The records that were scored (originals and variants), for `meta.variant_of`,
    /// `meta.perturbation`, `meta.severity` and the texts of the worst pairs (joined on id, system, run).
    #[arg(long = "input", value_name = "FILE", num_args = 1..)]
    pub inputs: Vec<PathBuf>,
    /// Metric columns to compare (default: every numeric column of both files).
    #[arg(long, value_delimiter = ',')]
    pub metric: Vec<String>,
    /// Correctness rule for flip rates, `COLUMN>=THRESHOLD` (e.g. `token_f1>=0.5`).
    #[arg(long, value_name = "COL>=T")]
    pub correct: Option<String>,
    /// A pair is "worse" when variant - original < -TOLERANCE.
    #[arg(long, default_value_t = 0.0)]
    pub tolerance: f64,
    /// Pairs with the largest drop listed per metric.
    #[arg(long, default_value_t = 5)]
    pub worst: usize,
    /// Bootstrap resamples of the interval of the mean difference.
    #[arg(long, default_value_t = 1000)]
    pub bootstrap: usize,
    /// Seed of the bootstrap.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Abstention rule of out-of-distribution answers, `COL>=T` or `COL<T` (default: `no_answer>=0.5`,
    /// `trec_no_answer>=0.5` or `generation_score_answered<0.5`, the first present).
    #[arg(long, value_name = "RULE")]
    pub abstention: Option<String>,
    /// Hallucination column of out-of-distribution answers (default: the first present of
    /// `hallucination`, `hallucination_score`, `generation_score_hallucination_score`).
    #[arg(long, value_name = "COL")]
    pub hallucination: Option<String>,
    /// Directory for `robustness.json`, `deltas.csv`, `worst.csv`, `ood.csv` and the charts
    /// (`plots/robustness-METRIC.svg|png`: deltas with paired intervals).
    #[arg(long, short = 'o', value_name = "DIR")]
    pub output: Option<PathBuf>,
    /// Print the report as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

/// `COL>=T` or `COL<T` as (column, threshold, at least).
fn rule(s: &str, option: &str) -> Result<(String, f64, bool)> {
    let (col, t, at_least) = match (s.split_once(">="), s.split_once('<')) {
        (Some((c, t)), _) => (c, t, true),
        (None, Some((c, t))) => (c, t, false),
        _ => bail!("{option} `{s}`: expected COLUMN>=THRESHOLD"),
    };
    let t: f64 = t
        .trim()
        .parse()
        .ok()
        .filter(|t: &f64| t.is_finite())
        .with_context(|| format!("{option} `{s}`: threshold `{}` is not a number", t.trim()))?;
    Ok((col.trim().to_string(), t, at_least))
}

/// A meta value or cell as text (`None` for null or empty).
fn text(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::Null => None,
        Value::String(s) if s.trim().is_empty() => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

/// What the records say about each (id, system, run): variant meta, question and answer.
type Known = HashMap<(String, String, String), (VariantMeta, String, String)>;

fn records(paths: &[PathBuf]) -> Result<Known> {
    let mut out = Known::new();
    for path in paths {
        for r in RecordReader::open(path, &ReadOptions::default())? {
            let r = r?;
            let meta = VariantMeta {
                variant_of: text(r.meta.get("variant_of")),
                perturbation: text(r.meta.get("perturbation")),
                severity: text(r.meta.get("severity")),
            };
            let run = r.run.map(|n| n.to_string()).unwrap_or_default();
            out.entry((r.id, r.system, run)).or_insert((meta, r.query, r.answer));
        }
    }
    Ok(out)
}

/// A score file with each row's run and variant meta (from `known`, else from its own columns).
fn table(path: &Path, metrics_only: bool, known: &Known) -> Result<ScoreTable> {
    let scores = read_score_file(path)?;
    let mut cols = vec!["id", "system"];
    for c in ["run", "variant_of", "perturbation", "severity"] {
        if has_column(path, c)? {
            cols.push(c);
        }
    }
    let cells = read_table(path, &cols)?;
    if cells.rows.len() != scores.rows.len() {
        bail!("{}: rows could not be read alike as scores and as cells", path.display());
    }
    let at = |name: &str| cols.iter().position(|c| *c == name);
    let mut rows = Vec::with_capacity(scores.rows.len());
    for (r, (_, c)) in scores.rows.into_iter().zip(&cells.rows) {
        let cell = |name: &str| at(name).and_then(|i| c[i].clone()).filter(|s| !s.trim().is_empty());
        let run = cell("run");
        let key = (r.id.clone(), r.system.clone(), run.clone().unwrap_or_default());
        let (variant, query, answer) = match known.get(&key) {
            Some((m, q, a)) => (m.clone(), Some(q.clone()), Some(a.clone())),
            None if metrics_only => (VariantMeta::default(), None, None),
            None => (
                VariantMeta {
                    variant_of: cell("variant_of"),
                    perturbation: cell("perturbation"),
                    severity: cell("severity"),
                },
                None,
                None,
            ),
        };
        rows.push(ScoredRecord { id: r.id, system: r.system, run, values: r.values, variant, query, answer });
    }
    let columns = scores.columns.into_iter().collect();
    Ok(ScoreTable { name: path.display().to_string(), columns, rows })
}

/// Runs `ragjudge robustness`.
pub fn run(args: &RobustnessArgs) -> Result<()> {
    let known = records(&args.inputs)?;
    let originals = table(&args.original, true, &known)?;
    let variants = table(&args.variants, false, &known)?;
    if variants.rows.iter().all(|r| r.variant.variant_of.is_none() && r.variant.perturbation.is_none()) {
        bail!(
            "{}: no variant: give the records with --input (meta.variant_of, meta.perturbation) or \
             columns `variant_of` and `perturbation`",
            args.variants.display()
        );
    }
    let metrics: Vec<String> = if args.metric.is_empty() {
        let both = originals.columns.iter().filter(|c| variants.columns.contains(c));
        both.filter(|c| !META_COLUMNS.contains(&c.as_str())).cloned().collect()
    } else {
        args.metric.iter().map(|m| m.trim().to_string()).collect()
    };
    if metrics.is_empty() && variants.rows.iter().any(|r| r.variant.perturbation.as_deref() != Some(OOD)) {
        bail!(
            "{}: no numeric column in common with {}: name metrics with --metric",
            args.variants.display(),
            args.original.display()
        );
    }
    let correct = match &args.correct {
        Some(s) => match rule(s, "--correct")? {
            (column, threshold, true) => Some(Correctness { column, threshold }),
            _ => bail!("--correct `{s}`: expected COLUMN>=THRESHOLD"),
        },
        None => None,
    };
    let abstention = match &args.abstention {
        Some(s) => rule(s, "--abstention")
            .map(|(column, threshold, at_least)| Some(Abstention { column, threshold, at_least }))?,
        None => None,
    };
    let settings = RobustnessSettings {
        metrics,
        correct,
        tolerance: args.tolerance,
        worst: args.worst,
        bootstrap: args.bootstrap,
        seed: args.seed,
        abstention,
        hallucination: args.hallucination.clone(),
        ..RobustnessSettings::default()
    };
    let report = analyse(&originals, &variants, &settings)?;
    if let Some(dir) = &args.output {
        write_files(dir, &report)?;
        let files = write_all(&robustness_charts(&report), &dir.join("plots"))?;
        eprintln!("{} charts written to {}", files.len() / 2, dir.join("plots").display());
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    print(&report);
    Ok(())
}

fn num(x: Option<f64>) -> String {
    x.map(|v| format!("{v:.4}")).unwrap_or_else(|| "-".into())
}

fn print(r: &RobustnessReport) {
    for metric in &r.metrics {
        let worse = if r.tolerance > 0.0 { format!("delta < -{}", r.tolerance) } else { "delta < 0".into() };
        println!(
            "{metric}: variant - original, {:.0}% paired bootstrap ({} resamples); worse: {worse}; flips: {}",
            r.level * 100.0,
            r.bootstrap,
            r.correct
                .as_ref()
                .map(|c| format!("correct = {} >= {}", c.column, c.threshold))
                .unwrap_or_else(|| "-".into())
        );
        println!(
            "  {:<12} {:<12} {:>8} {:>5} {:>9} {:>9} {:>28} {:>7} {:>7} {:>7}",
            "system", "perturbation", "severity", "n", "original", "variant", "delta [CI]", "worse", "lost", "gained"
        );
        for d in r.deltas.iter().filter(|d| &d.metric == metric) {
            let delta = match (d.delta, d.ci_low, d.ci_high) {
                (Some(x), Some(lo), Some(hi)) => format!("{x:+.4} [{lo:+.4}, {hi:+.4}]"),
                _ => "-".into(),
            };
            let empty = if d.empty > 0 { format!(" ({} empty)", d.empty) } else { String::new() };
            println!(
                "  {:<12} {:<12} {:>8} {:>5} {:>9} {:>9} {:>28} {:>7} {:>7} {:>7}{empty}",
                d.system,
                d.perturbation,
                d.severity,
                d.n,
                num(d.original_mean),
                num(d.variant_mean),
                delta,
                num(d.worse_share),
                num(d.flips.as_ref().map(|f| f.rate)),
                num(d.flips.as_ref().map(|f| f.reverse_rate)),
            );
        }
    }
    for o in &r.ood {
        let a = o.abstention.as_ref().map(|a| format!(", abstained {} ({}/{})", num(a.rate), a.abstained, a.n));
        let h = o.hallucination.as_ref().map(|h| format!(", {} mean {}", h.column, num(h.mean)));
        println!("ood {}: n {}{}{}", o.system, o.n, a.unwrap_or_default(), h.unwrap_or_default());
    }
    if !r.exclusions.is_empty() {
        let ids: Vec<String> = r.exclusions.iter().take(5).map(|e| format!("{} ({:?})", e.id, e.reason)).collect();
        println!(
            "{} variant records in no pair: {}{}",
            r.exclusions.len(),
            ids.join(", "),
            if r.exclusions.len() > 5 { ", ..." } else { "" }
        );
    }
}
