//! `ragjudge baseline`: DICE's single-system mode. The system under test plays high, medium and
//! low quality baselines (a round robin among the four, so the baselines calibrate each other),
//! and is placed by Elo among them.

use super::{conclude, with_run_fields, DiceArgs};
use crate::args::ShardArgs;
use anyhow::{bail, Result};
use clap::Args;
use ragjudge_core::Record;
use ragjudge_dice::baseline::{placement, tiers_in_order, TierRecord, TIERS};
use ragjudge_dice::run::{index_by_id, read_run};
use ragjudge_dice::tournament::{run as run_tournament, Format, TournamentConfig};
use serde_json::json;
use std::collections::HashMap;
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

/// Reads a run (the records of the selected shard) and names every record's system `name`.
fn read_as(path: &Path, name: &str, shard: &ShardArgs) -> Result<Vec<Record>> {
    let mut out = shard.select(read_run(path)?);
    for r in &mut out {
        r.system = name.to_string();
    }
    Ok(out)
}

/// Runs `ragjudge baseline`.
pub fn run(args: &BaselineArgs) -> Result<()> {
    let target = "target";
    let mut runs: HashMap<&str, Vec<Record>> = HashMap::new();
    runs.insert(target, read_as(&args.target, target, &args.dice.shard)?);
    for (tier, path) in TIERS.iter().zip([&args.high, &args.medium, &args.low]) {
        runs.insert(tier, read_as(path, tier, &args.dice.shard)?);
    }
    let index = index_by_id(runs.iter().map(|(s, recs)| (*s, recs)));
    let mut run = args.dice.start()?;
    let systems: Vec<String> = std::iter::once(target).chain(TIERS).map(String::from).collect();
    let cfg = TournamentConfig { format: Format::RoundRobin, ..TournamentConfig::default() };
    // Per tier: the target's wins, ties and losses over questions.
    let mut record: HashMap<String, TierRecord> = HashMap::new();
    let board = run_tournament(&systems, &cfg, |a, b| {
        let played = run.play(&runs[a], &index[b])?;
        for r in &played.rows {
            // From the target's side: its score is s_a when it was A, else 1 - s_a.
            let (tier, s) = match (a == target, b == target) {
                (true, _) => (b, r.s_a),
                (_, true) => (a, 1.0 - r.s_a),
                _ => continue,
            };
            record.entry(tier.to_string()).or_default().add(s);
        }
        Ok::<_, ragjudge_dice::run::DiceRunError>(played.match_result())
    })?;
    if conclude(&run, board.judge_calls, args.json)? {
        return Ok(());
    }
    let trust = run.trust();
    let elo = |name: &str| board.systems.iter().find(|s| s.system == name).map_or(f64::NAN, |s| s.elo);
    let target_elo = elo(target);
    let tier_elos: Vec<f64> = TIERS.iter().map(|t| elo(t)).collect();
    let tier = placement(target_elo, &tier_elos);
    if !tiers_in_order(&tier_elos) {
        eprintln!("warning: the judge does not order the baselines high > medium > low; the placement is unreliable");
    }
    let per_tier: Vec<_> = TIERS
        .iter()
        .map(|t| {
            let r = record.get(*t).copied().unwrap_or_default();
            json!({"tier": t, "wins": r.wins, "ties": r.ties, "losses": r.losses, "elo": elo(t)})
        })
        .collect();
    let failures = run.failures();
    let report = json!({"target_elo": target_elo, "placement": tier, "tiers": per_tier, "leaderboard": board.systems,
                        "failed": failures.len(), "failures": failures});
    let report = with_run_fields(report, &run, &trust);
    run.write_report("baseline.json", &report)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    if !target_elo.is_finite() {
        bail!("no Elo for the target");
    }
    println!("target Elo {target_elo:.1}: {tier}");
    for t in &per_tier {
        println!(
            "  vs {:<6} (Elo {:>7.1}): {} wins, {} ties, {} losses",
            t["tier"].as_str().unwrap_or(""),
            t["elo"].as_f64().unwrap_or(f64::NAN),
            t["wins"],
            t["ties"],
            t["losses"]
        );
    }
    print!("{}", trust.render());
    Ok(())
}
