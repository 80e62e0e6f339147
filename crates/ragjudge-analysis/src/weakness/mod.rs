//! Weakness identification (HCAT §6.2): a metric's rows split into strata (topic, query type,
//! any column), per system.
//!
//! Marginal analysis: per stratum, n, mean with a percentile-bootstrap interval, the mean of the
//! system's other rows, the difference, a two-sided Mann-Whitney p-value of the stratum against
//! the rest, the p-value adjusted for every test of the analysis (Benjamini-Hochberg), and the
//! effect size `P(stratum value > other value)`. Bivariate analysis: every pair of dimensions, a
//! cell per pair of values with n, mean and the same test against the system's other cells;
//! cells with fewer than `min_n` rows are marked and not tested, never hidden. All tests of an
//! analysis form one Benjamini-Hochberg family. The weakest slices and cells are the significant
//! ones (adjusted p below `alpha`) whose mean is below the rest's, worst first.

mod files;
mod job;
mod table;

pub use files::{write_files, FilesError};
pub use job::{MetricWeakness, WeaknessArtifact, WeaknessJob, WeaknessJobError, WeaknessOutcome, WeaknessRows};
pub use table::StrataTable;
use table::NONE;

use ragjudge_stats::bootstrap::{bootstrap_mean_ci, Ci};
use ragjudge_stats::hypothesis::{benjamini_hochberg, MannWhitney, MwuMethod, RankedSample};
use ragjudge_stats::StatsError;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

/// Why an analysis could not run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WeaknessError {
    /// No dimension to split by.
    #[error("no strata dimension given (e.g. --by topic,query_type)")]
    NoDimension,
    /// A row with a different number of strata than dimensions.
    #[error("a row has {got} strata for {want} dimensions")]
    Width {
        /// Strata in the row.
        got: usize,
        /// Dimensions.
        want: usize,
    },
    /// Settings out of range.
    #[error("{0}")]
    Settings(String),
}

/// One scored record: its system, its value of the metric, and its stratum in each dimension
/// (`None`: the record has none and is left out of that dimension).
#[derive(Debug, Clone, PartialEq)]
pub struct WeaknessRow {
    /// System.
    pub system: String,
    /// The metric's value.
    pub value: f64,
    /// One stratum per dimension.
    pub strata: Vec<Option<String>>,
}

/// How the analysis runs.
#[derive(Debug, Clone, PartialEq)]
pub struct WeaknessSettings {
    /// Dimension names, in the order of [`WeaknessRow::strata`].
    pub dimensions: Vec<String>,
    /// Level of the adjusted p-value below which a slice counts as significant.
    pub alpha: f64,
    /// Fewest rows a stratum or cell needs to be tested (smaller ones are reported, marked).
    pub min_n: usize,
    /// Bootstrap resamples of the interval of a stratum's mean.
    pub bootstrap: usize,
    /// Confidence level of the intervals.
    pub level: f64,
    /// Seed of the bootstrap.
    pub seed: u64,
}

impl Default for WeaknessSettings {
    fn default() -> Self {
        Self { dimensions: Vec::new(), alpha: 0.05, min_n: 5, bootstrap: 1000, level: 0.95, seed: 0 }
    }
}

/// One stratum of one dimension of one system.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SliceReport {
    /// System.
    pub system: String,
    /// Dimension, e.g. `topic`.
    pub dimension: String,
    /// Stratum, e.g. `Photosynthesis`.
    pub stratum: String,
    /// Rows in the stratum.
    pub n: usize,
    /// Their mean.
    pub mean: f64,
    /// Lower end of the bootstrap interval of the mean.
    pub ci_low: f64,
    /// Upper end.
    pub ci_high: f64,
    /// The system's other rows of this dimension.
    pub rest_n: usize,
    /// Their mean (`None` without other rows).
    pub rest_mean: Option<f64>,
    /// `mean - rest_mean`.
    pub difference: Option<f64>,
    /// Two-sided Mann-Whitney p-value, stratum against the rest (`None` below `min_n` or without
    /// other rows).
    pub p_value: Option<f64>,
    /// Benjamini-Hochberg adjusted over every tested slice of the analysis.
    pub p_adjusted: Option<f64>,
    /// `P(a stratum value > a value of the rest)`, ties counting half.
    pub effect: Option<f64>,
    /// Whether the stratum has fewer than `min_n` rows (reported, not tested).
    pub small: bool,
    /// Adjusted p-value below `alpha`.
    pub significant: bool,
}

