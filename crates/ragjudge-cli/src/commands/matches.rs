//! What every DICE command (compare, tournament, baseline) shares: reading runs, the judge and its
//! options, playing and scoring a match (seeds/README), and the run-level outputs: traces,
//! pairwise labels for `ragjudge agree`, the judge-trust report and dry-run counts.

use crate::args::DiceArgs;
use crate::backends;
use anyhow::{bail, Context as _, Result};
use ragjudge_core::text::Lang;
use ragjudge_core::{ReadOptions, Record, RecordReader};
use ragjudge_dice::calibration::{estimate_with, LabelPrior};
use ragjudge_dice::judgement::{JudgeOptions, OrderJudgement, PairJudgement, PairwiseJudge};
use ragjudge_dice::prompts::choose_lang;
use ragjudge_dice::scoring::{swap_average, DiceScorer};
use ragjudge_dice::tournament::{MatchResult, QuestionScore};
use ragjudge_dice::traces::TraceWriter;
use ragjudge_dice::trust::{trust_report, TrustItem, TrustReport};
use ragjudge_models::Judge;
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{BufWriter, Write};
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

/// Each system's records by question id, for [`MatchRunner::play`].
pub(crate) fn index_by_id<'r, K: Copy + Eq + std::hash::Hash>(
    runs: impl IntoIterator<Item = (K, &'r Vec<Record>)>,
) -> HashMap<K, HashMap<String, &'r Record>> {
    runs.into_iter().map(|(k, recs)| (k, recs.iter().map(|r| (r.id.clone(), r)).collect())).collect()
}

/// The files a (non-dry) run writes as it goes, flushed after every pair so that an interrupted
/// run keeps what it judged.
struct RunFiles {
    traces: TraceWriter,
    traces_path: PathBuf,
    labels: BufWriter<File>,
    labels_path: PathBuf,
}

impl RunFiles {
    /// Starts fresh `traces.jsonl` and `labels.jsonl` in `dir` (a re-run rewrites them from the cache).
    fn create(dir: &Path) -> Result<Self> {
        std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
        let traces_path = dir.join("traces.jsonl");
        let labels_path = dir.join("labels.jsonl");
        let _ = std::fs::remove_file(&traces_path);
        let traces = TraceWriter::append(&traces_path).with_context(|| format!("{}", traces_path.display()))?;
        let labels = File::create(&labels_path).with_context(|| format!("{}: cannot create", labels_path.display()))?;
        Ok(Self { traces, traces_path, labels: BufWriter::new(labels), labels_path })
    }

    fn write(&mut self, j: &PairJudgement, s_a: f64) -> Result<()> {
        self.traces.write_pair(j).with_context(|| format!("{}", self.traces_path.display()))?;
        let label = ["A", "B", "tie"][j.probs.argmax()];
        let line = json!({
            "id": j.question_id, "system_a": j.system_a, "system_b": j.system_b, "label": label, "s_a": s_a,
            "probs": {"a": j.probs.a, "b": j.probs.b, "tie": j.probs.tie},
        });
        writeln!(self.labels, "{line}")
            .and_then(|_| self.labels.flush())
            .with_context(|| format!("{}", self.labels_path.display()))
    }
}

/// Sets up a DICE run once (judge behind the call cache, pairwise judge, scorer, output files)
/// and plays its matches.
pub(crate) struct MatchRunner {
    pub(crate) judge: Arc<dyn Judge>,
    pairwise: PairwiseJudge,
    scorer: DiceScorer,
    files: Option<RunFiles>,
    out_dir: PathBuf,
    calls_per_pair: usize,
    limit: Option<usize>,
    ids: Option<HashSet<String>>,
    debias: bool,
    dry_run: bool,
    prior_calls: usize,
    /// Every failed judgement so far: `{id, system_a, system_b, error}`.
    failures: Vec<Value>,
    /// Every judged pair with its answers' lengths in characters, for the trust report.
    judged: Vec<(PairJudgement, usize, usize)>,
}

