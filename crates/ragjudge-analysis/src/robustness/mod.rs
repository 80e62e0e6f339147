//! Robustness under input variations, adversarial inputs and out-of-distribution queries
//! (HCAT (Sudjianto et al.), §6.1).
//!
//! Each variant record (`meta.variant_of` names its original question, `meta.perturbation` and
//! `meta.severity` say how it was made) is paired with its original by (system, original id,
//! run). Per system x perturbation x severity and metric: the number of pairs, the means of the
//! originals and of the variants, the mean paired difference (variant - original) with a seeded
//! percentile bootstrap interval that resamples pairs, the share of pairs worse by more than a
//! tolerance, and, given a correctness rule (`metric >= threshold`), the flip rate: the share of
//! pairs whose original is correct and whose variant is not (and the reverse). Variants of
//! perturbation `ood` have no original: per system, their number, abstention rate and the mean of a
//! hallucination column. A variant without its original, a variant repeated, and an empty cell are
//! counted and reported, never dropped in silence; no number is NaN.

mod files;
mod job;
mod render;

pub use files::{write_files, FilesError};
pub use job::{RobustnessJob, RobustnessJobError, RobustnessOutcome};
pub use render::render;

use ragjudge_stats::bootstrap::bootstrap_ci;
use ragjudge_stats::StatsError;
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap};

/// The perturbation name of out-of-distribution queries (they have no original).
pub const OOD: &str = "ood";

/// Columns read as abstention when no [`Abstention`] is given, in order: name, threshold, and
/// whether a value at or above the threshold (`true`) or below it (`false`) means "abstained".
pub const ABSTENTION_COLUMNS: [(&str, f64, bool); 3] =
    [("no_answer", 0.5, true), ("trec_no_answer", 0.5, true), ("generation_score_answered", 0.5, false)];

/// Columns read as the hallucination column when none is given, in order.
pub const HALLUCINATION_COLUMNS: [&str; 3] =
    ["hallucination", "hallucination_score", "generation_score_hallucination_score"];

/// Why a robustness analysis could not run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RobustnessError {
    /// A metric (or the correctness or abstention column) is not a numeric column of a file.
    #[error("{file}: no numeric column `{column}`")]
    MissingColumn {
        /// The file (its name as given).
        file: String,
        /// The column.
        column: String,
    },
    /// Settings out of range.
    #[error("{0}")]
    Settings(String),
    /// A statistic could not be computed.
    #[error("bootstrap: {0}")]
    Stats(#[from] StatsError),
}

/// How a variant was made: read from `meta.variant_of`, `meta.perturbation`, `meta.severity`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct VariantMeta {
    /// Id of the original question (`None` for an out-of-distribution query).
    pub variant_of: Option<String>,
    /// Kind of variation (`typo`, `shuffle`, `distractor`, `ood`, ...).
    pub perturbation: Option<String>,
    /// Its strength as text (`0.05`, `3`), the grouping key; `None` when not given.
    pub severity: Option<String>,
}

/// One scored record: who answered, the values of its file's columns, and (for variants) how it
/// was made. The texts are optional and only shown with the worst pairs.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ScoredRecord {
    /// Record id.
    pub id: String,
    /// System.
    pub system: String,
    /// Run number of repeated runs, as text (`None`: not given).
    pub run: Option<String>,
    /// One value per column of the [`ScoreTable`] (`None`: empty cell).
    pub values: Vec<Option<f64>>,
    /// How the variant was made (empty for an original).
    pub variant: VariantMeta,
    /// The question, when records were given.
    pub query: Option<String>,
    /// The answer, when records were given.
    pub answer: Option<String>,
}

/// The scores of one file: its name (for errors), its numeric columns and its records.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ScoreTable {
    /// File name as used in errors.
    pub name: String,
    /// Numeric columns.
    pub columns: Vec<String>,
    /// Records.
    pub rows: Vec<ScoredRecord>,
}

impl ScoreTable {
    fn column(&self, name: &str) -> Result<usize, RobustnessError> {
        self.columns
            .iter()
            .position(|c| c == name)
            .ok_or_else(|| RobustnessError::MissingColumn { file: self.name.clone(), column: name.to_string() })
    }
}

/// A record counts as correct when `column >= threshold`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Correctness {
    /// Column.
    pub column: String,
    /// Threshold (inclusive).
    pub threshold: f64,
}

