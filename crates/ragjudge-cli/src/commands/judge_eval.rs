//! `ragjudge judge-eval`: how far a judge can be trusted. Each protocol judges labelled pairs
//! (LLMBar-layout sets, or ragjudge runs with pairwise labels), through `ragjudge_dice::meta`;
//! the table gives accuracy with its Wilson interval, kappa, position and length bias, the
//! baselines and LLMBar's stored rows, as CSV, Markdown and JSON, with every verdict in JSONL.

use crate::args::JudgeArgs;
use crate::backends;
use anyhow::{bail, Context as _, Result};
use clap::Args;
use ragjudge_dice::labels::PairLabels;
use ragjudge_dice::meta::consistency::{judge_support, read_consistency, rouge2_precision};
use ragjudge_dice::meta::items::{pairs_from_runs, read_llmbar, set_name, Outcome, PairItem};
use ragjudge_dice::meta::protocol::{Protocol, ProtocolSettings, Verdict};
use ragjudge_dice::meta::stack::{cross_validate, metric_features, StackResult};
use ragjudge_dice::meta::stats::{set_stats, SetStats};
use ragjudge_dice::meta::{consistency_stats, evaluate_set, ConsistencyStats, ItemResult, STORED};
use ragjudge_dice::run::read_run;
use serde_json::json;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// `ragjudge judge-eval`.
#[derive(Debug, Args)]
pub struct JudgeEvalArgs {
    /// Labelled pair sets: JSON lists of `{"input", "output_1", "output_2", "label": 1|2}` (LLMBar's layout).
    #[arg(long = "set", num_args = 1.., value_name = "FILE")]
    pub sets: Vec<PathBuf>,
    /// Runs (JSONL records of several systems) whose pairs `--pairs` labels.
    #[arg(long, num_args = 1.., requires = "pairs", value_name = "FILE")]
    pub runs: Vec<PathBuf>,
    /// Human pairwise labels of `--runs`: JSONL `{"id", "system_a", "system_b", "label": "A"|"B"|"tie"}`.
    #[arg(long, requires = "runs", value_name = "FILE")]
    pub pairs: Option<PathBuf>,
    /// Scored summaries for the consistency (hallucination) judge: JSON lists of `{"source",
    /// "system_output", "scores": {"consistency"}}` (UniEval's layout of QAGS and SummEval).
    #[arg(long, num_args = 1.., value_name = "FILE")]
    pub consistency: Vec<PathBuf>,
    /// Sentences shown as the premise of each summary sentence (`--consistency`) or answer claim
    /// (`--protocol claims`); 0: the whole source.
    #[arg(long, default_value_t = 3)]
    pub premise_sentences: usize,
    /// Name of the `--runs` set in the table [default: the label file's stem].
    #[arg(long, value_name = "NAME")]
    pub runs_name: Option<String>,
    /// Protocols, comma separated: dice, dice-reasoning, two-label, pointwise, ensemble, claims
    /// (claims needs reference answers: sets without them are skipped).
    #[arg(long, value_delimiter = ',', default_value = "two-label")]
    pub protocol: Vec<String>,
    /// First N pairs of each set only.
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// A score within this distance of 0.5 is a tie (two-label, pointwise).
    #[arg(long, default_value_t = 0.0)]
    pub tie_margin: f64,
    /// Also fit a stacker (logistic regression over the protocols' scores, token F1 and length
    /// differences) on each set's labels, measured by grouped cross-validation by question.
    #[arg(long)]
    pub stack: bool,
    /// Folds of the stacker's cross-validation.
    #[arg(long, default_value_t = 6)]
    pub folds: usize,
    /// Pairs per batch of judge calls (progress is reported, and calls cached, per batch).
    #[arg(long, default_value_t = 8)]
    pub batch: usize,
    /// Directory for `judge-eval.csv`, `judge-eval.md`, `judge-eval.json` and `verdicts.jsonl`.
    #[arg(long, short, value_name = "DIR")]
    pub output: PathBuf,
    /// Print the rows as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub judge: JudgeArgs,
}

fn pct(x: Option<f64>) -> String {
    x.map_or("-".into(), |v| format!("{:.1}", 100.0 * v))
}

fn num(x: Option<f64>) -> String {
    x.map_or("-".into(), |v| format!("{v:.3}"))
}

