//! What to label: a plan of N tasks. Half (by default) is a uniform sample, stratified by
//! system pair (or system) and topic with proportional allocation, so that prediction-powered
//! estimates from its labels stay unbiased (PPI needs labelled items drawn at random:
//! Angelopoulos et al. 2023, §2); the rest is drawn with probability growing with the machines'
//! uncertainty, where a human label teaches the most about which scorer to trust (the idea of
//! active statistical inference, Zrnic and Candès 2024, used here for scorer selection only).

use crate::error::HumanError;
use crate::signals::Signals;
use crate::task::{TaskKey, TaskSet, View};
use ragjudge_artifacts::Artifact;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, Normal};
use std::collections::BTreeMap;

/// Why a task is in the plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Purpose {
    /// Drawn uniformly within its stratum: usable for unbiased (PPI) estimates.
    Uniform,
    /// Drawn toward machine uncertainty: for choosing and checking scorers, not for estimates.
    Targeted,
}

/// One planned task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PlannedTask {
    /// The task.
    #[serde(flatten)]
    pub task: TaskKey,
    /// Why it was drawn.
    pub purpose: Purpose,
    /// Its stratum: system pair (or system) and topic.
    pub stratum: String,
    /// The machines' uncertainty on it, when any machine covered it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uncertainty: Option<f64>,
}

/// One stratum: how many tasks it has and how many were drawn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StratumCount {
    /// System pair (or system) and topic.
    pub stratum: String,
    /// Its tasks.
    pub tasks: usize,
    /// Drawn uniformly.
    pub uniform: usize,
    /// Drawn toward uncertainty.
    pub targeted: usize,
}

/// Labels needed for a target interval width, per system pair (pairwise win rate) or per
/// system (mean grade): the classical normal interval, and PPI++ with a scorer whose
/// predictions correlate `rho` with the labels (Angelopoulos, Duchi and Zrnic 2023, eq. 6: with
/// the optimal power tuning and many unlabelled items the variance falls by the factor
/// `1 - rho^2`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SampleSize {
    /// The full width aimed at.
    pub width: f64,
    /// The error rate of the interval.
    pub alpha: f64,
    /// The standard deviation assumed for one label: its largest possible value on the scale
    /// (0.5 for a win indicator, half the grade range for grades), so the counts are enough
    /// whatever the labels.
    pub sd: f64,
    /// Labels for the classical interval: `ceil((z sd / (width / 2))^2)`.
    pub classical: usize,
    /// `(rho, labels)` with PPI++ for scorers of correlation rho with the labels.
    pub ppi: Vec<(f64, usize)>,
}

impl SampleSize {
    /// The counts for `width` at level `1 - alpha` with label standard deviation `sd`.
    pub fn new(width: f64, alpha: f64, sd: f64) -> Result<Self, HumanError> {
        if !(width > 0.0 && width.is_finite() && alpha > 0.0 && alpha < 1.0) {
            return Err(HumanError::Settings(format!(
                "--target-width must be > 0 and --alpha in (0, 1), got {width} and {alpha}"
            )));
        }
        let z = Normal::standard().inverse_cdf(1.0 - alpha / 2.0);
        let n = |factor: f64| ((z * sd / (width / 2.0)).powi(2) * factor).ceil() as usize;
        let ppi = [0.3, 0.5, 0.7, 0.9].iter().map(|&rho: &f64| (rho, n(1.0 - rho * rho))).collect();
        Ok(SampleSize { width, alpha, sd, classical: n(1.0), ppi })
    }
}

/// The settings of a plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PlanSettings {
    /// Tasks to plan.
    pub n: usize,
    /// Share drawn toward uncertainty (0 = all uniform); without any machine signal all are
    /// uniform.
    pub targeted_share: f64,
    /// `meta` key of the questions that defines topics (absent: one topic).
    pub stratify_by: String,
    /// Seed of the draws.
    pub seed: u64,
    /// Interval width aimed at, for the sample-size estimate.
    pub target_width: f64,
    /// Error rate of the intervals.
    pub alpha: f64,
}

impl Default for PlanSettings {
    fn default() -> Self {
        PlanSettings {
            n: 40,
            targeted_share: 0.5,
            stratify_by: "topic".into(),
            seed: 0,
            target_width: 0.2,
            alpha: 0.05,
        }
    }
}

