//! `ragjudge tournament`: DICE matches among many systems (seed 001), paired Swiss-style by
//! Elo or round robin, ranked by Elo or Bradley-Terry with bootstrap intervals.

use crate::args::TournamentArgs;
use crate::commands::matches::{index_by_id, read_run, with_fields, MatchRunner};
use anyhow::{bail, Result};
use ragjudge_core::Record;
use ragjudge_dice::tournament::{run as run_tournament, Format, MatchResult, RankBy, TournamentConfig};
use serde_json::json;
use std::collections::HashMap;

/// Runs `ragjudge tournament`.
pub fn run(args: &TournamentArgs) -> Result<()> {
    let format = match args.format.as_str() {
        "swiss" => Format::Swiss,
        "round-robin" | "roundrobin" => Format::RoundRobin,
        other => bail!("--format: `{other}` is neither swiss nor round-robin"),
    };
    let rank_by = match args.rank_by.as_str() {
        "elo" => RankBy::Elo,
        "bt" | "bradley-terry" => RankBy::BradleyTerry,
        other => bail!("--rank-by: `{other}` is neither elo nor bt"),
    };
    // Records per system, systems in order of first appearance.
    let mut order: Vec<String> = Vec::new();
    let mut by_system: HashMap<String, Vec<Record>> = HashMap::new();
    for path in &args.runs {
        for r in read_run(path)? {
            if !by_system.contains_key(&r.system) {
                order.push(r.system.clone());
            }
            by_system.entry(r.system.clone()).or_default().push(r);
        }
    }
    if order.len() < 2 {
        bail!("a tournament needs at least two systems, found {}", order.len());
    }
    let index = index_by_id(by_system.iter().map(|(s, recs)| (s.as_str(), recs)));
    let mut runner = MatchRunner::new(&args.dice)?;
    let mut cfg = TournamentConfig { format, rounds: args.rounds, rank_by, ..TournamentConfig::default() };
    cfg.bt.seed = args.seed;
    let mut error: Option<anyhow::Error> = None;
    let board = run_tournament(&order, &cfg, |a, b| match runner.play(&by_system[a], &index[b]) {
        Ok(played) => played.match_result(),
        Err(e) => {
            error.get_or_insert(e);
            MatchResult::default()
        }
    });
    if runner.conclude(error, board.judge_calls, args.json)? {
        return Ok(());
    }
    let trust = runner.trust();
    let failures = runner.failures();
    let report = json!({
        "systems": board.systems,
        "rank_by": args.rank_by,
        "judge_calls": board.judge_calls,
        "round_robin_calls": board.round_robin_calls,
        "failed": failures.len(),
        "failures": failures,
        "matches": board.matches,
    });
    let report = with_fields(report, runner.report_fields(&trust));
    runner.write_report("leaderboard.json", &report)?;
    let mut csv = csv::Writer::from_path(runner.out_dir().join("leaderboard.csv"))?;
    csv.write_record(["rank", "system", "elo", "bt", "bt_ci_low", "bt_ci_high", "wins", "ties", "losses", "matches"])?;
    for s in &board.systems {
        csv.write_record([
            s.rank.to_string(),
            s.system.clone(),
            format!("{:.2}", s.elo),
            format!("{:.4}", s.bt),
            format!("{:.4}", s.bt_ci_low),
            format!("{:.4}", s.bt_ci_high),
            s.wins.to_string(),
            s.ties.to_string(),
            s.losses.to_string(),
            s.matches.to_string(),
        ])?;
    }
    csv.flush()?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    println!("{:>4}  {:<16} {:>8} {:>8} {:>19}  {:>5}", "rank", "system", "elo", "bt", "bt 95% CI", "W-T-L");
    for s in &board.systems {
        println!(
            "{:>4}  {:<16} {:>8.1} {:>8.3} {:>19}  {}-{}-{}",
            s.rank,
            s.system,
            s.elo,
            s.bt,
            format!("[{:.3}, {:.3}]", s.bt_ci_low, s.bt_ci_high),
            s.wins,
            s.ties,
            s.losses
        );
    }
    println!(
        "{} judge calls (round robin: {}); {} failed judgements; details in {}",
        board.judge_calls,
        board.round_robin_calls,
        failures.len(),
        runner.out_dir().display()
    );
    print!("{}", trust.render());
    Ok(())
}
