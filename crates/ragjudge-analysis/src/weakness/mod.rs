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

pub use files::{write_files, FilesError};

use ragjudge_stats::bootstrap::bootstrap_ci;
use ragjudge_stats::hypothesis::{benjamini_hochberg, mann_whitney_u, MannWhitney, MwuMethod};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    let d = settings.dimensions.len();
    if d == 0 {
        return Err(WeaknessError::NoDimension);
    }
    if !(settings.alpha > 0.0 && settings.alpha < 1.0) {
        return Err(WeaknessError::Settings(format!("alpha must be in (0, 1), got {}", settings.alpha)));
    }
    if let Some(r) = rows.iter().find(|r| r.strata.len() != d) {
        return Err(WeaknessError::Width { got: r.strata.len(), want: d });
    }
    if let Some(r) = rows.iter().find(|r| !r.value.is_finite()) {
        return Err(WeaknessError::Settings(format!("a value of system `{}` is not finite", r.system)));
    }
    let mut systems: Vec<&str> = Vec::new();
    for r in rows {
        if !systems.contains(&r.system.as_str()) {
            systems.push(&r.system);
        }
    }
    let mut without_stratum = BTreeMap::new();
    for (k, name) in settings.dimensions.iter().enumerate() {
        without_stratum.insert(name.clone(), rows.iter().filter(|r| r.strata[k].is_none()).count());
    }

    let mut marginal = Vec::new();
    for sys in &systems {
        let mine: Vec<&WeaknessRow> = rows.iter().filter(|r| r.system == *sys).collect();
        for (k, dim) in settings.dimensions.iter().enumerate() {
            let mut groups: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
            for r in &mine {
                if let Some(s) = &r.strata[k] {
                    groups.entry(s.as_str()).or_default().push(r.value);
                }
            }
            for (stratum, values) in &groups {
                let rest: Vec<f64> =
                    groups.iter().filter(|(s, _)| *s != stratum).flat_map(|(_, v)| v.iter().copied()).collect();
                marginal.push(slice(sys, dim, stratum, values, &rest, settings)?);
            }
        }
    }
    let mut bivariate = Vec::new();
    for sys in &systems {
        for a in 0..d {
            for b in a + 1..d {
                let mut cells: BTreeMap<(&str, &str), Vec<f64>> = BTreeMap::new();
                for r in rows.iter().filter(|r| r.system == *sys) {
                    if let (Some(x), Some(y)) = (&r.strata[a], &r.strata[b]) {
                        cells.entry((x.as_str(), y.as_str())).or_default().push(r.value);
                    }
                }
                for ((x, y), values) in &cells {
                    let rest: Vec<f64> = cells
                        .iter()
                        .filter(|(key, _)| *key != &(*x, *y))
                        .flat_map(|(_, v)| v.iter().copied())
                        .collect();
                    let Comparison { mean: m, rest_mean, small, test } = compare(values, &rest, settings)?;
                    bivariate.push(CellReport {
                        system: sys.to_string(),
                        dimensions: [settings.dimensions[a].clone(), settings.dimensions[b].clone()],
                        strata: [x.to_string(), y.to_string()],
                        n: values.len(),
                        mean: m,
                        rest_n: rest.len(),
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
fn mean(v: &[f64]) -> f64 {
    ragjudge_stats::mean(v).expect("groups are non-empty and finite")
}

/// A group against the rest: means, and the test unless the group is small or alone.
struct Comparison {
    mean: f64,
    rest_mean: Option<f64>,
    small: bool,
    test: Option<MannWhitney>,
}

fn compare(values: &[f64], rest: &[f64], s: &WeaknessSettings) -> Result<Comparison, WeaknessError> {
    let small = values.len() < s.min_n;
    let test = if small || rest.is_empty() {
        None
    } else {
        Some(mann_whitney_u(values, rest, MwuMethod::Auto).map_err(|e| WeaknessError::Settings(e.to_string()))?)
    };
    Ok(Comparison { mean: mean(values), rest_mean: (!rest.is_empty()).then(|| mean(rest)), small, test })
}

fn slice(
    system: &str,
    dimension: &str,
    stratum: &str,
    values: &[f64],
    rest: &[f64],
    s: &WeaknessSettings,
) -> Result<SliceReport, WeaknessError> {
    let ci = bootstrap_ci(values, mean, s.bootstrap.max(1), s.level, s.seed)
        .map_err(|e| WeaknessError::Settings(e.to_string()))?;
    let Comparison { mean: m, rest_mean, small, test } = compare(values, rest, s)?;
    Ok(SliceReport {
        system: system.to_string(),
        dimension: dimension.to_string(),
        stratum: stratum.to_string(),
        n: values.len(),
        mean: m,
        ci_low: ci.low,
        ci_high: ci.high,
        rest_n: rest.len(),
        rest_mean,
        difference: rest_mean.map(|r| m - r),
        p_value: test.map(|t| t.p_value),
        p_adjusted: None,
        effect: test.map(|t| t.effect),
        small,
        significant: false,
    })
}