/// One cell of a pair of dimensions of one system.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CellReport {
    /// System.
    pub system: String,
    /// The two dimensions.
    pub dimensions: [String; 2],
    /// The two strata.
    pub strata: [String; 2],
    /// Rows in the cell.
    pub n: usize,
    /// Their mean.
    pub mean: f64,
    /// The system's other rows that have strata in both dimensions.
    pub rest_n: usize,
    /// Their mean.
    pub rest_mean: Option<f64>,
    /// `mean - rest_mean`.
    pub difference: Option<f64>,
    /// Two-sided Mann-Whitney p-value, cell against the rest (`None` below `min_n`).
    pub p_value: Option<f64>,
    /// Benjamini-Hochberg adjusted over every tested slice and cell of the analysis.
    pub p_adjusted: Option<f64>,
    /// Fewer than `min_n` rows: shown, but not tested.
    pub small: bool,
    /// Adjusted p-value below `alpha`.
    pub significant: bool,
}

/// The analysis of one metric.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WeaknessReport {
    /// Per system, dimension and stratum.
    pub marginal: Vec<SliceReport>,
    /// Per system, pair of dimensions and pair of strata.
    pub bivariate: Vec<CellReport>,
    /// Indices into `marginal` of the significant slices below the rest, worst difference first.
    pub weakest: Vec<usize>,
    /// Indices into `bivariate` of the significant cells below the rest, worst difference first.
    pub weakest_cells: Vec<usize>,
    /// Rows left out of a dimension for having no stratum there, per dimension.
    pub without_stratum: BTreeMap<String, usize>,
}

/// Runs the marginal and bivariate analyses of `rows`.
pub fn analyse(rows: &[WeaknessRow], settings: &WeaknessSettings) -> Result<WeaknessReport, WeaknessError> {
    check_settings(settings)?;
    let mut table = StrataTable::new(settings.dimensions.len());
    for r in rows {
        let strata: Vec<Option<&str>> = r.strata.iter().map(Option::as_deref).collect();
        table.push(&r.system, &strata)?;
    }
    let values: Vec<Option<f64>> = rows.iter().map(|r| Some(r.value)).collect();
    analyse_table(&table, &values, settings)
}

fn check_settings(settings: &WeaknessSettings) -> Result<(), WeaknessError> {
    if settings.dimensions.is_empty() {
        return Err(WeaknessError::NoDimension);
    }
    if !(settings.alpha > 0.0 && settings.alpha < 1.0) {
        return Err(WeaknessError::Settings(format!("alpha must be in (0, 1), got {}", settings.alpha)));
    }
    Ok(())
}