impl MatchRunner {
    /// Builds the judge from `--judge` (a counting stand-in with `--dry-run`) and, unless dry,
    /// opens `OUTPUT/traces.jsonl` and `OUTPUT/labels.jsonl`.
    pub(crate) fn new(args: &DiceArgs) -> Result<Self> {
        let scorer = DiceScorer::new(args.tau).map_err(|e| anyhow::anyhow!("--tau: {e}"))?;
        let lang = match args.lang.as_str() {
            "auto" => None,
            "en" => Some(Lang::En),
            "zh" => Some(Lang::Zh),
            other => bail!("--lang: `{other}` is none of auto, en, zh"),
        };
        let judge: Arc<dyn Judge> = Arc::from(backends::judge_or_dry_run(&args.judge, args.dry_run)?);
        let opts = JudgeOptions { reasoning: !args.no_reasoning, swap: !args.no_swap, lang, ..JudgeOptions::default() };
        // One or two orders, each with or without the stage I analysis.
        let calls_per_pair = (if opts.swap { 2 } else { 1 }) * (if opts.reasoning { 2 } else { 1 });
        let out_dir = args.output.clone().unwrap_or_default();
        let files = if args.dry_run { None } else { Some(RunFiles::create(&out_dir)?) };
        let pairwise = PairwiseJudge::new(Arc::clone(&judge), opts);
        let ids = (!args.ids.is_empty()).then(|| args.ids.iter().map(|s| s.trim().to_string()).collect());
        Ok(Self {
            judge,
            pairwise,
            scorer,
            files,
            out_dir,
            calls_per_pair,
            limit: args.limit,
            ids,
            debias: args.debias,
            dry_run: args.dry_run,
            prior_calls: 0,
            failures: Vec::new(),
            judged: Vec::new(),
        })
    }

