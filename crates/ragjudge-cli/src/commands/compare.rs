//! `ragjudge compare`: one DICE match between two systems (seed 001): each shared question is
//! judged in both orders, each verdict scored hard or soft, the orders averaged, and the match
//! score S_A is the mean of s_A over the questions.

use crate::args::{CompareArgs, DiceArgs};
use crate::backends;
use anyhow::{bail, Context as _, Result};
use ragjudge_core::{ReadOptions, Record, RecordReader};
use ragjudge_dice::judgement::{JudgeOptions, PairJudgement, PairwiseJudge};
use ragjudge_dice::scoring::{swap_average, DiceScorer};
use ragjudge_dice::tournament::{MatchResult, QuestionScore};
use ragjudge_dice::traces::TraceWriter;
use serde_json::json;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Reads every record of a run file; any malformed record stops the command.
pub(crate) fn read_run(path: &Path) -> Result<Vec<Record>> {
    let mut out = Vec::new();
    for r in RecordReader::open(path, &ReadOptions::default())? {
        out.push(r?);
    }
    Ok(out)
}

/// What every DICE command sets up once: the judge behind the call cache, the pairwise judge,
/// the scorer and a fresh `traces.jsonl` (a re-run rewrites every trace from the cache).
pub(crate) struct MatchRunner {
    pub(crate) judge: Arc<dyn ragjudge_models::Judge>,
    pairwise: PairwiseJudge,
    scorer: DiceScorer,
    traces: TraceWriter,
    traces_path: PathBuf,
    calls_per_pair: usize,
    limit: Option<usize>,
}

impl MatchRunner {
    /// Builds the judge from `--judge` and opens `OUTPUT/traces.jsonl`.
    pub(crate) fn new(args: &DiceArgs) -> Result<Self> {
        let scorer = DiceScorer::new(args.tau).map_err(|e| anyhow::anyhow!("--tau: {e}"))?;
        let judge: Arc<dyn ragjudge_models::Judge> = Arc::from(backends::judge(&args.judge)?);
        let opts = JudgeOptions { reasoning: !args.no_reasoning, swap: !args.no_swap, ..JudgeOptions::default() };
        // One or two orders, each with or without the stage I analysis.
        let calls_per_pair = (if opts.swap { 2 } else { 1 }) * (if opts.reasoning { 2 } else { 1 });
        std::fs::create_dir_all(&args.output).with_context(|| format!("{}: cannot create", args.output.display()))?;
        let traces_path = args.output.join("traces.jsonl");
        let _ = std::fs::remove_file(&traces_path);
        let traces = TraceWriter::append(&traces_path).with_context(|| format!("{}", traces_path.display()))?;
        let pairwise = PairwiseJudge::new(Arc::clone(&judge), opts);
        Ok(Self { judge, pairwise, scorer, traces, traces_path, calls_per_pair, limit: args.limit })
    }

    /// Judges the questions two runs share (in A's id order, at most `--limit`), batched through
    /// the judge; a failed judgement is kept as `{id, error}` and the match goes on.
    pub(crate) fn play<'r>(
        &mut self,
        a: impl IntoIterator<Item = &'r Record>,
        b: &HashMap<String, &'r Record>,
    ) -> Result<Played> {
        let mut pairs: Vec<(&Record, &Record)> = a.into_iter().filter_map(|r| b.get(&r.id).map(|o| (r, *o))).collect();
        if let Some(n) = self.limit {
            pairs.truncate(n);
        }
        let mut played =
            Played { rows: Vec::new(), failures: Vec::new(), judge_calls: pairs.len() * self.calls_per_pair };
        for (pair, result) in pairs.iter().zip(self.pairwise.judge_pairs_many(&pairs)) {
            match result.map_err(|e| e.to_string()).and_then(|j| score(&self.scorer, &j).map(|row| (j, row))) {
                Ok((j, row)) => {
                    self.traces.write_pair(&j).with_context(|| format!("{}", self.traces_path.display()))?;
                    played.rows.push(row);
                }
                Err(e) => played.failures.push(json!({"id": pair.0.id, "error": e})),
            }
        }
        Ok(played)
    }
}

/// The outcome of one match.
pub(crate) struct Played {
    /// Scored questions.
    pub(crate) rows: Vec<Row>,
    /// Questions whose judgement failed: `{id, error}`.
    pub(crate) failures: Vec<serde_json::Value>,
    /// Model calls the match needed (cache hits included).
    pub(crate) judge_calls: usize,
}

impl Played {
    /// The per-question scores as the tournament driver takes them.
    pub(crate) fn match_result(&self) -> MatchResult {
        MatchResult {
            scores: self
                .rows
                .iter()
                .map(|r| QuestionScore { question: r.id.clone(), s_a: r.s_a, s_b: 1.0 - r.s_a })
                .collect(),
            judge_calls: self.judge_calls,
        }
    }
}

