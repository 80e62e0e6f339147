//! `score --metrics trec`: options and construction of the trec metric family (seed 002: UMBRELA,
//! AutoNuggetizer, citations, hallucination, no-answer detection, golden-answer metrics; Open RAG
//! Eval's column names), and what `score` does with each scored row for it: the Open RAG Eval CSV
//! and consistency across repeated runs.

use crate::args::ScoreArgs;
use crate::model_set::ModelSet;
use anyhow::{anyhow, bail, Context as _, Result};
use clap::{Args, ValueEnum};
use ragjudge_core::{Metric, MetricError, MetricOutput, Record};
use ragjudge_trec::answer::{
    ConsistencyAccumulator, ConsistencyOptions, ConsistencyReport, EntailmentModel, FactualCorrectnessScorer,
    GoldenAnswerMetric, HallucinationMetric, HallucinationOptions, NoAnswerMetric, SemanticSimilarity,
};
use ragjudge_trec::judging::CallOptions;
use ragjudge_trec::nuggets::NuggetOptions;
use ragjudge_trec::open_rag_csv::{consistency_quantities, stat_cells, CONSISTENCY_STATS};
use ragjudge_trec::{OpenRagCsvWriter, Parts, TrecMetric, TrecOptions};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// Every part of the trec evaluation, in column order.
pub const PARTS: [&str; 6] = ["retrieval", "nuggets", "citations", "hallucination", "no_answer", "golden"];

/// Prefix of the answer-level columns (Open RAG Eval's generation scores).
const GENERATION: &str = "generation_score_";

/// Column excluded from the consistency statistics: a count of judge failures, not a score.
const NOT_A_SCORE: &str = "judge_invalid_items";

/// How the no-answer part decides.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum NoAnswerMode {
    /// Open RAG Eval's prompt; the judge's probability of `yes`.
    #[default]
    Judge,
    /// The transparent refusal-phrase rule, without a model.
    Lexical,
}

/// Options of the trec metrics.
#[derive(Debug, Clone, Default, Args)]
pub struct TrecArgs {
    /// Cut-offs K of the UMBRELA Precision@K and AP@K.
    #[arg(long = "trec-k", value_delimiter = ',', default_value = "1,3,5", value_name = "K")]
    pub trec_ks: Vec<usize>,
    /// Count the missing ranks of a list shorter than K as non-relevant (Open RAG Eval leaves such K out).
    #[arg(long)]
    pub trec_pad_short_lists: bool,
    /// Parts of the trec evaluation, comma separated: retrieval, nuggets, citations, hallucination,
    /// no_answer, golden.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "retrieval,nuggets,citations,hallucination,no_answer,golden",
        value_name = "PART"
    )]
    pub trec_parts: Vec<String>,
    /// Retries (with another seed) of a judge output that cannot be parsed.
    #[arg(long, default_value_t = 2, value_name = "N")]
    pub trec_retries: u32,
    /// Do not ask the judge for structured (JSON-schema) output.
    #[arg(long)]
    pub trec_no_structured: bool,
    /// Nugget creation rounds at most.
    #[arg(long, default_value_t = 5, value_name = "N")]
    pub trec_nugget_rounds: usize,
    /// Nugget scores with Open RAG Eval's max(n, 1) denominators (Vital = 0 without vital nuggets)
    /// instead of the seed's formulas (empty when no nugget of the kind exists).
    #[arg(long)]
    pub trec_ore_denominators: bool,
    /// How the no_answer part decides whether a question was answered.
    #[arg(long, value_enum, default_value_t = NoAnswerMode::Judge, value_name = "MODE")]
    pub trec_no_answer: NoAnswerMode,
    /// Also write the scores in Open RAG Eval's results CSV layout (run_N_ column prefixes).
    #[arg(long, value_name = "FILE")]
    pub trec_open_rag_csv: Option<PathBuf>,
    /// Compute consistency across repeated runs (records sharing system and id with different
    /// `run`) for any metrics; always on with `--metrics trec`.
    #[arg(long)]
    pub consistency: bool,
    /// Where the per-query consistency rows go (default: OUTPUT with extension `.consistency.csv`).
    #[arg(long, value_name = "FILE")]
    pub consistency_output: Option<PathBuf>,
}

