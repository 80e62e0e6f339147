//! `ragjudge tournament`: DICE matches among many systems (DICE §3.3), paired Swiss-style by
//! Elo or round robin, ranked by Elo or Bradley-Terry with bootstrap intervals.

use super::{check_ppi_alpha, conclude, ppi_win_rate, render_ppi_win_rate, with_run_fields, DiceArgs};
use anyhow::{bail, Result};
use clap::{Args, ValueEnum};
use ragjudge_core::Record;
use ragjudge_dice::length_control::{length_control, LengthControl};
use ragjudge_dice::run::{index_by_id, read_run};
use ragjudge_dice::tournament::{run as run_tournament, Format, RankBy, TournamentConfig};
use serde_json::json;
use std::collections::HashMap;
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

/// Runs `ragjudge tournament`.
pub fn run(args: &TournamentArgs) -> Result<()> {
    check_ppi_alpha(args.ppi_alpha)?;
    let format = match args.format {
        FormatArg::Swiss => Format::Swiss,
        FormatArg::RoundRobin => Format::RoundRobin,
    };
    let rank_by = match args.rank_by {
        RankByArg::Elo => RankBy::Elo,
        RankByArg::Bt => RankBy::BradleyTerry,
    };
    // Records per system, systems in order of first appearance.
    let mut order: Vec<String> = Vec::new();
    let mut by_system: HashMap<String, Vec<Record>> = HashMap::new();
    for path in &args.runs {
        for r in args.dice.shard.select(read_run(path)?) {
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
    let mut run = args.dice.start()?;
    let mut cfg = TournamentConfig { format, rounds: args.rounds, rank_by, ..TournamentConfig::default() };
    cfg.bt.seed = args.seed;
    let board = run_tournament(&order, &cfg, |a, b| run.play(&by_system[a], &index[b]).map(|p| p.match_result()))?;
    if conclude(&run, board.judge_calls, args.json)? {
        return Ok(());
    }
    let trust = run.trust();
    let failures = run.failures();
    // Answer lengths (characters) by system and question, for the length-controlled refit.
    let lengths: HashMap<(usize, &str), f64> = order
        .iter()
        .enumerate()
        .flat_map(|(i, s)| by_system[s].iter().map(move |r| ((i, r.id.as_str()), r.answer.chars().count() as f64)))
        .collect();
    let lc = length_control(&order, &board.outcomes, |i, q| lengths.get(&(i, q)).copied(), cfg.bt.prior);
    let ppi = match &args.ppi_labels {
        Some(path) => Some(ppi_pairs(path, &order, &board.outcomes, args.ppi_alpha)?),
        None => None,
    };
    let report = json!({
        "systems": board.systems,
        "rank_by": match rank_by { RankBy::Elo => "elo", RankBy::BradleyTerry => "bt" },
        "judge_calls": board.judge_calls,
        "round_robin_calls": board.round_robin_calls,
        "failed": failures.len(),
        "failures": failures,
        "matches": board.matches,
        "length_control": lc,
        "ppi": ppi,
    });
    let report = with_run_fields(report, &run, &trust);
    run.write_report("leaderboard.json", &report)?;
    let mut csv = csv::Writer::from_path(run.out_dir().join("leaderboard.csv"))?;
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
        run.out_dir().display()
    );
    print!("{}", render_length_control(&lc));
    if let Some(p) = &ppi {
        for r in p["pairs"].as_array().into_iter().flatten() {
            println!("{}", render_ppi_win_rate(r));
        }
        for n in p["notes"].as_array().into_iter().flatten() {
            println!("  {}", n.as_str().unwrap_or_default());
        }
    }
    print!("{}", trust.render());
    Ok(())
}

/// The length-controlled leaderboard beside the raw one, and the systems whose rank depends on
/// answer length.
fn render_length_control(lc: &LengthControl) -> String {
    let mut out = format!(
        "length control (Bradley-Terry refitted on the same outcomes, with and without a length term): gamma {:+.3} ({} longer answers)\n",
        lc.fit.gamma,
        if lc.fit.gamma > 0.0 { "the judge favours" } else { "the judge does not favour" }
    );
    for s in &lc.systems {
        out += &format!(
            "  {:<16} refit {:>7.3} (rank {}) -> length taken out {:>7.3} (rank {}); mean length {:.0}\n",
            s.system, s.bt, s.rank, s.bt_lc, s.rank_lc, s.mean_length
        );
    }
    if lc.length_dependent.is_empty() {
        out += "  no rank depends on answer length\n";
    } else {
        out += &format!("  WARNING: the rank of {} depends on answer length\n", lc.length_dependent.join(", "));
    }
    out
}

/// Per pair of systems that met, the prediction-powered win rate of the first; pairs with too
/// few labels are listed as notes.
fn ppi_pairs(
    path: &std::path::Path,
    systems: &[String],
    outcomes: &[ragjudge_dice::bradley_terry::PairOutcome],
    alpha: f64,
) -> Result<serde_json::Value> {
    let labels = ragjudge_dice::labels::PairLabels::read(path)?;
    let mut by_pair: std::collections::BTreeMap<(usize, usize), Vec<(&str, f64)>> = Default::default();
    for o in outcomes {
        by_pair.entry((o.i, o.j)).or_default().push((o.question.as_str(), o.s_i));
    }
    let (mut pairs, mut notes) = (Vec::new(), Vec::new());
    for ((i, j), scores) in by_pair {
        match ppi_win_rate(&labels, path, scores.into_iter(), (&systems[i], &systems[j]), alpha) {
            Ok(v) => pairs.push(v),
            Err(e) => notes.push(e.to_string()),
        }
    }
    Ok(json!({"pairs": pairs, "notes": notes}))
}
