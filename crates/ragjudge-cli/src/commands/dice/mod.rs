//! The DICE commands (compare, tournament, baseline): their shared options and the glue around
//! `ragjudge_dice::run::DiceRun`.

pub mod baseline;
pub mod compare;
pub mod tournament;

use crate::args::{JudgeArgs, ShardArgs};
use crate::backends;
use crate::commands::judge_protocol::ProtocolArgs;
use anyhow::{bail, Result};
use clap::{Args, ValueEnum};
use ragjudge_core::text::Lang;
use ragjudge_dice::run::{DiceRun, DiceRunOptions, DryRunCounts};
use std::path::PathBuf;
use std::sync::Arc;

/// Prompt language of the DICE judge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LangArg {
    /// Chosen per question from its text.
    Auto,
    /// English prompts.
    En,
    /// Chinese prompts.
    Zh,
}

/// Options of every DICE command (compare, tournament, baseline).
#[derive(Debug, Args)]
pub struct DiceArgs {
    #[command(flatten)]
    pub judge: JudgeArgs,
    #[command(flatten)]
    pub shard: ShardArgs,
    /// Output directory (reports, `traces.jsonl`, `labels.jsonl`); not needed with `--dry-run`.
    #[arg(long, short = 'o', required_unless_present = "dry_run")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub judging: ProtocolArgs,
    /// Margin below which a verdict is scored softly.
    #[arg(long, default_value_t = 0.1)]
    pub tau: f64,
    /// Judge only the first N shared questions of each match.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Judge only these question ids (comma separated).
    #[arg(long, value_delimiter = ',')]
    pub ids: Vec<String>,
    /// Prompt language.
    #[arg(long, value_enum, default_value = "auto")]
    pub lang: LangArg,
    /// Divide out the judge's label prior, estimated on content-free pairs (contextual
    /// calibration); the prior is recorded in the report and the traces.
    #[arg(long)]
    pub debias: bool,
    /// Count the judge calls and estimate prompt tokens without calling the judge (cached calls
    /// are counted as free).
    #[arg(long)]
    pub dry_run: bool,
}

impl DiceArgs {
    /// The run's settings (`DiceRun::new` refuses options that only DICE's protocol has with
    /// another).
    pub fn options(&self) -> Result<DiceRunOptions> {
        let p = &self.judging;
        if p.premise_sentences == 0 {
            bail!("--premise-sentences must be at least 1");
        }
        Ok(DiceRunOptions {
            tau: self.tau,
            protocol: p.protocol,
            premise_sentences: p.premise_sentences,
            reasoning: !p.no_reasoning,
            swap: !p.no_swap,
            lang: match self.lang {
                LangArg::Auto => None,
                LangArg::En => Some(Lang::En),
                LangArg::Zh => Some(Lang::Zh),
            },
            limit: self.limit,
            ids: self.ids.clone(),
            debias: self.debias,
            dry_run: self.dry_run,
            output: self.output.clone(),
        })
    }

    /// Builds the judge (a counting stand-in with `--dry-run`) and the run.
    pub fn start(&self) -> Result<DiceRun> {
        let judge = Arc::from(backends::judge_or_dry_run(&self.judge, self.dry_run)?);
        Ok(DiceRun::new(judge, &self.options()?)?)
    }
}

/// Prints what a dry run counted.
pub fn print_dry_run(run: &DiceRun, c: &DryRunCounts, json_out: bool) -> Result<()> {
    if json_out {
        /// `--dry-run --json`.
        #[derive(serde::Serialize)]
        struct DryRunReport<'a> {
            dry_run: bool,
            judge: String,
            #[serde(flatten)]
            counts: &'a DryRunCounts,
        }
        let report = DryRunReport { dry_run: true, judge: run.judge().identity(), counts: c };
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!(
            "dry run: {} judge calls, {} not cached; about {} prompt tokens to send (4 characters a token; \
             stage I output not included)",
            c.judge_calls, c.uncached_calls, c.estimated_prompt_tokens
        );
    }
    Ok(())
}

/// Refuses an error level of prediction-powered intervals outside (0, 1), before any judging.
pub fn check_ppi_alpha(alpha: f64) -> Result<()> {
    if alpha > 0.0 && alpha < 1.0 {
        Ok(())
    } else {
        anyhow::bail!("--ppi-alpha must be in (0, 1), got {alpha}")
    }
}
