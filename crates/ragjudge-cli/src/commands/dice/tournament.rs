//! `ragjudge tournament`: DICE matches among many systems (DICE §3.3), paired Swiss-style by
//! Elo or round robin, ranked by Elo or Bradley-Terry with bootstrap intervals.

use super::{print_dry_run, DiceArgs};
use anyhow::Result;
use clap::{Args, ValueEnum};
use ragjudge_dice::leaderboard::{PpiSettings, Tournament, TournamentOutcome};
use ragjudge_dice::run::read_run;
use ragjudge_dice::tournament::{Format, RankBy, TournamentConfig};
use std::path::PathBuf;

/// Tournament formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// Swiss system, paired by Elo.
    Swiss,
    /// Every pair once.
    #[value(alias = "roundrobin")]
    RoundRobin,
}

/// Ranking keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RankByArg {
    /// Bradley-Terry over every per-question outcome.
    #[value(alias = "bradley-terry")]
    Bt,
    /// The paper's Elo leaderboard (after few Swiss rounds it depends on the pairing order).
    Elo,
}

/// `ragjudge tournament`.
#[derive(Debug, Args)]
pub struct TournamentArgs {
    /// Run files, one system each (or several systems in one file).
    #[arg(required = true, num_args = 1..)]
    pub runs: Vec<PathBuf>,
    #[command(flatten)]
    pub dice: DiceArgs,
    /// Tournament format.
    #[arg(long, value_enum, default_value = "swiss")]
    pub format: FormatArg,
    /// Swiss rounds (default ceil(log2 N) + 1).
    #[arg(long)]
    pub rounds: Option<usize>,
    /// Ranking key.
    #[arg(long, value_enum, default_value = "bt")]
    pub rank_by: RankByArg,
    /// Seed of the bootstrap and of any shuffle.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Print the leaderboard as JSON on stdout.
    #[arg(long)]
    pub json: bool,
    /// Human pairwise labels of some questions (JSONL `{"id", "system_a", "system_b", "label"}`):
    /// for every pair of systems with at least two labelled and one unlabelled judged question,
    /// the first's prediction-powered win rate, the judge's s as the prediction.
    #[arg(long, value_name = "FILE")]
    pub ppi_labels: Option<PathBuf>,
    /// Error level of the prediction-powered intervals.
    #[arg(long, default_value_t = 0.1)]
    pub ppi_alpha: f64,
}

/// Runs `ragjudge tournament`: the library's [`Tournament`] job, printed.
pub fn run(args: &TournamentArgs) -> Result<()> {
    let mut config = TournamentConfig {
        format: match args.format {
            FormatArg::Swiss => Format::Swiss,
            FormatArg::RoundRobin => Format::RoundRobin,
        },
        rounds: args.rounds,
        rank_by: match args.rank_by {
            RankByArg::Elo => RankBy::Elo,
            RankByArg::Bt => RankBy::BradleyTerry,
        },
        ..TournamentConfig::default()
    };
    config.bt.seed = args.seed;
    let ppi = args.ppi_labels.clone().map(|labels| PpiSettings { labels, alpha: args.ppi_alpha });
    super::check_ppi_alpha(args.ppi_alpha)?;
    let mut records = Vec::new();
    for path in &args.runs {
        records.extend(args.dice.shard.select(read_run(path)?)?);
    }
    let tournament = Tournament::from_records(records)?;
    let mut run = args.dice.start()?;
    let doc = match tournament.play(&mut run, &config, ppi.as_ref())? {
        TournamentOutcome::DryRun(counts) => return print_dry_run(&run, &counts, args.json),
        TournamentOutcome::Played(doc) => doc,
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        print!("{}{}", doc.body.render(run.out_dir()), doc.body.run.trust.render());
    }
    Ok(())
}