/// An out-of-distribution answer counts as an abstention when `column >= threshold`
/// (`at_least`) or `column < threshold` (not `at_least`, e.g. an "answered" column).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Abstention {
    /// Column of the variants' scores.
    pub column: String,
    /// Threshold.
    pub threshold: f64,
    /// Whether values at or above the threshold are abstentions.
    pub at_least: bool,
}

/// How the analysis runs.
#[derive(Debug, Clone, PartialEq)]
pub struct RobustnessSettings {
    /// Metric columns to compare (present in both files; none: only out-of-distribution
    /// queries and exclusions are reported).
    pub metrics: Vec<String>,
    /// Correctness rule for flip rates (`None`: no flip rates).
    pub correct: Option<Correctness>,
    /// A pair is "worse" when `variant - original < -tolerance`.
    pub tolerance: f64,
    /// Pairs with the largest drop listed per metric.
    pub worst: usize,
    /// Bootstrap resamples of the interval of the mean difference.
    pub bootstrap: usize,
    /// Confidence level of the intervals.
    pub level: f64,
    /// Seed of the bootstrap.
    pub seed: u64,
    /// Abstention rule of out-of-distribution answers (`None`: the first of
    /// [`ABSTENTION_COLUMNS`] in the variants' file, if any).
    pub abstention: Option<Abstention>,
    /// Hallucination column of out-of-distribution answers (`None`: the first of
    /// [`HALLUCINATION_COLUMNS`] in the variants' file, if any).
    pub hallucination: Option<String>,
}

impl Default for RobustnessSettings {
    fn default() -> Self {
        Self {
            metrics: Vec::new(),
            correct: None,
            tolerance: 0.0,
            worst: 5,
            bootstrap: 1000,
            level: 0.95,
            seed: 0,
            abstention: None,
            hallucination: None,
        }
    }
}

impl RobustnessSettings {
    /// Checks that the settings are in range.
    pub fn check(&self) -> Result<(), RobustnessError> {
        let bad = |m: String| Err(RobustnessError::Settings(m));
        if !(self.tolerance.is_finite() && self.tolerance >= 0.0) {
            return bad(format!("tolerance must be a finite number >= 0, got {}", self.tolerance));
        }
        if self.bootstrap == 0 {
            return bad("bootstrap resamples must be at least 1".into());
        }
        if !(self.level > 0.0 && self.level < 1.0) {
            return bad(format!("level must be in (0, 1), got {}", self.level));
        }
        if let Some(c) = &self.correct {
            if !c.threshold.is_finite() {
                return bad(format!("correctness threshold of `{}` must be finite", c.column));
            }
        }
        if let Some(a) = &self.abstention {
            if !a.threshold.is_finite() {
                return bad(format!("abstention threshold of `{}` must be finite", a.column));
            }
        }
        Ok(())
    }
}

/// Flips of correctness between originals and variants in one group.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Flips {
    /// Pairs with a value of the correctness column on both sides.
    pub n: usize,
    /// Of those, pairs whose original is correct.
    pub original_correct: usize,
    /// Original correct, variant not.
    pub correct_to_incorrect: usize,
    /// Original not correct, variant correct.
    pub incorrect_to_correct: usize,
    /// `correct_to_incorrect / n`.
    pub rate: f64,
    /// `incorrect_to_correct / n`.
    pub reverse_rate: f64,
}

/// One metric of one system x perturbation x severity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DeltaRow {
    /// Metric column.
    pub metric: String,
    /// System.
    pub system: String,
    /// Perturbation.
    pub perturbation: String,
    /// Severity (empty when not given).
    pub severity: String,
    /// Pairs with a value on both sides.
    pub n: usize,
    /// Pairs left out because a cell of this metric is empty (original or variant).
    pub empty: usize,
    /// Mean of the originals over the `n` pairs.
    pub original_mean: Option<f64>,
    /// Mean of the variants over the `n` pairs.
    pub variant_mean: Option<f64>,
    /// Mean of `variant - original`.
    pub delta: Option<f64>,
    /// Lower end of the paired percentile-bootstrap interval of `delta`.
    pub ci_low: Option<f64>,
    /// Upper end.
    pub ci_high: Option<f64>,
    /// Pairs with `variant - original < -tolerance`.
    pub worse: usize,
    /// `worse / n`.
    pub worse_share: Option<f64>,
    /// Flips of correctness in the group (same for every metric of the group).
    pub flips: Option<Flips>,
}

