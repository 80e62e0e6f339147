//! Which scorer agrees with the user's own labels, measured where it was not chosen: every
//! candidate's Spearman correlation with the human labels (for pairs, the score difference
//! against the preference, as RAGChecker's meta-evaluation measures it, §4.2), the pick, the
//! same choice cross-validated by question (each fold picks on the others and is measured on
//! itself), beside the trivial baselines and the agreement between annotators; then
//! prediction-powered win rates or mean grades (PPI++, Angelopoulos, Duchi and Zrnic 2023) with
//! the picked scorer.
//!
//! The pick: with a few dozen labels the single candidate of highest correlation is a noisy
//! choice among scorers that differ by less than their intervals (on 40 RAGChecker pairs it was
//! 0.09 Spearman below the best in hindsight, averaged over 20 draws). So when two or more
//! scorers (not baselines) agree with the labels significantly (the lower end of their interval
//! above 0), the pick is their **consensus**: each scorer divided by its root mean square over
//! every task (so a difference keeps its sign), turned the way the labels say, weighted by its
//! correlation with the labels, and summed. Otherwise it is the single best candidate.

use crate::candidates::{Candidate, Source};
use crate::error::HumanError;
use crate::export::consensus;
use crate::plan::{Plan, Purpose};
use crate::store::LabelSet;
use crate::task::{TaskKey, TaskSet, View};
use ragjudge_artifacts::Artifact;
use ragjudge_stats::ppi::{ppi_mean, PpiMean};
use ragjudge_stats::spearman;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet};

/// The human side: one value per labelled task.
#[derive(Debug, Clone, PartialEq)]
pub struct HumanTruth {
    /// The view labelled.
    pub view: View,
    /// Per task: the preference (-2..2, positive = `system_b` better) or the grade.
    pub values: HashMap<TaskKey, f64>,
    /// The tasks drawn uniformly (a plan's `uniform` part); `None`: every labelled task counts
    /// as a uniform draw.
    pub uniform: Option<HashSet<TaskKey>>,
    /// Agreement between annotators, when several labelled the same tasks.
    pub ceiling: Option<Ceiling>,
}

/// How far people agree with each other: what a scorer is compared with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Ceiling {
    /// Annotators.
    pub annotators: usize,
    /// Tasks two or more of them labelled.
    pub shared_tasks: usize,
    /// Mean Spearman correlation between two annotators' values on their shared tasks.
    pub spearman: Option<f64>,
    /// Krippendorff's alpha (ordinal preference or interval grade).
    pub alpha: Option<f64>,
}

impl HumanTruth {
    /// From a label file: the annotators' consensus per task, and their agreement.
    pub fn from_label_set(set: &LabelSet) -> Result<Self, HumanError> {
        let values = consensus(set).into_iter().map(|c| (c.task, c.value)).collect();
        Ok(HumanTruth { view: set.view, values, uniform: None, ceiling: ceiling(set)? })
    }

    /// Keeps only the plan's uniform draws for the prediction-powered estimates.
    pub fn with_plan(mut self, plan: &Plan) -> Self {
        self.uniform =
            Some(plan.tasks.iter().filter(|t| t.purpose == Purpose::Uniform).map(|t| t.task.clone()).collect());
        self
    }
}

fn ceiling(set: &LabelSet) -> Result<Option<Ceiling>, HumanError> {
    let annotators = set.annotators();
    if annotators.len() < 2 {
        return Ok(None);
    }
    let value = |l: &crate::store::HumanLabel| l.value.preference().or_else(|| l.value.score());
    let mut rhos = Vec::new();
    for (i, a) in annotators.iter().enumerate() {
        for b in &annotators[i + 1..] {
            let (mut x, mut y) = (Vec::new(), Vec::new());
            for la in set.labels.iter().filter(|l| l.annotator == *a) {
                if let Some(lb) = set.get(b, &la.task) {
                    if let (Some(va), Some(vb)) = (value(la), value(lb)) {
                        x.push(va);
                        y.push(vb);
                    }
                }
            }
            if x.len() >= 3 {
                if let Some(r) = spearman(&x, &y)?.coefficient {
                    rhos.push(r);
                }
            }
        }
    }
    let agreement = crate::agreement::agreement(set)?;
    Ok(Some(Ceiling {
        annotators: annotators.len(),
        shared_tasks: agreement.shared_tasks,
        spearman: (!rhos.is_empty()).then(|| rhos.iter().sum::<f64>() / rhos.len() as f64),
        alpha: agreement.measures.first().and_then(|m| m.alpha.alpha),
    }))
}

