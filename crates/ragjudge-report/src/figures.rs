//! The key figures of an artifact as one table of subjects (a system, a protocol on a set, a
//! probe, a split) by figures with their interval where the artifact has one: what `gate`
//! checks with `--min`/`--max` and what the report tabulates for kinds without a section of
//! their own. Figures are the artifact's numbers as written, never recomputed.

use crate::kinds::{read, JsonKind};
use ragjudge_analysis::robustness::RobustnessReport;
use ragjudge_analysis::weakness::WeaknessArtifact;
use ragjudge_artifacts::{Artifact, Provenance};
use ragjudge_dice::compare::CompareReport;
use ragjudge_dice::meta::job::JudgeEvalReport;
use ragjudge_eval::families::ColumnDefinitions;
use ragjudge_eval::{ColumnReport, ShardManifest, SummaryReport, SystemReport};
use ragjudge_fusion::model::FusedModel;
use ragjudge_human::agreement::AnnotatorAgreement;
use ragjudge_human::plan::{Plan, Purpose};
use ragjudge_human::store::LabelSet;
use ragjudge_human::validate::Validation;
use ragjudge_safety::probes::report::ProbeReport;
use ragjudge_stats::calibration::{CalibrationReport, FittedCalibration};
use ragjudge_testgen::pipeline::{TestgenSummary, TopicsDocument};
use std::path::Path;

/// An artifact's key figures.
#[derive(Debug, Clone, PartialEq)]
pub struct Figures {
    /// The artifact's kind.
    pub kind: String,
    /// One row per subject (`SystemReport::system` names it), one column per figure.
    pub table: SummaryReport,
    /// Where the artifact came from.
    pub provenance: Provenance,
    /// The whole summary when the artifact is a test-set generation's, for the report's
    /// section on the test set (its quality report).
    pub test_set: Option<Box<TestgenSummary>>,
    /// The whole validation or annotator agreement, for the report's Trust section.
    pub trust: Option<Trust>,
}

/// What the Trust section reads.
#[derive(Debug, Clone, PartialEq)]
pub enum Trust {
    /// A validation of scorers against human labels.
    Validation(Box<Validation>),
    /// Agreement between annotators.
    Agreement(Box<AnnotatorAgreement>),
}

/// The figures of the artifact at `path` identified as `kind`, or `None` for a kind whose
/// figures are read elsewhere (leaderboards and baselines: standings; score summaries). The
/// error is one line without the file name.
pub fn figures(path: &Path, kind: JsonKind) -> Result<Option<Figures>, String> {
    let name = kind.kind().unwrap_or_default().to_string();
    let (mut test_set, mut trust) = (None, None);
    let (subjects, provenance) = match name.as_str() {
        CompareReport::KIND => with(read::<CompareReport>(path, kind)?, compare),
        JudgeEvalReport::KIND => with(read::<JudgeEvalReport>(path, kind)?, judge_eval),
        RobustnessReport::KIND => with(read::<RobustnessReport>(path, kind)?, robustness),
        WeaknessArtifact::KIND => with(read::<WeaknessArtifact>(path, kind)?, weakness),
        CalibrationReport::KIND => with(read::<CalibrationReport>(path, kind)?, calibration),
        FittedCalibration::KIND => with(read::<FittedCalibration>(path, kind)?, calibrator),
        FusedModel::KIND => with(read::<FusedModel>(path, kind)?, fusion),
        ProbeReport::KIND => with(read::<ProbeReport>(path, kind)?, probes),
        TopicsDocument::KIND => with(read::<TopicsDocument>(path, kind)?, topics),
        TestgenSummary::KIND => {
            let doc = read::<TestgenSummary>(path, kind)?;
            test_set = Some(Box::new(doc.body.clone()));
            with(doc, testgen)
        }
        Validation::KIND => {
            let doc = read::<Validation>(path, kind)?;
            trust = Some(Trust::Validation(Box::new(doc.body.clone())));
            with(doc, validation)
        }
        AnnotatorAgreement::KIND => {
            let doc = read::<AnnotatorAgreement>(path, kind)?;
            trust = Some(Trust::Agreement(Box::new(doc.body.clone())));
            with(doc, annotator_agreement)
        }
        LabelSet::KIND => with(read::<LabelSet>(path, kind)?, label_set),
        Plan::KIND => with(read::<Plan>(path, kind)?, plan),
        ShardManifest::KIND => with(read::<ShardManifest>(path, kind)?, shard),
        ColumnDefinitions::KIND => with(read::<ColumnDefinitions>(path, kind)?, definitions),
        _ => return Ok(None),
    };
    let table =
        SummaryReport { systems: subjects, records: 0, skipped: 0, failed: 0, level: 0.95, bootstrap: 0, shard: None };
    Ok(Some(Figures { kind: name, table, provenance, test_set, trust }))
}

