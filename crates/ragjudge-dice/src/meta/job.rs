//! Judge meta-evaluation as one library call, shared by every face: labelled pair sets (LLMBar's
//! layout, or runs with pairwise labels) and scored summaries -> each protocol's verdicts, the
//! optional stacker, the consistency scorers -> [`JudgeEvalReport`] (`judge-eval.json`, artifact
//! kind `judge-eval`), with `judge-eval.csv`, `judge-eval.md`, `verdicts.jsonl` and one
//! `consistency-SET.jsonl` per summary set in the output folder.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use ragjudge_artifacts::{
    create_parent_dirs, to_json_bytes, write_atomic, Artifact, ArtifactError, AtomicFile, Document, Provenance,
};
use ragjudge_core::InputError;
use ragjudge_models::Judge;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::labels::PairLabels;
use crate::meta::consistency::{judge_support, read_consistency, rouge2_precision, ConsistencyItem};
use crate::meta::items::{pairs_from_runs, read_llmbar, set_name, PairItem};
use crate::meta::stack::{cross_validate, metric_features, StackResult};
use crate::meta::stats::{set_stats, SetStats};
use crate::meta::table::{consistency_markdown, markdown};
use crate::meta::{consistency_stats, evaluate_set, ConsistencyStats, ItemResult, StoredRow, STORED};
use crate::pair::Outcome;
use crate::protocol::{Protocol, ProtocolSettings, Verdict};
use crate::run::read_run;

/// Why a meta-evaluation could not run or write its outputs.
#[derive(Debug, thiserror::Error)]
pub enum JudgeEvalError {
    /// A labelled set, run, label or summary file that cannot be read.
    #[error(transparent)]
    Input(#[from] InputError),
    /// Pairwise labels that name a pair the runs lack.
    #[error("{}: {message}", path.display())]
    Labels {
        /// The label file.
        path: PathBuf,
        /// The pair at fault.
        message: String,
    },
    /// A protocol name that is not one of [`Protocol::ALL`].
    #[error("unknown protocol `{name}` (known: {known})")]
    UnknownProtocol {
        /// The name given.
        name: String,
        /// The known names, comma separated.
        known: String,
    },
    /// A tie margin outside `[0, 0.5)`.
    #[error("tie margin must be in [0, 0.5), got {0}")]
    TieMargin(f64),
    /// No set and no summaries.
    #[error("nothing to measure: give labelled pair sets, runs with pairwise labels, or scored summaries")]
    NothingToMeasure,
    /// A set without a labelled pair.
    #[error("set `{0}` has no labelled pair")]
    EmptySet(String),
    /// An output that cannot be written.
    #[error(transparent)]
    Artifact(#[from] ArtifactError),
    /// A line of a JSONL or CSV output that cannot be written.
    #[error("{}: cannot write: {source}", path.display())]
    Write {
        /// The output.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A row that cannot be serialised.
    #[error("{}: {source}", path.display())]
    Json {
        /// The output.
        path: PathBuf,
        /// The cause.
        #[source]
        source: serde_json::Error,
    },
    /// A table row that cannot be serialised.
    #[error("{}: {source}", path.display())]
    Csv {
        /// The output.
        path: PathBuf,
        /// The cause.
        #[source]
        source: csv::Error,
    },
}

/// The protocols named in `names`, in order.
pub fn parse_protocols(names: &[String]) -> Result<Vec<Protocol>, JudgeEvalError> {
    names
        .iter()
        .map(|p| {
            Protocol::parse(p).ok_or_else(|| JudgeEvalError::UnknownProtocol {
                name: p.clone(),
                known: Protocol::ALL.iter().map(|p| p.name()).collect::<Vec<_>>().join(", "),
            })
        })
        .collect()
}

/// What a meta-evaluation measures and how (its provenance's `settings`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JudgeEvalSettings {
    /// Protocols, each run on every set.
    pub protocols: Vec<Protocol>,
    /// A score within this distance of 0.5 is a tie, in `[0, 0.5)`.
    pub tie_margin: f64,
    /// Source sentences shown as the premise of a summary sentence or claim; 0: the whole source.
    pub premise_sentences: usize,
    /// First N pairs (and summaries) of each set only.
    pub limit: Option<usize>,
    /// Also fit the stacker on each set's labels, measured by grouped cross-validation.
    pub stack: bool,
    /// Folds of the stacker's cross-validation.
    pub folds: usize,
    /// Pairs (or summaries) per batch of judge calls.
    pub batch: usize,
}

impl Default for JudgeEvalSettings {
    fn default() -> Self {
        Self {
            protocols: vec![Protocol::TwoLabel],
            tie_margin: 0.0,
            premise_sentences: 3,
            limit: None,
            stack: false,
            folds: 6,
            batch: 8,
        }
    }
}

impl JudgeEvalSettings {
    /// The premise length the protocols take (`usize::MAX`: the whole source).
    fn premise(&self) -> usize {
        if self.premise_sentences == 0 {
            usize::MAX
        } else {
            self.premise_sentences
        }
    }
}

/// The files a meta-evaluation reads.
#[derive(Debug, Clone, Default)]
pub struct JudgeEvalInputs {
    /// Labelled pair sets in LLMBar's layout.
    pub sets: Vec<PathBuf>,
    /// Runs of several systems whose pairs `pairs` labels.
    pub runs: Vec<PathBuf>,
    /// Human pairwise labels of `runs`.
    pub pairs: Option<PathBuf>,
    /// Name of the runs' set (default: the label file's stem).
    pub runs_name: Option<String>,
    /// Scored summaries (UniEval's layout) for the consistency judge.
    pub consistency: Vec<PathBuf>,
}

/// A protocol as the report names it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ProtocolVersion {
    /// The protocol's name.
    pub name: String,
    /// The versions of its prompts.
    pub prompt_version: String,
}

/// The stacker fitted on one set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SetStack {
    /// The set.
    pub set: String,
    /// Its held-out predictions, learning curve and weights.
    pub result: StackResult,
}

