//! `ragjudge compare`: one DICE match between two systems (DICE §3.3), the library's
//! [`ragjudge_dice::compare::compare`] job, printed.

use super::{print_dry_run, DiceArgs};
use anyhow::Result;
use clap::Args;
use ragjudge_dice::compare::{compare, CompareOutcome};
use ragjudge_dice::leaderboard::PpiSettings;
use ragjudge_dice::run::read_run;
use std::path::PathBuf;

/// `ragjudge compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Records of system A.
    pub a: PathBuf,
    /// Records of system B (joined with A on `id`).
    pub b: PathBuf,
    #[command(flatten)]
    pub dice: DiceArgs,
    /// Human pairwise labels of some questions (JSONL `{"id", "system_a", "system_b", "label":
    /// "A"|"B"|"tie"}`): A's win rate estimated by prediction-powered inference, the judge's
    /// s_A as the prediction (Angelopoulos et al. 2023).
    #[arg(long, value_name = "FILE")]
    pub ppi_labels: Option<PathBuf>,
    /// Error level of the prediction-powered interval.
    #[arg(long, default_value_t = 0.1)]
    pub ppi_alpha: f64,
    /// Print the result as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

/// Runs `ragjudge compare`.
pub fn run(args: &CompareArgs) -> Result<()> {
    super::check_ppi_alpha(args.ppi_alpha)?;
    let ppi = args.ppi_labels.clone().map(|labels| PpiSettings { labels, alpha: args.ppi_alpha });
    let a = args.dice.shard.select(read_run(&args.a)?)?;
    let b = args.dice.shard.select(read_run(&args.b)?)?;
    if a.is_empty() || b.is_empty() {
        anyhow::bail!("{} and {} share no question id", args.a.display(), args.b.display());
    }
    let mut run = args.dice.start()?;
    let doc = match compare(&mut run, &a, &b, ppi.as_ref())? {
        CompareOutcome::DryRun(counts) => return print_dry_run(&run, &counts, args.json),
        CompareOutcome::Played(doc, _) => doc,
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        print!("{}{}", doc.body.render(run.out_dir()), doc.body.run.trust.render());
    }
    Ok(())
}