fn with<T>(doc: ragjudge_artifacts::Document<T>, f: fn(&T) -> Vec<SystemReport>) -> (Vec<SystemReport>, Provenance) {
    (f(&doc.body), doc.provenance)
}

/// A figure without an interval, over `n` items.
fn fig(name: &str, value: Option<f64>, n: usize) -> ColumnReport {
    ColumnReport { metric: name.to_string(), n: n as u64, mean: value, std: None, ci_low: None, ci_high: None }
}

/// A count (its own `n`).
fn count(name: &str, value: usize) -> ColumnReport {
    fig(name, Some(value as f64), value)
}

/// A figure with its interval.
fn fig_ci(name: &str, value: Option<f64>, low: Option<f64>, high: Option<f64>, n: usize) -> ColumnReport {
    ColumnReport { ci_low: low, ci_high: high, ..fig(name, value, n) }
}

fn share(part: usize, whole: usize) -> Option<f64> {
    (whole > 0).then(|| part as f64 / whole as f64)
}

fn subject(name: impl Into<String>, items: usize, failed: usize, metrics: Vec<ColumnReport>) -> SystemReport {
    SystemReport { system: name.into(), records: items as u64, failed: failed as u64, metrics }
}

/// Each system: its mean DICE score, its share of questions won, and the match's order consistency.
fn compare(r: &CompareReport) -> Vec<SystemReport> {
    let n = r.questions;
    let side = |system: &str, s: f64, wins: usize| {
        let metrics = vec![
            fig("dice_score", Some(s), n),
            fig("win_rate", share(wins, n), n),
            fig("tie_rate", share(r.ties, n), n),
            fig("order_consistency", Some(r.order_consistency), n),
        ];
        subject(system, n, r.failed, metrics)
    };
    vec![side(&r.system_a, r.s_a, r.wins_a), side(&r.system_b, r.s_b, r.wins_b)]
}

/// Each protocol on each set (`SET/PROTOCOL`), then each consistency scorer (`SET/SCORER`).
fn judge_eval(r: &JudgeEvalReport) -> Vec<SystemReport> {
    let mut out: Vec<SystemReport> = r
        .rows
        .iter()
        .map(|s| {
            let metrics = vec![
                fig_ci("accuracy_decided", s.accuracy_decided, s.ci_low, s.ci_high, s.decided),
                fig("accuracy_with_ties", s.accuracy_with_ties, s.judged),
                fig("kappa", s.kappa, s.judged),
                fig("order_consistency", s.order_consistency, s.judged),
                fig("first_position", s.first_position, s.decided),
                fig("prefer_longer", s.prefer_longer, s.decided),
                fig("decided_share", share(s.decided, s.judged), s.judged),
            ];
            subject(format!("{}/{}", s.set, s.protocol), s.items, s.failed, metrics)
        })
        .collect();
    out.extend(r.consistency.iter().map(|c| {
        let n = c.items - c.failed.min(c.items);
        let metrics = vec![
            fig("spearman", c.spearman, n),
            fig("auc", c.auc, n),
            fig("balanced_accuracy", c.balanced_accuracy, n),
        ];
        subject(format!("{}/{}", c.set, c.scorer), c.items, c.failed, metrics)
    }));
    out
}

/// Each system under each perturbation and severity (`SYSTEM/PERTURBATION/SEVERITY`): per metric
/// the mean change with its interval, the share of pairs that got worse and the flip rate.
fn robustness(r: &RobustnessReport) -> Vec<SystemReport> {
    let mut out: Vec<SystemReport> = Vec::new();
    for d in &r.deltas {
        let name = format!("{}/{}/{}", d.system, d.perturbation, d.severity);
        let mut metrics = vec![
            fig_ci(&format!("{}.delta", d.metric), d.delta, d.ci_low, d.ci_high, d.n),
            fig(&format!("{}.worse_share", d.metric), d.worse_share, d.n),
        ];
        if let Some(f) = &d.flips {
            metrics.push(fig("flip_rate", Some(f.rate), f.n));
        }
        match out.iter_mut().find(|s| s.system == name) {
            Some(s) => {
                metrics.retain(|m| !s.metrics.iter().any(|o| o.metric == m.metric));
                s.metrics.extend(metrics);
            }
            None => out.push(subject(name, d.n, 0, metrics)),
        }
    }
    for o in &r.ood {
        let mut metrics: Vec<ColumnReport> = o.metrics.iter().map(|m| fig(&m.column, m.mean, m.n)).collect();
        if let Some(a) = &o.abstention {
            metrics.push(fig("abstention_rate", a.rate, a.n));
        }
        out.push(subject(format!("{}/ood/{}", o.system, o.severity), o.n, 0, metrics));
    }
    out
}

