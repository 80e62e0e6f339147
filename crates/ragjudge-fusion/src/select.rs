//! The feature-selection strategies of the static baselines of the CIU paper (Choi et al.,
//! *Combining Multiple Metrics for Evaluating Retrieval-Augmented Conversations*, §5.2 "Static
//! Combination with Feature Selection", and Table 2), each as the scikit-learn selector the paper
//! points to:
//!
//! - Univariate: `SelectKBest(f_regression, k = n_features - 1)`, the F test of each column's
//!   Pearson correlation with the target; the k highest F are kept (ties keep the later column,
//!   as numpy's stable argsort).
//! - Random Forest: `SelectFromModel(RandomForestRegressor(n_estimators=100))`: a column is kept
//!   when its impurity-based importance (Breiman, *Random forests*, 2001; mean decrease in
//!   impurity) is at least the mean importance.
//! - Recursive-k: `RFE(SVR(kernel="linear"), n_features_to_select = n_features - k, step=1)`
//!   (Guyon, Weston, Barnhill and Vapnik, *Gene selection for cancer classification using support
//!   vector machines*, 2002): refit, drop the column with the smallest coef^2 (the first of equal
//!   ones), repeat.
//! - Forward-k / Backward-k: `SequentialFeatureSelector(SVR(), n_features_to_select=k,
//!   direction=..., cv=5)`: greedily add (remove) the column whose addition (removal) gives the
//!   best mean 5-fold R^2, the first such column on ties, until k columns are selected.
//! - All: every column.
//!
//! Table 2 has eighteen rows (the text counts seventeen strategies and divides its selection
//! ratios by 17); [`table2_strategies`] returns all eighteen rows in order, and [`select_many`]
//! runs several strategies on one data set, scoring each column subset once.
//!
//! Differences from scikit-learn: the SVRs are [`crate::svr`]'s (see its differences); the random
//! forest is this module's own (bootstrap CART regression trees grown to purity over all columns,
//! squared-error splits, importances averaged over the trees) and draws its bootstrap samples
//! from ChaCha8 seeded with `seed`, so its importances are close to, not equal to, scikit-learn's
//! for a given `random_state`; the sequential selectors need at least 10 rows (2 per fold).

use std::collections::HashMap;
use std::fmt;

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use statrs::function::beta::checked_beta_reg;

use crate::svr::{check_xy, cross_val_r2, Kernel, Svr, SvrParams};
use crate::FusionError;

/// The folds of the sequential selectors' inner cross-validation (scikit-learn's `cv=5`).
const SEQUENTIAL_FOLDS: usize = 5;
/// The trees of the random forest (scikit-learn's `n_estimators=100`).
const FOREST_TREES: usize = 100;

/// One feature-selection strategy of CIU Table 2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Strategy {
    /// `SelectKBest(f_regression, k = n_features - 1)`: the paper's Univariate row keeps 5 of 6.
    Univariate,
    /// `SelectFromModel(RandomForestRegressor(n_estimators=100, random_state=seed))`, threshold
    /// the mean importance.
    RandomForest,
    /// `RFE(SVR(kernel="linear"), n_features_to_select = n_features - k)`: removes k columns
    /// (Recursive-5 keeps 1 of 6).
    Recursive(usize),
    /// `SequentialFeatureSelector(SVR(), n_features_to_select=k, direction="forward", cv=5)`.
    Forward(usize),
    /// `SequentialFeatureSelector(SVR(), n_features_to_select=k, direction="backward", cv=5)`.
    Backward(usize),
    /// Every column.
    All,
}

impl Strategy {
    /// The row label of Table 2: "Univariate", "Random Forest", "Recursive-3", "Forward-2",
    /// "Backward-1", "All".
    pub fn label(&self) -> String {
        match self {
            Strategy::Univariate => "Univariate".into(),
            Strategy::RandomForest => "Random Forest".into(),
            Strategy::Recursive(k) => format!("Recursive-{k}"),
            Strategy::Forward(k) => format!("Forward-{k}"),
            Strategy::Backward(k) => format!("Backward-{k}"),
            Strategy::All => "All".into(),
        }
    }

