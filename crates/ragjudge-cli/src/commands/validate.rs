//! `ragjudge validate`: which scorer agrees with the user's own labels on held-out questions, and
//! prediction-powered estimates with it (`ragjudge_human::validate`).

use anyhow::{bail, Result};
use clap::Args;
use ragjudge_artifacts::Provenance;
use ragjudge_human::job::{validate_job, ValidateInputs};
use ragjudge_human::validate::{ValidateSettings, Validation};
use std::path::PathBuf;

/// `ragjudge validate`.
#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Human labels: the label file of `annotate serve`, a pairwise JSONL (`id`, `system_a`, `system_b`, `label`, optional `preference` -2..2) or a graded CSV / JSONL (`id`, `system`, `--label-col`).
    #[arg(long, value_name = "FILE")]
    pub labels: PathBuf,
    /// The label column of a graded file.
    #[arg(long, default_value = "label")]
    pub label_col: String,
    /// The runs (every task; the baselines read their answers).
    #[arg(long, required = true, num_args = 1.., value_name = "RUNS")]
    pub runs: Vec<PathBuf>,
    /// Score files: every numeric column is a candidate scorer.
    #[arg(long, num_args = 1.., value_name = "FILE")]
    pub scores: Vec<PathBuf>,
    /// A judge's pairwise labels as NAME=FILE (`labels.jsonl` of `compare` / `tournament`), a candidate.
    #[arg(long, value_name = "NAME=FILE")]
    pub judge: Vec<String>,
    /// The plan the labels followed (`annotate plan -o`): only its uniform draws feed the PPI estimates.
    #[arg(long, value_name = "FILE")]
    pub plan: Option<PathBuf>,
    /// Folds of the cross-validation by question.
    #[arg(long, default_value_t = ValidateSettings::default().folds)]
    pub folds: usize,
    /// Seed of the folds.
    #[arg(long, default_value_t = ValidateSettings::default().seed)]
    pub seed: u64,
    /// Error rate of the intervals.
    #[arg(long, default_value_t = ValidateSettings::default().alpha)]
    pub alpha: f64,
    /// Where to write the validation (JSON, for `report`).
    #[arg(long, short = 'o')]
    pub output: Option<PathBuf>,
    /// Print the validation as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs `ragjudge validate`.
pub fn run(a: &ValidateArgs) -> Result<()> {
    let mut judges = Vec::new();
    for spec in &a.judge {
        let Some((name, file)) = spec.split_once('=') else {
            bail!("--judge {spec}: expected NAME=FILE");
        };
        judges.push((name.to_string(), PathBuf::from(file)));
    }
    let inputs = ValidateInputs {
        labels: a.labels.clone(),
        label_col: a.label_col.clone(),
        plan: a.plan.clone(),
        runs: a.runs.clone(),
        scores: a.scores.clone(),
        judges,
    };
    let settings = ValidateSettings { folds: a.folds, seed: a.seed, alpha: a.alpha, ..ValidateSettings::default() };
    let v = validate_job(&inputs, &settings, a.output.as_deref(), Provenance::of_this_process())?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        print_table(&v);
    }
    Ok(())
}

fn print_table(v: &Validation) {
    let f = |x: Option<f64>| x.map_or("–".to_string(), |v| format!("{v:.3}"));
    println!("{} labelled {} tasks on {} questions", v.labels, v.view.as_str(), v.questions);
    println!(
        "{:<28} {:>8} {:>5} {:>8} {:>17} {:>8} {:>8}",
        "candidate", "source", "n", "spearman", "interval", "cv", "accuracy"
    );
    for c in &v.candidates {
        let name = if c.reversed { format!("{} (reversed)", c.name) } else { c.name.clone() };
        println!(
            "{:<28} {:>8} {:>5} {:>8} {:>17} {:>8} {:>8}{}",
            name,
            c.source.as_str(),
            c.n,
            f(c.spearman),
            format!("[{}, {}]", f(c.low), f(c.high)),
            f(c.cv_spearman),
            f(c.accuracy),
            match (c.eligible, c.spearman) {
                (true, _) => "",
                (false, None) => "  (undefined: constant)",
                (false, Some(_)) => "  (covers too few labels)",
            }
        );
    }
    for e in &v.estimates {
        let (p, c) = (&e.ppi.ppi, &e.ppi.classical);
        println!(
            "{}: {:.3} [{:.3}, {:.3}] with PPI ({} labelled, {} unlabelled); labels alone {:.3} [{:.3}, {:.3}]",
            e.group, p.estimate, p.low, p.high, e.ppi.n, e.ppi.unlabelled, c.estimate, c.low, c.high
        );
    }
    if !v.consensus.is_empty() {
        let members: Vec<String> = v.consensus.iter().map(|(m, w)| format!("{m} {:.0}%", 100.0 * w)).collect();
        println!("consensus: {}", members.join(", "));
    }
    println!("{}", v.verdict);
}