/// The parts named by `--trec-parts`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AllParts {
    /// Parts of [`TrecMetric`].
    pub trec: Parts,
    /// Hallucination score.
    pub hallucination: bool,
    /// No-answer detection.
    pub no_answer: bool,
    /// Golden-answer metrics.
    pub golden: bool,
}

/// Reads `--trec-parts`.
pub fn parts(args: &TrecArgs) -> Result<AllParts> {
    let mut p = AllParts {
        trec: Parts { retrieval: false, nuggets: false, citations: false },
        hallucination: false,
        no_answer: false,
        golden: false,
    };
    for name in args.trec_parts.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
        match name {
            "retrieval" => p.trec.retrieval = true,
            "nuggets" => p.trec.nuggets = true,
            "citations" => p.trec.citations = true,
            "hallucination" => p.hallucination = true,
            "no_answer" => p.no_answer = true,
            "golden" => p.golden = true,
            other => bail!("--trec-parts: unknown part `{other}` (known: {})", PARTS.join(", ")),
        }
    }
    Ok(p)
}

/// The options of the trec metric from the command line.
pub fn options(args: &TrecArgs) -> Result<TrecOptions> {
    let parts = parts(args)?.trec;
    if args.trec_nugget_rounds == 0 {
        bail!("--trec-nugget-rounds must be at least 1");
    }
    Ok(TrecOptions {
        ks: args.trec_ks.clone(),
        pad_short_lists: args.trec_pad_short_lists,
        parts,
        nuggets: NuggetOptions {
            rounds: args.trec_nugget_rounds,
            ore_denominators: args.trec_ore_denominators,
            ..NuggetOptions::default()
        },
        call: CallOptions {
            retries: args.trec_retries,
            structured: !args.trec_no_structured,
            ..CallOptions::default()
        },
    })
}

/// Builds the trec metrics: the TREC metric (retrieval, nuggets, citations), then hallucination,
/// no-answer and golden-answer metrics, each when its part is selected.
pub fn build(args: &TrecArgs, models: &ModelSet) -> Result<Vec<Box<dyn Metric>>> {
    let opts = options(args)?;
    let parts = parts(args)?;
    if let Some(path) = &args.trec_open_rag_csv {
        check_parent("--trec-open-rag-csv", path)?;
    }
    let mut metrics: Vec<Box<dyn Metric>> = Vec::new();
    if parts.trec.retrieval || parts.trec.nuggets || parts.trec.citations {
        let metric = TrecMetric::new(models.judge()?, opts).map_err(|e| anyhow!("--metrics trec: {e}"))?;
        metrics.push(Box::new(metric));
    }
    let entailment = || -> Result<EntailmentModel> {
        Ok(match models.cross_encoder()? {
            Some(ce) => EntailmentModel::CrossEncoder(ce),
            None => EntailmentModel::Judge(models.judge()?),
        })
    };
    if parts.hallucination {
        let m = HallucinationMetric::new(entailment()?, HallucinationOptions::default());
        metrics.push(Box::new(Generation(m)));
    }
    if parts.no_answer {
        let judge = match args.trec_no_answer {
            NoAnswerMode::Judge => Some(models.judge()?),
            NoAnswerMode::Lexical => None,
        };
        metrics.push(Box::new(Generation(NoAnswerMetric::new(judge))));
    }
    if parts.golden {
        // A build without an encoder backend leaves the similarity column empty rather than
        // failing the factual-correctness columns of every record with a reference.
        let similarity = cfg!(feature = "candle").then(|| SemanticSimilarity::new(models.embedder_on_first_use()));
        let factual = FactualCorrectnessScorer::new(models.judge()?, entailment()?);
        metrics.push(Box::new(Generation(GoldenAnswerMetric::new(similarity, Some(factual)))));
    }
    if metrics.is_empty() {
        bail!("--trec-parts selects nothing (known: {})", PARTS.join(", "));
    }
    Ok(metrics)
}