/// `judge-eval.json`: every row of the tables, the stackers and LLMBar's stored rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct JudgeEvalReport {
    /// The judge's identity.
    pub judge: String,
    /// The protocols with their prompt versions.
    pub protocols: Vec<ProtocolVersion>,
    /// The tie margin.
    pub tie_margin: f64,
    /// One row per set and protocol, then the stackers' rows.
    pub rows: Vec<SetStats>,
    /// The consistency scorers' rows.
    pub consistency: Vec<ConsistencyStats>,
    /// The stackers.
    pub stacks: Vec<SetStack>,
    /// Premise sentences (0: the whole source).
    pub premise_sentences: usize,
    /// LLMBar's stored rows.
    pub stored: Vec<StoredRow>,
    /// Pairs the judge failed on (their errors are in `verdicts.jsonl`).
    #[serde(default)]
    pub failed: usize,
}

impl Artifact for JudgeEvalReport {
    const KIND: &'static str = "judge-eval";
    const SCHEMA_VERSION: u32 = 1;

    /// Before artifacts were versioned: rows, protocols and the stored rows.
    fn is_legacy(value: &Value) -> bool {
        ["rows", "protocols", "stored", "consistency"].iter().all(|k| value.get(k).is_some())
    }
}

/// One line of `consistency-SET.jsonl`: a summary's label, its lexical baseline and its support.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SummaryVerdict {
    /// Position of the summary in its file.
    pub id: usize,
    /// The human consistency label.
    pub label: f64,
    /// ROUGE-2 precision against the source.
    pub rouge2_precision: f64,
    /// The least supported sentence's P(Yes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// P(Yes) per summary sentence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sentences: Option<Vec<f64>>,
    /// Why the judge gave none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// What a meta-evaluation reports as it goes.
#[derive(Debug, Clone, Copy)]
pub enum JudgeEvalProgress<'a> {
    /// A protocol that needs reference answers skipped on a set without them.
    Skipped {
        /// The protocol.
        protocol: Protocol,
        /// The set.
        set: &'a str,
    },
    /// Pairs of a set judged so far.
    Pairs {
        /// The protocol.
        protocol: Protocol,
        /// The set.
        set: &'a str,
        /// Pairs done.
        done: usize,
        /// Pairs in the set.
        total: usize,
    },
    /// A protocol finished on a set.
    SetDone {
        /// Its row.
        row: &'a SetStats,
        /// The first failure, if any.
        first_failure: Option<&'a str>,
    },
    /// The stacker's held-out row of a set.
    Stacked {
        /// Its row.
        row: &'a SetStats,
    },
    /// Summaries of a consistency set judged so far.
    Summaries {
        /// The set.
        set: &'a str,
        /// Summaries done.
        done: usize,
        /// Summaries in the set.
        total: usize,
    },
    /// A summary the judge failed on.
    SummaryFailed {
        /// The failure.
        error: &'a str,
    },
    /// The claim judge finished on a consistency set.
    ConsistencyDone {
        /// Its row (minimum aggregation).
        row: &'a ConsistencyStats,
    },
}