/// A labelling plan: the tasks in the order to label them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Plan {
    /// The view the tasks are for.
    pub view: View,
    /// The settings that made it.
    pub settings: PlanSettings,
    /// Tasks the runs offered.
    pub available: usize,
    /// The planned tasks, shuffled (any prefix of the uniform ones is still a uniform sample).
    pub tasks: Vec<PlannedTask>,
    /// Per stratum, tasks offered and drawn.
    pub strata: Vec<StratumCount>,
    /// Labels needed per system pair (or system) for the target interval width.
    pub sample_size: SampleSize,
}

impl Artifact for Plan {
    const KIND: &'static str = "annotation-plan";
    const SCHEMA_VERSION: u32 = 1;
}

impl Plan {
    /// The planned keys, in order.
    pub fn keys(&self) -> Vec<TaskKey> {
        self.tasks.iter().map(|t| t.task.clone()).collect()
    }
}

/// Draws the plan of `settings` from `tasks`, weighing the targeted draws by `signals`.
pub fn plan(tasks: &TaskSet, signals: &Signals, settings: &PlanSettings, sd: f64) -> Result<Plan, HumanError> {
    if settings.n == 0 {
        return Err(HumanError::Settings("--plan must be at least 1".into()));
    }
    if !(0.0..=1.0).contains(&settings.targeted_share) {
        return Err(HumanError::Settings(format!(
            "--targeted-share must be in [0, 1], got {}",
            settings.targeted_share
        )));
    }
    let sample_size = SampleSize::new(settings.target_width, settings.alpha, sd)?;
    let mut rng = ChaCha8Rng::seed_from_u64(settings.seed);
    let strata = strata_of(tasks, &settings.stratify_by);
    let n = settings.n.min(tasks.len());
    let has_signal = !signals.uncertainty.is_empty();
    let n_targeted = if has_signal { (n as f64 * settings.targeted_share).round() as usize } else { 0 };
    let n_uniform = n - n_targeted;

    let keys: Vec<&TaskKey> = tasks.keys().collect();
    let uncertainty: Vec<Option<f64>> = keys.iter().map(|k| signals.uncertainty.get(*k).copied()).collect();
    let mut taken = vec![false; tasks.len()];
    let uniform = draw(&strata, n_uniform, &mut taken, &mut rng, |_| 1.0);
    let weight = |i: usize| 0.05 + uncertainty[i].unwrap_or(0.0);
    let targeted = draw(&strata, n_targeted, &mut taken, &mut rng, weight);

    let stratum_of: BTreeMap<usize, &str> =
        strata.iter().flat_map(|s| s.members.iter().map(move |&i| (i, s.name.as_str()))).collect();
    let mut planned: Vec<PlannedTask> = uniform
        .iter()
        .map(|&i| (i, Purpose::Uniform))
        .chain(targeted.iter().map(|&i| (i, Purpose::Targeted)))
        .map(|(i, purpose)| PlannedTask {
            task: keys[i].clone(),
            purpose,
            stratum: stratum_of[&i].to_string(),
            uncertainty: uncertainty[i],
        })
        .collect();
    planned.shuffle(&mut rng);
    let counts = strata
        .iter()
        .map(|s| StratumCount {
            stratum: s.name.clone(),
            tasks: s.members.len(),
            uniform: s.members.iter().filter(|i| uniform.contains(i)).count(),
            targeted: s.members.iter().filter(|i| targeted.contains(i)).count(),
        })
        .collect();
    Ok(Plan {
        view: tasks.view(),
        settings: settings.clone(),
        available: tasks.len(),
        tasks: planned,
        strata: counts,
        sample_size,
    })
}

/// One stratum: a system pair (or system) and a topic.
struct Stratum {
    systems: String,
    name: String,
    members: Vec<usize>,
}

/// Tasks by stratum (system pair or system, and the topic under `key`), strata in name order.
fn strata_of(tasks: &TaskSet, key: &str) -> Vec<Stratum> {
    let mut strata: BTreeMap<(String, String), Vec<usize>> = BTreeMap::new();
    for (i, k) in tasks.keys().enumerate() {
        let systems = match &k.system_b {
            Some(b) => format!("{} vs {}", k.system, b),
            None => k.system.clone(),
        };
        let topic = tasks.records(i).first().and_then(|r| r.meta.get(key)).map(|v| match v {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        });
        let name = match topic {
            Some(t) => format!("{systems} | {t}"),
            None => systems.clone(),
        };
        strata.entry((systems, name)).or_default().push(i);
    }
    strata.into_iter().map(|((systems, name), members)| Stratum { systems, name, members }).collect()
}