/// The mean of one column over some records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ColumnMean {
    /// Column.
    pub column: String,
    /// Records with a value.
    pub n: usize,
    /// Their mean (`None` when `n` is 0).
    pub mean: Option<f64>,
}

/// Abstentions of out-of-distribution answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AbstentionRate {
    /// The rule.
    pub rule: Abstention,
    /// Answers with a value of the column.
    pub n: usize,
    /// Of those, abstentions.
    pub abstained: usize,
    /// `abstained / n` (`None` when `n` is 0).
    pub rate: Option<f64>,
}

/// Out-of-distribution queries of one system (and severity).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct OodReport {
    /// System.
    pub system: String,
    /// Severity (empty when not given).
    pub severity: String,
    /// Records.
    pub n: usize,
    /// Abstention rate, when an abstention column is known.
    pub abstention: Option<AbstentionRate>,
    /// Mean of the hallucination column, when there is one.
    pub hallucination: Option<ColumnMean>,
    /// Mean of each metric present in the variants' file.
    pub metrics: Vec<ColumnMean>,
}

/// One pair with a large drop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WorstPair {
    /// Metric.
    pub metric: String,
    /// System.
    pub system: String,
    /// Perturbation.
    pub perturbation: String,
    /// Severity.
    pub severity: String,
    /// Id of the original.
    pub original_id: String,
    /// Id of the variant.
    pub variant_id: String,
    /// Run.
    pub run: Option<String>,
    /// Original's value.
    pub original: f64,
    /// Variant's value.
    pub variant: f64,
    /// `variant - original` (negative).
    pub delta: f64,
    /// Original question, when records were given.
    pub original_query: Option<String>,
    /// Variant question.
    pub variant_query: Option<String>,
    /// Original answer.
    pub original_answer: Option<String>,
    /// Variant answer.
    pub variant_answer: Option<String>,
}

/// Why a record of the variants' file is not in any pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ExclusionReason {
    /// Its original (system, `variant_of`, run) is not among the originals.
    OriginalMissing,
    /// It has a perturbation other than `ood` but no `variant_of`.
    NoVariantOf,
    /// It has neither `variant_of` nor `perturbation`: not a variant.
    NotAVariant,
    /// A variant with the same (system, id, run) came earlier.
    Repeated,
}

/// A record left out of every pair, named.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Exclusion {
    /// Record id.
    pub id: String,
    /// System.
    pub system: String,
    /// Run.
    pub run: Option<String>,
    /// The original it names, if any.
    pub variant_of: Option<String>,
    /// Why.
    pub reason: ExclusionReason,
}

/// The whole analysis.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RobustnessReport {
    /// Metrics compared.
    pub metrics: Vec<String>,
    /// The correctness rule of the flip rates.
    pub correct: Option<Correctness>,
    /// Tolerance of "worse".
    pub tolerance: f64,
    /// Confidence level of the intervals.
    pub level: f64,
    /// Bootstrap resamples.
    pub bootstrap: usize,
    /// Seed of the bootstrap.
    pub seed: u64,
    /// Pairs formed (variant with its original), over all groups.
    pub pairs: usize,
    /// One row per metric x system x perturbation x severity.
    pub deltas: Vec<DeltaRow>,
    /// Out-of-distribution queries per system and severity.
    pub ood: Vec<OodReport>,
    /// Per metric, the pairs with the largest drops (at most `worst` each).
    pub worst: Vec<WorstPair>,
    /// Variants in no pair, with why.
    pub exclusions: Vec<Exclusion>,
}

/// A variant paired with its original.
struct Pair<'a> {
    original: &'a ScoredRecord,
    variant: &'a ScoredRecord,
}

/// Orders severities numerically when both are numbers, else as text.
fn severity_order(a: &str, b: &str) -> Ordering {
    match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(x), Ok(y)) => x.total_cmp(&y).then_with(|| a.cmp(b)),
        _ => a.cmp(b),
    }
}

fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

fn share(k: usize, n: usize) -> Option<f64> {
    (n > 0).then(|| k as f64 / n as f64)
}

