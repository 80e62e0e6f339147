//! Clustering chunks into topic strata (HCAT section 2, step 3): k-means (`linfa-clustering`,
//! k-means++ initialisation, best of several runs) with k chosen by the mean silhouette
//! coefficient (Rousseeuw 1987) unless given, or DBSCAN (Ester et al. 1996), whose noise points
//! form a stratum of their own instead of disappearing.

use linfa::traits::{Fit, Predict, Transformer};
use linfa::DatasetBase;
use linfa_clustering::{Dbscan, KMeans, KMeansInit};
use ndarray::{Array2, ArrayView1};
use rand::seq::index::sample;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_xoshiro::Xoshiro256Plus;
use serde::Serialize;

use crate::error::TestgenError;

/// A partition of the points; `None` is DBSCAN noise.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Clustering {
    /// Cluster of each point, in input order.
    pub labels: Vec<Option<usize>>,
    /// Number of clusters (noise not counted).
    pub clusters: usize,
    /// Mean silhouette of the partition (noise points left out), when it has 2 or more clusters.
    pub silhouette: Option<f64>,
    /// k-means only: silhouette for every k tried, `(k, score)`.
    pub k_scores: Vec<(usize, f64)>,
    /// k-means only: within-cluster sum of squares.
    pub inertia: Option<f64>,
}

/// k-means settings.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct KMeansOptions {
    /// Fixed k; `None` chooses k in `k_min..=k_max` by silhouette.
    pub k: Option<usize>,
    /// Smallest k tried.
    pub k_min: usize,
    /// Largest k tried (capped at n - 1).
    pub k_max: usize,
    /// Runs with different initial centres; the lowest inertia wins (scikit-learn's `n_init`).
    pub runs: usize,
    /// Seed of the initialisation.
    pub seed: u64,
    /// Silhouettes are computed on at most this many points (a seeded sample), as scikit-learn's
    /// `silhouette_score(sample_size=...)` allows; the partition itself uses every point.
    pub silhouette_sample: usize,
}

impl Default for KMeansOptions {
    fn default() -> Self {
        Self { k: None, k_min: 2, k_max: 12, runs: 10, seed: 0, silhouette_sample: 2000 }
    }
}

fn numeric(step: &'static str) -> impl Fn(String) -> TestgenError {
    move |message| TestgenError::Numeric { step, message }
}

/// k-means with a fixed k: labels and inertia.
pub fn kmeans(data: &Array2<f64>, k: usize, runs: usize, seed: u64) -> Result<(Vec<usize>, f64), TestgenError> {
    let n = data.nrows();
    if k == 0 || k > n {
        return Err(TestgenError::Settings(format!("k-means with k = {k} needs 1..={n} points")));
    }
    let dataset = DatasetBase::from(data.clone());
    let model = KMeans::params_with_rng(k, Xoshiro256Plus::seed_from_u64(seed))
        .init_method(KMeansInit::KMeansPlusPlus)
        .n_runs(runs.max(1))
        .tolerance(1e-6)
        .max_n_iterations(300)
        .fit(&dataset)
        .map_err(|e| numeric("k-means")(e.to_string()))?;
    let labels = model.predict(data).to_vec();
    // Inertia recomputed from the final assignment (linfa reports it per run before the last
    // assignment step).
    let mut inertia = 0.0;
    for (row, &c) in data.outer_iter().zip(&labels) {
        inertia += squared(row, model.centroids().row(c));
    }
    Ok((labels, inertia))
}

/// k-means with k given or chosen by the best mean silhouette over `k_min..=k_max`.
pub fn kmeans_auto(data: &Array2<f64>, options: &KMeansOptions) -> Result<Clustering, TestgenError> {
    let n = data.nrows();
    if n < 2 {
        return Err(TestgenError::Settings(format!("clustering needs at least 2 chunks, got {n}")));
    }
    let candidates: Vec<usize> = match options.k {
        Some(k) => vec![k],
        None => {
            let hi = options.k_max.min(n - 1);
            let lo = options.k_min.max(2);
            if lo > hi {
                return Err(TestgenError::Settings(format!(
                    "no k to try: k_min {} > k_max {} (with {n} chunks)",
                    options.k_min, hi
                )));
            }
            (lo..=hi).collect()
        }
    };
    let sample_rows = silhouette_sample(n, options.silhouette_sample, options.seed);
    let mut best: Option<(f64, usize, Vec<usize>, f64)> = None;
    let mut k_scores = Vec::new();
    for k in candidates {
        let (labels, inertia) = kmeans(data, k, options.runs, options.seed)?;
        let s = silhouette_on(data, &labels.iter().map(|&l| Some(l)).collect::<Vec<_>>(), &sample_rows);
        let score = s.unwrap_or(0.0);
        k_scores.push((k, score));
        if best.as_ref().is_none_or(|b| score > b.0) {
            best = Some((score, k, labels, inertia));
        }
    }
    let Some((score, k, labels, inertia)) = best else {
        return Err(TestgenError::Settings("no k to try".into()));
    };
    Ok(Clustering {
        labels: labels.into_iter().map(Some).collect(),
        clusters: k,
        silhouette: (k >= 2).then_some(score),
        k_scores,
        inertia: Some(inertia),
    })
}

