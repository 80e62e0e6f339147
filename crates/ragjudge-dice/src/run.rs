//! A DICE run (DICE §3.3): matches between systems over the questions they share, each pair
//! judged through one pairwise judge and scored, with `traces.jsonl` and `labels.jsonl` written
//! as it goes (flushed after every pair, so an interrupted run keeps what it judged), failures
//! kept, and the judge-trust report over everything judged.

use crate::calibration::{estimate_with, LabelPrior};
use crate::judgement::{JudgeOptions, Order, OrderJudgement, PairJudgement, PairwiseJudge, Probs};
use crate::labels::PairLabel;
use crate::pair::{Pair, Side};
use crate::pair_score::{score_pair, ScoredPair};
use crate::prompts::{choose_lang, lang_code};
use crate::protocol::{grade_sides, judge_items, verdict_of_grades, AnswerGrade, Protocol, ProtocolSettings, Verdict};
use crate::scoring::{DiceScorer, ScoringError};
use crate::tournament::{MatchResult, QuestionScore};
use crate::traces::TraceRecord;
use crate::trust::{trust_report, TrustItem, TrustReport};
use ragjudge_artifacts::{AtomicFile, OutputSet};
use ragjudge_core::text::Lang;
use ragjudge_core::{DuplicateKeys, InputError, ReadOptions, Record, RecordReader};
use ragjudge_models::{Judge, ModelError, Usage};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Why a DICE run could not go on.
#[derive(Debug, thiserror::Error)]
pub enum DiceRunError {
    /// A run file is malformed, or repeats a record key (which makes the pairing ambiguous).
    #[error(transparent)]
    Input(#[from] InputError),
    /// The margin threshold is out of range.
    #[error("--tau: {0}")]
    Tau(ScoringError),
    /// An output file could not be written.
    #[error("{}: {message}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What failed.
        message: String,
    },
    /// The judge's label prior could not be estimated.
    #[error("estimating the judge's label prior: {0}")]
    Prior(ModelError),
    /// Every judgement failed.
    #[error("every judgement failed ({count}); first: {first}")]
    AllFailed {
        /// Failed judgements.
        count: usize,
        /// The first failure's reason, as a JSON string.
        first: String,
    },
    /// An option that only DICE's own protocol has, set with another protocol.
    #[error("{option} applies to the dice protocol only (not {protocol})")]
    DiceOnly {
        /// The option.
        option: &'static str,
        /// The protocol chosen.
        protocol: &'static str,
    },
    /// The runs share no question (after the id filter and limit).
    #[error("the runs share no question id (after --ids / --limit)")]
    NothingShared,
    /// A tournament of fewer than two systems.
    #[error("a tournament needs at least two systems, found {found}")]
    TooFewSystems {
        /// Systems found.
        found: usize,
    },
    /// An error level of prediction-powered intervals outside (0, 1).
    #[error("--ppi-alpha must be in (0, 1), got {0}")]
    PpiAlpha(f64),
    /// Too few human labels for a prediction-powered estimate.
    #[error(transparent)]
    TooFewLabels(#[from] crate::ppi::TooFewLabels),
}

impl DiceRunError {
    /// An output that could not be written, with the reason.
    pub fn io(path: &Path, e: impl std::fmt::Display) -> Self {
        DiceRunError::Io { path: path.to_path_buf(), message: e.to_string() }
    }
}

/// Settings of a DICE run.
#[derive(Debug, Clone, PartialEq)]
pub struct DiceRunOptions {
    /// Margin below which a verdict is scored softly.
    pub tau: f64,
    /// How each pair is judged: DICE's three labels (`Dice`, stage I per `reasoning`), or one
    /// of the protocols for small judges (`protocol`), scored the same way.
    pub protocol: Protocol,
    /// Sentences per premise of a claim check (`Protocol::Claims`).
    pub premise_sentences: usize,
    /// Run stage I (the judge's analysis) before the verdict.
    pub reasoning: bool,
    /// Judge each pair in both orders.
    pub swap: bool,
    /// Prompt language; `None` picks it per question.
    pub lang: Option<Lang>,
    /// Judge only the first N shared questions of each match.
    pub limit: Option<usize>,
    /// Judge only these question ids (all when empty).
    pub ids: Vec<String>,
    /// Divide out the judge's label prior, estimated on content-free pairs.
    pub debias: bool,
    /// Count calls instead of writing files (the judge is then a counting stand-in).
    pub dry_run: bool,
    /// Where `traces.jsonl`, `labels.jsonl` and reports go (not needed for a dry run).
    pub output: Option<PathBuf>,
}

impl Default for DiceRunOptions {
    fn default() -> Self {
        Self {
            tau: crate::scoring::DEFAULT_TAU,
            protocol: Protocol::Dice,
            premise_sentences: crate::claims::DEFAULT_PREMISE_SENTENCES,
            reasoning: true,
            swap: true,
            lang: None,
            limit: None,
            ids: Vec::new(),
            debias: false,
            dry_run: false,
            output: None,
        }
    }
}

/// A judgement that failed: `{id, system_a, system_b, error}` in reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Failure {
    /// Question id.
    pub id: String,
    /// First system.
    pub system_a: String,
    /// Second system.
    pub system_b: String,
    /// Why.
    pub error: String,
}

