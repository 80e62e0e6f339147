//! Split conformal prediction (HCAT §5.2): stage 2 of the double calibration.
//!
//! On a calibration split of `n` rows held out from the calibrator's fit, each row gets a
//! non-conformity score; `q_hat` is the `ceil((n + 1)(1 - alpha))`-th smallest score (the
//! empirical quantile at level `ceil((n + 1)(1 - alpha)) / n`, step 2 of section 5.2), and the
//! prediction set of a new row holds every label whose score is at most `q_hat`. Under
//! exchangeability the set holds the true label with probability at least `1 - alpha`
//! (Angelopoulos and Bates 2023, theorem D.1). When `ceil((n + 1)(1 - alpha)) > n` the quantile is
//! infinite and every set holds all labels.
//!
//! - [`ConformalScore::Lac`]: `S = 1 - P(Y = y | x)` (section 5.2, step 1). For binary labels the
//!   sets are the paper's `{0}`, `{1}`, `{0, 1}` or empty ([`BinarySet`]).
//! - [`ConformalScore::Aps`]: adaptive prediction sets (Romano et al. 2020, non-randomised):
//!   `S` is the total probability of the labels ranked at or above `y` (by probability, ties by
//!   level order). The least likely label always scores 1, so these sets are conservative
//!   (coverage can exceed `1 - alpha` by more than `1 / (n + 1)`).

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Why a conformal threshold could not be computed.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ConformalError {
    /// `alpha` outside the open interval (0, 1).
    #[error("alpha must be in (0, 1), got {0}")]
    InvalidAlpha(f64),
    /// No calibration rows.
    #[error("the calibration split is empty")]
    Empty,
    /// Probabilities and labels have different lengths.
    #[error("{probs} probability rows but {labels} labels")]
    LengthMismatch {
        /// Probability rows.
        probs: usize,
        /// Labels.
        labels: usize,
    },
    /// A label is outside its row's levels, or a probability is not finite.
    #[error("row {0}: label out of range or non-finite probability")]
    BadRow(usize),
}

/// The non-conformity score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ConformalScore {
    /// Least ambiguous set-valued classifier: `1 - P(Y = y | x)`.
    Lac,
    /// Adaptive prediction sets: cumulative probability down to `y`.
    Aps,
}

impl ConformalScore {
    /// `LAC` or `APS`.
    pub fn name(self) -> &'static str {
        match self {
            ConformalScore::Lac => "LAC",
            ConformalScore::Aps => "APS",
        }
    }

    /// The column of an applied calibrator's prediction sets: `set_lac` or `set_aps`.
    pub fn set_column(self) -> String {
        format!("set_{}", self.name().to_ascii_lowercase())
    }
}

/// Non-conformity score of label `y` for a row of level probabilities.
pub fn nonconformity(score: ConformalScore, probs: &[f64], y: usize) -> f64 {
    match score {
        ConformalScore::Lac => 1.0 - probs[y],
        ConformalScore::Aps => {
            let py = probs[y];
            let above = |k: usize, pk: f64| pk > py || (pk == py && k <= y);
            if probs.iter().enumerate().all(|(k, &pk)| above(k, pk)) {
                // The least likely label: exactly 1, not a sum rounded either side of it.
                return 1.0;
            }
            probs.iter().enumerate().filter(|&(k, &pk)| above(k, pk)).map(|(_, &pk)| pk).sum()
        }
    }
}

/// The `ceil((n + 1)(1 - alpha))`-th smallest of `scores`; `None` when that rank exceeds `n`
/// (an infinite quantile). Panics never; `scores` must be finite.
pub fn conformal_quantile(scores: &[f64], alpha: f64) -> Option<f64> {
    let n = scores.len();
    // A tiny slack keeps e.g. (19 + 1) * 0.95 = 19.000000000000004 from rounding up to 20.
    let k = (((n + 1) as f64) * (1.0 - alpha) - 1e-9).ceil().max(1.0) as usize;
    if k > n {
        return None;
    }
    let mut s = scores.to_vec();
    s.sort_by(f64::total_cmp);
    Some(s[k - 1])
}

/// A calibrated split-conformal predictor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SplitConformal {
    /// The non-conformity score.
    pub score: ConformalScore,
    /// Error rate `alpha` (sets cover with probability at least `1 - alpha`).
    pub alpha: f64,
    /// Size `n` of the calibration split.
    pub n: usize,
    /// The threshold `q_hat`; `None` means infinite (every set holds all labels).
    pub q_hat: Option<f64>,
}

impl SplitConformal {
    /// Computes `q_hat` from calibration rows: level probabilities `probs` and true levels `labels`.
    pub fn calibrate(
        score: ConformalScore,
        probs: &[Vec<f64>],
        labels: &[usize],
        alpha: f64,
    ) -> Result<Self, ConformalError> {
        if !(alpha > 0.0 && alpha < 1.0) {
            return Err(ConformalError::InvalidAlpha(alpha));
        }
        if probs.len() != labels.len() {
            return Err(ConformalError::LengthMismatch { probs: probs.len(), labels: labels.len() });
        }
        if probs.is_empty() {
            return Err(ConformalError::Empty);
        }
        let mut scores = Vec::with_capacity(probs.len());
        for (i, (p, &y)) in probs.iter().zip(labels).enumerate() {
            if y >= p.len() || !p.iter().all(|v| v.is_finite()) {
                return Err(ConformalError::BadRow(i));
            }
            scores.push(nonconformity(score, p, y));
        }
        Ok(SplitConformal { score, alpha, n: probs.len(), q_hat: conformal_quantile(&scores, alpha) })
    }