/// DBSCAN with radius `eps` and `min_points` neighbours (the point itself included, as in
/// scikit-learn's `min_samples`).
pub fn dbscan(data: &Array2<f64>, eps: f64, min_points: usize) -> Result<Clustering, TestgenError> {
    if eps.is_nan() || eps <= 0.0 || min_points == 0 {
        return Err(TestgenError::Settings(format!(
            "DBSCAN needs eps > 0 and min_points >= 1, got {eps} and {min_points}"
        )));
    }
    let labels: Vec<Option<usize>> = Dbscan::params(min_points)
        .tolerance(eps)
        .transform(data)
        .map_err(|e| numeric("dbscan")(e.to_string()))?
        .to_vec();
    let clusters = labels.iter().flatten().max().map_or(0, |m| m + 1);
    let all: Vec<usize> = (0..data.nrows()).collect();
    Ok(Clustering {
        silhouette: silhouette_on(data, &labels, &all),
        labels,
        clusters,
        k_scores: Vec::new(),
        inertia: None,
    })
}

/// A DBSCAN radius from the data: the `quantile` of every point's distance to its
/// `min_points - 1`-th nearest other point (the "k-distance" heuristic of Ester et al.).
pub fn suggest_eps(data: &Array2<f64>, min_points: usize, quantile: f64) -> f64 {
    let n = data.nrows();
    let k = min_points.saturating_sub(1).clamp(1, n.saturating_sub(1).max(1));
    let mut kth: Vec<f64> = (0..n)
        .map(|i| {
            let mut d: Vec<f64> =
                (0..n).filter(|&j| j != i).map(|j| squared(data.row(i), data.row(j)).sqrt()).collect();
            d.sort_by(f64::total_cmp);
            d.get(k - 1).copied().unwrap_or(0.0)
        })
        .collect();
    kth.sort_by(f64::total_cmp);
    if kth.is_empty() {
        return 0.0;
    }
    let pos = (quantile.clamp(0.0, 1.0) * (kth.len() - 1) as f64).round() as usize;
    kth[pos]
}

fn squared(a: ArrayView1<f64>, b: ArrayView1<f64>) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum()
}

fn silhouette_sample(n: usize, cap: usize, seed: u64) -> Vec<usize> {
    if cap == 0 || n <= cap {
        return (0..n).collect();
    }
    let mut rows = sample(&mut ChaCha8Rng::seed_from_u64(seed), n, cap).into_vec();
    rows.sort_unstable();
    rows
}

/// Mean silhouette coefficient of all points: `s = (b - a) / max(a, b)` with `a` the mean distance
/// to the other points of its cluster and `b` the smallest mean distance to another cluster;
/// `s = 0` for a point alone in its cluster. Equals scikit-learn's `silhouette_score` (Euclidean).
/// `None` when fewer than 2 clusters. Written here because linfa's version gives NaN for a
/// singleton cluster, where scikit-learn defines 0.
pub fn silhouette(data: &Array2<f64>, labels: &[usize]) -> Option<f64> {
    let all: Vec<usize> = (0..data.nrows()).collect();
    silhouette_on(data, &labels.iter().map(|&l| Some(l)).collect::<Vec<_>>(), &all)
}

/// Silhouette over the points `rows` (noise points, `None`, left out).
fn silhouette_on(data: &Array2<f64>, labels: &[Option<usize>], rows: &[usize]) -> Option<f64> {
    let rows: Vec<usize> = rows.iter().copied().filter(|&i| labels[i].is_some()).collect();
    let k = rows.iter().filter_map(|&i| labels[i]).max()? + 1;
    let mut sizes = vec![0usize; k];
    for &i in &rows {
        sizes[labels[i].unwrap_or(0)] += 1;
    }
    if sizes.iter().filter(|&&s| s > 0).count() < 2 {
        return None;
    }
    let mut total = 0.0;
    let mut sums = vec![0.0; k];
    for &i in &rows {
        sums.iter_mut().for_each(|s| *s = 0.0);
        for &j in &rows {
            if i != j {
                sums[labels[j].unwrap_or(0)] += squared(data.row(i), data.row(j)).sqrt();
            }
        }
        let own = labels[i].unwrap_or(0);
        if sizes[own] <= 1 {
            continue;
        }
        let a = sums[own] / (sizes[own] - 1) as f64;
        let b = (0..k)
            .filter(|&c| c != own && sizes[c] > 0)
            .map(|c| sums[c] / sizes[c] as f64)
            .fold(f64::INFINITY, f64::min);
        let m = a.max(b);
        if m > 0.0 {
            total += (b - a) / m;
        }
    }
    Some(total / rows.len() as f64)
}

#[cfg(test)]
mod tests;