fn check_parent(flag: &str, path: &Path) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        if !dir.is_dir() {
            bail!("{flag}: directory {} does not exist", dir.display());
        }
    }
    Ok(())
}

/// An answer-level metric with Open RAG Eval's `generation_score_` column prefix.
struct Generation<M>(M);

impl<M: Metric> Metric for Generation<M> {
    fn name(&self) -> &str {
        self.0.name()
    }

    fn columns(&self) -> Vec<String> {
        self.0.columns().into_iter().map(|c| format!("{GENERATION}{c}")).collect()
    }

    fn score(&self, record: &Record) -> Result<MetricOutput, MetricError> {
        self.0.score(record)
    }

    fn score_batch(&self, records: &[Record]) -> Vec<Result<MetricOutput, MetricError>> {
        self.0.score_batch(records)
    }
}

/// What `score` does with every scored row besides the per-record output: the Open RAG Eval CSV
/// (`--trec-open-rag-csv`) and the consistency accumulator. Only the cells of each run and, for
/// consistency, each run's answer and numeric values are kept until the end.
pub struct RowHooks {
    open_rag: Option<OpenRagCsvWriter>,
    consistency: Option<ConsistencyAccumulator>,
    consistency_output: Option<PathBuf>,
    columns: Vec<String>,
    duplicates: u64,
}

/// What [`RowHooks::finish`] produced.
pub struct HookReport {
    /// Consistency across runs, when computed and some query had enough runs.
    pub consistency: Option<ConsistencyReport>,
    /// Where the consistency rows were written.
    pub consistency_output: Option<PathBuf>,
    /// Why BERTScore is missing from the consistency, if it is.
    pub bertscore_missing: Option<String>,
}

/// The row hooks of a `score` run over `columns`, or `None` when there is nothing to do: the Open
/// RAG Eval CSV when `--trec-open-rag-csv` is given, consistency when `trec` is among the metrics
/// or `--consistency` is given.
pub fn row_hooks(args: &ScoreArgs, columns: &[String]) -> Result<Option<RowHooks>> {
    let trec_on = args.metrics.iter().any(|m| m.trim() == "trec");
    let open_rag = match &args.trec.trec_open_rag_csv {
        Some(path) => Some(OpenRagCsvWriter::new(path.clone(), options(&args.trec)?, columns)),
        None => None,
    };
    let consistency = if trec_on || args.trec.consistency {
        Some(ConsistencyAccumulator::new(ConsistencyOptions::default()).map_err(|e| anyhow!("consistency: {e}"))?)
    } else {
        None
    };
    let consistency_output = match (&args.trec.consistency_output, &args.output) {
        (Some(p), _) => Some(p.clone()),
        (None, Some(out)) => Some(out.with_extension("consistency.csv")),
        (None, None) => None,
    };
    if let (Some(p), Some(_)) = (&consistency_output, &consistency) {
        check_parent("--consistency-output", p)?;
    }
    if open_rag.is_none() && consistency.is_none() {
        return Ok(None);
    }
    Ok(Some(RowHooks { open_rag, consistency, consistency_output, columns: columns.to_vec(), duplicates: 0 }))
}

impl RowHooks {
    /// Takes one scored row: the record, its values (one per column) and each family's detail.
    pub fn add(&mut self, record: &Record, values: &[Option<f64>], detail: &Map<String, Value>) -> Result<()> {
        if let Some(w) = &mut self.open_rag {
            w.add(record, values, detail).map_err(|e| anyhow!("{}: {e}", w.path().display()))?;
        }
        if let (Some(acc), Some(_)) = (&mut self.consistency, record.run) {
            let scores: Vec<Option<f64>> =
                self.columns.iter().zip(values).map(|(c, v)| if c == NOT_A_SCORE { None } else { *v }).collect();
            if let Err(e) = acc.push(record, &self.columns, &scores) {
                self.duplicates += 1;
                if self.duplicates <= 5 {
                    eprintln!("consistency: {e}: left out");
                }
            }
        }
        Ok(())
    }