/// What a meta-evaluation gave: the report as written, its Markdown table, and where the
/// verdicts are.
#[derive(Debug, Clone)]
pub struct JudgeEvalOutcome {
    /// `judge-eval.json`.
    pub report: Document<JudgeEvalReport>,
    /// `judge-eval.md`.
    pub markdown: String,
    /// `verdicts.jsonl`.
    pub verdicts: PathBuf,
}

/// A meta-evaluation's inputs, read and checked, ready to judge.
#[derive(Debug, Clone)]
pub struct JudgeEval {
    sets: Vec<(String, Vec<PairItem>)>,
    summaries: Vec<(String, Vec<ConsistencyItem>)>,
    inputs: Vec<PathBuf>,
    settings: JudgeEvalSettings,
}

impl JudgeEval {
    /// Reads the sets and summaries of `inputs` (each cut to `settings.limit`); refuses a bad
    /// tie margin, an empty set, and nothing to measure.
    pub fn read(inputs: &JudgeEvalInputs, settings: JudgeEvalSettings) -> Result<Self, JudgeEvalError> {
        if !(settings.tie_margin.is_finite() && (0.0..0.5).contains(&settings.tie_margin)) {
            return Err(JudgeEvalError::TieMargin(settings.tie_margin));
        }
        let mut sets = Vec::new();
        for path in &inputs.sets {
            sets.push((set_name(path), read_llmbar(path)?));
        }
        if let Some(labels) = &inputs.pairs {
            let gold = PairLabels::read(labels)?;
            let mut records = Vec::new();
            for path in &inputs.runs {
                records.extend(read_run(path)?);
            }
            let name = inputs.runs_name.clone().unwrap_or_else(|| set_name(labels));
            let items = pairs_from_runs(&name, &records, &gold)
                .map_err(|message| JudgeEvalError::Labels { path: labels.clone(), message })?;
            sets.push((name, items));
        }
        if sets.is_empty() && inputs.consistency.is_empty() {
            return Err(JudgeEvalError::NothingToMeasure);
        }
        for (name, items) in &mut sets {
            if let Some(n) = settings.limit {
                items.truncate(n);
            }
            if items.is_empty() {
                return Err(JudgeEvalError::EmptySet(name.clone()));
            }
        }
        let mut summaries = Vec::new();
        for path in &inputs.consistency {
            let mut items = read_consistency(path)?;
            if let Some(n) = settings.limit {
                items.truncate(n);
            }
            summaries.push((set_name(path), items));
        }
        let mut paths: Vec<PathBuf> = inputs.sets.iter().chain(&inputs.runs).cloned().collect();
        paths.extend(inputs.pairs.iter().cloned());
        paths.extend(inputs.consistency.iter().cloned());
        Ok(JudgeEval { sets, summaries, inputs: paths, settings })
    }

    /// The provenance of the report: the inputs (hashed), the judge, the prompts and the settings.
    pub fn provenance(&self, judge: &dyn Judge) -> Result<Provenance, JudgeEvalError> {
        let mut p = Provenance::version_only();
        p.add_inputs(&self.inputs)?;
        p.add_model("judge", &judge.identity());
        for protocol in &self.settings.protocols {
            p.add_prompt(protocol.name(), protocol.prompt_version());
        }
        p.settings = serde_json::to_value(&self.settings)
            .map_err(|source| JudgeEvalError::Json { path: PathBuf::new(), source })?;
        Ok(p)
    }