/// The settings of a validation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ValidateSettings {
    /// Folds of the cross-validation by question.
    pub folds: usize,
    /// Seed of the fold assignment.
    pub seed: u64,
    /// Error rate of the intervals.
    pub alpha: f64,
    /// Least share of the labelled tasks a candidate must cover to be picked.
    pub min_coverage: f64,
}

impl Default for ValidateSettings {
    fn default() -> Self {
        ValidateSettings { folds: 5, seed: 0, alpha: 0.05, min_coverage: 0.9 }
    }
}

/// One candidate measured against the labels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CandidateResult {
    /// Its name.
    pub name: String,
    /// Where it comes from.
    pub source: Source,
    /// Labelled tasks it covers.
    pub n: usize,
    /// Spearman correlation with the labels, in the direction read from them (so >= 0).
    pub spearman: Option<f64>,
    /// Its interval (Fisher z at level `1 - alpha`).
    pub low: Option<f64>,
    /// Upper end.
    pub high: Option<f64>,
    /// Whether lower scores mean better answers (read from the labels).
    pub reversed: bool,
    /// Pairs: the share of pairs people did not tie where it prefers the same answer.
    pub accuracy: Option<f64>,
    /// Mean held-out Spearman over the folds, the direction read from the other folds.
    pub cv_spearman: Option<f64>,
    /// Whether it covers enough labelled tasks to be picked.
    pub eligible: bool,
}

/// A prediction-powered estimate for one system pair (win rate of `system_b`) or one system
/// (mean grade).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Estimate {
    /// `A vs B` or the system.
    pub group: String,
    /// The estimate with the labels alone and with PPI++.
    pub ppi: PpiMean,
}

/// What `validate` found (the `validation` artifact the report's Trust section reads).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Validation {
    /// The view labelled.
    pub view: View,
    /// The settings.
    pub settings: ValidateSettings,
    /// Labelled tasks.
    pub labels: usize,
    /// Questions among them (the cross-validation's groups).
    pub questions: usize,
    /// Every candidate, best first.
    pub candidates: Vec<CandidateResult>,
    /// The candidate picked.
    pub picked: Option<String>,
    /// When the pick is the consensus: its members with their weights.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub consensus: Vec<(String, f64)>,
    /// The picking cross-validated: mean held-out Spearman of what each fold picked.
    pub picked_cv: Option<f64>,
    /// The best baseline.
    pub best_baseline: Option<String>,
    /// Whether the pick is a scorer (not a baseline) that beats every baseline.
    pub beats_baselines: bool,
    /// Agreement between annotators.
    pub ceiling: Option<Ceiling>,
    /// Prediction-powered estimates with the picked scorer.
    pub estimates: Vec<Estimate>,
    /// The conclusion in plain words.
    pub verdict: String,
}

impl Artifact for Validation {
    const KIND: &'static str = "validation";
    const SCHEMA_VERSION: u32 = 1;
}

/// A correlation and its interval, if defined.
type Rho = (f64, Option<(f64, f64)>);

/// Spearman of a candidate on `keys` (those it covers), with the number of pairs used.
fn rho(c: &Candidate, truth: &HumanTruth, keys: &[&TaskKey], level: f64) -> Result<(usize, Option<Rho>), HumanError> {
    let (x, y): (Vec<f64>, Vec<f64>) =
        keys.iter().filter_map(|k| Some((*c.predictions.get(*k)?, truth.values[*k]))).unzip();
    if x.len() < 3 {
        return Ok((x.len(), None));
    }
    let r = ragjudge_stats::spearman_with_level(&x, &y, level)?;
    Ok((x.len(), r.coefficient.map(|v| (v, r.ci_low.zip(r.ci_high)))))
}

