//! How well calibrated probabilities match the labels: Brier score and expected calibration
//! error (ECE).

use serde::{Deserialize, Serialize};

/// Number of equal-width bins of [`expected_calibration_error`] by default.
pub const DEFAULT_ECE_BINS: usize = 10;

/// Brier score of probability rows `probs` (one probability per level) against level indices.
///
/// Two levels: the mean of `(p_1 - y)^2` (scikit-learn's `brier_score_loss`); more levels:
/// the mean over rows of `sum_k (p_k - [y = k])^2` (Brier 1950). `None` when empty or when a
/// label is outside the rows' levels.
pub fn brier_score(probs: &[Vec<f64>], labels: &[usize]) -> Option<f64> {
    if probs.is_empty() || probs.len() != labels.len() {
        return None;
    }
    let mut total = 0.0;
    for (p, &y) in probs.iter().zip(labels) {
        if y >= p.len() {
            return None;
        }
        total += if p.len() == 2 {
            (p[1] - if y == 1 { 1.0 } else { 0.0 }).powi(2)
        } else {
            p.iter().enumerate().map(|(k, &pk)| (pk - if k == y { 1.0 } else { 0.0 }).powi(2)).sum::<f64>()
        };
    }
    Some(total / probs.len() as f64)
}

/// One bin of a reliability diagram: the rows whose confidence falls in `[low, high)`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ReliabilityBin {
    /// Lower edge of the bin.
    pub low: f64,
    /// Upper edge (the last bin also holds `high` itself).
    pub high: f64,
    /// Rows in the bin.
    pub count: usize,
    /// Their mean confidence.
    pub confidence: f64,
    /// Their accuracy: the share of rows whose label is the predicted one.
    pub accuracy: f64,
}

/// The reliability diagram with `bins` equal-width bins over [0, 1] (bin `i` holds
/// confidences in `[i/bins, (i+1)/bins)`, the last bin also holds 1); empty bins are left out.
///
/// Two levels: the confidence is `p_1` and the accuracy the share of label 1 (scikit-learn's
/// `calibration_curve` with `strategy="uniform"`); more levels: the confidence is the largest
/// probability and the accuracy the share of rows whose label is that level (top-label
/// calibration, Guo et al. 2017). `None` when empty, `bins == 0`, a label is out of range or a
/// probability is not finite.
pub fn reliability_curve(probs: &[Vec<f64>], labels: &[usize], bins: usize) -> Option<Vec<ReliabilityBin>> {
    if probs.is_empty() || probs.len() != labels.len() || bins == 0 {
        return None;
    }
    let mut sum_conf = vec![0.0; bins];
    let mut sum_acc = vec![0.0; bins];
    let mut count = vec![0usize; bins];
    for (p, &y) in probs.iter().zip(labels) {
        if y >= p.len() || p.iter().any(|v| !v.is_finite()) {
            return None;
        }
        let (conf, hit) = if p.len() == 2 {
            (p[1], y == 1)
        } else {
            let top = (0..p.len()).fold(0, |best, k| if p[k] > p[best] { k } else { best });
            (p[top], y == top)
        };
        let b = ((conf * bins as f64).floor().max(0.0) as usize).min(bins - 1);
        sum_conf[b] += conf;
        sum_acc[b] += f64::from(u8::from(hit));
        count[b] += 1;
    }
    let width = 1.0 / bins as f64;
    Some(
        (0..bins)
            .filter(|&b| count[b] > 0)
            .map(|b| ReliabilityBin {
                low: b as f64 * width,
                high: (b + 1) as f64 * width,
                count: count[b],
                confidence: sum_conf[b] / count[b] as f64,
                accuracy: sum_acc[b] / count[b] as f64,
            })
            .collect(),
    )
}

/// Expected calibration error over the bins of [`reliability_curve`]:
/// `ECE = sum_b (n_b / n) |accuracy_b - confidence_b|`. `None` as for the curve.
pub fn expected_calibration_error(probs: &[Vec<f64>], labels: &[usize], bins: usize) -> Option<f64> {
    let curve = reliability_curve(probs, labels, bins)?;
    let n = probs.len() as f64;
    Some(curve.iter().map(|b| b.count as f64 / n * (b.accuracy - b.confidence).abs()).sum())
}

/// Brier score and ECE of one set of predictions.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CalibrationQuality {
    /// [`brier_score`].
    pub brier: f64,
    /// [`expected_calibration_error`] with [`DEFAULT_ECE_BINS`] bins.
    pub ece: f64,
    /// Number of bins of the ECE.
    pub ece_bins: usize,
}