/// Runs the marginal and bivariate analyses of one metric over `table`: `values[i]` is row
/// `i`'s value, `None` leaving the row out. Memory beyond the table and the values is a few
/// words per row of the largest system, however many strata there are: each system's rows of a
/// dimension (or pair of dimensions) are ranked once, and every stratum (or cell) is tested
/// against the rest from those ranks ([`RankedSample`]).
pub fn analyse_table(
    table: &StrataTable,
    values: &[Option<f64>],
    settings: &WeaknessSettings,
) -> Result<WeaknessReport, WeaknessError> {
    check_settings(settings)?;
    let d = settings.dimensions.len();
    if table.width() != d {
        return Err(WeaknessError::Width { got: table.width(), want: d });
    }
    if values.len() != table.len() {
        return Err(WeaknessError::Settings(format!("{} values for {} rows", values.len(), table.len())));
    }
    if let Some(i) = values.iter().position(|v| v.is_some_and(|v| !v.is_finite())) {
        let system = &table.systems.names[table.system[i] as usize];
        return Err(WeaknessError::Settings(format!("a value of system `{system}` is not finite")));
    }
    // The rows of each system that have a value, systems in order of first appearance.
    let mut by_system: Vec<Vec<u32>> = vec![Vec::new(); table.systems.names.len()];
    for (i, v) in values.iter().enumerate() {
        if v.is_some() {
            by_system[table.system[i] as usize].push(i as u32);
        }
    }
    let mut without_stratum = BTreeMap::new();
    for (k, name) in settings.dimensions.iter().enumerate() {
        let n = by_system.iter().flatten().filter(|&&row| table.level(row as usize, k) == NONE).count();
        without_stratum.insert(name.clone(), n);
    }
    #[allow(clippy::expect_used, reason = "`by_system` holds only the rows with a value")]
    let value = |row: usize| values[row].expect("rows of by_system have values");

    let mut marginal = Vec::new();
    for (sys, rows) in by_system.iter().enumerate().filter(|(_, r)| !r.is_empty()) {
        let system = &table.systems.names[sys];
        for (k, dim) in settings.dimensions.iter().enumerate() {
            let names = &table.levels[k].names;
            let key = |row: usize| Some(table.level(row, k)).filter(|&c| c != NONE).map(u64::from);
            let pop = Population::new(rows, value, key, |a, b| names[*a as usize].cmp(&names[*b as usize]));
            // The bootstrap dominates the time on large strata: one stratum per core.
            let groups: Vec<(Vec<f64>, Ci)> = (0..pop.groups.len())
                .into_par_iter()
                .map(|g| {
                    let group = pop.group(g);
                    let ci = bootstrap_mean_ci(&group, settings.bootstrap.max(1), settings.level, settings.seed)?;
                    Ok((group, ci))
                })
                .collect::<Result<_, StatsError>>()
                .map_err(|e| WeaknessError::Settings(e.to_string()))?;
            for (g, ((code, _), (group, ci))) in pop.groups.iter().zip(groups).enumerate() {
                let Comparison { mean: m, rest_n, rest_mean, small, test } = pop.compare(g, &group, settings)?;
                marginal.push(SliceReport {
                    system: system.clone(),
                    dimension: dim.clone(),
                    stratum: names[*code as usize].clone(),
                    n: group.len(),
                    mean: m,
                    ci_low: ci.low,
                    ci_high: ci.high,
                    rest_n,
                    rest_mean,
                    difference: rest_mean.map(|r| m - r),
                    p_value: test.map(|t| t.p_value),
                    p_adjusted: None,
                    effect: test.map(|t| t.effect),
                    small,
                    significant: false,
                });
            }
        }
    }
    let mut bivariate = Vec::new();
    for (sys, rows) in by_system.iter().enumerate().filter(|(_, r)| !r.is_empty()) {
        for a in 0..d {
            for b in a + 1..d {
                let (na, nb) = (&table.levels[a].names, &table.levels[b].names);
                let key = |row: usize| {
                    let (x, y) = (table.level(row, a), table.level(row, b));
                    (x != NONE && y != NONE).then(|| (u64::from(x) << 32) | u64::from(y))
                };
                let split = |k: &u64| ((k >> 32) as usize, (k & 0xffff_ffff) as usize);
                let order = |p: &u64, q: &u64| {
                    let ((px, py), (qx, qy)) = (split(p), split(q));
                    (&na[px], &nb[py]).cmp(&(&na[qx], &nb[qy]))
                };
                let pop = Population::new(rows, value, key, order);
                for (g, (code, _)) in pop.groups.iter().enumerate() {
                    let group = pop.group(g);
                    let Comparison { mean: m, rest_n, rest_mean, small, test } = pop.compare(g, &group, settings)?;
                    let (x, y) = split(code);
                    bivariate.push(CellReport {
                        system: table.systems.names[sys].clone(),
                        dimensions: [settings.dimensions[a].clone(), settings.dimensions[b].clone()],
                        strata: [na[x].clone(), nb[y].clone()],
                        n: group.len(),
                        mean: m,
                        rest_n,
                        rest_mean,
                        difference: rest_mean.map(|r| m - r),
                        p_value: test.map(|t| t.p_value),
                        p_adjusted: None,
                        small,
                        significant: false,
                    });
                }
            }
        }
    }
    // One family of tests: every tested slice and cell of the analysis.
    let slices: Vec<usize> = (0..marginal.len()).filter(|&i| marginal[i].p_value.is_some()).collect();
    let tested_cells: Vec<usize> = (0..bivariate.len()).filter(|&i| bivariate[i].p_value.is_some()).collect();
    let p: Vec<f64> = slices
        .iter()
        .map(|&i| marginal[i].p_value.unwrap_or(1.0))
        .chain(tested_cells.iter().map(|&i| bivariate[i].p_value.unwrap_or(1.0)))
        .collect();
    let adjusted = benjamini_hochberg(&p).map_err(|e| WeaknessError::Settings(e.to_string()))?;
    let (for_slices, for_cells) = adjusted.split_at(slices.len());
    for (&i, &a) in slices.iter().zip(for_slices) {
        marginal[i].p_adjusted = Some(a);
        marginal[i].significant = a < settings.alpha;
    }
    for (&i, &a) in tested_cells.iter().zip(for_cells) {
        bivariate[i].p_adjusted = Some(a);
        bivariate[i].significant = a < settings.alpha;
    }
    let weakest = worst_first(marginal.iter().map(|m| (m.significant, m.difference)));
    let weakest_cells = worst_first(bivariate.iter().map(|c| (c.significant, c.difference)));
    Ok(WeaknessReport { marginal, bivariate, weakest, weakest_cells, without_stratum })
}