/// The share of pairs people did not tie where the candidate (in its direction) prefers the
/// same answer; its own ties count as misses.
fn pair_accuracy(c: &Candidate, truth: &HumanTruth, keys: &[&TaskKey], sign: f64) -> Option<f64> {
    let decided: Vec<(f64, f64)> = keys
        .iter()
        .filter(|k| truth.values[**k] != 0.0)
        .filter_map(|k| Some((sign * c.predictions.get(*k)?, truth.values[*k])))
        .collect();
    (!decided.is_empty()).then(|| decided.iter().filter(|(p, h)| p * h > 0.0).count() as f64 / decided.len() as f64)
}

/// Questions dealt to `folds` folds at random (seeded); every task of a question in one fold.
fn folds_of(keys: &[&TaskKey], folds: usize, seed: u64) -> (HashMap<String, usize>, usize) {
    let mut questions: Vec<&str> = keys.iter().map(|k| k.id.as_str()).collect();
    questions.sort_unstable();
    questions.dedup();
    questions.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    let folds = folds.clamp(2, questions.len().max(2));
    (questions.iter().enumerate().map(|(i, q)| (q.to_string(), i % folds)).collect(), folds)
}

/// Measures every candidate on the labelled tasks, picks one, cross-validates the picking, and
/// estimates per system pair (or system) with PPI++ using the pick over every task of `tasks`.
pub fn validate(
    truth: &HumanTruth,
    candidates: &[Candidate],
    tasks: &TaskSet,
    settings: &ValidateSettings,
) -> Result<Validation, HumanError> {
    if !(settings.alpha > 0.0 && settings.alpha < 1.0) || settings.folds < 2 {
        return Err(HumanError::Settings(format!(
            "--alpha must be in (0, 1) and --folds at least 2, got {} and {}",
            settings.alpha, settings.folds
        )));
    }
    if truth.view == View::Review {
        return Err(HumanError::Settings(
            "validate compares scorers with pairwise or graded labels, not question reviews".into(),
        ));
    }
    if truth.view != tasks.view() {
        return Err(HumanError::Settings(format!(
            "the labels are {}, the runs were read as {} tasks",
            truth.view.as_str(),
            tasks.view().as_str()
        )));
    }
    let mut keys: Vec<&TaskKey> = truth.values.keys().collect();
    keys.sort();
    if keys.len() < 4 {
        return Err(HumanError::NoTasks(format!("{} labelled tasks; at least 4 are needed", keys.len())));
    }
    let level = 1.0 - settings.alpha;
    let (fold_of, folds) = folds_of(&keys, settings.folds, settings.seed);
    let min_n = settings.min_coverage * keys.len() as f64;
    let mut results = Vec::new();
    for c in candidates {
        results.push(measure(c, truth, &keys, &fold_of, folds, level, min_n)?);
    }
    let rule = PickRule { level, min_n: settings.min_coverage };
    let pick = rule.pick(candidates, truth, &keys)?;
    if let Some(p) = &pick {
        if p.candidate.source == Source::Consensus {
            results.push(measure(&p.candidate, truth, &keys, &fold_of, folds, level, min_n)?);
        }
    }
    let picked_cv = rule.cross_validated(candidates, truth, &keys, &fold_of, folds)?;
    results.sort_by(|a, b| {
        b.eligible.cmp(&a.eligible).then(b.spearman.unwrap_or(-1.0).total_cmp(&a.spearman.unwrap_or(-1.0)))
    });
    let picked = pick.as_ref().and_then(|p| results.iter().find(|r| r.name == p.candidate.name)).cloned();
    let best_baseline = results.iter().find(|r| r.eligible && r.source == Source::Baseline).cloned();
    // A pick whose interval holds 0 agrees with the labels no better than chance: it beats nothing.
    let significant = picked.as_ref().is_some_and(|p| p.low.is_some_and(|l| l > 0.0));
    let beats_baselines = significant
        && match (&picked, &best_baseline) {
            (Some(p), Some(b)) => p.source != Source::Baseline && p.spearman > b.spearman,
            (Some(p), None) => p.source != Source::Baseline,
            _ => false,
        };
    let estimates = match &pick {
        Some(p) => estimates(truth, &p.candidate, tasks, p.reversed, settings.alpha)?,
        None => Vec::new(),
    };
    let ceiling = truth.ceiling.clone();
    let verdict =
        verdict(picked.as_ref(), best_baseline.as_ref(), beats_baselines, picked_cv, ceiling.as_ref(), keys.len());
    let questions = fold_of.len();
    Ok(Validation {
        view: truth.view,
        settings: settings.clone(),
        labels: keys.len(),
        questions,
        candidates: results,
        picked: picked.map(|p| p.name),
        consensus: pick.map(|p| p.members).unwrap_or_default(),
        picked_cv,
        best_baseline: best_baseline.map(|b| b.name),
        beats_baselines,
        ceiling,
        estimates,
        verdict,
    })
}

