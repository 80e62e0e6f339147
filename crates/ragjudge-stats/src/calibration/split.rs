//! Seeded random split of rows into the fitting, conformal-calibration and test parts that the
//! double calibration of HCAT §5.2 needs ("an independent hold-out calibration
//! sample, distinct from the sample used for probability calibration").

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

/// Row indices of the three parts, each sorted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Split {
    /// Rows that fit the calibrator (stage 1).
    pub fit: Vec<usize>,
    /// Rows that set the conformal threshold (stage 2).
    pub calibration: Vec<usize>,
    /// Rows that measure coverage and calibration quality.
    pub test: Vec<usize>,
}

/// Shuffles `0..n` with ChaCha8 seeded by `seed` and cuts it into
/// `round(n * cal_fraction)` calibration rows, `round(n * test_fraction)` test rows and the
/// rest for fitting. `None` when a fraction is outside [0, 1) or the two sum to 1 or more.
pub fn split_rows(n: usize, cal_fraction: f64, test_fraction: f64, seed: u64) -> Option<Split> {
    let ok = |f: f64| (0.0..1.0).contains(&f);
    if !ok(cal_fraction) || !ok(test_fraction) || cal_fraction + test_fraction >= 1.0 {
        return None;
    }
    let mut idx: Vec<usize> = (0..n).collect();
    idx.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    let n_cal = (n as f64 * cal_fraction).round() as usize;
    let n_test = ((n as f64 * test_fraction).round() as usize).min(n - n_cal);
    let mut calibration = idx[..n_cal].to_vec();
    let mut test = idx[n_cal..n_cal + n_test].to_vec();
    let mut fit = idx[n_cal + n_test..].to_vec();
    for part in [&mut fit, &mut calibration, &mut test] {
        part.sort_unstable();
    }
    Some(Split { fit, calibration, test })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_partition_the_rows_and_follow_the_seed() {
        // 10 rows: round(10 * 0.25) = 3 calibration (2.5 rounds away from zero), 2 test, 5 fit.
        let s = split_rows(10, 0.25, 0.2, 7).unwrap();
        assert_eq!((s.fit.len(), s.calibration.len(), s.test.len()), (5, 3, 2));
        let mut all: Vec<usize> = s.fit.iter().chain(&s.calibration).chain(&s.test).copied().collect();
        all.sort_unstable();
        assert_eq!(all, (0..10).collect::<Vec<_>>());
        assert_eq!(split_rows(10, 0.25, 0.2, 7), Some(s.clone()));
        assert_ne!(split_rows(10, 0.25, 0.2, 8), Some(s));
        assert_eq!(split_rows(10, 0.5, 0.5, 7), None);
    }
}