/// The outcome of one match.
#[derive(Debug, Clone, PartialEq)]
pub struct Played {
    /// Scored questions.
    pub rows: Vec<ScoredPair>,
    /// Questions whose judgement failed.
    pub failures: Vec<Failure>,
    /// Model calls the match needed (cache hits included).
    pub judge_calls: usize,
}

/// A match summed up from the first system's side (DICE §3.3: `S_A` is the mean of `s_A`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MatchSummary {
    /// Questions scored.
    pub questions: usize,
    /// Mean DICE score of the first system.
    pub s_a: f64,
    /// Questions won by the first system (`s_A > 0.5`).
    pub wins_a: usize,
    /// Questions drawn (`s_A = 0.5`).
    pub ties: usize,
    /// Questions won by the second system.
    pub wins_b: usize,
    /// Share of questions whose two orders named the same winner.
    pub order_consistency: f64,
    /// Per answer category (or `unparsed`): how often each system's answers fell in it.
    pub categories: std::collections::BTreeMap<String, [usize; 2]>,
}

impl Played {
    /// The match summed up; `None` when no question was scored.
    pub fn summary(&self) -> Option<MatchSummary> {
        if self.rows.is_empty() {
            return None;
        }
        let n = self.rows.len();
        let count = |f: &dyn Fn(&ScoredPair) -> bool| self.rows.iter().filter(|r| f(r)).count();
        let mut categories = std::collections::BTreeMap::new();
        for r in &self.rows {
            for (side, c) in [(0, r.category_a), (1, r.category_b)] {
                let key = c.map_or_else(|| "unparsed".to_string(), |c| format!("{c:?}"));
                categories.entry(key).or_insert([0usize; 2])[side] += 1;
            }
        }
        Some(MatchSummary {
            questions: n,
            s_a: self.rows.iter().map(|r| r.s_a).sum::<f64>() / n as f64,
            wins_a: count(&|r| r.s_a > 0.5),
            ties: count(&|r| r.s_a == 0.5),
            wins_b: count(&|r| r.s_a < 0.5),
            order_consistency: count(&|r| r.consistent) as f64 / n as f64,
            categories,
        })
    }