    /// Judges every set with every protocol, fits the stackers, scores the summaries, and
    /// writes the outputs to `out_dir`; a pair the judge fails on is recorded and counted
    /// ([`JudgeEvalReport::failed`]), the run goes on.
    pub fn run(
        &self,
        judge: &Arc<dyn Judge>,
        out_dir: &Path,
        progress: &dyn Fn(JudgeEvalProgress<'_>),
    ) -> Result<JudgeEvalOutcome, JudgeEvalError> {
        let provenance = self.provenance(judge.as_ref())?;
        let s = &self.settings;
        let verdicts_path = out_dir.join("verdicts.jsonl");
        create_parent_dirs(&verdicts_path)?;
        let protocol_settings = ProtocolSettings {
            tie_margin: s.tie_margin,
            premise_sentences: s.premise(),
            ..ProtocolSettings::default()
        };
        let mut verdicts = AtomicFile::create(&verdicts_path)?;
        let (mut rows, mut stacks, mut failed) = (Vec::new(), Vec::new(), 0usize);
        let mut scores: Vec<Vec<Vec<Option<f64>>>> = vec![Vec::new(); self.sets.len()];
        for &protocol in &s.protocols {
            for (k, (set, items)) in self.sets.iter().enumerate() {
                if protocol.needs_reference() && items.iter().any(|i| i.pair.reference.is_none()) {
                    progress(JudgeEvalProgress::Skipped { protocol, set });
                    scores[k].push(vec![None; items.len()]);
                    continue;
                }
                let pairs =
                    |done: usize, total: usize| progress(JudgeEvalProgress::Pairs { protocol, set, done, total });
                let (stats, results) = evaluate_set(judge, protocol, set, items, &protocol_settings, s.batch, &pairs);
                for r in &results {
                    write_line(&mut verdicts, &verdicts_path, r)?;
                }
                failed += stats.failed;
                scores[k].push(results.iter().map(|r| r.verdict.as_ref().map(|v| v.s_first)).collect());
                let first_failure = results.iter().find_map(|r: &ItemResult| r.error.as_deref());
                progress(JudgeEvalProgress::SetDone { row: &stats, first_failure });
                rows.push(stats);
            }
        }
        if s.stack {
            for (k, (set, items)) in self.sets.iter().enumerate() {
                if let Some((row, result)) = stack_row(set, items, s, &scores[k]) {
                    progress(JudgeEvalProgress::Stacked { row: &row });
                    rows.push(row);
                    stacks.push(SetStack { set: set.clone(), result });
                }
            }
        }
        let mut consistency = Vec::new();
        for (set, items) in &self.summaries {
            consistency.extend(self.consistency_rows(judge, set, items, out_dir, progress)?);
        }
        write_csv(&out_dir.join("judge-eval.csv"), &rows)?;
        let mut table = if rows.is_empty() { String::new() } else { markdown(&rows) };
        if !consistency.is_empty() {
            table += &consistency_markdown(&consistency);
        }
        verdicts.commit()?;
        write_atomic(&out_dir.join("judge-eval.md"), table.as_bytes())?;
        let body = JudgeEvalReport {
            judge: judge.identity(),
            protocols: s
                .protocols
                .iter()
                .map(|p| ProtocolVersion { name: p.name().into(), prompt_version: p.prompt_version().into() })
                .collect(),
            tie_margin: s.tie_margin,
            rows,
            consistency,
            stacks,
            premise_sentences: s.premise_sentences,
            stored: STORED.to_vec(),
            failed,
        };
        let path = out_dir.join("judge-eval.json");
        let bytes =
            to_json_bytes(&provenance, &body).map_err(|source| JudgeEvalError::Json { path: path.clone(), source })?;
        write_atomic(&path, &bytes)?;
        let report = Document {
            kind: JudgeEvalReport::KIND.into(),
            schema_version: JudgeEvalReport::SCHEMA_VERSION,
            provenance,
            body,
        };
        Ok(JudgeEvalOutcome { report, markdown: table, verdicts: verdicts_path })
    }

    /// The ROUGE-2 precision baseline and the claim judge (minimum and mean over sentences, and
    /// that mean averaged with ROUGE-2 precision) on one summary set; writes its per-item lines.
    fn consistency_rows(
        &self,
        judge: &Arc<dyn Judge>,
        set: &str,
        items: &[ConsistencyItem],
        out_dir: &Path,
        progress: &dyn Fn(JudgeEvalProgress<'_>),
    ) -> Result<Vec<ConsistencyStats>, JudgeEvalError> {
        let labels: Vec<f64> = items.iter().map(|i| i.label).collect();
        let lexical: Vec<f64> = items.iter().map(rouge2_precision).collect();
        let lexical_scores: Vec<Option<f64>> = lexical.iter().copied().map(Some).collect();
        let mut rows =
            vec![consistency_stats(set, "rouge2_precision (lexical baseline)", &labels, &lexical_scores, None)];
        let started = Instant::now();
        let (mut scores, mut means, mut sentences) = (Vec::new(), Vec::new(), 0usize);
        let path = out_dir.join(format!("consistency-{set}.jsonl"));
        let mut out = AtomicFile::create(&path)?;
        let batch = self.settings.batch.max(1);
        for (done, chunk) in items.chunks(batch).enumerate() {
            let first = done * batch;
            for (j, (item, r)) in chunk.iter().zip(judge_support(judge, chunk, self.settings.premise())).enumerate() {
                let mut line = SummaryVerdict {
                    id: item.id,
                    label: item.label,
                    rouge2_precision: lexical[first + j],
                    score: None,
                    sentences: None,
                    error: None,
                };
                match r {
                    Ok(support) => {
                        sentences += support.sentences.len();
                        scores.push(Some(support.score));
                        means.push(Some(support.mean()));
                        line.score = Some(support.score);
                        line.sentences = Some(support.sentences);
                    }
                    Err(e) => {
                        let error = e.to_string();
                        progress(JudgeEvalProgress::SummaryFailed { error: &error });
                        scores.push(None);
                        means.push(None);
                        line.error = Some(error);
                    }
                }
                write_line(&mut out, &path, &line)?;
            }
            progress(JudgeEvalProgress::Summaries { set, done: first + chunk.len(), total: items.len() });
        }
        out.commit()?;
        let scorer = if self.settings.premise_sentences == 0 {
            "hallucination metric, judge P(Yes), whole source, min over sentences".to_string()
        } else {
            format!(
                "hallucination metric, judge P(Yes), {} premise sentences, min over sentences",
                self.settings.premise_sentences
            )
        };
        let mut row = consistency_stats(set, &scorer, &labels, &scores, Some(0.5));
        row.sentences = sentences;
        row.seconds_per_sentence = (sentences > 0).then(|| started.elapsed().as_secs_f64() / sentences as f64);
        progress(JudgeEvalProgress::ConsistencyDone { row: &row });
        rows.push(row);
        // The same supports aggregated by their mean, and that mean averaged with ROUGE-2
        // precision (equal weights, nothing fitted): no further calls.
        let scorer = scorer.replace("min over sentences", "mean over sentences (its default)");
        rows.push(consistency_stats(set, &scorer, &labels, &means, Some(0.5)));
        let both: Vec<Option<f64>> = means.iter().zip(&lexical).map(|(m, l)| Some((m.as_ref()? + l) / 2.0)).collect();
        rows.push(consistency_stats(set, &format!("({scorer} + rouge2_precision) / 2"), &labels, &both, Some(0.5)));
        Ok(rows)
    }
}

/// Appends `row` to a JSONL output as one line.
fn write_line<T: Serialize>(out: &mut AtomicFile, path: &Path, row: &T) -> Result<(), JudgeEvalError> {
    serde_json::to_writer(&mut *out, row).map_err(|source| JudgeEvalError::Json { path: path.into(), source })?;
    out.write_all(b"\n").map_err(|source| JudgeEvalError::Write { path: path.into(), source })
}

/// `judge-eval.csv`: the rows of the pairwise table.
fn write_csv(path: &Path, rows: &[SetStats]) -> Result<(), JudgeEvalError> {
    let mut w = csv::Writer::from_writer(AtomicFile::create(path)?);
    for r in rows {
        w.serialize(r).map_err(|source| JudgeEvalError::Csv { path: path.into(), source })?;
    }
    let file = w.into_inner().map_err(|e| JudgeEvalError::Write { path: path.into(), source: e.into_error() })?;
    Ok(file.commit()?)
}

/// The stacker's row on one set: protocol scores (items every protocol judged) and metric
/// differences, cross-validated by question.
fn stack_row(
    set: &str,
    items: &[PairItem],
    settings: &JudgeEvalSettings,
    scores: &[Vec<Option<f64>>],
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
    let mut features: Vec<String> = settings.protocols.iter().map(|p| p.name().to_string()).collect();
    features.extend(["token_f1_diff".to_string(), "length_diff".to_string()]);
    let result = cross_validate(&kept, &x, features.clone(), settings.folds, settings.tie_margin)?;
    let verdicts: Vec<Verdict> = result
        .held_out
        .iter()
        .map(|&s| Verdict {
            s_first: s,
            outcome: Outcome::of_score(s, settings.tie_margin),
            orders: Vec::new(),
            grades: None,
            claims: None,
        })
        .collect();
    let refs: Vec<Option<&Verdict>> = verdicts.iter().map(Some).collect();
    let label = format!("stack({}) held out, {} folds", features.join("+"), result.folds);
    let mut row = set_stats(set, &label, &kept, &refs);
    row.failed = items.len() - kept.len();
    row.items = items.len();
    Some((row, result))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::ScriptedYes;
    use ragjudge_artifacts::read_artifact;

    const SET: &str = r#"[{"input": "Say hi.", "output_1": "Hi!", "output_2": "Hello there, friend.", "label": 1},
{"input": "Add 2 and 2.", "output_1": "5", "output_2": "4", "label": 2}]"#;

    #[test]
    fn an_even_judge_gives_ties_and_every_output_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let set = dir.path().join("toy.json");
        std::fs::write(&set, SET).unwrap();
        let inputs = JudgeEvalInputs { sets: vec![set], ..JudgeEvalInputs::default() };
        let job = JudgeEval::read(&inputs, JudgeEvalSettings::default()).unwrap();
        // P(a) = P(b) = 0.5 in both orders: s = 0.5, a tie at margin 0.
        let judge: Arc<dyn Judge> = ScriptedYes::new(&[]);
        let out = dir.path().join("out");
        let seen = std::cell::Cell::new(0);
        let outcome = job
            .run(&judge, &out, &|p| {
                if let JudgeEvalProgress::SetDone { .. } = p {
                    seen.set(seen.get() + 1)
                }
            })
            .unwrap();
        assert_eq!(seen.get(), 1);
        let row = &outcome.report.body.rows[0];
        assert_eq!((row.set.as_str(), row.protocol.as_str()), ("toy", "two-label"));
        // By hand: 2 pairs judged, none decided; ties count half: (0.5 + 0.5) / 2.
        assert_eq!((row.judged, row.decided, row.accuracy_with_ties), (2, 0, Some(0.5)));
        // Two orders per pair.
        assert_eq!(row.calls, 4);
        assert_eq!(outcome.report.body.failed, 0);
        let doc = read_artifact::<JudgeEvalReport>(&out.join("judge-eval.json")).unwrap();
        assert_eq!(doc.body, outcome.report.body);
        assert_eq!(doc.provenance.models["judge"], "scripted:yes");
        assert_eq!(doc.provenance.inputs.len(), 1);
        assert_eq!(std::fs::read_to_string(out.join("verdicts.jsonl")).unwrap().lines().count(), 2);
        assert_eq!(std::fs::read_to_string(out.join("judge-eval.csv")).unwrap().lines().count(), 2);
        assert!(outcome.markdown.starts_with("| set | protocol |"));
        assert_eq!(std::fs::read_to_string(out.join("judge-eval.md")).unwrap(), outcome.markdown);
    }