    /// The strategy of a [`Strategy::label`], None for anything else.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "Univariate" => return Some(Strategy::Univariate),
            "Random Forest" => return Some(Strategy::RandomForest),
            "All" => return Some(Strategy::All),
            _ => {}
        }
        let (name, k) = s.split_once('-')?;
        let k: usize = k.parse().ok()?;
        match name {
            "Recursive" => Some(Strategy::Recursive(k)),
            "Forward" => Some(Strategy::Forward(k)),
            "Backward" => Some(Strategy::Backward(k)),
            _ => None,
        }
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label())
    }
}

/// The rows of Table 2 in order, for `n_features` columns: Univariate, Random Forest,
/// Recursive-(n-1)..1, Forward-1..(n-1), Backward-1..(n-1), All (eighteen rows for six metrics).
/// Univariate needs two columns and is left out for one.
pub fn table2_strategies(n_features: usize) -> Vec<Strategy> {
    let ks = 1..n_features.max(1);
    let mut out = Vec::new();
    if n_features >= 2 {
        out.push(Strategy::Univariate);
    }
    out.push(Strategy::RandomForest);
    out.extend(ks.clone().rev().map(Strategy::Recursive));
    out.extend(ks.clone().map(Strategy::Forward));
    out.extend(ks.map(Strategy::Backward));
    out.push(Strategy::All);
    out
}

/// The column indices `strategy` selects on rows `x` and targets `y`, ascending. `seed` only
/// matters for [`Strategy::RandomForest`].
pub fn select(strategy: Strategy, x: &[Vec<f64>], y: &[f64], seed: u64) -> Result<Vec<usize>, FusionError> {
    select_cached(strategy, x, y, seed, &mut ScoreCache::new())
}

/// [`select`] for several strategies on the same data, in order. The sequential selectors share
/// their cross-validation scores (a column subset is scored once), so all of Table 2 costs about
/// a third of separate calls.
pub fn select_many(
    strategies: &[Strategy],
    x: &[Vec<f64>],
    y: &[f64],
    seed: u64,
) -> Result<Vec<Vec<usize>>, FusionError> {
    let mut cache = ScoreCache::new();
    strategies.iter().map(|&strategy| select_cached(strategy, x, y, seed, &mut cache)).collect()
}

/// Mean cross-validated R^2 of `SVR()` by kept column subset.
type ScoreCache = HashMap<Vec<usize>, f64>;

fn select_cached(
    strategy: Strategy,
    x: &[Vec<f64>],
    y: &[f64],
    seed: u64,
    cache: &mut ScoreCache,
) -> Result<Vec<usize>, FusionError> {
    let n_features = check_xy(x, y)?;
    match strategy {
        Strategy::Univariate => univariate(x, y, n_features),
        Strategy::RandomForest => {
            let importances = forest_importances(x, y, FOREST_TREES, seed)?;
            let mean = importances.iter().sum::<f64>() / n_features as f64;
            Ok((0..n_features).filter(|&j| importances[j] >= mean).collect())
        }
        Strategy::Recursive(k) => {
            check_k(strategy, k, n_features)?;
            recursive(x, y, n_features - k)
        }
        Strategy::Forward(k) => {
            check_k(strategy, k, n_features)?;
            sequential(x, y, k, false, cache)
        }
        Strategy::Backward(k) => {
            check_k(strategy, k, n_features)?;
            sequential(x, y, k, true, cache)
        }
        Strategy::All => Ok((0..n_features).collect()),
    }
}

fn check_k(strategy: Strategy, k: usize, n_features: usize) -> Result<(), FusionError> {
    if k == 0 || k >= n_features {
        return Err(FusionError::Params(format!(
            "{}: k must be between 1 and {} for {n_features} features",
            strategy.label(),
            n_features.saturating_sub(1)
        )));
    }
    Ok(())
}