    /// The prediction set `{y : S(x, y) <= q_hat}` for one row of level probabilities, as
    /// increasing level indices.
    pub fn predict_set(&self, probs: &[f64]) -> Vec<usize> {
        match self.q_hat {
            None => (0..probs.len()).collect(),
            Some(q) => (0..probs.len()).filter(|&y| nonconformity(self.score, probs, y) <= q).collect(),
        }
    }
}

/// The four possible binary prediction sets of section 5.2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum BinarySet {
    /// `{0}`: confidently negative.
    Zero,
    /// `{1}`: confidently positive.
    One,
    /// `{0, 1}`: uncertain, needs review.
    Both,
    /// Empty: neither label is plausible enough, needs review.
    Empty,
}

impl BinarySet {
    /// Classifies a set of binary level indices.
    pub fn of(set: &[usize]) -> Self {
        match set {
            [] => BinarySet::Empty,
            [0] => BinarySet::Zero,
            [1] => BinarySet::One,
            _ => BinarySet::Both,
        }
    }
}

/// Empirical coverage and set sizes of prediction sets on labelled rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Coverage {
    /// Number of rows.
    pub n: usize,
    /// Share of rows whose set holds the true label.
    pub coverage: f64,
    /// Mean set size.
    pub mean_size: f64,
    /// `size_counts[s]` rows have sets of size `s` (`0..=levels`).
    pub size_counts: Vec<usize>,
}

impl Coverage {
    /// Measures `predictor` on rows of level probabilities and true levels; `None` when empty
    /// or mismatched.
    pub fn measure(predictor: &SplitConformal, probs: &[Vec<f64>], labels: &[usize]) -> Option<Self> {
        if probs.is_empty() || probs.len() != labels.len() {
            return None;
        }
        let levels = probs.iter().map(Vec::len).max().unwrap_or(0);
        let mut size_counts = vec![0usize; levels + 1];
        let (mut hits, mut total) = (0usize, 0usize);
        for (p, &y) in probs.iter().zip(labels) {
            let set = predictor.predict_set(p);
            hits += usize::from(set.contains(&y));
            total += set.len();
            size_counts[set.len()] += 1;
        }
        let n = probs.len();
        Some(Coverage { n, coverage: hits as f64 / n as f64, mean_size: total as f64 / n as f64, size_counts })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantile_rank_is_ceil_of_n_plus_one_times_level() {
        let s: Vec<f64> = (1..=9).map(|i| i as f64 / 10.0).collect();
        // n = 9, alpha = 0.1: ceil(10 * 0.9) = 9 -> 9th smallest = 0.9.
        assert_eq!(conformal_quantile(&s, 0.1), Some(0.9));
        // alpha = 0.2: ceil(10 * 0.8) = 8 -> 0.8; alpha = 0.05: ceil(9.5) = 10 > 9 -> infinite.
        assert_eq!(conformal_quantile(&s, 0.2), Some(0.8));
        assert_eq!(conformal_quantile(&s, 0.05), None);
    }

    #[test]
    fn binary_sets_follow_section_5_2() {
        // q_hat = 0.7 >= 0.5: {1} when f > 0.7, {0} when f < 0.3, {0, 1} in between.
        let c = SplitConformal { score: ConformalScore::Lac, alpha: 0.1, n: 10, q_hat: Some(0.7) };
        let set = |f: f64| BinarySet::of(&c.predict_set(&[1.0 - f, f]));
        assert_eq!(set(0.9), BinarySet::One);
        assert_eq!(set(0.1), BinarySet::Zero);
        assert_eq!(set(0.5), BinarySet::Both);
        // q_hat = 0.2 < 0.5: empty when 0.2 < f < 0.8.
        let c = SplitConformal { q_hat: Some(0.2), ..c };
        assert_eq!(BinarySet::of(&c.predict_set(&[0.5, 0.5])), BinarySet::Empty);
        assert_eq!(BinarySet::of(&c.predict_set(&[0.1, 0.9])), BinarySet::One);
    }

    #[test]
    fn aps_scores_accumulate_ranked_probabilities() {
        // probs (0.5, 0.3, 0.2): ranks 0 > 1 > 2, so S(0) = 0.5, S(1) = 0.8, S(2) = 1.0.
        let p = [0.5, 0.3, 0.2];
        assert_eq!(nonconformity(ConformalScore::Aps, &p, 0), 0.5);
        assert!((nonconformity(ConformalScore::Aps, &p, 1) - 0.8).abs() < 1e-15);
        assert!((nonconformity(ConformalScore::Aps, &p, 2) - 1.0).abs() < 1e-15);
        let c = SplitConformal { score: ConformalScore::Aps, alpha: 0.1, n: 10, q_hat: Some(0.8) };
        assert_eq!(c.predict_set(&p), vec![0, 1]);
    }

    #[test]
    fn calibrate_and_measure() {
        // Three calibration rows with true-label probabilities 0.9, 0.6, 0.8 -> LAC scores 0.1,
        // 0.4, 0.2; alpha = 0.5: ceil(4 * 0.5) = 2 -> q_hat = 0.2, so sets hold p >= 0.8.
        let probs = vec![vec![0.1, 0.9], vec![0.6, 0.4], vec![0.2, 0.8]];
        let c = SplitConformal::calibrate(ConformalScore::Lac, &probs, &[1, 0, 1], 0.5).unwrap();
        assert!((c.q_hat.unwrap() - 0.2).abs() < 1e-15);
        let cov = Coverage::measure(&c, &probs, &[1, 0, 1]).unwrap();
        // Sets: {1}, {} , {1}: rows 1 and 3 covered.
        assert_eq!(cov.size_counts, vec![1, 2, 0]);
        assert!((cov.coverage - 2.0 / 3.0).abs() < 1e-15);
        assert!(SplitConformal::calibrate(ConformalScore::Lac, &probs, &[1, 0, 1], 1.0).is_err());
    }
}