/// Each slice (`METRIC/SYSTEM/DIMENSION=STRATUM`): the mean with its interval and the
/// difference from the rest of the system's records.
fn weakness(a: &WeaknessArtifact) -> Vec<SystemReport> {
    let mut out = Vec::new();
    for m in &a.reports {
        for s in &m.report.marginal {
            let metrics = vec![
                fig_ci("mean", Some(s.mean), Some(s.ci_low), Some(s.ci_high), s.n),
                fig("difference", s.difference, s.n + s.rest_n),
                fig("p_adjusted", s.p_adjusted, s.n + s.rest_n),
            ];
            out.push(subject(format!("{}/{}/{}={}", m.metric, s.system, s.dimension, s.stratum), s.n, 0, metrics));
        }
    }
    out
}

/// The calibrated label: Brier score and ECE where measured, and each conformal predictor's
/// coverage and mean set size on the test split.
fn calibration(r: &CalibrationReport) -> Vec<SystemReport> {
    let n = if r.quality_on == "test" { r.test } else { r.calibration };
    let mut metrics = Vec::new();
    if let Some(q) = &r.quality {
        metrics.push(fig("brier", Some(q.brier), n));
        metrics.push(fig("ece", Some(q.ece), n));
    }
    for s in &r.sets {
        let name = s.score.name().to_ascii_lowercase();
        if let Some(c) = &s.test {
            metrics.push(fig(&format!("coverage_{name}"), Some(c.coverage), c.n));
            metrics.push(fig(&format!("mean_set_size_{name}"), Some(c.mean_size), c.n));
        }
    }
    vec![subject(&r.label_column, r.joined, 0, metrics)]
}

/// The saved calibrator: its error level and each conformal threshold.
fn calibrator(c: &FittedCalibration) -> Vec<SystemReport> {
    let mut metrics = vec![fig("alpha", Some(c.alpha), 0), count("levels", c.labels.len())];
    for s in &c.conformal {
        metrics.push(fig(&format!("q_hat_{}", s.score.name().to_ascii_lowercase()), s.q_hat, s.n));
    }
    vec![subject(&c.label_column, 0, 0, metrics)]
}

/// The fused score's training label: rows, inputs and the label's range.
fn fusion(m: &FusedModel) -> Vec<SystemReport> {
    let l = &m.label;
    let metrics = vec![
        count("inputs", m.inputs.len()),
        fig("label_mean", Some(l.mean), l.rows),
        fig("label_min", Some(l.min), l.rows),
        fig("label_max", Some(l.max), l.rows),
    ];
    vec![subject(&l.column, l.rows, 0, metrics)]
}

/// Each system, probe group and swap (`SYSTEM/GROUP/SWAP`, `*` for all swaps): per column the
/// mean shift and mean absolute shift, and how alike the answers stayed.
fn probes(r: &ProbeReport) -> Vec<SystemReport> {
    r.groups
        .iter()
        .map(|g| {
            let mut metrics = Vec::new();
            for m in &g.metrics {
                metrics.push(fig(&format!("{}.mean_diff", m.column), m.mean_diff, m.n));
                metrics.push(fig(&format!("{}.mean_abs_diff", m.column), m.mean_abs_diff, m.n));
            }
            metrics.push(fig("answer_token_f1", g.answer_token_f1, g.pairs));
            metrics.push(fig("identical_answers", Some(g.identical_answers), g.pairs));
            metrics.push(fig("flagged", Some(if g.flagged { 1.0 } else { 0.0 }), g.pairs));
            subject(format!("{}/{}/{}", g.system, g.group, g.variant), g.pairs, 0, metrics)
        })
        .collect()
}

/// The collection: documents, chunks, topics and the clustering's quality.
fn topics(t: &TopicsDocument) -> Vec<SystemReport> {
    let metrics = vec![
        count("documents", t.documents),
        count("skipped", t.skipped.len()),
        count("chunks", t.chunks),
        count("topics", t.topics.len()),
        fig("silhouette", t.silhouette, t.chunks),
        fig("variance_kept", Some(t.variance_kept), t.chunks),
    ];
    vec![subject("collection", t.documents, t.skipped.len(), metrics)]
}