/// The Markdown table: one row per set and protocol, then the stored rows of the same sets.
pub fn markdown(rows: &[SetStats]) -> String {
    let mut out = String::from(
        "| set | protocol | pairs | judged | accuracy % (decided) [95% CI] | accuracy % (ties half) | kappa | order consistency % | first position % | prefers longer % (gold) | longer % | random % | calls | s |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in rows {
        let ci = match (r.ci_low, r.ci_high) {
            (Some(l), Some(h)) => format!(" [{:.1}, {:.1}]", 100.0 * l, 100.0 * h),
            _ => String::new(),
        };
        out += &format!(
            "| {} | {} | {} | {} | {}{} | {} | {} | {} | {} | {} ({}) | {} | {} | {} | {:.0} |\n",
            r.set,
            r.protocol,
            r.items,
            r.judged,
            pct(r.accuracy_decided),
            ci,
            pct(r.accuracy_with_ties),
            num(r.kappa),
            pct(r.order_consistency),
            pct(r.first_position),
            pct(r.prefer_longer),
            pct(r.gold_prefer_longer),
            pct(r.longer_baseline),
            pct(r.random_baseline),
            r.calls,
            r.seconds
        );
    }
    let mut sets: Vec<&str> = rows.iter().map(|r| r.set.as_str()).collect();
    sets.dedup();
    for s in STORED.iter().filter(|s| sets.contains(&s.set)) {
        out += &format!("| {} | {} (stored) | | | {:.1} | | | | | | | | | |\n", s.set, s.evaluator, 100.0 * s.accuracy);
    }
    out
}

fn write_csv(path: &Path, rows: &[SetStats]) -> Result<()> {
    let mut w = csv::Writer::from_writer(ragjudge_artifacts::AtomicFile::create(path)?);
    for r in rows {
        w.serialize(r)?;
    }
    w.flush()?;
    w.into_inner().map_err(|e| anyhow::anyhow!("{}: {}", path.display(), e.error()))?.commit()?;
    Ok(())
}

/// The labelled sets named on the command line, each with its name.
fn read_sets(args: &JudgeEvalArgs) -> Result<Vec<(String, Vec<PairItem>)>> {
    let mut sets = Vec::new();
    for path in &args.sets {
        sets.push((set_name(path), read_llmbar(path)?));
    }
    if let Some(labels) = &args.pairs {
        let gold = PairLabels::read(labels)?;
        let mut records = Vec::new();
        for path in &args.runs {
            records.extend(read_run(path)?);
        }
        let name = args.runs_name.clone().unwrap_or_else(|| set_name(labels));
        let items =
            pairs_from_runs(&name, &records, &gold).map_err(|e| anyhow::anyhow!("{}: {e}", labels.display()))?;
        sets.push((name, items));
    }
    if sets.is_empty() && args.consistency.is_empty() {
        bail!("nothing to measure: give --set FILE..., --runs FILE... --pairs LABELS, or --consistency FILE...");
    }
    for (name, items) in &mut sets {
        if let Some(n) = args.limit {
            items.truncate(n);
        }
        if items.is_empty() {
            bail!("set `{name}` has no labelled pair");
        }
    }
    Ok(sets)
}