/// One system's rows that have a stratum in a dimension (or a cell in a pair of dimensions):
/// their values, and the positions of each stratum's rows, strata in name order.
struct Population {
    values: Vec<f64>,
    groups: Vec<(u64, Vec<u32>)>,
    /// Ranked on first use: only when some group is large enough to be tested.
    ranked: std::sync::OnceLock<RankedSample>,
}

impl Population {
    fn new(
        rows: &[u32],
        value: impl Fn(usize) -> f64,
        key: impl Fn(usize) -> Option<u64>,
        order: impl Fn(&u64, &u64) -> std::cmp::Ordering,
    ) -> Self {
        let (mut values, mut groups, mut index) = (Vec::new(), Vec::<(u64, Vec<u32>)>::new(), HashMap::new());
        for &row in rows {
            let Some(k) = key(row as usize) else { continue };
            let g = *index.entry(k).or_insert_with(|| {
                groups.push((k, Vec::new()));
                groups.len() - 1
            });
            groups[g].1.push(values.len() as u32);
            values.push(value(row as usize));
        }
        groups.sort_by(|a, b| order(&a.0, &b.0));
        Self { values, groups, ranked: std::sync::OnceLock::new() }
    }

    /// Group `g`'s values.
    fn group(&self, g: usize) -> Vec<f64> {
        self.groups[g].1.iter().map(|&p| self.values[p as usize]).collect()
    }

    /// Group `g` (its values: `group`) against the other groups.
    fn compare(&self, g: usize, group: &[f64], s: &WeaknessSettings) -> Result<Comparison, WeaknessError> {
        let rest_n = self.values.len() - group.len();
        // The rest's sum in group order, as the concatenation of the other groups.
        let rest_sum: f64 = self
            .groups
            .iter()
            .enumerate()
            .filter(|&(h, _)| h != g)
            .flat_map(|(_, (_, p))| p)
            .map(|&p| self.values[p as usize])
            .sum();
        let small = group.len() < s.min_n;
        let test = if small || rest_n == 0 {
            None
        } else {
            #[allow(clippy::expect_used, reason = "`analyse` refuses values that are not finite")]
            let ranked =
                self.ranked.get_or_init(|| RankedSample::new(&self.values).expect("values are checked finite"));
            let positions = self.groups[g].1.iter().map(|&p| p as usize);
            Some(ranked.mann_whitney(positions, MwuMethod::Auto).map_err(|e| WeaknessError::Settings(e.to_string()))?)
        };
        let comparison = Comparison {
            mean: mean(group),
            rest_n,
            rest_mean: (rest_n > 0).then(|| rest_sum / rest_n as f64),
            small,
            test,
        };
        Ok(comparison)
    }
}

/// Indices of the significant items below the rest, most negative difference first.
fn worst_first(items: impl Iterator<Item = (bool, Option<f64>)>) -> Vec<usize> {
    let mut found: Vec<(usize, f64)> = items
        .enumerate()
        .filter_map(|(i, (significant, diff))| diff.filter(|&d| significant && d < 0.0).map(|d| (i, d)))
        .collect();
    found.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
    found.into_iter().map(|(i, _)| i).collect()
}

/// The mean of a group: never empty, and values are checked finite by [`analyse`].
#[allow(clippy::expect_used, reason = "groups are never empty and `analyse` refuses values that are not finite")]
fn mean(v: &[f64]) -> f64 {
    ragjudge_stats::mean(v).expect("groups are non-empty and finite")
}

/// A group against the rest: means, and the test unless the group is small or alone.
struct Comparison {
    mean: f64,
    rest_n: usize,
    rest_mean: Option<f64>,
    small: bool,
    test: Option<MannWhitney>,
}