/// One candidate measured on the labelled `keys`: its oriented Spearman with interval, pair
/// accuracy, and cross-validated Spearman (direction read from the other folds).
fn measure(
    c: &Candidate,
    truth: &HumanTruth,
    keys: &[&TaskKey],
    fold_of: &HashMap<String, usize>,
    folds: usize,
    level: f64,
    min_n: f64,
) -> Result<CandidateResult, HumanError> {
    let (n, r) = rho(c, truth, keys, level)?;
    let sign = match r {
        Some((v, _)) if v < 0.0 => -1.0,
        _ => 1.0,
    };
    let accuracy = (truth.view == View::Pairwise).then(|| pair_accuracy(c, truth, keys, sign)).flatten();
    let mut held_out = Vec::new();
    for f in 0..folds {
        let (test, train): (Vec<&TaskKey>, Vec<&TaskKey>) = keys.iter().partition(|k| fold_of[&k.id] == f);
        if let ((_, Some((rt, _))), (_, Some((rv, _)))) = (rho(c, truth, &train, level)?, rho(c, truth, &test, level)?)
        {
            held_out.push(rt.signum() * rv);
        }
    }
    let (low, high) = match r.and_then(|(_, ci)| ci) {
        Some((lo, hi)) if sign < 0.0 => (Some(-hi), Some(-lo)),
        Some((lo, hi)) => (Some(lo), Some(hi)),
        None => (None, None),
    };
    Ok(CandidateResult {
        name: c.name.clone(),
        source: c.source,
        n,
        spearman: r.map(|(v, _)| v.abs()),
        low,
        high,
        reversed: sign < 0.0,
        accuracy,
        cv_spearman: (!held_out.is_empty()).then(|| held_out.iter().sum::<f64>() / held_out.len() as f64),
        eligible: n as f64 >= min_n && r.is_some(),
    })
}

/// A pick: the scorer (a candidate or the consensus), its direction, and the consensus members.
struct Pick {
    candidate: Candidate,
    reversed: bool,
    members: Vec<(String, f64)>,
}

/// The rule that picks a scorer from labelled tasks (see the module docs).
struct PickRule {
    level: f64,
    /// Least share of the labelled tasks a candidate must cover.
    min_n: f64,
}

impl PickRule {
    fn pick(
        &self,
        candidates: &[Candidate],
        truth: &HumanTruth,
        keys: &[&TaskKey],
    ) -> Result<Option<Pick>, HumanError> {
        let min_n = self.min_n * keys.len() as f64;
        let mut best: Option<(f64, &Candidate)> = None;
        let mut members: Vec<(&Candidate, f64)> = Vec::new();
        for c in candidates {
            let (n, Some((r, ci))) = rho(c, truth, keys, self.level)? else { continue };
            if (n as f64) < min_n {
                continue;
            }
            if best.is_none_or(|(b, _)| r.abs() > b.abs()) {
                best = Some((r, c));
            }
            let low = ci.map(|(lo, hi)| if r < 0.0 { -hi } else { lo });
            if c.source != Source::Baseline && low.is_some_and(|l| l > 0.0) {
                members.push((c, r));
            }
        }
        if members.len() >= 2 {
            return Ok(Some(consensus_of(&members)));
        }
        Ok(best.map(|(r, c)| Pick { candidate: c.clone(), reversed: r < 0.0, members: Vec::new() }))
    }