/// Pairs the variants with their originals and compares them (HCAT §6.1).
pub fn analyse(
    originals: &ScoreTable,
    variants: &ScoreTable,
    settings: &RobustnessSettings,
) -> Result<RobustnessReport, RobustnessError> {
    settings.check()?;
    let mut cols = Vec::new();
    for m in &settings.metrics {
        cols.push((originals.column(m)?, variants.column(m)?));
    }
    let correct = match &settings.correct {
        Some(c) => Some((originals.column(&c.column)?, variants.column(&c.column)?, c.threshold)),
        None => None,
    };

    // Originals by (system, id, run); the first of repeated keys.
    let mut by_key: HashMap<(&str, &str, Option<&str>), &ScoredRecord> = HashMap::new();
    for r in &originals.rows {
        by_key.entry((r.system.as_str(), r.id.as_str(), r.run.as_deref())).or_insert(r);
    }

    let mut exclusions = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut groups: BTreeMap<(String, String, String), Vec<Pair>> = BTreeMap::new();
    let mut ood: BTreeMap<(String, String), Vec<&ScoredRecord>> = BTreeMap::new();
    for v in &variants.rows {
        let meta = &v.variant;
        let exclude = |reason| Exclusion {
            id: v.id.clone(),
            system: v.system.clone(),
            run: v.run.clone(),
            variant_of: meta.variant_of.clone(),
            reason,
        };
        if !seen.insert((v.system.as_str(), v.id.as_str(), v.run.as_deref())) {
            exclusions.push(exclude(ExclusionReason::Repeated));
            continue;
        }
        let perturbation = meta.perturbation.clone();
        let severity = meta.severity.clone().unwrap_or_default();
        if perturbation.as_deref() == Some(OOD) {
            ood.entry((v.system.clone(), severity)).or_default().push(v);
            continue;
        }
        let Some(of) = meta.variant_of.as_deref() else {
            let reason =
                if perturbation.is_some() { ExclusionReason::NoVariantOf } else { ExclusionReason::NotAVariant };
            exclusions.push(exclude(reason));
            continue;
        };
        let Some(original) = by_key.get(&(v.system.as_str(), of, v.run.as_deref())) else {
            exclusions.push(exclude(ExclusionReason::OriginalMissing));
            continue;
        };
        let key = (v.system.clone(), perturbation.unwrap_or_else(|| "unspecified".into()), severity);
        groups.entry(key).or_default().push(Pair { original, variant: v });
    }

    let mut keys: Vec<_> = groups.keys().cloned().collect();
    keys.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(&b.1)).then_with(|| severity_order(&a.2, &b.2)));
    let pairs_total = groups.values().map(Vec::len).sum();

    let mut deltas = Vec::new();
    let mut drops: Vec<Vec<WorstPair>> = vec![Vec::new(); settings.metrics.len()];
    for key in &keys {
        let Some(pairs) = groups.get_mut(key) else { continue };
        // A canonical order, so that the bootstrap does not depend on the order of the input.
        pairs.sort_by(|a, b| {
            (a.variant.id.as_str(), a.variant.run.as_deref()).cmp(&(b.variant.id.as_str(), b.variant.run.as_deref()))
        });
        let flips = correct.map(|(oc, vc, t)| {
            let (mut n, mut oc_n, mut c2i, mut i2c) = (0, 0, 0, 0);
            for p in pairs.iter() {
                let (Some(o), Some(v)) = (p.original.values[oc], p.variant.values[vc]) else { continue };
                n += 1;
                let (o, v) = (o >= t, v >= t);
                oc_n += usize::from(o);
                c2i += usize::from(o && !v);
                i2c += usize::from(!o && v);
            }
            (n > 0).then(|| Flips {
                n,
                original_correct: oc_n,
                correct_to_incorrect: c2i,
                incorrect_to_correct: i2c,
                rate: c2i as f64 / n as f64,
                reverse_rate: i2c as f64 / n as f64,
            })
        });
        for (mi, (metric, &(oc, vc))) in settings.metrics.iter().zip(&cols).enumerate() {
            let (mut o, mut v, mut d) = (Vec::new(), Vec::new(), Vec::new());
            for p in pairs.iter() {
                if let (Some(x), Some(y)) = (p.original.values[oc], p.variant.values[vc]) {
                    o.push(x);
                    v.push(y);
                    d.push(y - x);
                    if y < x {
                        drops[mi].push(worst_pair(metric, key, p, x, y));
                    }
                }
            }
            let n = d.len();
            let worse = d.iter().filter(|&&x| x < -settings.tolerance).count();
            let ci = if n > 0 {
                Some(bootstrap_ci(&d, mean, settings.bootstrap, settings.level, settings.seed)?)
            } else {
                None
            };
            deltas.push(DeltaRow {
                metric: metric.clone(),
                system: key.0.clone(),
                perturbation: key.1.clone(),
                severity: key.2.clone(),
                n,
                empty: pairs.len() - n,
                original_mean: (n > 0).then(|| mean(&o)),
                variant_mean: (n > 0).then(|| mean(&v)),
                delta: ci.map(|c| c.estimate),
                ci_low: ci.map(|c| c.low),
                ci_high: ci.map(|c| c.high),
                worse,
                worse_share: share(worse, n),
                flips: flips.clone().flatten(),
            });
        }
    }
    // Metric by metric (stable: groups stay in their order within a metric).
    deltas.sort_by_key(|d: &DeltaRow| settings.metrics.iter().position(|m| *m == d.metric));
    let mut worst = Vec::new();
    for mut d in drops {
        d.sort_by(|a, b| {
            a.delta
                .total_cmp(&b.delta)
                .then_with(|| a.system.cmp(&b.system))
                .then_with(|| a.variant_id.cmp(&b.variant_id))
        });
        worst.extend(d.into_iter().take(settings.worst));
    }

    let ood = ood_reports(variants, settings, ood)?;
    Ok(RobustnessReport {
        metrics: settings.metrics.clone(),
        correct: settings.correct.clone(),
        tolerance: settings.tolerance,
        level: settings.level,
        bootstrap: settings.bootstrap,
        seed: settings.seed,
        pairs: pairs_total,
        deltas,
        ood,
        worst,
        exclusions,
    })
}