/// Runs `ragjudge judge-eval`.
pub fn run(args: &JudgeEvalArgs) -> Result<()> {
    let protocols = args
        .protocol
        .iter()
        .map(|p| {
            Protocol::parse(p).with_context(|| {
                let names: Vec<&str> = Protocol::ALL.iter().map(|p| p.name()).collect();
                format!("--protocol: unknown protocol `{p}` (known: {})", names.join(", "))
            })
        })
        .collect::<Result<Vec<_>>>()?;
    if !(args.tie_margin.is_finite() && (0.0..0.5).contains(&args.tie_margin)) {
        bail!("--tie-margin must be in [0, 0.5), got {}", args.tie_margin);
    }
    let sets = read_sets(args)?;
    std::fs::create_dir_all(&args.output).with_context(|| format!("{}: cannot create", args.output.display()))?;
    let judge: Arc<dyn ragjudge_models::Judge> = Arc::from(backends::judge(&args.judge)?);
    let premise_sentences = if args.premise_sentences == 0 { usize::MAX } else { args.premise_sentences };
    let settings = ProtocolSettings { tie_margin: args.tie_margin, premise_sentences, ..ProtocolSettings::default() };
    let verdicts_path = args.output.join("verdicts.jsonl");
    let mut verdicts = ragjudge_artifacts::AtomicFile::create(&verdicts_path)?;
    let mut rows = Vec::new();
    let mut failed = 0usize;
    let mut stacks = Vec::new();
    let mut scores: Vec<Vec<Vec<Option<f64>>>> = vec![Vec::new(); sets.len()];
    for protocol in &protocols {
        for (k, (name, items)) in sets.iter().enumerate() {
            if protocol.needs_reference() && items.iter().any(|i| i.reference.is_none()) {
                eprintln!("{} on {name}: skipped, the set has no reference answers", protocol.name());
                scores[k].push(vec![None; items.len()]);
                continue;
            }
            let progress = |done: usize, total: usize| eprint!("\r{} on {name}: {done}/{total} pairs", protocol.name());
            let (stats, results) = evaluate_set(&judge, *protocol, name, items, &settings, args.batch, &progress);
            eprintln!(
                "\r{} on {name}: {} pairs, accuracy {}% of {} decided, {} failed, {:.0} s",
                protocol.name(),
                stats.items,
                pct(stats.accuracy_decided),
                stats.decided,
                stats.failed,
                stats.seconds
            );
            for r in &results {
                serde_json::to_writer(&mut verdicts, r)?;
                verdicts.write_all(b"\n")?;
            }
            verdicts.flush()?;
            failed += stats.failed;
            scores[k].push(results.iter().map(|r| r.verdict.as_ref().map(|v| v.s_first)).collect());
            if let Some(first) = results.iter().find_map(|r: &ItemResult| r.error.as_ref()) {
                eprintln!("  first failure: {first}");
            }
            rows.push(stats);
        }
    }
    if args.stack {
        for (k, (name, items)) in sets.iter().enumerate() {
            if let Some((row, result)) = stack_row(name, items, &protocols, &scores[k], args) {
                eprintln!("{} on {name}: held-out accuracy {}%", row.protocol, pct(row.accuracy_decided));
                rows.push(row);
                stacks.push(json!({"set": name, "result": result}));
            }
        }
    }
    let consistency = consistency_rows(args, &judge)?;
    write_csv(&args.output.join("judge-eval.csv"), &rows)?;
    let mut table = if rows.is_empty() { String::new() } else { markdown(&rows) };
    if !consistency.is_empty() {
        table += &consistency_markdown(&consistency);
    }
    verdicts.commit()?;
    ragjudge_artifacts::write_atomic(&args.output.join("judge-eval.md"), table.as_bytes())?;
    let doc = json!({
        "judge": judge.identity(),
        "protocols": protocols.iter().map(|p| json!({"name": p.name(), "prompt_version": p.prompt_version()})).collect::<Vec<_>>(),
        "tie_margin": args.tie_margin,
        "rows": rows,
        "consistency": consistency,
        "stacks": stacks,
        "premise_sentences": args.premise_sentences,
        "stored": STORED.iter().collect::<Vec<_>>(),
    });
    ragjudge_artifacts::write_atomic(
        &args.output.join("judge-eval.json"),
        serde_json::to_string_pretty(&doc)?.as_bytes(),
    )?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        print!("{table}");
    }
    if failed > 0 {
        bail!("{failed} pairs could not be judged (their errors are in {})", verdicts_path.display());
    }
    Ok(())
}