    /// Judges the questions two runs share (in A's id order, restricted to `--ids`, at most
    /// `--limit`), batched through the judge; a failed judgement is kept as `{id, error}` and the
    /// match goes on.
    pub(crate) fn play<'r>(
        &mut self,
        a: impl IntoIterator<Item = &'r Record>,
        b: &HashMap<String, &'r Record>,
    ) -> Result<Played> {
        let mut pairs: Vec<(&Record, &Record)> = a
            .into_iter()
            .filter(|r| self.ids.as_ref().is_none_or(|ids| ids.contains(&r.id)))
            .filter_map(|r| b.get(&r.id).map(|o| (r, *o)))
            .collect();
        if let Some(n) = self.limit {
            pairs.truncate(n);
        }
        if let (true, None, Some((first, _))) = (self.debias, &self.pairwise.opts.bias, pairs.first()) {
            self.estimate_prior(choose_lang(self.pairwise.opts.lang, &first.query))?;
        }
        let mut played =
            Played { rows: Vec::new(), failures: Vec::new(), judge_calls: pairs.len() * self.calls_per_pair };
        for (pair, result) in pairs.iter().zip(self.pairwise.judge_pairs_many(&pairs)) {
            match result.map_err(|e| e.to_string()).and_then(|j| score(&self.scorer, &j).map(|row| (j, row))) {
                Ok((j, row)) => {
                    if let Some(files) = &mut self.files {
                        files.write(&j, row.s_a)?;
                    }
                    self.judged.push((j, pair.0.answer.chars().count(), pair.1.answer.chars().count()));
                    played.rows.push(row);
                }
                Err(e) => {
                    let f = json!({"id": pair.0.id, "system_a": pair.0.system, "system_b": pair.1.system, "error": e});
                    self.failures.push(f.clone());
                    played.failures.push(f);
                }
            }
        }
        Ok(played)
    }

    /// Every failed judgement so far.
    pub(crate) fn failures(&self) -> &[Value] {
        &self.failures
    }

    /// After the matches: returns the first match error, else with `--dry-run` prints the counts
    /// and returns true (nothing more to report), else fails when no pair could be judged.
    pub(crate) fn conclude(&self, error: Option<anyhow::Error>, judge_calls: usize, json_out: bool) -> Result<bool> {
        if let Some(e) = error {
            return Err(e);
        }
        if self.finish_dry_run(judge_calls, json_out)? {
            return Ok(true);
        }
        self.ensure_judged()?;
        Ok(false)
    }

    /// Fails when no pair could be judged: every judgement failed, or the runs share no question.
    fn ensure_judged(&self) -> Result<()> {
        if !self.judged.is_empty() || self.dry_run {
            return Ok(());
        }
        match self.failures.first() {
            Some(f) => bail!("every judgement failed ({}); first: {}", self.failures.len(), f["error"]),
            None => bail!("the runs share no question id (after --ids / --limit)"),
        }
    }

    /// Contextual calibration (ragjudge_dice::calibration): the judge's label prior on
    /// content-free pairs, in the language and mode of the real judgements.
    fn estimate_prior(&mut self, lang: Lang) -> Result<()> {
        let opts = JudgeOptions { lang: Some(lang), ..self.pairwise.opts.clone() };
        let prior = estimate_with(Arc::clone(&self.judge), &opts).context("estimating the judge's label prior")?;
        // Every ordered pair of the content-free answers, with or without stage I.
        self.prior_calls = prior.n * if opts.reasoning { 2 } else { 1 };
        self.pairwise.opts.bias = Some(prior);
        Ok(())
    }

    /// The label prior divided out, if `--debias` estimated one.
    pub(crate) fn prior(&self) -> Option<&LabelPrior> {
        self.pairwise.opts.bias.as_ref()
    }

    /// The judge-trust report over every pair judged so far.
    pub(crate) fn trust(&self) -> TrustReport {
        let items: Vec<TrustItem> = self
            .judged
            .iter()
            .map(|(j, len_a, len_b)| TrustItem { judgement: j, len_a: *len_a, len_b: *len_b })
            .collect();
        trust_report(&items, self.scorer.tau)
    }

    /// What every DICE report shares: judge, usage, label prior and the trust report `trust`.
    pub(crate) fn report_fields(&self, trust: &TrustReport) -> Value {
        json!({
            "judge": self.judge.identity(),
            "usage": self.judge.usage(),
            "label_prior": self.prior(),
            "trust": trust,
        })
    }

    /// With `--dry-run`: prints how many judge calls the run needs (`judge_calls` for the
    /// matches plus any prior estimation), how many are not cached yet, and their estimated
    /// prompt tokens, and returns true; without, returns false.
    fn finish_dry_run(&self, judge_calls: usize, json_out: bool) -> Result<bool> {
        if !self.dry_run {
            return Ok(false);
        }
        let usage = self.judge.usage();
        let report = json!({
            "dry_run": true,
            "judge": self.judge.identity(),
            "judge_calls": judge_calls + self.prior_calls,
            "uncached_calls": usage.calls,
            "estimated_prompt_tokens": usage.prompt_tokens,
        });
        if json_out {
            println!("{}", serde_json::to_string_pretty(&report)?);
        } else {
            println!(
                "dry run: {} judge calls, {} not cached; about {} prompt tokens to send (4 characters a token; \
                 stage I output not included)",
                report["judge_calls"], usage.calls, usage.prompt_tokens
            );
        }
        Ok(true)
    }

    /// The output directory (`--output`).
    pub(crate) fn out_dir(&self) -> &Path {
        &self.out_dir
    }

    /// Writes `report` as pretty JSON to `OUTPUT/name`.
    pub(crate) fn write_report(&self, name: &str, report: &Value) -> Result<()> {
        let path = self.out_dir.join(name);
        std::fs::write(&path, serde_json::to_string_pretty(report)?).with_context(|| format!("{}", path.display()))
    }
}

/// Adds the fields of [`MatchRunner::report_fields`] to a report object.
pub(crate) fn with_fields(mut report: Value, fields: Value) -> Value {
    if let (Some(r), Value::Object(f)) = (report.as_object_mut(), fields) {
        r.extend(f);
    }
    report
}

/// The outcome of one match.
pub(crate) struct Played {
    /// Scored questions.
    pub(crate) rows: Vec<Row>,
    /// Questions whose judgement failed: `{id, error}`.
    pub(crate) failures: Vec<Value>,
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

/// One question's outcome.
pub(crate) struct Row {
    pub(crate) id: String,
    pub(crate) s_a: f64,
    pub(crate) consistent: bool,
    pub(crate) category_a: Option<String>,
    pub(crate) category_b: Option<String>,
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
    let cat = |f: fn(&OrderJudgement) -> Option<String>| first.and_then(f);
    Ok(Row {
        id: j.question_id.clone(),
        s_a,
        consistent,
        category_a: cat(|o| o.category_a.map(|c| format!("{c:?}"))),
        category_b: cat(|o| o.category_b.map(|c| format!("{c:?}"))),
    })
}