    /// Mean held-out Spearman of the rule: each fold picks on the other folds and the pick,
    /// turned as picked, is measured on the fold.
    fn cross_validated(
        &self,
        candidates: &[Candidate],
        truth: &HumanTruth,
        keys: &[&TaskKey],
        fold_of: &HashMap<String, usize>,
        folds: usize,
    ) -> Result<Option<f64>, HumanError> {
        let mut held_out = Vec::new();
        for f in 0..folds {
            let (test, train): (Vec<&TaskKey>, Vec<&TaskKey>) = keys.iter().partition(|k| fold_of[&k.id] == f);
            let Some(p) = self.pick(candidates, truth, &train)? else { continue };
            if let (_, Some((r, _))) = rho(&p.candidate, truth, &test, self.level)? {
                held_out.push(if p.reversed { -r } else { r });
            }
        }
        Ok((!held_out.is_empty()).then(|| held_out.iter().sum::<f64>() / held_out.len() as f64))
    }
}

/// The consensus of `members` (each with its correlation `r` with the labels): per task, the
/// sum of `|r| sign(r) x / rms(x)` over the members that cover it, divided by the sum of their
/// `|r|`. Dividing by the root mean square (not the standard deviation) keeps zero where it is,
/// so the sign of a pair's consensus still says which answer is better.
fn consensus_of(members: &[(&Candidate, f64)]) -> Pick {
    let mut sums: HashMap<TaskKey, (f64, f64)> = HashMap::new();
    for (c, r) in members {
        let n = c.predictions.len().max(1) as f64;
        let rms = (c.predictions.values().map(|v| v * v).sum::<f64>() / n).sqrt();
        if rms <= 0.0 {
            continue;
        }
        for (k, v) in &c.predictions {
            let e = sums.entry(k.clone()).or_default();
            e.0 += r * v / rms;
            e.1 += r.abs();
        }
    }
    let predictions = sums.into_iter().map(|(k, (s, w))| (k, s / w)).collect();
    let total: f64 = members.iter().map(|(_, r)| r.abs()).sum();
    Pick {
        candidate: Candidate { name: "consensus".into(), source: Source::Consensus, predictions },
        reversed: false,
        members: members.iter().map(|(c, r)| (c.name.clone(), r.abs() / total)).collect(),
    }
}

/// Per system pair, the win rate of the second system (human: 1 when it is preferred, 0.5 on a
/// tie; the pick: the sign of its difference), or per system the mean grade (the pick mapped to
/// grades by least squares, cross-fitted over two halves of the labelled questions so that no
/// labelled item is predicted by a line fitted on it).
fn estimates(
    truth: &HumanTruth,
    c: &Candidate,
    tasks: &TaskSet,
    reversed: bool,
    alpha: f64,
) -> Result<Vec<Estimate>, HumanError> {
    let sign = if reversed { -1.0 } else { 1.0 };
    let win = |v: f64| {
        if v > 0.0 {
            1.0
        } else if v < 0.0 {
            0.0
        } else {
            0.5
        }
    };
    let is_uniform = |k: &TaskKey| truth.uniform.as_ref().is_none_or(|u| u.contains(k));
    let group = |k: &TaskKey| match &k.system_b {
        Some(b) => format!("{} vs {}", k.system, b),
        None => k.system.clone(),
    };
    let map = match truth.view {
        View::Pairwise => None,
        View::Graded | View::Claims | View::Review => Some(cross_fit(truth, c)),
    };
    let predict = |k: &TaskKey, in_labels: bool| -> Option<f64> {
        let p = *c.predictions.get(k)?;
        match &map {
            None => Some(win(sign * p)),
            Some(fits) => {
                let (a, b) = if in_labels { fits.labelled.get(&k.id).copied()? } else { fits.all };
                Some(a + b * p)
            }
        }
    };
    // Per group: labels, the pick's predictions of the labelled tasks, and of the others.
    type Parts = (Vec<f64>, Vec<f64>, Vec<f64>);
    let mut groups: BTreeMap<String, Parts> = BTreeMap::new();
    for k in tasks.keys() {
        let g = groups.entry(group(k)).or_default();
        match truth.values.get(k) {
            Some(&v) if is_uniform(k) => {
                if let Some(p) = predict(k, true) {
                    g.0.push(if truth.view == View::Pairwise { win(v) } else { v });
                    g.1.push(p);
                }
            }
            Some(_) => {}
            None => {
                if let Some(p) = predict(k, false) {
                    g.2.push(p);
                }
            }
        }
    }
    let mut out = Vec::new();
    for (name, (y, yhat, unlabelled)) in groups {
        if y.len() >= 2 && !unlabelled.is_empty() {
            let mut ppi = ppi_mean(&y, &yhat, &unlabelled, alpha, None)?;
            if truth.view == View::Pairwise {
                // A win rate lies in [0, 1]: cutting the normal interval there keeps its coverage.
                for ci in [&mut ppi.ppi, &mut ppi.classical] {
                    ci.low = ci.low.max(0.0);
                    ci.high = ci.high.min(1.0);
                }
            }
            out.push(Estimate { group: name, ppi });
        }
    }
    Ok(out)
}