/// Each system's records by question id, for [`MatchRunner::play`].
pub(crate) fn index_by_id<'r, K: Copy + Eq + std::hash::Hash>(
    runs: impl IntoIterator<Item = (K, &'r Vec<Record>)>,
) -> HashMap<K, HashMap<String, &'r Record>> {
    runs.into_iter().map(|(k, recs)| (k, recs.iter().map(|r| (r.id.clone(), r)).collect())).collect()
}

/// One question's outcome.
pub(crate) struct Row {
    pub(crate) id: String,
    pub(crate) s_a: f64,
    consistent: bool,
    category_a: Option<String>,
    category_b: Option<String>,
}

/// Runs `ragjudge compare`.
pub fn run(args: &CompareArgs) -> Result<()> {
    let a = read_run(&args.a)?;
    let b_records = read_run(&args.b)?;
    let b: HashMap<String, &Record> = b_records.iter().map(|r| (r.id.clone(), r)).collect();
    let (name_a, name_b) = match (a.first(), b_records.first()) {
        (Some(x), Some(y)) => (x.system.clone(), y.system.clone()),
        _ => bail!("{} and {} share no question id", args.a.display(), args.b.display()),
    };
    let mut runner = MatchRunner::new(&args.dice)?;
    let Played { rows, failures, .. } = runner.play(&a, &b)?;
    let judge = &runner.judge;
    if rows.is_empty() {
        match failures.first() {
            Some(f) => bail!("every judgement failed; first: {}", f["error"]),
            None => bail!("{} and {} share no question id", args.a.display(), args.b.display()),
        }
    }
    let n = rows.len() as f64;
    let s_a = rows.iter().map(|r| r.s_a).sum::<f64>() / n;
    let count = |f: &dyn Fn(&Row) -> bool| rows.iter().filter(|r| f(r)).count();
    let mut taxonomy: HashMap<String, [usize; 2]> = HashMap::new();
    for r in &rows {
        for (side, c) in [(0, &r.category_a), (1, &r.category_b)] {
            let key = c.clone().unwrap_or_else(|| "unparsed".to_string());
            taxonomy.entry(key).or_default()[side] += 1;
        }
    }
    let report = json!({
        "system_a": name_a, "system_b": name_b, "judge": judge.identity(),
        "questions": rows.len(), "failed": failures.len(), "failures": failures,
        "s_a": s_a, "s_b": 1.0 - s_a,
        "wins_a": count(&|r| r.s_a > 0.5), "ties": count(&|r| r.s_a == 0.5), "wins_b": count(&|r| r.s_a < 0.5),
        "order_consistency": count(&|r| r.consistent) as f64 / n,
        "categories": taxonomy, "usage": judge.usage(), "tau": args.dice.tau,
    });
    std::fs::write(args.dice.output.join("compare.json"), serde_json::to_string_pretty(&report)?)?;
    let mut csv = csv::Writer::from_path(args.dice.output.join("questions.csv"))?;
    csv.write_record(["id", "s_a", "s_b", "order_consistent", "category_a", "category_b"])?;
    for r in &rows {
        let cat = |c: &Option<String>| c.clone().unwrap_or_default();
        csv.write_record([
            r.id.clone(),
            r.s_a.to_string(),
            (1.0 - r.s_a).to_string(),
            r.consistent.to_string(),
            cat(&r.category_a),
            cat(&r.category_b),
        ])?;
    }
    csv.flush()?;
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
            args.dice.output.display()
        );
    }
    Ok(())
}

/// DICE score of one pair: each order scored (seeds/README: hard above the margin threshold,
/// soft below), the swapped order mapped back, then averaged.
fn score(scorer: &DiceScorer, j: &PairJudgement) -> Result<Row, String> {
    let scored: Vec<_> = j
        .orders
        .iter()
        .map(|o| {
            // Scores are computed in presentation terms: the swapped order shows B first.
            let p = if o.order == "ba" { o.final_probs().swapped() } else { o.final_probs() };
            scorer.score_probs(p.a, p.b, p.tie).map_err(|e| e.to_string())
        })
        .collect::<Result<_, _>>()?;
    let (s_a, consistent) = match scored.as_slice() {
        [one] => (one.s_a, true),
        [ab, ba] => {
            let avg = swap_average(ab, ba);
            (avg.s_a, avg.consistent)
        }
        _ => return Err(format!("{} orders judged", scored.len())),
    };
    let first = j.orders.first();
    let cat = |f: fn(&ragjudge_dice::judgement::OrderJudgement) -> Option<String>| first.and_then(f);
    Ok(Row {
        id: j.question_id.clone(),
        s_a,
        consistent,
        category_a: cat(|o| o.category_a.map(|c| format!("{c:?}"))),
        category_b: cat(|o| o.category_b.map(|c| format!("{c:?}"))),
    })
}
