//! `ragjudge baseline`: DICE's single-system mode. The system under test plays high, medium and
//! low quality baselines (a round robin among the four, so the baselines calibrate each other),
//! and is placed by Elo among them.

use crate::args::BaselineArgs;
use crate::backends;
use crate::commands::compare::{calls_per_pair, judge_match, read_run};
use anyhow::{bail, Context as _, Result};
use ragjudge_core::Record;
use ragjudge_dice::judgement::{JudgeOptions, PairwiseJudge};
use ragjudge_dice::scoring::DiceScorer;
use ragjudge_dice::tournament::{run as run_tournament, Format, MatchResult, QuestionScore, TournamentConfig};
use ragjudge_dice::traces::TraceWriter;
use serde_json::json;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;

/// The baseline tiers, best first.
const TIERS: [&str; 3] = ["high", "medium", "low"];

/// Reads a run and names every record's system `name`.
fn read_as(path: &Path, name: &str) -> Result<BTreeMap<String, Record>> {
    let mut out = BTreeMap::new();
    for mut r in read_run(path)? {
        r.system = name.to_string();
        out.insert(r.id.clone(), r);
    }
    Ok(out)
}

/// Runs `ragjudge baseline`.
pub fn run(args: &BaselineArgs) -> Result<()> {
    let scorer = DiceScorer::new(args.tau).map_err(|e| anyhow::anyhow!("--tau: {e}"))?;
    let target = "target";
    let mut runs: HashMap<&str, BTreeMap<String, Record>> = HashMap::new();
    runs.insert(target, read_as(&args.target, target)?);
    for (tier, path) in TIERS.iter().zip([&args.high, &args.medium, &args.low]) {
        runs.insert(tier, read_as(path, tier)?);
    }
    let judge: Arc<dyn ragjudge_models::Judge> = Arc::from(backends::judge(&args.judge)?);
    let opts = JudgeOptions { reasoning: !args.no_reasoning, swap: !args.no_swap, ..JudgeOptions::default() };
    let per_pair = calls_per_pair(&opts);
    let pairwise = PairwiseJudge::new(Arc::clone(&judge), opts);
    std::fs::create_dir_all(&args.output).with_context(|| format!("{}: cannot create", args.output.display()))?;
    let traces_path = args.output.join("traces.jsonl");
    let _ = std::fs::remove_file(&traces_path);
    let mut traces = TraceWriter::append(&traces_path).with_context(|| format!("{}", traces_path.display()))?;

    let systems: Vec<String> = std::iter::once(target).chain(TIERS).map(String::from).collect();
    let cfg = TournamentConfig { format: Format::RoundRobin, ..TournamentConfig::default() };
    // Per tier: the target's wins, ties and losses over questions.
    let mut record: BTreeMap<String, [usize; 3]> = BTreeMap::new();
    let mut error: Option<anyhow::Error> = None;
    let board = run_tournament(&systems, &cfg, |a, b| {
        let (ra, rb) = (&runs[a], &runs[b]);
        let mut pairs: Vec<(&Record, &Record)> = ra.iter().filter_map(|(id, r)| rb.get(id).map(|o| (r, o))).collect();
        if let Some(n) = args.limit {
            pairs.truncate(n);
        }
        match judge_match(&pairwise, &scorer, &pairs, &mut traces, &traces_path) {
            Ok((rows, _failed)) => {
                for r in &rows {
                    // From the target's side: its score is s_a when it was A, else 1 - s_a.
                    let (tier, s) = match (a == target, b == target) {
                        (true, _) => (b, r.s_a),
                        (_, true) => (a, 1.0 - r.s_a),
                        _ => continue,
                    };
                    let slot = if s > 0.5 {
                        0
                    } else if s < 0.5 {
                        2
                    } else {
                        1
                    };
                    record.entry(tier.to_string()).or_default()[slot] += 1;
                }
                MatchResult {
                    scores: rows
                        .iter()
                        .map(|r| QuestionScore { question: r.id.clone(), s_a: r.s_a, s_b: 1.0 - r.s_a })
                        .collect(),
                    judge_calls: pairs.len() * per_pair,
                }
            }
            Err(e) => {
                error.get_or_insert(e);
                MatchResult::default()
            }
        }
    });
    if let Some(e) = error {
        return Err(e);
    }
    let elo = |name: &str| board.systems.iter().find(|s| s.system == name).map_or(f64::NAN, |s| s.elo);
    let target_elo = elo(target);
    let above = TIERS.iter().take_while(|t| elo(t) > target_elo).count();
    let tier = match above {
        0 => "above high",
        1 => "between high and medium",
        2 => "between medium and low",
        _ => "below low",
    };
    if TIERS.windows(2).any(|w| elo(w[0]) < elo(w[1])) {
        eprintln!("warning: the judge does not order the baselines high > medium > low; the placement is unreliable");
    }
    let per_tier: Vec<_> = TIERS
        .iter()
        .map(|t| {
            let [w, ti, l] = record.get(*t).copied().unwrap_or_default();
            json!({"tier": t, "wins": w, "ties": ti, "losses": l, "elo": elo(t)})
        })
        .collect();
    let report = json!({"target_elo": target_elo, "placement": tier, "tiers": per_tier, "leaderboard": board.systems,
                        "judge": judge.identity(), "usage": judge.usage()});
    std::fs::write(args.output.join("baseline.json"), serde_json::to_string_pretty(&report)?)?;
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
    Ok(())
}