    /// Computes consistency (BERTScore with the `--embedder` model's token vectors when it can be
    /// loaded, only when some query has enough runs) and writes the files.
    pub fn finish(self, models: &ModelSet) -> Result<HookReport> {
        let mut report = HookReport { consistency: None, consistency_output: None, bertscore_missing: None };
        if let Some(acc) = self.consistency {
            if self.duplicates > 5 {
                eprintln!("consistency: {} duplicate runs left out in all", self.duplicates);
            }
            if acc.groups() > 0 {
                let embedder = match models.token_embedder() {
                    Ok(e) => Some(e),
                    Err(e) => {
                        let why = format!("{e:#}");
                        eprintln!("consistency: BERTScore left out: {why}");
                        report.bertscore_missing = Some(why);
                        None
                    }
                };
                let c = acc.finish(embedder.as_deref()).map_err(|e| anyhow!("consistency: {e}"))?;
                if !c.rows.is_empty() {
                    if let Some(path) = &self.consistency_output {
                        write_consistency_csv(path, &c)?;
                        report.consistency_output = Some(path.clone());
                    }
                    report.consistency = Some(c);
                }
            }
        }
        if let Some(w) = self.open_rag {
            w.finish(report.consistency.as_ref()).map_err(|e| anyhow!(e))?;
        }
        Ok(report)
    }
}

/// Writes one row per (system, id): `system`, `id`, `runs`, `pairs`, then
/// `consistency_answer_NAME_{mean,variance,cv,cai}` for the pair similarities and
/// `consistency_COLUMN_{mean,variance,cv,cai}` for every metric column.
pub fn write_consistency_csv(path: &Path, report: &ConsistencyReport) -> Result<()> {
    let name = path.display().to_string();
    let mut w = csv::Writer::from_path(path).with_context(|| format!("{name}: cannot create"))?;
    let quantities = consistency_quantities(Some(report));
    let mut header: Vec<String> = ["system", "id", "runs", "pairs"].map(String::from).to_vec();
    for q in &quantities {
        header.extend(CONSISTENCY_STATS.iter().map(|s| format!("consistency_{}_{s}", q.label)));
    }
    w.write_record(&header).with_context(|| format!("{name}: write failed"))?;
    for r in &report.rows {
        let mut row = vec![r.system.clone(), r.id.clone(), r.runs.len().to_string(), r.pairs.len().to_string()];
        for q in &quantities {
            row.extend(stat_cells(q.stats(r)));
        }
        w.write_record(&row).with_context(|| format!("{name}: write failed"))?;
    }
    w.flush().with_context(|| format!("{name}: write failed"))?;
    Ok(())
}

/// The per-system consistency aggregates as a plain table: one row per quantity, one column per
/// system, each cell `mean / variance / CV` averaged over the system's queries.
pub fn render_consistency(report: &ConsistencyReport) -> String {
    let quantities = consistency_quantities(Some(report));
    let mut rows: Vec<Vec<String>> = vec![std::iter::once("consistency (mean / variance / cv)".to_string())
        .chain(report.systems.iter().map(|s| s.system.clone()))
        .collect()];
    for q in &quantities {
        let mut row = vec![q.label.clone()];
        for s in &report.systems {
            row.push(match q.aggregate(s) {
                Some(a) => {
                    let cv = a.cv.map_or("-".to_string(), |c| format!("{c:.4}"));
                    format!("{:.4} / {:.4} / {cv}", a.mean, a.variance)
                }
                None => "-".to_string(),
            });
        }
        rows.push(row);
    }
    let mut queries = vec!["queries with runs".to_string()];
    queries.extend(report.systems.iter().map(|s| s.queries.to_string()));
    rows.push(queries);
    let widths: Vec<usize> =
        (0..rows[0].len()).map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0)).collect();
    let mut out = String::new();
    for row in &rows {
        let cells: Vec<String> = row.iter().zip(&widths).map(|(c, w)| format!("{c:<w$}")).collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    if report.skipped_groups > 0 {
        out.push_str(&format!("({} queries with fewer than 3 runs left out)\n", report.skipped_groups));
    }
    out
}