    /// The per-question scores as the tournament driver takes them.
    pub fn match_result(&self) -> MatchResult {
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

/// What a dry run counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct DryRunCounts {
    /// Judge calls the run needs (prior estimation included).
    pub judge_calls: usize,
    /// Of those, calls not in the cache.
    pub uncached_calls: u64,
    /// Estimated prompt tokens of the uncached calls.
    pub estimated_prompt_tokens: u64,
}

/// Reads every record of a run file for pairing: a malformed record, or a record that repeats an
/// earlier one's `(id, system, run)`, is an error naming file and line.
pub fn read_run(path: &Path) -> Result<Vec<Record>, InputError> {
    let mut reader = RecordReader::open(path, &ReadOptions::default())?;
    let mut keys = DuplicateKeys::default();
    let mut out = Vec::new();
    while let Some(item) = reader.next() {
        let record = item?;
        if let Some(d) = keys.check(&record, reader.last_line()) {
            let message = format!("{d}; pairing by question would be ambiguous");
            return Err(InputError::fatal(reader.name(), reader.last_line(), message));
        }
        out.push(record);
    }
    Ok(out)
}

/// Each system's records by question id, for [`DiceRun::play`].
pub fn index_by_id<'r, K: Copy + Eq + std::hash::Hash>(
    runs: impl IntoIterator<Item = (K, &'r Vec<Record>)>,
) -> HashMap<K, HashMap<String, &'r Record>> {
    runs.into_iter().map(|(k, recs)| (k, recs.iter().map(|r| (r.id.clone(), r)).collect())).collect()
}

/// The files a (non-dry) run writes as it goes: hidden partial files beside their destinations,
/// renamed into place with the run's report ([`DiceRun::commit_with_streams`]), so an
/// interrupted run leaves the previous run's files as they were (its verdicts are in the call
/// cache: the re-run is free).
struct RunFiles {
    traces: AtomicFile,
    labels: AtomicFile,
    /// `verdicts.jsonl`: a protocol's verdicts with their evidence (not for DICE, whose traces
    /// hold it).
    verdicts: Option<AtomicFile>,
    /// `verdicts.jsonl`, removed with the commit when this run does not write it.
    verdicts_path: PathBuf,
}

/// A `verdicts.jsonl` line: a protocol's verdict with its evidence.
#[derive(Serialize)]
struct VerdictLine<'a> {
    id: &'a str,
    system_a: &'a str,
    system_b: &'a str,
    prompt_version: &'a str,
    judge: &'a str,
    s_a: f64,
    verdict: &'a Verdict,
}

impl RunFiles {
    /// Starts `traces.jsonl` and `labels.jsonl` in `dir` (a re-run rewrites them from the cache).
    fn create(dir: &Path, protocol: Protocol) -> Result<Self, DiceRunError> {
        std::fs::create_dir_all(dir).map_err(|e| DiceRunError::io(dir, format!("cannot create: {e}")))?;
        let open = |name: &str| {
            let path = dir.join(name);
            AtomicFile::create(&path).map_err(|e| DiceRunError::io(&path, e.detail()))
        };
        let verdicts = if is_dice(protocol) { None } else { Some(open("verdicts.jsonl")?) };
        Ok(Self {
            traces: open("traces.jsonl")?,
            labels: open("labels.jsonl")?,
            verdicts,
            verdicts_path: dir.join("verdicts.jsonl"),
        })
    }

    fn write(&mut self, j: &PairJudgement, s_a: f64, verdict: Option<&Verdict>) -> Result<(), DiceRunError> {
        let traces_path = self.traces.dest().to_path_buf();
        for t in TraceRecord::from_pair(j) {
            writeln!(self.traces, "{}", t.to_json_line()).map_err(|e| DiceRunError::io(&traces_path, e))?;
        }
        if let (Some(out), Some(v)) = (&mut self.verdicts, verdict) {
            let line = VerdictLine {
                id: &j.question_id,
                system_a: &j.system_a,
                system_b: &j.system_b,
                prompt_version: &j.prompt_version,
                judge: &j.judge,
                s_a,
                verdict: v,
            };
            let path = out.dest().to_path_buf();
            let text = serde_json::to_string(&line).map_err(|e| DiceRunError::io(&path, e))?;
            writeln!(out, "{text}").map_err(|e| DiceRunError::io(&path, e))?;
        }
        let labels_path = self.labels.dest().to_path_buf();
        let line = serde_json::to_string(&PairLabel::of(j, s_a)).map_err(|e| DiceRunError::io(&labels_path, e))?;
        writeln!(self.labels, "{line}").map_err(|e| DiceRunError::io(&labels_path, e))
    }

