//! `ragjudge annotate`: human labels on the user's own runs (`ragjudge_human`), collected in a
//! local web page (`ragjudge_serve::annotate`): `plan` picks what to label, `serve` runs the
//! page, `export` writes the label files the other commands read.

mod serve;

use anyhow::Result;
use clap::{Args, Subcommand, ValueEnum};
use ragjudge_artifacts::Provenance;
use ragjudge_human::job::{plan_job, TaskInputs};
use ragjudge_human::plan::PlanSettings;
use ragjudge_human::task::{Scale, View};
use std::path::PathBuf;

/// `ragjudge annotate`.
#[derive(Debug, Args)]
pub struct AnnotateArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: AnnotateCommand,
}

/// The `annotate` subcommands.
#[derive(Debug, Subcommand)]
#[allow(clippy::large_enum_variant)]
pub enum AnnotateCommand {
    /// Serve the annotation page on this machine; labels are written as they are given.
    Serve(serve::ServeArgs),
    /// Pick what to label: stratified by system pair and topic, part uniform (for PPI), part weighted toward uncertain items.
    Plan(PlanArgs),
    /// Write the label files `agree`, `judge-eval`, `calibrate`, `fuse` and the PPI options read, and the agreement between annotators.
    Export(ExportArgs),
}

/// The `--view` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ViewArg {
    /// Two answers to one question: A, B or tie, with a strength.
    Pairwise,
    /// One answer graded on `--scale`.
    Graded,
    /// Each sentence of one answer: supported or not.
    Claims,
    /// Generated test questions (`testgen` output as the runs): accept, reject with a reason, or edit.
    Review,
}

/// The `--scale` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ScaleArg {
    /// 1 (worst) to 5 (best).
    #[value(name = "1-5")]
    Likert5,
    /// CRAG's perfect (1) / acceptable (0.5) / missing (0) / incorrect (-1).
    Crag,
}

/// The runs and what machines say about them (shared by `serve` and `plan`).
#[derive(Debug, Args)]
pub struct TaskArgs {
    /// Run files (JSONL, CSV or Parquet records; several systems per file or one file per system).
    #[arg(required = true, value_name = "RUNS")]
    pub runs: Vec<PathBuf>,
    /// What is labelled.
    #[arg(long, value_enum, default_value = "pairwise")]
    pub view: ViewArg,
    /// The graded view's scale.
    #[arg(long, value_enum, default_value = "1-5")]
    pub scale: ScaleArg,
    /// A judge's pairwise labels (`labels.jsonl` of `compare` / `tournament`): verdicts the page reveals on request, and uncertainty for `plan`.
    #[arg(long, value_name = "FILE")]
    pub judge_labels: Vec<PathBuf>,
    /// Score files (`score -o`): scorer disagreement for `plan`.
    #[arg(long, value_name = "FILE")]
    pub scores: Vec<PathBuf>,
    /// Review view: testgen's `chunks.jsonl`, to show each question's sources [default: STEM.testgen/chunks.jsonl beside the questions].
    #[arg(long, value_name = "FILE")]
    pub chunks: Option<PathBuf>,
}

impl TaskArgs {
    /// The library's inputs.
    pub fn inputs(&self) -> TaskInputs {
        TaskInputs {
            runs: self.runs.clone(),
            view: Some(match self.view {
                ViewArg::Pairwise => View::Pairwise,
                ViewArg::Graded => View::Graded,
                ViewArg::Claims => View::Claims,
                ViewArg::Review => View::Review,
            }),
            scale: match self.scale {
                ScaleArg::Likert5 => Scale::Likert5,
                ScaleArg::Crag => Scale::Crag,
            },
            judge_labels: self.judge_labels.clone(),
            scores: self.scores.clone(),
            chunks: self.chunks.clone(),
        }
    }
}

/// `ragjudge annotate plan`.
#[derive(Debug, Args)]
pub struct PlanArgs {
    /// The runs.
    #[command(flatten)]
    pub tasks: TaskArgs,
    /// Tasks to plan.
    #[arg(long = "plan", value_name = "N")]
    pub n: usize,
    /// Share of the plan drawn toward uncertain tasks (the rest is uniform within strata, for PPI).
    #[arg(long, default_value_t = PlanSettings::default().targeted_share)]
    pub targeted_share: f64,
    /// `meta` key of the questions that names their topic (strata: system pair x topic).
    #[arg(long, default_value_t = PlanSettings::default().stratify_by)]
    pub stratify_by: String,
    /// Seed of the draws.
    #[arg(long, default_value_t = PlanSettings::default().seed)]
    pub seed: u64,
    /// Interval width aimed at (win rate or mean grade), for the label-count estimate.
    #[arg(long, default_value_t = PlanSettings::default().target_width)]
    pub target_width: f64,
    /// Error rate of the intervals.
    #[arg(long, default_value_t = PlanSettings::default().alpha)]
    pub alpha: f64,
    /// The plan file (JSON) to write.
    #[arg(long, short = 'o')]
    pub output: PathBuf,
    /// Print the plan's summary as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `ragjudge annotate export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The label file `annotate serve` writes.
    #[arg(long, value_name = "FILE")]
    pub labels: PathBuf,
    /// Folder for the label files.
    #[arg(long, short = 'o')]
    pub output: PathBuf,
    /// A review's questions file (what `testgen` wrote): its kept questions go to `accepted.jsonl`.
    #[arg(long, value_name = "FILE")]
    pub questions: Option<PathBuf>,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs `ragjudge annotate`.
pub fn run(args: &AnnotateArgs) -> Result<()> {
    match &args.command {
        AnnotateCommand::Serve(a) => serve::run(a),
        AnnotateCommand::Plan(a) => run_plan(a),
        AnnotateCommand::Export(a) => run_export(a),
    }
}

fn run_plan(a: &PlanArgs) -> Result<()> {
    let settings = PlanSettings {
        n: a.n,
        targeted_share: a.targeted_share,
        stratify_by: a.stratify_by.clone(),
        seed: a.seed,
        target_width: a.target_width,
        alpha: a.alpha,
    };
    let plan = plan_job(&a.tasks.inputs(), &settings, &a.output, Provenance::of_this_process())?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&plan)?);
        return Ok(());
    }
    let uniform = plan.tasks.iter().filter(|t| t.purpose == ragjudge_human::plan::Purpose::Uniform).count();
    println!(
        "planned {} of {} tasks in {} strata: {uniform} uniform (usable for PPI), {} toward uncertainty -> {}",
        plan.tasks.len(),
        plan.available,
        plan.strata.len(),
        plan.tasks.len() - uniform,
        a.output.display()
    );
    let s = &plan.sample_size;
    let ppi: Vec<String> = s.ppi.iter().map(|(rho, n)| format!("{n} at rho {rho}")).collect();
    println!(
        "labels per system pair (or system) for an interval of width {} at {:.0}%: {} labels alone; with PPI {}",
        s.width,
        100.0 * (1.0 - s.alpha),
        s.classical,
        ppi.join(", ")
    );
    Ok(())
}

fn run_export(a: &ExportArgs) -> Result<()> {
    let set = ragjudge_human::store::read_labels(&a.labels)?;
    let questions = a.questions.as_deref().map(ragjudge_human::job::read_questions).transpose()?;
    let summary = ragjudge_human::export::export(&set, questions.as_deref(), &a.output)?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&summary)?);
        return Ok(());
    }
    println!(
        "{} labels of {} tasks by {} annotators -> {}",
        summary.labels,
        summary.tasks,
        summary.annotators,
        summary.files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(", ")
    );
    Ok(())
}
