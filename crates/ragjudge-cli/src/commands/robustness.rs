//! `ragjudge robustness`: how scores move from original records to their variants (input
//! variations, adversarial contexts) and how systems answer out-of-distribution queries
//! (HCAT §6.1), through `ragjudge_analysis::robustness`. Which record is a variant of which comes
//! from the records' `meta` (`--input`) or from `variant_of`, `perturbation`, `severity` columns
//! of the score files.

use anyhow::{bail, Context as _, Result};
use clap::Args;
use ragjudge_analysis::robustness::{render, write_files, Abstention, Correctness, RobustnessJob, RobustnessSettings};
use ragjudge_artifacts::Provenance;
use ragjudge_report::charts::{robustness_charts, write_all};
use std::path::PathBuf;

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

impl RobustnessArgs {
    /// The library job these options describe.
    pub(crate) fn job(&self) -> Result<RobustnessJob> {
        let correct = match &self.correct {
            Some(s) => match rule(s, "--correct")? {
                (column, threshold, true) => Some(Correctness { column, threshold }),
                _ => bail!("--correct `{s}`: expected COLUMN>=THRESHOLD"),
            },
            None => None,
        };
        let abstention = match &self.abstention {
            Some(s) => rule(s, "--abstention")
                .map(|(column, threshold, at_least)| Some(Abstention { column, threshold, at_least }))?,
            None => None,
        };
        let settings = RobustnessSettings {
            metrics: self.metric.iter().map(|m| m.trim().to_string()).collect(),
            correct,
            tolerance: self.tolerance,
            worst: self.worst,
            bootstrap: self.bootstrap,
            seed: self.seed,
            abstention,
            hallucination: self.hallucination.clone(),
            ..RobustnessSettings::default()
        };
        let (original, variants, inputs) = (self.original.clone(), self.variants.clone(), self.inputs.clone());
        Ok(RobustnessJob { original, variants, inputs, settings })
    }
}

/// Runs `ragjudge robustness`.
pub fn run(args: &RobustnessArgs) -> Result<()> {
    let outcome = args.job()?.run()?;
    for r in &outcome.repeats {
        eprintln!("warning: {r}");
    }
    let report = &outcome.report;
    if let Some(dir) = &args.output {
        let mut provenance = Provenance::of_this_process();
        provenance.add_inputs(&[&args.original, &args.variants])?;
        provenance.add_inputs(&args.inputs)?;
        write_files(dir, report, &provenance)?;
        let files = write_all(&robustness_charts(report), &dir.join("plots"))?;
        eprintln!("{} charts written to {}", files.len() / 2, dir.join("plots").display());
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(report)?);
    } else {
        print!("{}", render(report));
    }
    Ok(())
}