    /// Adds the streams to `set` as sidecars of its main file.
    fn into_set(self, set: &mut OutputSet) {
        set.push(self.traces);
        set.push(self.labels);
        match self.verdicts {
            Some(v) => set.push(v),
            None => set.remove_if_unwritten(&self.verdicts_path),
        }
    }
}

/// A DICE run: set up once (judge, scorer, output files), then matches are played through it.
pub struct DiceRun {
    judge: Arc<dyn Judge>,
    protocol: Protocol,
    settings: ProtocolSettings,
    /// Outputs graded so far by a pointwise protocol, by (question, system, answer): each is
    /// graded once in a tournament.
    grades: HashMap<(String, String, String), Result<AnswerGrade, ModelError>>,
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
    failures: Vec<Failure>,
    /// Every judged pair with its answers' lengths in characters, for the trust report.
    judged: Vec<(PairJudgement, usize, usize)>,
    /// What decides the verdicts besides the inputs and the judge, for provenance.
    run_settings: RunSettings,
}

/// The settings of a run that decide its verdicts (besides its inputs and judge), as report
/// provenance records them; where the outputs go is not one of them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunSettings {
    /// The protocol.
    pub protocol: &'static str,
    /// Margin below which a verdict is scored softly.
    pub tau: f64,
    /// Stage I before the verdict.
    pub reasoning: bool,
    /// Both orders.
    pub swap: bool,
    /// The prompt language, `None` when chosen per question.
    pub lang: Option<&'static str>,
    /// At most this many questions per match.
    pub limit: Option<usize>,
    /// Only these question ids.
    pub ids: Vec<String>,
    /// The label prior divided out.
    pub debias: bool,
    /// Sentences per premise of a claim check.
    pub premise_sentences: usize,
}

impl DiceRun {
    /// A run judged by `judge` (a counting stand-in for a dry run); unless dry, opens
    /// `OUTPUT/traces.jsonl` and `OUTPUT/labels.jsonl`.
    pub fn new(judge: Arc<dyn Judge>, opts: &DiceRunOptions) -> Result<Self, DiceRunError> {
        let scorer = DiceScorer::new(opts.tau).map_err(DiceRunError::Tau)?;
        if !is_dice(opts.protocol) {
            let dice_only =
                [(opts.debias, "debias"), (!opts.swap, "no swap"), (opts.lang == Some(Lang::Zh), "lang zh")];
            if let Some((_, option)) = dice_only.iter().find(|(set, _)| *set) {
                return Err(DiceRunError::DiceOnly { option, protocol: opts.protocol.name() });
            }
        }
        let judge_opts =
            JudgeOptions { reasoning: opts.reasoning, swap: opts.swap, lang: opts.lang, ..JudgeOptions::default() };
        // One or two orders, each with or without the stage I analysis.
        let calls_per_pair = (if opts.swap { 2 } else { 1 }) * (if opts.reasoning { 2 } else { 1 });
        let out_dir = opts.output.clone().unwrap_or_default();
        let files = if opts.dry_run { None } else { Some(RunFiles::create(&out_dir, opts.protocol)?) };
        let settings = ProtocolSettings { premise_sentences: opts.premise_sentences, ..ProtocolSettings::default() };
        let pairwise = PairwiseJudge::new(Arc::clone(&judge), judge_opts);
        let ids = (!opts.ids.is_empty()).then(|| opts.ids.iter().map(|s| s.trim().to_string()).collect());
        Ok(Self {
            judge,
            protocol: opts.protocol,
            settings,
            grades: HashMap::new(),
            pairwise,
            scorer,
            files,
            out_dir,
            calls_per_pair,
            limit: opts.limit,
            ids,
            debias: opts.debias,
            dry_run: opts.dry_run,
            prior_calls: 0,
            failures: Vec::new(),
            judged: Vec::new(),
            run_settings: RunSettings {
                protocol: opts.protocol.name(),
                tau: opts.tau,
                reasoning: opts.reasoning,
                swap: opts.swap,
                lang: opts.lang.map(|l| match l {
                    Lang::En => "en",
                    Lang::Zh => "zh",
                }),
                limit: opts.limit,
                ids: opts.ids.clone(),
                debias: opts.debias,
                premise_sentences: opts.premise_sentences,
            },
        })
    }