/// The consistency judge and the ROUGE-2 precision baseline on each `--consistency` set.
fn consistency_rows(args: &JudgeEvalArgs, judge: &Arc<dyn ragjudge_models::Judge>) -> Result<Vec<ConsistencyStats>> {
    let mut rows = Vec::new();
    for path in &args.consistency {
        let mut items = read_consistency(path)?;
        if let Some(n) = args.limit {
            items.truncate(n);
        }
        let name = set_name(path);
        let labels: Vec<f64> = items.iter().map(|i| i.label).collect();
        let lexical: Vec<Option<f64>> = items.iter().map(|i| Some(rouge2_precision(i))).collect();
        rows.push(consistency_stats(&name, "rouge2_precision (lexical baseline)", &labels, &lexical, None));
        let k = if args.premise_sentences == 0 { usize::MAX } else { args.premise_sentences };
        let started = std::time::Instant::now();
        let mut scores = Vec::with_capacity(items.len());
        let mut means = Vec::with_capacity(items.len());
        let mut sentences = 0usize;
        let per_item = args.output.join(format!("consistency-{name}.jsonl"));
        let mut out = ragjudge_artifacts::AtomicFile::create(&per_item)?;
        for (done, chunk) in items.chunks(args.batch.max(1)).enumerate() {
            let first = done * args.batch.max(1);
            for (j, (item, r)) in chunk.iter().zip(judge_support(judge, chunk, k)).enumerate() {
                let line = match &r {
                    Ok(s) => json!({"id": item.id, "label": item.label, "rouge2_precision": lexical[first + j],
                                    "score": s.score, "sentences": s.sentences}),
                    Err(e) => json!({"id": item.id, "label": item.label, "error": e.to_string()}),
                };
                serde_json::to_writer(&mut out, &line)?;
                out.write_all(b"\n")?;
                match r {
                    Ok(s) => {
                        sentences += s.sentences.len();
                        scores.push(Some(s.score));
                        means.push(Some(s.mean()));
                    }
                    Err(e) => {
                        eprintln!("\n  failure: {e}");
                        scores.push(None);
                        means.push(None);
                    }
                }
            }
            eprint!("\rconsistency on {name}: {}/{} summaries", (first + chunk.len()), items.len());
        }
        let scorer = if args.premise_sentences == 0 {
            "hallucination metric, judge P(Yes), whole source, min over sentences".to_string()
        } else {
            format!(
                "hallucination metric, judge P(Yes), {} premise sentences, min over sentences",
                args.premise_sentences
            )
        };
        out.commit()?;
        let mut row = consistency_stats(&name, &scorer, &labels, &scores, Some(0.5));
        row.sentences = sentences;
        row.seconds_per_sentence = (sentences > 0).then(|| started.elapsed().as_secs_f64() / sentences as f64);
        eprintln!(
            "\rconsistency on {name}: Spearman {} ({} summaries, {sentences} sentences)",
            num(row.spearman),
            items.len()
        );
        rows.push(row);
        // The same supports aggregated by their mean, and that mean averaged with ROUGE-2
        // precision (equal weights, nothing fitted): no further calls.
        let scorer = scorer.replace("min over sentences", "mean over sentences (its default)");
        rows.push(consistency_stats(&name, &scorer, &labels, &means, Some(0.5)));
        let both: Vec<Option<f64>> =
            means.iter().zip(&lexical).map(|(m, l)| Some((m.as_ref()? + l.as_ref()?) / 2.0)).collect();
        rows.push(consistency_stats(&name, &format!("({scorer} + rouge2_precision) / 2"), &labels, &both, Some(0.5)));
    }
    Ok(rows)
}

/// The consistency table.
fn consistency_markdown(rows: &[ConsistencyStats]) -> String {
    let mut out = String::from(
        "\n| set | scorer | summaries | failed | Spearman | ROC AUC | balanced accuracy (>= 0.5) | s per sentence |\n|---|---|---|---|---|---|---|---|\n",
    );
    for r in rows {
        out += &format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} |\n",
            r.set,
            r.scorer,
            r.items,
            r.failed,
            num(r.spearman),
            num(r.auc),
            num(r.balanced_accuracy),
            r.seconds_per_sentence.map_or("-".into(), |s| format!("{s:.2}"))
        );
    }
    out
}

/// The stacker's row on one set: protocol scores (items every protocol judged) and metric
/// differences, cross-validated by question.
fn stack_row(
    name: &str,
    items: &[PairItem],
    protocols: &[Protocol],
    scores: &[Vec<Option<f64>>],
    args: &JudgeEvalArgs,
) -> Option<(SetStats, StackResult)> {
    let keep: Vec<usize> = (0..items.len()).filter(|&i| scores.iter().all(|p| p[i].is_some())).collect();
    let kept: Vec<PairItem> = keep.iter().map(|&i| items[i].clone()).collect();
    let x: Vec<Vec<f64>> = keep
        .iter()
        .map(|&i| {
            let mut row: Vec<f64> = scores.iter().map(|p| p[i].unwrap_or(0.5) - 0.5).collect();
            row.extend(metric_features(&items[i]));
            row
        })
        .collect();
    let mut features: Vec<String> = protocols.iter().map(|p| p.name().to_string()).collect();
    features.extend(["token_f1_diff".to_string(), "length_diff".to_string()]);
    let result = cross_validate(&kept, &x, features.clone(), args.folds, args.tie_margin)?;
    let verdicts: Vec<Verdict> = result
        .held_out
        .iter()
        .map(|&s| Verdict {
            s_first: s,
            outcome: Outcome::of_score(s, args.tie_margin),
            orders: Vec::new(),
            grades: None,
            claims: None,
        })
        .collect();
    let refs: Vec<Option<&Verdict>> = verdicts.iter().map(Some).collect();
    let label = format!("stack({}) held out, {} folds", features.join("+"), result.folds);
    let mut row = set_stats(name, &label, &kept, &refs);
    row.failed = items.len() - kept.len();
    row.items = items.len();
    Some((row, result))
}
