//! Cosine similarities between two sentence sets and the `S_max` aggregations of HCAT §3.

use crate::error::HcatError;
use ragjudge_core::numeric::cosine;
use ragjudge_core::text::words;

/// The best match of one sentence in the other set: `S_max` and where it was found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MaxMatch {
    /// Index of the most similar sentence of the other set (the first one on ties).
    pub best: usize,
    /// `S_max`, the largest cosine similarity.
    pub score: f64,
}

/// Cosine similarities between every row sentence and every column sentence.
#[derive(Debug, Clone, PartialEq)]
pub struct SimMatrix {
    rows: usize,
    cols: usize,
    sims: Vec<f64>,
}

impl SimMatrix {
    /// Cosine similarities `Sim(x, y)` (HCAT §3.1) of each row vector with each column vector; a
    /// zero vector is an error, not a similarity of 0.
    pub fn new(rows: &[&[f32]], cols: &[&[f32]]) -> Result<Self, HcatError> {
        let mut sims = Vec::with_capacity(rows.len() * cols.len());
        for r in rows {
            for c in cols {
                sims.push(cosine(r, c)?);
            }
        }
        Ok(Self { rows: rows.len(), cols: cols.len(), sims })
    }

    /// Number of row sentences.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of column sentences.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// `Sim(row i, column j)`.
    pub fn get(&self, i: usize, j: usize) -> f64 {
        self.sims[i * self.cols + j]
    }

    /// `S_max` of every row sentence over the columns (empty when there are no columns).
    pub fn row_max(&self) -> Vec<MaxMatch> {
        if self.cols == 0 {
            return Vec::new();
        }
        (0..self.rows).map(|i| best_of((0..self.cols).map(|j| self.get(i, j)))).collect()
    }

    /// `S_max` of every column sentence over the rows (empty when there are no rows).
    pub fn col_max(&self) -> Vec<MaxMatch> {
        if self.rows == 0 {
            return Vec::new();
        }
        (0..self.cols).map(|j| best_of((0..self.rows).map(|i| self.get(i, j)))).collect()
    }

    /// Cosine distances `1 - Sim`, one row per row sentence (the cost of section 3.3.2).
    pub fn distances(&self) -> Vec<Vec<f64>> {
        (0..self.rows).map(|i| (0..self.cols).map(|j| 1.0 - self.get(i, j)).collect()).collect()
    }

    /// Cosine distances `1 - Sim` with rows and columns swapped.
    pub fn distances_transposed(&self) -> Vec<Vec<f64>> {
        (0..self.cols).map(|j| (0..self.rows).map(|i| 1.0 - self.get(i, j)).collect()).collect()
    }
}

fn best_of(values: impl Iterator<Item = f64>) -> MaxMatch {
    let mut best = MaxMatch { best: 0, score: f64::NEG_INFINITY };
    for (j, s) in values.enumerate() {
        if s > best.score {
            best = MaxMatch { best: j, score: s };
        }
    }
    best
}

/// Sentence weights `w_i` of the weighted averages (HCAT §3.1, §3.3.1, §3.4).
///
/// The paper only requires `w_i >= 0` and `sum w_i = 1`. We weight each sentence by its number of
/// words ([`ragjudge_core::text::words`]), so a long sentence, which carries more content, counts
/// more than a short one; sentences without words get weight 0, and if no sentence has a word the
/// weights are uniform.
pub fn word_weights(sentences: &[&str]) -> Vec<f64> {
    let counts: Vec<f64> = sentences.iter().map(|s| words(s).len() as f64).collect();
    let total: f64 = counts.iter().sum();
    if total > 0.0 {
        counts.iter().map(|c| c / total).collect()
    } else {
        vec![1.0 / sentences.len().max(1) as f64; sentences.len()]
    }
}

/// The three aggregations of per-sentence `S_max` scores.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aggregates {
    /// `(1/m) sum_i S_max(x_i)`.
    pub mean: f64,
    /// `sum_i w_i S_max(x_i)`, weights from [`word_weights`].
    pub weighted: f64,
    /// `min_i S_max(x_i)` (the paper's minimax score).
    pub min: f64,
    /// `argmin_i S_max(x_i)`, the first one on ties.
    pub argmin: usize,
}

impl Aggregates {
    /// Aggregates the scores with the given weights; `None` for an empty set.
    pub fn of(matches: &[MaxMatch], weights: &[f64]) -> Option<Self> {
        if matches.is_empty() {
            return None;
        }
        let mean = matches.iter().map(|m| m.score).sum::<f64>() / matches.len() as f64;
        let weighted = matches.iter().zip(weights).map(|(m, w)| m.score * w).sum();
        let mut argmin = 0;
        for (i, m) in matches.iter().enumerate() {
            if m.score < matches[argmin].score {
                argmin = i;
            }
        }
        Some(Self { mean, weighted, min: matches[argmin].score, argmin })
    }
}