    /// The settings that decide this run's verdicts.
    pub fn run_settings(&self) -> &RunSettings {
        &self.run_settings
    }

    /// Provenance of this run's reports: the ragjudge version, the judge, the prompt version of
    /// the protocol; the caller adds its inputs and settings.
    pub fn provenance(&self) -> ragjudge_artifacts::Provenance {
        let mut p = ragjudge_artifacts::Provenance::version_only();
        p.add_model("judge", &self.judge.identity());
        p.add_prompt(self.protocol.name(), self.protocol.prompt_version());
        p
    }

    /// Judges the questions two runs share (in A's id order, restricted to the ids, at most
    /// `limit`), batched through the judge; a failed judgement is kept and the match goes on.
    pub fn play<'r>(
        &mut self,
        a: impl IntoIterator<Item = &'r Record>,
        b: &HashMap<String, &'r Record>,
    ) -> Result<Played, DiceRunError> {
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
        let (judged, judge_calls) = if is_dice(self.protocol) {
            let judged = self.pairwise.judge_pairs_many(&pairs).into_iter().map(|r| r.map(|j| (j, None))).collect();
            (judged, pairs.len() * self.calls_per_pair)
        } else {
            self.judge_with_protocol(&pairs)
        };
        let mut played = Played { rows: Vec::new(), failures: Vec::new(), judge_calls };
        for (pair, result) in pairs.iter().zip(judged) {
            let scored = result
                .map_err(|e| e.to_string())
                .and_then(|(j, v)| score_pair(&self.scorer, &j).map(|row| (j, v, row)).map_err(|e| e.to_string()));
            match scored {
                Ok((j, verdict, row)) => {
                    if let Some(files) = &mut self.files {
                        files.write(&j, row.s_a, verdict.as_ref())?;
                    }
                    self.judged.push((j, pair.0.answer.chars().count(), pair.1.answer.chars().count()));
                    played.rows.push(row);
                }
                Err(error) => {
                    let f = Failure {
                        id: pair.0.id.clone(),
                        system_a: pair.0.system.clone(),
                        system_b: pair.1.system.clone(),
                        error,
                    };
                    self.failures.push(f.clone());
                    played.failures.push(f);
                }
            }
        }
        Ok(played)
    }

    /// Judges `pairs` with a protocol other than DICE: pointwise protocols grade each output
    /// not graded yet, once; the verdicts as pair judgements (for scoring, labels and the trust
    /// report) with the verdicts themselves. Returns them with the model calls they needed
    /// (cached calls included, as for DICE).
    #[allow(clippy::type_complexity)]
    fn judge_with_protocol(
        &mut self,
        pairs: &[(&Record, &Record)],
    ) -> (Vec<Result<(PairJudgement, Option<Verdict>), ModelError>>, usize) {
        let items: Vec<Pair> = pairs.iter().map(|(a, b)| Pair::of_records(a, b)).collect();
        let calls;
        let verdicts: Vec<Result<Verdict, ModelError>> = if self.protocol.is_pointwise() {
            let key = |i: &Pair, s: &Side| (i.id.clone(), s.system.clone().unwrap_or_default(), s.answer.clone());
            let mut todo: Vec<(&Pair, &Side)> = Vec::new();
            let mut queued = HashSet::new();
            for i in &items {
                for s in [&i.first, &i.second] {
                    let k = key(i, s);
                    if !self.grades.contains_key(&k) && queued.insert(k) {
                        todo.push((i, s));
                    }
                }
            }
            let graded = grade_sides(&self.judge, self.protocol, &todo, &self.settings);
            calls = graded.iter().flatten().map(AnswerGrade::calls).sum();
            for ((i, s), g) in todo.iter().zip(graded) {
                self.grades.insert(key(i, s), g);
            }
            items
                .iter()
                .map(|i| {
                    let a = self.grades[&key(i, &i.first)].clone()?;
                    let b = self.grades[&key(i, &i.second)].clone()?;
                    Ok(verdict_of_grades(a, b, 0.0))
                })
                .collect()
        } else {
            // Both orders; the ensemble adds two grades per pair.
            calls = items.len() * if self.protocol == Protocol::Ensemble { 4 } else { 2 };
            judge_items(&self.judge, self.protocol, &items, &self.settings)
        };
        let identity = self.judge.identity();
        let judged = verdicts
            .into_iter()
            .zip(pairs)
            .map(|(v, (a, b))| v.map(|v| (as_judgement(&v, a, b, self.protocol, &identity), Some(v))))
            .collect();
        (judged, calls)
    }

    /// Every failed judgement so far.
    pub fn failures(&self) -> &[Failure] {
        &self.failures
    }

    /// The judge.
    pub fn judge(&self) -> &Arc<dyn Judge> {
        &self.judge
    }

    /// With a dry run, what it counted for `judge_calls` match calls (plus any prior estimation).
    pub fn dry_run_counts(&self, judge_calls: usize) -> Option<DryRunCounts> {
        self.dry_run.then(|| {
            let usage: Usage = self.judge.usage();
            DryRunCounts {
                judge_calls: judge_calls + self.prior_calls,
                uncached_calls: usage.calls,
                estimated_prompt_tokens: usage.prompt_tokens,
            }
        })
    }

    /// Fails when no pair could be judged: every judgement failed, or the runs share no question.
    pub fn ensure_judged(&self) -> Result<(), DiceRunError> {
        if !self.judged.is_empty() || self.dry_run {
            return Ok(());
        }
        match self.failures.first() {
            Some(f) => Err(DiceRunError::AllFailed {
                count: self.failures.len(),
                first: Value::from(f.error.clone()).to_string(),
            }),
            None => Err(DiceRunError::NothingShared),
        }
    }

    /// Contextual calibration (`crate::calibration`): the judge's label prior on content-free
    /// pairs, in the language and mode of the real judgements.
    fn estimate_prior(&mut self, lang: Lang) -> Result<(), DiceRunError> {
        let opts = JudgeOptions { lang: Some(lang), ..self.pairwise.opts.clone() };
        let prior = estimate_with(Arc::clone(&self.judge), &opts).map_err(DiceRunError::Prior)?;
        // Every ordered pair of the content-free answers, with or without stage I.
        self.prior_calls = prior.n * if opts.reasoning { 2 } else { 1 };
        self.pairwise.opts.bias = Some(prior);
        Ok(())
    }

    /// The judging protocol.
    pub fn protocol(&self) -> Protocol {
        self.protocol
    }

    /// The label prior divided out, when `debias` estimated one.
    pub fn prior(&self) -> Option<&LabelPrior> {
        self.pairwise.opts.bias.as_ref()
    }

    /// The judge-trust report over every pair judged so far.
    pub fn trust(&self) -> TrustReport {
        let items: Vec<TrustItem> = self
            .judged
            .iter()
            .map(|(j, len_a, len_b)| TrustItem { judgement: j, len_a: *len_a, len_b: *len_b })
            .collect();
        trust_report(&items, self.scorer.tau)
    }

    /// The output directory.
    pub fn out_dir(&self) -> &Path {
        &self.out_dir
    }

    /// Replaces the run's report files (`set`, its main file first) and its streams
    /// (`traces.jsonl`, `labels.jsonl`, `verdicts.jsonl`) together: all complete, or the
    /// previous run's files as they were. The streams are committed once.
    pub fn commit_with_streams(&mut self, mut set: OutputSet) -> Result<(), DiceRunError> {
        if let Some(files) = self.files.take() {
            files.into_set(&mut set);
        }
        set.commit().map_err(|e| DiceRunError::io(&self.out_dir, e.detail()))
    }
}