/// Draws `n` untaken tasks: allocated to system pairs (or systems) in proportion to their
/// untaken tasks, then within each to its topics the same way ([`allocate`]), and within a
/// stratum without replacement with probability proportional to `weight` (Efraimidis and
/// Spirakis 2006: the largest keys `u^(1/w)`).
fn draw(
    strata: &[Stratum],
    n: usize,
    taken: &mut [bool],
    rng: &mut ChaCha8Rng,
    weight: impl Fn(usize) -> f64,
) -> Vec<usize> {
    let free: Vec<Vec<usize>> =
        strata.iter().map(|s| s.members.iter().copied().filter(|&i| !taken[i]).collect()).collect();
    let mut groups: Vec<(&str, Vec<usize>)> = Vec::new();
    for (s, stratum) in strata.iter().enumerate() {
        match groups.iter_mut().find(|(g, _)| *g == stratum.systems) {
            Some((_, members)) => members.push(s),
            None => groups.push((&stratum.systems, vec![s])),
        }
    }
    let group_sizes: Vec<usize> = groups.iter().map(|(_, ss)| ss.iter().map(|&s| free[s].len()).sum()).collect();
    let mut alloc = vec![0; strata.len()];
    for ((_, members), k) in groups.iter().zip(allocate(&group_sizes, n, rng)) {
        let sizes: Vec<usize> = members.iter().map(|&s| free[s].len()).collect();
        for (&s, m) in members.iter().zip(allocate(&sizes, k, rng)) {
            alloc[s] = m;
        }
    }
    let mut out = Vec::with_capacity(n);
    for (members, k) in free.iter().zip(alloc) {
        let mut keyed: Vec<(f64, usize)> = members
            .iter()
            .map(|&i| {
                let u: f64 = rng.gen_range(f64::MIN_POSITIVE..1.0);
                (u.powf(1.0 / weight(i).max(1e-9)), i)
            })
            .collect();
        keyed.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        out.extend(keyed.into_iter().take(k).map(|(_, i)| i));
    }
    for &i in &out {
        taken[i] = true;
    }
    out
}

/// Splits `n` (at most the sum of `sizes`) in proportion to `sizes` by largest remainders, no
/// part above its size; equal remainders in random order, so that when `n` is smaller than the
/// number of parts none is favoured by its position.
fn allocate(sizes: &[usize], n: usize, rng: &mut ChaCha8Rng) -> Vec<usize> {
    let total: usize = sizes.iter().sum();
    let n = n.min(total);
    if n == 0 {
        return vec![0; sizes.len()];
    }
    let quotas: Vec<f64> = sizes.iter().map(|&s| n as f64 * s as f64 / total as f64).collect();
    let mut alloc: Vec<usize> = quotas.iter().map(|q| q.floor() as usize).collect();
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.shuffle(rng);
    order.sort_by(|&a, &b| (quotas[b] - quotas[b].floor()).total_cmp(&(quotas[a] - quotas[a].floor())));
    let mut left = n - alloc.iter().sum::<usize>();
    while left > 0 {
        let before = left;
        for &s in &order {
            if left > 0 && alloc[s] < sizes[s] {
                alloc[s] += 1;
                left -= 1;
            }
        }
        if left == before {
            break;
        }
    }
    alloc
}

#[cfg(test)]
mod tests {
    use super::*;
    use ragjudge_core::Record;

    fn task_set(questions: usize) -> TaskSet {
        let mut records = Vec::new();
        for q in 0..questions {
            for s in ["S1", "S2", "S3"] {
                let mut r = Record { id: format!("q{q}"), system: s.into(), ..Default::default() };
                r.meta.insert("topic".into(), (if q % 4 == 0 { "rare" } else { "common" }).into());
                records.push(r);
            }
        }
        TaskSet::build(records, View::Pairwise).unwrap()
    }

    #[test]
    fn sample_sizes_are_the_normal_formula() {
        // z(0.975) = 1.959964; sd 0.5, half-width 0.1: (1.959964 * 0.5 / 0.1)^2 = 96.04 -> 97.
        // With rho 0.5: 96.04 * 0.75 = 72.03 -> 73; rho 0.9: 96.04 * 0.19 = 18.25 -> 19.
        let s = SampleSize::new(0.2, 0.05, 0.5).unwrap();
        assert_eq!(s.classical, 97);
        assert_eq!(s.ppi, [(0.3, 88), (0.5, 73), (0.7, 49), (0.9, 19)]);
        assert!(SampleSize::new(0.0, 0.05, 0.5).is_err());
    }