impl CalibrationQuality {
    /// Both measures with the default binning; `None` as for the measures.
    pub fn of(probs: &[Vec<f64>], labels: &[usize]) -> Option<Self> {
        Some(CalibrationQuality {
            brier: brier_score(probs, labels)?,
            ece: expected_calibration_error(probs, labels, DEFAULT_ECE_BINS)?,
            ece_bins: DEFAULT_ECE_BINS,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_brier_and_ece_by_hand() {
        // p1 = 0.9, 0.8, 0.3, 0.1 against labels 1, 0, 0, 0:
        // Brier = (0.01 + 0.64 + 0.09 + 0.01) / 4 = 0.1875.
        // Bins: 0.9 -> bin 9 (acc 1, conf 0.9), 0.8 -> bin 8 (acc 0, conf 0.8), 0.3 -> bin 3 (acc 0,
        // conf 0.3), 0.1 -> bin 1 (acc 0, conf 0.1): ECE = (0.1 + 0.8 + 0.3 + 0.1) / 4 = 0.325.
        let probs: Vec<Vec<f64>> = [0.9, 0.8, 0.3, 0.1].iter().map(|&p| vec![1.0 - p, p]).collect();
        let y = [1, 0, 0, 0];
        assert!((brier_score(&probs, &y).unwrap() - 0.1875).abs() < 1e-12);
        assert!((expected_calibration_error(&probs, &y, 10).unwrap() - 0.325).abs() < 1e-12);
    }

    #[test]
    fn multilevel_brier_and_top_label_ece_by_hand() {
        // Row 1: (0.7, 0.2, 0.1), y = 0: 0.09 + 0.04 + 0.01 = 0.14.
        // Row 2: (0.2, 0.2, 0.6), y = 1: 0.04 + 0.64 + 0.36 = 1.04. Brier = 1.18 / 2 = 0.59.
        // Top labels: 0.7 (hit) in bin 7 and 0.6 (miss) in bin 6: ECE = (0.3 + 0.6) / 2 = 0.45.
        let probs = vec![vec![0.7, 0.2, 0.1], vec![0.2, 0.2, 0.6]];
        assert!((brier_score(&probs, &[0, 1]).unwrap() - 0.59).abs() < 1e-12);
        assert!((expected_calibration_error(&probs, &[0, 1], 10).unwrap() - 0.45).abs() < 1e-12);
        assert_eq!(brier_score(&probs, &[0, 3]), None);
    }

    #[test]
    fn reliability_curve_by_hand() {
        // p1 = 0.05, 0.15, 0.12, 0.95, 1.0 with labels 0, 1, 0, 1, 1 and 5 bins of width 0.2:
        // bin 0 [0, 0.2) holds 0.05, 0.15, 0.12: confidence 0.32 / 3, accuracy 1/3;
        // bin 4 [0.8, 1] holds 0.95 and 1.0 (the last bin holds 1): confidence 0.975, accuracy 1.
        // scikit-learn 1.9.1's calibration_curve(y, p, n_bins=5) gives prob_true [1/3, 1] and
        // prob_pred [0.10667, 0.975] for the same data.
        let probs: Vec<Vec<f64>> = [0.05, 0.15, 0.12, 0.95, 1.0].iter().map(|&p| vec![1.0 - p, p]).collect();
        let curve = reliability_curve(&probs, &[0, 1, 0, 1, 1], 5).unwrap();
        assert_eq!(curve.len(), 2);
        assert_eq!((curve[0].count, curve[1].count), (3, 2));
        assert!((curve[0].confidence - 0.32 / 3.0).abs() < 1e-12);
        assert!((curve[0].accuracy - 1.0 / 3.0).abs() < 1e-12);
        assert!((curve[1].low - 0.8).abs() < 1e-12 && (curve[1].high - 1.0).abs() < 1e-12);
        assert!((curve[1].confidence - 0.975).abs() < 1e-12 && curve[1].accuracy == 1.0);
        // ECE = 3/5 |1/3 - 0.10667| + 2/5 |1 - 0.975| = 0.136 + 0.01 = 0.146.
        let ece = expected_calibration_error(&probs, &[0, 1, 0, 1, 1], 5).unwrap();
        assert!((ece - (0.6 * (1.0 / 3.0 - 0.32 / 3.0) + 0.4 * 0.025)).abs() < 1e-12);
        assert!((ece - 0.146).abs() < 1e-12);
        assert_eq!(reliability_curve(&probs, &[0, 1, 0, 1, 1], 0), None);
    }
}