/// The protocol of a run by name: `dice` (stage I per the reasoning option) or one of the
/// protocols for small judges; `dice-reasoning` is refused (it is `dice` with reasoning).
pub fn run_protocol(name: &str) -> Result<Protocol, String> {
    match Protocol::parse(name) {
        Some(Protocol::DiceReasoning) => Err("use `dice` (stage I runs unless reasoning is off)".into()),
        Some(p) => Ok(p),
        None => {
            let known: Vec<&str> =
                Protocol::ALL.iter().filter(|p| **p != Protocol::DiceReasoning).map(|p| p.name()).collect();
            Err(format!("unknown protocol `{}` (known: {})", name.trim(), known.join(", ")))
        }
    }
}

fn is_dice(protocol: Protocol) -> bool {
    matches!(protocol, Protocol::Dice | Protocol::DiceReasoning)
}

/// Judges one pair (two answers to one question, `a` shown first in the first order) with a
/// protocol other than DICE, as a run judges each of its pairs: pointwise protocols grade both
/// answers, pairwise ones judge both orders. Returns the verdict as a pair judgement (for
/// [`score_pair`]) and the verdict itself with its evidence (per-order probabilities, grades or
/// claim checks).
///
/// # Panics
/// For `dice` and `dice-reasoning`, which [`PairwiseJudge`] judges.
pub fn judge_pair_with_protocol(
    judge: &Arc<dyn Judge>,
    protocol: Protocol,
    a: &Record,
    b: &Record,
    settings: &ProtocolSettings,
) -> Result<(PairJudgement, Verdict), ModelError> {
    assert!(!is_dice(protocol), "DICE pairs are judged by PairwiseJudge");
    let pair = Pair::of_records(a, b);
    let verdict = if protocol.is_pointwise() {
        let mut grades = grade_sides(judge, protocol, &[(&pair, &pair.first), (&pair, &pair.second)], settings);
        let second = grades.pop().unwrap_or_else(|| Err(ModelError::missing("grade")))?;
        let first = grades.pop().unwrap_or_else(|| Err(ModelError::missing("grade")))?;
        verdict_of_grades(first, second, settings.tie_margin)
    } else {
        judge_items(judge, protocol, std::slice::from_ref(&pair), settings)
            .pop()
            .unwrap_or_else(|| Err(ModelError::missing("verdict")))?
    };
    Ok((as_judgement(&verdict, a, b, protocol, &judge.identity()), verdict))
}