    #[test]
    fn uniform_draws_are_proportional_to_the_strata() {
        // 40 questions x 3 pairs = 120 tasks in 6 strata: 3 pairs x {rare: 10, common: 30}.
        let tasks = task_set(40);
        let settings = PlanSettings { n: 24, targeted_share: 0.5, ..Default::default() };
        let p = plan(&tasks, &Signals::default(), &settings, 0.5).unwrap();
        assert_eq!(p.tasks.len(), 24);
        // No signal: everything uniform; 24 of 120 is 1 in 5: 2 of each rare stratum, 6 of each common.
        assert!(p.tasks.iter().all(|t| t.purpose == Purpose::Uniform));
        for s in &p.strata {
            assert_eq!(s.uniform, s.tasks / 5, "{s:?}");
        }
        let mut keys = p.keys();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), 24);
    }

    #[test]
    fn targeted_draws_favour_uncertain_tasks_and_plans_are_seeded() {
        let tasks = task_set(40);
        let mut signals = Signals::default();
        for (i, k) in tasks.keys().enumerate() {
            signals.uncertainty.insert(k.clone(), if i % 2 == 0 { 1.0 } else { 0.0 });
        }
        let settings = PlanSettings { n: 40, targeted_share: 0.5, seed: 3, ..Default::default() };
        let p = plan(&tasks, &signals, &settings, 0.5).unwrap();
        let targeted: Vec<&PlannedTask> = p.tasks.iter().filter(|t| t.purpose == Purpose::Targeted).collect();
        assert_eq!(targeted.len(), 20);
        // Weights 1.05 against 0.05: about 95% of the draws are uncertain tasks.
        let uncertain = targeted.iter().filter(|t| t.uncertainty == Some(1.0)).count();
        assert!(uncertain >= 16, "{uncertain}");
        assert_eq!(plan(&tasks, &signals, &settings, 0.5).unwrap(), p);
        let other = PlanSettings { seed: 4, ..settings };
        assert_ne!(plan(&tasks, &signals, &other, 0.5).unwrap().tasks, p.tasks);
    }

    #[test]
    fn a_small_plan_spreads_over_system_pairs_first() {
        // 3 pairs x 2 topics, 6 tasks drawn: 2 per pair whatever the seed.
        let tasks = task_set(40);
        for seed in 0..20 {
            let p = plan(&tasks, &Signals::default(), &PlanSettings { n: 6, seed, ..Default::default() }, 0.5).unwrap();
            for pair in ["S1 vs S2", "S1 vs S3", "S2 vs S3"] {
                let k = p.tasks.iter().filter(|t| t.stratum.starts_with(pair)).count();
                assert_eq!(k, 2, "seed {seed}, {pair}");
            }
        }
    }

    #[test]
    fn allocation_is_proportional_and_bounded() {
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        // Quotas 10 * (1, 3, 6) / 10 = 1, 3, 6 exactly.
        assert_eq!(allocate(&[1, 3, 6], 10, &mut rng), [1, 3, 6]);
        // Quotas 4 * (5, 5) / 10 = 2, 2; more than there is: everything.
        assert_eq!(allocate(&[5, 5], 4, &mut rng), [2, 2]);
        assert_eq!(allocate(&[1, 2], 9, &mut rng), [1, 2]);
        // One of three equal parts: each part wins about a third of the seeds.
        let mut wins = [0; 3];
        for seed in 0..300 {
            let a = allocate(&[4, 4, 4], 1, &mut ChaCha8Rng::seed_from_u64(seed));
            wins[a.iter().position(|&x| x == 1).unwrap()] += 1;
        }
        assert!(wins.iter().all(|&w| (70..=130).contains(&w)), "{wins:?}");
    }

    #[test]
    fn a_plan_larger_than_the_runs_takes_every_task() {
        let tasks = task_set(2);
        let p = plan(&tasks, &Signals::default(), &PlanSettings { n: 50, ..Default::default() }, 0.5).unwrap();
        assert_eq!(p.tasks.len(), 6);
    }
}