fn worst_pair(metric: &str, key: &(String, String, String), p: &Pair, x: f64, y: f64) -> WorstPair {
    WorstPair {
        metric: metric.to_string(),
        system: key.0.clone(),
        perturbation: key.1.clone(),
        severity: key.2.clone(),
        original_id: p.original.id.clone(),
        variant_id: p.variant.id.clone(),
        run: p.variant.run.clone(),
        original: x,
        variant: y,
        delta: y - x,
        original_query: p.original.query.clone(),
        variant_query: p.variant.query.clone(),
        original_answer: p.original.answer.clone(),
        variant_answer: p.variant.answer.clone(),
    }
}

/// The mean of column `col` over `rows`.
fn column_mean(name: &str, col: usize, rows: &[&ScoredRecord]) -> ColumnMean {
    let xs: Vec<f64> = rows.iter().filter_map(|r| r.values[col]).collect();
    ColumnMean { column: name.to_string(), n: xs.len(), mean: (!xs.is_empty()).then(|| mean(&xs)) }
}

fn ood_reports(
    variants: &ScoreTable,
    settings: &RobustnessSettings,
    groups: BTreeMap<(String, String), Vec<&ScoredRecord>>,
) -> Result<Vec<OodReport>, RobustnessError> {
    if groups.is_empty() {
        return Ok(Vec::new());
    }
    let find = |c: &str| variants.columns.iter().position(|x| x == c);
    let abstention = match &settings.abstention {
        Some(a) => Some((a.clone(), variants.column(&a.column)?)),
        None => ABSTENTION_COLUMNS.iter().find_map(|&(c, t, at_least)| {
            find(c).map(|i| (Abstention { column: c.to_string(), threshold: t, at_least }, i))
        }),
    };
    let hallucination = match &settings.hallucination {
        Some(h) => Some((h.clone(), variants.column(h)?)),
        None => HALLUCINATION_COLUMNS.iter().find_map(|&c| find(c).map(|i| (c.to_string(), i))),
    };
    let mut out = Vec::new();
    for ((system, severity), rows) in groups {
        let abstention = abstention.as_ref().map(|(rule, col)| {
            let xs: Vec<f64> = rows.iter().filter_map(|r| r.values[*col]).collect();
            let abstained =
                xs.iter().filter(|&&x| if rule.at_least { x >= rule.threshold } else { x < rule.threshold }).count();
            AbstentionRate { rule: rule.clone(), n: xs.len(), abstained, rate: share(abstained, xs.len()) }
        });
        let metrics =
            settings.metrics.iter().filter_map(|m| find(m).map(|col| column_mean(m, col, &rows))).collect::<Vec<_>>();
        out.push(OodReport {
            system,
            severity,
            n: rows.len(),
            abstention,
            hallucination: hallucination.as_ref().map(|(h, col)| column_mean(h, *col, &rows)),
            metrics,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