/// The generated test set: questions kept, tasks, attempts and rejections, and questions per type.
fn testgen(s: &TestgenSummary) -> Vec<SystemReport> {
    let mut metrics = vec![
        count("questions", s.questions),
        count("tasks", s.tasks),
        count("attempts", s.attempts),
        count("rejected", s.rejected),
        fig("kept_share", share(s.tasks - s.rejected.min(s.tasks), s.tasks), s.tasks),
        count("topics_without_questions", s.topics_without_questions.len()),
    ];
    metrics.extend(s.per_type.iter().map(|(t, n)| count(&format!("questions.{t}"), *n)));
    let q = &s.quality;
    for (check, c) in &q.checks {
        metrics.push(count(&format!("check.{check}.regenerated"), c.regenerated));
        metrics.push(count(&format!("check.{check}.dropped"), c.dropped));
    }
    let letters: usize = q.answer_letters.values().sum();
    metrics.extend(q.answer_letters.iter().map(|(l, n)| count(&format!("answer_letter.{l}"), *n)));
    metrics.push(fig("answer_letters_p", q.answer_letters_p, letters));
    metrics.push(fig("near_duplicate_rate", Some(q.near_duplicate_rate), s.tasks));
    vec![subject("testgen", s.tasks, s.rejected, metrics)]
}

/// Each candidate scorer: its Spearman with the labels (interval), cross-validated, accuracy.
fn validation(v: &Validation) -> Vec<SystemReport> {
    let mut out: Vec<SystemReport> = v
        .candidates
        .iter()
        .map(|c| {
            let metrics = vec![
                fig_ci("spearman", c.spearman, c.low, c.high, c.n),
                fig("cv_spearman", c.cv_spearman, c.n),
                fig("accuracy", c.accuracy, c.n),
            ];
            subject(format!("candidate {}", c.name), c.n, 0, metrics)
        })
        .collect();
    for e in &v.estimates {
        let (p, c) = (&e.ppi.ppi, &e.ppi.classical);
        let metrics = vec![
            fig_ci("ppi", Some(p.estimate), Some(p.low), Some(p.high), e.ppi.n + e.ppi.unlabelled),
            fig_ci("labels_only", Some(c.estimate), Some(c.low), Some(c.high), e.ppi.n),
        ];
        out.push(subject(format!("estimate {}", e.group), e.ppi.n + e.ppi.unlabelled, 0, metrics));
    }
    out
}

/// Each measure of agreement between annotators: alpha and mean kappa.
fn annotator_agreement(a: &AnnotatorAgreement) -> Vec<SystemReport> {
    a.measures
        .iter()
        .map(|m| {
            let n = m.alpha.pairable_items;
            let metrics =
                vec![fig("alpha", m.alpha.alpha, n), fig("mean_kappa", m.mean_kappa, n), count("shared_tasks", n)];
            subject(&m.name, n, 0, metrics)
        })
        .collect()
}

/// Labels, tasks and annotators of a label file.
fn label_set(s: &LabelSet) -> Vec<SystemReport> {
    let tasks: std::collections::HashSet<_> = s.labels.iter().map(|l| &l.task).collect();
    let metrics =
        vec![count("labels", s.labels.len()), count("tasks", tasks.len()), count("annotators", s.annotators().len())];
    vec![subject(format!("{} labels", s.view.as_str()), s.labels.len(), 0, metrics)]
}

/// Tasks planned, uniform and targeted, and the label counts for the target width.
fn plan(p: &Plan) -> Vec<SystemReport> {
    let uniform = p.tasks.iter().filter(|t| t.purpose == Purpose::Uniform).count();
    let mut metrics = vec![
        count("planned", p.tasks.len()),
        count("available", p.available),
        count("uniform", uniform),
        count("targeted", p.tasks.len() - uniform),
        count("strata", p.strata.len()),
        count("labels_needed.classical", p.sample_size.classical),
    ];
    metrics.extend(p.sample_size.ppi.iter().map(|(rho, n)| count(&format!("labels_needed.ppi_rho_{rho}"), *n)));
    vec![subject("plan", p.tasks.len(), 0, metrics)]
}

/// One shard of a sharded `score`: records scored and skipped, columns written.
fn shard(m: &ShardManifest) -> Vec<SystemReport> {
    let metrics = vec![
        count("records", m.records as usize),
        count("skipped", m.skipped as usize),
        count("columns", m.columns.len()),
    ];
    vec![subject(format!("shard {}", m.shard), m.records as usize, m.skipped as usize, metrics)]
}

/// Columns defined per metric family.
fn definitions(d: &ColumnDefinitions) -> Vec<SystemReport> {
    let mut out: Vec<SystemReport> = Vec::new();
    for def in d.columns.values() {
        match out.iter_mut().find(|s| s.system == def.family) {
            Some(s) => {
                s.records += 1;
                s.metrics[0] = count("columns", s.records as usize);
            }
            None => out.push(subject(&def.family, 1, 0, vec![count("columns", 1)])),
        }
    }
    out
}
