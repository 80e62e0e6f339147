//! Agreement between two label sequences: accuracy, confusion matrix, Cohen's kappa.
//!
//! Labels are any `Ord + Clone` type (strings, integers); like scikit-learn, the label
//! set is the sorted union of both sequences, and its order fixes the distances used by
//! weighted kappa.

use serde::{Deserialize, Serialize};

use crate::error::StatsError;

/// Disagreement weights for [`cohen_kappa`], as sklearn's `weights` argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub enum Weights {
    /// Unweighted: every disagreement costs 1.
    #[default]
    None,
    /// `|i - j|` between label positions i and j.
    Linear,
    /// `(i - j)^2` between label positions i and j.
    Quadratic,
}

fn check_len<T>(a: &[T], b: &[T]) -> Result<(), StatsError> {
    if a.len() != b.len() {
        return Err(StatsError::LengthMismatch { left: a.len(), right: b.len() });
    }
    Ok(())
}

/// Fraction of positions where the two sequences agree; `None` when empty.
pub fn accuracy<T: PartialEq>(y_true: &[T], y_pred: &[T]) -> Result<Option<f64>, StatsError> {
    check_len(y_true, y_pred)?;
    if y_true.is_empty() {
        return Ok(None);
    }
    let hits = y_true.iter().zip(y_pred).filter(|(a, b)| a == b).count();
    Ok(Some(hits as f64 / y_true.len() as f64))
}

/// Sorted, deduplicated union of the labels of both sequences (sklearn `unique_labels`).
pub fn unique_labels<T: Ord + Clone>(y1: &[T], y2: &[T]) -> Vec<T> {
    let mut labels: Vec<T> = y1.iter().chain(y2).cloned().collect();
    labels.sort();
    labels.dedup();
    labels
}

/// Confusion matrix `C[i][j]`: count of samples with true label `labels[i]` and predicted
/// label `labels[j]` (rows true, columns predicted, as `sklearn.metrics.confusion_matrix`).
/// Samples whose true or predicted label is not in `labels` are ignored.
pub fn confusion_matrix<T: Ord>(y_true: &[T], y_pred: &[T], labels: &[T]) -> Result<Vec<Vec<u64>>, StatsError> {
    check_len(y_true, y_pred)?;
    let mut sorted: Vec<(&T, usize)> = labels.iter().zip(0..).collect();
    sorted.sort_by(|a, b| a.0.cmp(b.0));
    let index = |v: &T| sorted.binary_search_by(|(l, _)| (*l).cmp(v)).ok().map(|i| sorted[i].1);
    let k = labels.len();
    let mut m = vec![vec![0u64; k]; k];
    for (t, p) in y_true.iter().zip(y_pred) {
        if let (Some(i), Some(j)) = (index(t), index(p)) {
            m[i][j] += 1;
        }
    }
    Ok(m)
}

/// Cohen's (1960) kappa `1 - sum(w * O) / sum(w * E)`, exactly as
/// `sklearn.metrics.cohen_kappa_score`.
///
/// `O` is the confusion matrix over [`unique_labels`], `E` the outer product of its
/// column and row sums divided by n, and `w` the disagreement weights: 0 on the
/// diagonal and 1 elsewhere, or `|i - j|` / `(i - j)^2` for weighted kappa (Cohen 1968).
/// `None` when undefined (empty input, or a single label in common so that
/// `sum(w * E) = 0`), where sklearn returns NaN.
pub fn cohen_kappa<T: Ord + Clone>(y1: &[T], y2: &[T], weights: Weights) -> Result<Option<f64>, StatsError> {
    let labels = unique_labels(y1, y2);
    let cm = confusion_matrix(y1, y2, &labels)?;
    Ok(kappa_from_confusion(&cm, weights))
}

/// Cohen's kappa from a square confusion matrix (rows rater 1, columns rater 2), with
/// rows and columns in label order. See [`cohen_kappa`].
pub fn kappa_from_confusion(cm: &[Vec<u64>], weights: Weights) -> Option<f64> {
    let k = cm.len();
    if cm.iter().any(|row| row.len() != k) {
        return None;
    }
    let rows: Vec<f64> = cm.iter().map(|r| r.iter().sum::<u64>() as f64).collect();
    let cols: Vec<f64> = (0..k).map(|j| cm.iter().map(|r| r[j]).sum::<u64>() as f64).collect();
    let n: f64 = cols.iter().sum();
    if n == 0.0 {
        return None;
    }
    let w = |i: usize, j: usize| -> f64 {
        let d = i.abs_diff(j) as f64;
        match weights {
            Weights::None => f64::from(u8::from(i != j)),
            Weights::Linear => d,
            Weights::Quadratic => d * d,
        }
    };
    let (mut observed, mut expected) = (0.0, 0.0);
    for i in 0..k {
        for j in 0..k {
            let wij = w(i, j);
            observed += wij * cm[i][j] as f64;
            // sklearn: expected = outer(sum0, sum1) / n, sum0 = column sums (axis 0).
            expected += wij * (cols[i] * rows[j] / n);
        }
    }
    if expected == 0.0 {
        return None;
    }
    let kappa = 1.0 - observed / expected;
    kappa.is_finite().then_some(kappa)
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_abs_diff_eq;

    #[test]
    fn kappa_two_by_two_by_hand() {
        // Table (rows rater 1, cols rater 2): [[20, 5], [10, 15]], n = 50.
        // p_o = 35/50 = 0.7; p_e = (25*30 + 25*20) / 2500 = 0.5; kappa = 0.2 / 0.5 = 0.4.
        let cm = vec![vec![20, 5], vec![10, 15]];
        assert_abs_diff_eq!(kappa_from_confusion(&cm, Weights::None).unwrap(), 0.4, epsilon = 1e-15);
        let mut y1 = Vec::new();
        let mut y2 = Vec::new();
        for (a, b, c) in [("no", "no", 20), ("no", "yes", 5), ("yes", "no", 10), ("yes", "yes", 15)] {
            for _ in 0..c {
                y1.push(a.to_string());
                y2.push(b.to_string());
            }
        }
        assert_eq!(confusion_matrix(&y1, &y2, &unique_labels(&y1, &y2)).unwrap(), cm);
        assert_abs_diff_eq!(cohen_kappa(&y1, &y2, Weights::None).unwrap().unwrap(), 0.4, epsilon = 1e-15);
        // With two labels all three weightings coincide.
        assert_abs_diff_eq!(cohen_kappa(&y1, &y2, Weights::Quadratic).unwrap().unwrap(), 0.4, epsilon = 1e-15);
        assert_eq!(accuracy(&y1, &y2).unwrap(), Some(0.7));
    }

    #[test]
    fn undefined_kappa() {
        let a = ["x", "x", "x"];
        assert_eq!(cohen_kappa(&a, &a, Weights::None).unwrap(), None);
        let e: [&str; 0] = [];
        assert_eq!(cohen_kappa(&e, &e, Weights::Linear).unwrap(), None);
        assert_eq!(accuracy(&e, &e).unwrap(), None);
        assert!(cohen_kappa(&["a"], &["a", "b"], Weights::None).is_err());
    }

    #[test]
    fn confusion_ignores_unlisted_labels_and_keeps_given_order() {
        let t = [2, 1, 3, 1];
        let p = [1, 1, 3, 2];
        assert_eq!(confusion_matrix(&t, &p, &[2, 1]).unwrap(), vec![vec![0, 1], vec![1, 1]]);
    }
}