/// A protocol's verdict as a pair judgement: the orders it judged (none for a pointwise
/// protocol) with A/B probabilities and no tie label, the pair's probabilities `(s, 1 - s, 0)`.
fn as_judgement(v: &Verdict, a: &Record, b: &Record, protocol: Protocol, judge: &str) -> PairJudgement {
    let two = |s: f64| Probs { a: s, b: 1.0 - s, tie: 0.0 };
    let orders: Vec<OrderJudgement> = v
        .orders
        .iter()
        .map(|o| OrderJudgement {
            order: Order::of(o.swapped),
            reasoning: String::new(),
            category_a: None,
            category_b: None,
            category_a_raw: None,
            category_b_raw: None,
            probs: two(o.s_first),
            corrected: None,
            label_mass: o.label_probs.label_mass,
            source: o.label_probs.source,
            label_probs: o.label_probs.clone(),
        })
        .collect();
    PairJudgement {
        question_id: a.id.clone(),
        system_a: a.system.clone(),
        system_b: b.system.clone(),
        lang: lang_code(choose_lang(protocol.prompt_lang(), &a.query)).into(),
        prompt_version: protocol.prompt_version().into(),
        judge: judge.into(),
        reference_free: a.reference.is_none() && b.reference.is_none(),
        reasoning: false,
        order_consistent: v.orders.windows(2).all(|w| w[0].outcome == w[1].outcome),
        orders,
        probs: two(v.s_first),
        prior: None,
    }
}