/// `SelectKBest(f_regression, k = n_features - 1)`: drops the column with the lowest F.
fn univariate(x: &[Vec<f64>], y: &[f64], n_features: usize) -> Result<Vec<usize>, FusionError> {
    if n_features < 2 {
        return Err(FusionError::Params("Univariate: needs at least 2 features".into()));
    }
    let (f_statistic, _) = f_regression(x, y)?;
    // numpy's stable argsort puts the lowest F first, the earlier column first among equal F.
    let mut order: Vec<usize> = (0..n_features).collect();
    order.sort_by(|&a, &b| f_statistic[a].total_cmp(&f_statistic[b]));
    let mut kept = order[1..].to_vec();
    kept.sort_unstable();
    Ok(kept)
}

/// scikit-learn `f_regression(x, y)` (center=True, force_finite=True): for each column the F
/// statistic r^2 / (1 - r^2) (n - 2) of its Pearson correlation r with `y`, and its p-value
/// P(F(1, n - 2) > F). A constant column or target gives F = 0, p = 1; a perfect correlation
/// gives F = f64::MAX, p = 0.
pub fn f_regression(x: &[Vec<f64>], y: &[f64]) -> Result<(Vec<f64>, Vec<f64>), FusionError> {
    let n_features = check_xy(x, y)?;
    let n = x.len();
    if n < 3 {
        return Err(FusionError::Data(format!("f_regression needs at least 3 rows, got {n}")));
    }
    let dof = (n - 2) as f64;
    let y_mean = y.iter().sum::<f64>() / n as f64;
    let y_centered: Vec<f64> = y.iter().map(|v| v - y_mean).collect();
    let y_norm = y_centered.iter().map(|v| v * v).sum::<f64>().sqrt();
    let mut f_statistic = Vec::with_capacity(n_features);
    let mut p_values = Vec::with_capacity(n_features);
    for j in 0..n_features {
        let r = column_correlation(x, j, &y_centered, y_norm);
        let (f, p) = f_test(r, dof);
        f_statistic.push(f);
        p_values.push(p);
    }
    Ok((f_statistic, p_values))
}

/// scikit-learn `r_regression` for column `j`: (y - mean y) . x_j / (|x_j - mean x_j| |y - mean
/// y|), the column norm from moments as scikit-learn computes it; 0 where undefined.
fn column_correlation(x: &[Vec<f64>], j: usize, y_centered: &[f64], y_norm: f64) -> f64 {
    let n = x.len() as f64;
    let mean = x.iter().map(|row| row[j]).sum::<f64>() / n;
    let squares: f64 = x.iter().map(|row| row[j] * row[j]).sum();
    let x_norm = (squares - n * mean * mean).sqrt();
    let cross: f64 = x.iter().zip(y_centered).map(|(row, yc)| yc * row[j]).sum();
    let r = cross / x_norm / y_norm;
    if r.is_nan() {
        0.0
    } else {
        r
    }
}

/// The F statistic of correlation `r` on `dof` degrees of freedom and its upper-tail p-value
/// I_{dof / (dof + F)}(dof / 2, 1 / 2) (scipy `f.sf(F, 1, dof)`).
fn f_test(r: f64, dof: f64) -> (f64, f64) {
    let r2 = r * r;
    let f = r2 / (1.0 - r2) * dof;
    if f.is_nan() {
        return (0.0, 1.0);
    }
    if f.is_infinite() {
        return (f64::MAX, 0.0);
    }
    // r^2 rounded above 1 gives F < 0, whose upper tail is 1 (as scipy).
    let p = checked_beta_reg(dof / 2.0, 0.5, dof / (dof + f)).unwrap_or(1.0);
    (f, p)
}

/// RFE with a linear SVR: keeps `keep` columns.
fn recursive(x: &[Vec<f64>], y: &[f64], keep: usize) -> Result<Vec<usize>, FusionError> {
    let params = SvrParams { kernel: Kernel::Linear, ..SvrParams::default() };
    let mut support: Vec<usize> = (0..x[0].len()).collect();
    while support.len() > keep {
        let model = Svr::fit(&columns(x, &support), y, &params)?;
        let coef = model
            .linear_coef()
            .ok_or_else(|| FusionError::Training("RFE: the linear SVR has no coefficients".into()))?;
        // The smallest coef^2; the first of equal ones (numpy's stable argsort).
        let mut weakest = 0;
        for (position, w) in coef.iter().enumerate() {
            if w * w < coef[weakest] * coef[weakest] {
                weakest = position;
            }
        }
        support.remove(weakest);
    }
    Ok(support)
}