    #[test]
    fn bad_settings_and_empty_inputs_are_refused() {
        let e = JudgeEval::read(&JudgeEvalInputs::default(), JudgeEvalSettings::default()).unwrap_err();
        assert!(matches!(e, JudgeEvalError::NothingToMeasure), "{e}");
        let s = JudgeEvalSettings { tie_margin: 0.5, ..JudgeEvalSettings::default() };
        let e = JudgeEval::read(&JudgeEvalInputs::default(), s).unwrap_err();
        assert_eq!(e.to_string(), "tie margin must be in [0, 0.5), got 0.5");
        let e = parse_protocols(&["two-label".into(), "vibes".into()]).unwrap_err().to_string();
        assert!(e.starts_with("unknown protocol `vibes` (known: dice, dice-reasoning, two-label"), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("empty.json");
        std::fs::write(&empty, "[]").unwrap();
        let inputs = JudgeEvalInputs { sets: vec![empty], ..JudgeEvalInputs::default() };
        let e = JudgeEval::read(&inputs, JudgeEvalSettings::default()).unwrap_err();
        assert_eq!(e.to_string(), "set `empty` has no labelled pair");
    }

    #[test]
    fn reports_written_before_artifacts_read_as_legacy() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("judge-eval.json");
        std::fs::write(
            &path,
            r#"{"judge": "j", "protocols": [], "tie_margin": 0.0, "rows": [], "consistency": [], "stacks": [],
                "premise_sentences": 3, "stored": [{"set": "faireval", "evaluator": "x", "accuracy": 0.5}]}"#,
        )
        .unwrap();
        let doc = read_artifact::<JudgeEvalReport>(&path).unwrap();
        assert_eq!((doc.body.judge.as_str(), doc.body.failed, doc.body.stored.len()), ("j", 0, 1));
    }
}
