//! `ragjudge baseline`: DICE's single-system mode (DICE §3.3), the library's
//! [`BaselineRuns::play`] job, printed.

use super::{print_dry_run, DiceArgs};
use anyhow::{bail, Result};
use clap::Args;
use ragjudge_dice::baseline::{BaselineOutcome, BaselineRuns};
use ragjudge_dice::run::read_run;
use std::path::{Path, PathBuf};

/// `ragjudge baseline`.
#[derive(Debug, Args)]
pub struct BaselineArgs {
    /// Records of the system under test.
    pub target: PathBuf,
    /// Records of the high-quality baseline.
    #[arg(long)]
    pub high: PathBuf,
    /// Records of the medium-quality baseline.
    #[arg(long)]
    pub medium: PathBuf,
    /// Records of the low-quality baseline.
    #[arg(long)]
    pub low: PathBuf,
    #[command(flatten)]
    pub dice: DiceArgs,
    /// Print the result as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

/// Runs `ragjudge baseline`.
pub fn run(args: &BaselineArgs) -> Result<()> {
    let read = |path: &Path| -> Result<_> { args.dice.shard.select(read_run(path)?) };
    let runs =
        BaselineRuns { target: read(&args.target)?, tiers: [read(&args.high)?, read(&args.medium)?, read(&args.low)?] };
    let mut run = args.dice.start()?;
    let doc = match runs.play(&mut run)? {
        BaselineOutcome::DryRun(counts) => return print_dry_run(&run, &counts, args.json),
        BaselineOutcome::Played(doc) => doc,
    };
    let report = &doc.body;
    if !report.tiers_in_order {
        eprintln!("warning: the judge does not order the baselines high > medium > low; the placement is unreliable");
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&doc)?);
        return Ok(());
    }
    if report.target_elo.is_none_or(|e| !e.is_finite()) {
        bail!("no Elo for the target");
    }
    print!("{}{}", report.render(), report.run.trust.render());
    Ok(())
}