/// Sequential selection with `SVR()` scored by mean 5-fold R^2; `backward` removes columns.
fn sequential(
    x: &[Vec<f64>],
    y: &[f64],
    k: usize,
    backward: bool,
    cache: &mut ScoreCache,
) -> Result<Vec<usize>, FusionError> {
    let n_features = x[0].len();
    let params = SvrParams::default();
    // Columns already added (forward) or removed (backward).
    let mut done = vec![false; n_features];
    let steps = if backward { n_features - k } else { k };
    for _ in 0..steps {
        let mut best: Option<(usize, f64)> = None;
        for candidate in (0..n_features).filter(|&j| !done[j]) {
            let kept: Vec<usize> = (0..n_features).filter(|&j| (done[j] || j == candidate) != backward).collect();
            let score = match cache.get(&kept) {
                Some(&score) => score,
                None => {
                    let score = cross_val_r2(&columns(x, &kept), y, &params, SEQUENTIAL_FOLDS)?;
                    cache.insert(kept, score);
                    score
                }
            };
            if best.is_none_or(|(_, best_score)| score > best_score) {
                best = Some((candidate, score));
            }
        }
        if let Some((chosen, _)) = best {
            done[chosen] = true;
        }
    }
    Ok((0..n_features).filter(|&j| done[j] != backward).collect())
}

/// The rows of `x` restricted to `kept` columns.
fn columns(x: &[Vec<f64>], kept: &[usize]) -> Vec<Vec<f64>> {
    x.iter().map(|row| kept.iter().map(|&j| row[j]).collect()).collect()
}