/// Least-squares lines from a score to the grade: per labelled question, the line fitted on the
/// other half of the questions; for the rest, the mean of the two halves' lines.
struct Fits {
    labelled: HashMap<String, (f64, f64)>,
    all: (f64, f64),
}

fn cross_fit(truth: &HumanTruth, c: &Candidate) -> Fits {
    let mut ids: Vec<&str> = truth.values.keys().map(|k| k.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    let half = |id: &str| ids.binary_search(&id).map_or(0, |i| i % 2);
    let fit = |h: usize| -> (f64, f64) {
        let pts: Vec<(f64, f64)> = truth
            .values
            .iter()
            .filter(|(k, _)| half(&k.id) == h)
            .filter_map(|(k, v)| Some((*c.predictions.get(k)?, *v)))
            .collect();
        line(&pts)
    };
    let fits = [fit(0), fit(1)];
    let labelled = ids.iter().map(|id| (id.to_string(), fits[1 - half(id)])).collect();
    Fits { labelled, all: ((fits[0].0 + fits[1].0) / 2.0, (fits[0].1 + fits[1].1) / 2.0) }
}

/// Intercept and slope of least squares (a flat line at the mean when x does not vary).
fn line(pts: &[(f64, f64)]) -> (f64, f64) {
    let n = pts.len() as f64;
    if n == 0.0 {
        return (0.0, 0.0);
    }
    let (mx, my) = (pts.iter().map(|p| p.0).sum::<f64>() / n, pts.iter().map(|p| p.1).sum::<f64>() / n);
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let b = if sxx > 0.0 { sxy / sxx } else { 0.0 };
    (my - b * mx, b)
}

fn verdict(
    picked: Option<&CandidateResult>,
    baseline: Option<&CandidateResult>,
    beats: bool,
    picked_cv: Option<f64>,
    ceiling: Option<&Ceiling>,
    labels: usize,
) -> String {
    let f = |x: Option<f64>| x.map_or("–".to_string(), |v| format!("{v:.2}"));
    let Some(p) = picked else {
        return format!("no candidate covers enough of the {labels} labelled tasks to be picked");
    };
    let mut s = format!(
        "picked {} (Spearman {} [{}, {}] on {} labels{}; picking it cross-validated: {})",
        p.name,
        f(p.spearman),
        f(p.low),
        f(p.high),
        p.n,
        if p.reversed { ", lower is better" } else { "" },
        f(picked_cv)
    );
    if p.low.is_none_or(|l| l <= 0.0) {
        s.push_str(
            "; its interval holds 0: no scorer agrees with these labels better than chance, so trust none of them here",
        );
        return s;
    }
    match baseline {
        Some(b) if !beats => {
            s.push_str(&format!(
                "; no scorer beats the trivial baselines: the best is {} ({}), so trust none of them on this data",
                b.name,
                f(b.spearman)
            ));
        }
        Some(b) => {
            s.push_str(&format!("; it beats the best trivial baseline, {} ({})", b.name, f(b.spearman)));
            if p.low.zip(b.spearman).is_some_and(|(lo, bs)| lo <= bs) {
                s.push_str(", within its interval");
            }
        }
        None => {}
    }
    if let Some(c) = ceiling.and_then(|c| c.spearman) {
        s.push_str(&format!("; annotators agree with each other at Spearman {c:.2}"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use ragjudge_core::Record;

    /// 12 questions x systems S1, S2; the human preference for S2 is `pref[i]`.
    fn setup(pref: &[f64]) -> (TaskSet, HumanTruth) {
        let mut records = Vec::new();
        let mut values = HashMap::new();
        for (i, &p) in pref.iter().enumerate() {
            let id = format!("q{i:02}");
            for s in ["S1", "S2"] {
                records.push(Record {
                    id: id.clone(),
                    system: s.into(),
                    answer: "x".repeat(i + 1),
                    ..Default::default()
                });
            }
            values.insert(TaskKey::pair(&id, "S1", "S2"), p);
        }
        let tasks = TaskSet::build(records, View::Pairwise).unwrap();
        (tasks, HumanTruth { view: View::Pairwise, values, uniform: None, ceiling: None })
    }

    fn candidate(name: &str, source: Source, tasks: &TaskSet, f: impl Fn(usize) -> f64) -> Candidate {
        let predictions = tasks.keys().enumerate().map(|(i, k)| (k.clone(), f(i))).collect();
        Candidate { name: name.into(), source, predictions }
    }

    #[test]
    fn the_candidate_that_ranks_like_people_is_picked_and_reversed_ones_are_read_right() {
        let pref = [-2.0, -1.0, -1.0, 0.0, 1.0, 2.0, -2.0, 1.0, 0.0, 2.0, -1.0, 1.0];
        let (tasks, truth) = setup(&pref);
        let perfect = candidate("perfect", Source::Metric, &tasks, |i| pref[i] * 3.0 + 0.5);
        let reversed = candidate("loss", Source::Metric, &tasks, |i| -pref[i]);
        let noise = candidate("noise", Source::Metric, &tasks, |i| ((i * 7) % 5) as f64);
        let base = candidate("length", Source::Baseline, &tasks, |i| i as f64);
        let v = validate(&truth, &[noise, reversed, perfect, base], &tasks, &ValidateSettings::default()).unwrap();
        // Both the perfect and the reversed candidate rank exactly like people: Spearman 1.
        assert!((v.candidates[0].spearman.unwrap() - 1.0).abs() < 1e-12);
        assert!((v.candidates[1].spearman.unwrap() - 1.0).abs() < 1e-12);
        let loss = v.candidates.iter().find(|c| c.name == "loss").unwrap();
        assert!(loss.reversed);
        assert_eq!(loss.accuracy, Some(1.0));
        assert!(v.beats_baselines);
        assert!(v.picked_cv.unwrap() > 0.99, "{:?}", v.picked_cv);
        assert!(v.verdict.starts_with("picked "), "{}", v.verdict);
    }

    #[test]
    fn scorers_that_agree_significantly_are_picked_as_their_consensus() {
        let pref = [-2.0, -1.0, -1.0, 0.0, 1.0, 2.0, -2.0, 1.0, 0.0, 2.0, -1.0, 1.0];
        let (tasks, mut truth) = setup(&pref);
        truth.values.retain(|k, _| k.id.as_str() < "q08");
        // Two scorers that rank exactly like people (one upside down), a baseline that does too,
        // and one that does not at all.
        let a = candidate("a", Source::Metric, &tasks, |i| pref[i] * 4.0);
        let b = candidate("b", Source::Metric, &tasks, |i| -pref[i]);
        let base = candidate("length", Source::Baseline, &tasks, |i| pref[i]);
        let noise = candidate("noise", Source::Metric, &tasks, |i| ((i * 7) % 5) as f64 - 2.0);
        let v = validate(&truth, &[a, b, base, noise], &tasks, &ValidateSettings::default()).unwrap();
        assert_eq!(v.picked.as_deref(), Some("consensus"));
        // Equal correlations (1): equal weights; the baseline and the noise are not members.
        assert_eq!(v.consensus, [("a".to_string(), 0.5), ("b".to_string(), 0.5)]);
        // Each member divided by its rms and turned the labels' way is pref / rms(pref): the
        // consensus keeps the sign of every preference: its win rate on the four unlabelled
        // pairs (prefs 0, 2, -1, 1: 0.5, 1, 0, 1) is the human one, and with lambda tuned the
        // PPI estimate equals the mean over all twelve.
        let e = &v.estimates[0].ppi;
        assert_eq!((e.n, e.unlabelled), (8, 4));
        let win = |p: f64| {
            if p > 0.0 {
                1.0
            } else if p < 0.0 {
                0.0
            } else {
                0.5
            }
        };
        let labelled: f64 = pref[..8].iter().map(|&p| win(p)).sum::<f64>() / 8.0;
        let unlabelled: f64 = pref[8..].iter().map(|&p| win(p)).sum::<f64>() / 4.0;
        assert!((e.classical.estimate - labelled).abs() < 1e-12);
        // Predictions equal the labels: lambda = cov / ((1 + n/N) var(all)) < 1, and the estimate
        // lambda * mean(unlabelled) + mean(labels) - lambda * mean(labelled predictions).
        let expected = e.lambda * unlabelled + labelled - e.lambda * labelled;
        assert!((e.ppi.estimate - expected).abs() < 1e-12, "{e:?}");
    }

    #[test]
    fn a_baseline_that_wins_is_said_plainly() {
        let pref: Vec<f64> = (0..12).map(|i| i as f64 - 5.5).collect();
        let (tasks, truth) = setup(&pref);
        let base = candidate("length", Source::Baseline, &tasks, |i| i as f64);
        let weak = candidate("rouge", Source::Metric, &tasks, |i| ((i * 5) % 12) as f64);
        let v = validate(&truth, &[weak, base], &tasks, &ValidateSettings::default()).unwrap();
        assert_eq!(v.picked.as_deref(), Some("length"));
        assert!(!v.beats_baselines);
        assert!(v.verdict.contains("no scorer beats the trivial baselines"), "{}", v.verdict);
    }

    #[test]
    fn ppi_uses_the_pick_on_the_unlabelled_pairs() {
        // 12 labelled pairs, all preferring S2 (win 1), and 8 more unlabelled ones where the
        // pick also prefers S2: the estimate is 1 with a zero-width classical interval.
        let pref = vec![1.0; 20];
        let (tasks, mut truth) = setup(&pref);
        truth.values.retain(|k, _| k.id.as_str() < "q12");
        let c = candidate("m", Source::Metric, &tasks, |i| 1.0 + i as f64 * 0.1);
        let e = estimates(&truth, &c, &tasks, false, 0.05).unwrap();
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].group, "S1 vs S2");
        assert_eq!((e[0].ppi.n, e[0].ppi.unlabelled), (12, 8));
        assert!((e[0].ppi.ppi.estimate - 1.0).abs() < 1e-12);
    }

    #[test]
    fn too_few_labels_or_a_wrong_view_are_errors() {
        let (tasks, mut truth) = setup(&[1.0, -1.0, 0.0]);
        assert!(validate(&truth, &[], &tasks, &ValidateSettings::default())
            .unwrap_err()
            .to_string()
            .contains("at least 4"));
        truth.view = View::Graded;
        assert!(validate(&truth, &[], &tasks, &ValidateSettings::default()).is_err());
    }

    #[test]
    fn least_squares_lines_by_hand() {
        // y = 1 + 2x exactly.
        assert_eq!(line(&[(0.0, 1.0), (1.0, 3.0), (2.0, 5.0)]), (1.0, 2.0));
        assert_eq!(line(&[(1.0, 2.0), (1.0, 4.0)]), (3.0, 0.0));
    }
}
