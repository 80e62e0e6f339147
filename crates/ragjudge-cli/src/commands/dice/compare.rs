//! `ragjudge compare`: one DICE match between two systems (DICE §3.3): each shared question is
//! judged in both orders, each verdict scored hard or soft, the orders averaged, and the match
//! score S_A is the mean of s_A over the questions.

use super::{check_ppi_alpha, conclude, with_run_fields, DiceArgs};
use anyhow::{bail, Result};
use clap::Args;
use ragjudge_core::Record;
use ragjudge_dice::labels::PairLabels;
use ragjudge_dice::ppi::PpiWinRate;
use ragjudge_dice::run::read_run;
use serde_json::json;
use std::collections::HashMap;
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

/// A category as reports spell it (`FullyCorrect`, ...), `unparsed` when the judge gave none.
fn category(c: Option<ragjudge_dice::judgement::Category>) -> Option<String> {
    c.map(|c| format!("{c:?}"))
}

/// Runs `ragjudge compare`.
pub fn run(args: &CompareArgs) -> Result<()> {
    check_ppi_alpha(args.ppi_alpha)?;
    let a = args.dice.shard.select(read_run(&args.a)?);
    let b_records = args.dice.shard.select(read_run(&args.b)?);
    let b: HashMap<String, &Record> = b_records.iter().map(|r| (r.id.clone(), r)).collect();
    let (name_a, name_b) = match (a.first(), b_records.first()) {
        (Some(x), Some(y)) => (x.system.clone(), y.system.clone()),
        _ => bail!("{} and {} share no question id", args.a.display(), args.b.display()),
    };
    let mut run = args.dice.start()?;
    let played = run.play(&a, &b)?;
    if conclude(&run, played.judge_calls, args.json)? {
        return Ok(());
    }
    let trust = run.trust();
    let summary = played.summary().ok_or_else(|| anyhow::anyhow!("no question was scored"))?;
    let (rows, failures) = (&played.rows, &played.failures);
    let s_a = summary.s_a;
    let report = json!({
        "system_a": name_a, "system_b": name_b,
        "questions": rows.len(), "failed": failures.len(), "failures": failures,
        "s_a": s_a, "s_b": 1.0 - s_a,
        "wins_a": summary.wins_a, "ties": summary.ties, "wins_b": summary.wins_b,
        "order_consistency": summary.order_consistency,
        "categories": summary.categories, "tau": args.dice.tau,
    });
    let mut report = with_run_fields(report, &run, &trust);
    if let Some(path) = &args.ppi_labels {
        let labels = PairLabels::read(path)?;
        let scores = rows.iter().map(|r| (r.id.as_str(), r.s_a));
        let estimate = PpiWinRate::estimate(&labels, path, scores, (&name_a, &name_b), args.ppi_alpha)?;
        report["ppi_win_rate_a"] = serde_json::to_value(estimate)?;
    }
    run.write_report("compare.json", &report)?;
    let mut csv = csv::Writer::from_writer(Vec::new());
    csv.write_record(["id", "s_a", "s_b", "order_consistent", "category_a", "category_b"])?;
    for r in rows {
        csv.write_record([
            r.id.clone(),
            r.s_a.to_string(),
            (1.0 - r.s_a).to_string(),
            r.consistent.to_string(),
            category(r.category_a).unwrap_or_default(),
            category(r.category_b).unwrap_or_default(),
        ])?;
    }
    let bytes = csv.into_inner().map_err(|e| anyhow::anyhow!("questions.csv: {}", e.error()))?;
    ragjudge_artifacts::write_atomic(&run.out_dir().join("questions.csv"), &bytes)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!("{name_a} vs {name_b}: S_A = {s_a:.4}, S_B = {:.4} over {} questions", 1.0 - s_a, rows.len());
        println!(
            "wins {} / ties {} / losses {}; order consistency {:.0}%; {} failed; details in {}",
            report["wins_a"],
            report["ties"],
            report["wins_b"],
            100.0 * report["order_consistency"].as_f64().unwrap_or(0.0),
            failures.len(),
            run.out_dir().display()
        );
        if let Some(p) = report.get("ppi_win_rate_a") {
            println!("{}", serde_json::from_value::<PpiWinRate>(p.clone())?.render());
        }
        print!("{}", trust.render());
    }
    Ok(())
}