/// Impurity-based importances of a random forest of `trees` regression trees (each grown to
/// purity on a bootstrap sample, every column considered at every split, squared-error
/// criterion), normalised to sum to 1 (all zero when no tree could split). Deterministic for a
/// `seed`.
pub fn forest_importances(x: &[Vec<f64>], y: &[f64], trees: usize, seed: u64) -> Result<Vec<f64>, FusionError> {
    let n_features = check_xy(x, y)?;
    if trees == 0 {
        return Err(FusionError::Params("a random forest needs at least one tree".into()));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut total = vec![0.0; n_features];
    for _ in 0..trees {
        let tree = tree_importances(x, y, &bootstrap_weights(x.len(), &mut rng), &mut rng);
        if let Some(tree) = tree {
            total.iter_mut().zip(&tree).for_each(|(t, v)| *t += v);
        }
    }
    Ok(normalised(total))
}

/// How many times each row is drawn in n draws with replacement.
fn bootstrap_weights(n: usize, rng: &mut ChaCha8Rng) -> Vec<f64> {
    let mut weights = vec![0.0; n];
    for _ in 0..n {
        weights[rng.gen_range(0..n)] += 1.0;
    }
    weights
}

fn normalised(mut values: Vec<f64>) -> Vec<f64> {
    let sum: f64 = values.iter().sum();
    if sum > 0.0 {
        values.iter_mut().for_each(|v| *v /= sum);
    }
    values
}

/// The total weight and weighted target sum of some rows.
#[derive(Clone, Copy, Default)]
struct Moments {
    weight: f64,
    sum: f64,
}

impl Moments {
    fn add(&mut self, w: f64, y: f64) {
        self.weight += w;
        self.sum += w * y;
    }
}

/// The weighted variance of the targets of `rows`, times their total weight.
fn weighted_squared_error(y: &[f64], weights: &[f64], rows: &[usize]) -> f64 {
    let weight: f64 = rows.iter().map(|&i| weights[i]).sum();
    let mean = rows.iter().map(|&i| weights[i] * y[i]).sum::<f64>() / weight;
    rows.iter().map(|&i| weights[i] * (y[i] - mean) * (y[i] - mean)).sum()
}

/// A best split: the column, and the rows sorted by it with the left child first.
struct Split {
    feature: usize,
    sorted: Vec<usize>,
    left_len: usize,
}

/// One tree's importances (normalised to sum 1), None when its root could not split.
fn tree_importances(x: &[Vec<f64>], y: &[f64], weights: &[f64], rng: &mut ChaCha8Rng) -> Option<Vec<f64>> {
    let n_features = x[0].len();
    let mut importances = vec![0.0; n_features];
    let root: Vec<usize> = (0..x.len()).filter(|&i| weights[i] > 0.0).collect();
    let mut stack = vec![root];
    let mut splits = 0;
    while let Some(rows) = stack.pop() {
        let error = weighted_squared_error(y, weights, &rows);
        // scikit-learn's leaf test: fewer than 2 rows or impurity <= machine epsilon.
        let weight: f64 = rows.iter().map(|&i| weights[i]).sum();
        if rows.len() < 2 || error / weight <= f64::EPSILON {
            continue;
        }
        let Some(split) = best_split(x, y, weights, &rows, rng) else { continue };
        let (left, right) = split.sorted.split_at(split.left_len);
        let decrease = error - weighted_squared_error(y, weights, left) - weighted_squared_error(y, weights, right);
        importances[split.feature] += decrease;
        splits += 1;
        stack.push(right.to_vec());
        stack.push(left.to_vec());
    }
    (splits > 0).then(|| normalised(importances))
}

/// The split of `rows` that maximises sum_L^2 / w_L + sum_R^2 / w_R (scikit-learn's proxy for
/// the squared-error decrease), over columns in a random order; None if every column is constant.
fn best_split(x: &[Vec<f64>], y: &[f64], weights: &[f64], rows: &[usize], rng: &mut ChaCha8Rng) -> Option<Split> {
    // scikit-learn treats values closer than this as equal.
    const FEATURE_THRESHOLD: f64 = 1e-7;
    let mut features: Vec<usize> = (0..x[0].len()).collect();
    features.shuffle(rng);
    let mut total = Moments::default();
    rows.iter().for_each(|&i| total.add(weights[i], y[i]));
    let mut best: Option<(f64, Split)> = None;
    for feature in features {
        let mut sorted = rows.to_vec();
        sorted.sort_by(|&a, &b| x[a][feature].total_cmp(&x[b][feature]));
        let mut left = Moments::default();
        for p in 1..sorted.len() {
            let previous = sorted[p - 1];
            left.add(weights[previous], y[previous]);
            if x[sorted[p]][feature] <= x[previous][feature] + FEATURE_THRESHOLD {
                continue;
            }
            let right = Moments { weight: total.weight - left.weight, sum: total.sum - left.sum };
            let proxy = left.sum * left.sum / left.weight + right.sum * right.sum / right.weight;
            if best.as_ref().is_none_or(|(best_proxy, _)| proxy > *best_proxy) {
                best = Some((proxy, Split { feature, sorted: sorted.clone(), left_len: p }));
            }
        }
    }
    best.map(|(_, split)| split)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_round_trip() {
        for strategy in table2_strategies(6) {
            assert_eq!(Strategy::parse(&strategy.label()), Some(strategy));
        }
        assert_eq!(Strategy::parse("Forward-x"), None);
        assert_eq!(Strategy::parse("Sideways-2"), None);
    }

    #[test]
    fn table2_row_order() {
        let labels: Vec<String> = table2_strategies(6).iter().map(Strategy::label).collect();
        assert_eq!(labels.len(), 18);
        assert_eq!(labels[..4], ["Univariate", "Random Forest", "Recursive-5", "Recursive-4"]);
        assert_eq!(labels[7], "Forward-1");
        assert_eq!(labels[12], "Backward-1");
        assert_eq!(labels[17], "All");
    }

    #[test]
    fn f_test_edges() {
        assert_eq!(f_test(0.0, 10.0), (0.0, 1.0));
        assert_eq!(f_test(1.0, 10.0), (f64::MAX, 0.0));
    }
}
