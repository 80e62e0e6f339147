//! Error type for invalid arguments.

use thiserror::Error;

/// An invalid argument to a statistics function.
///
/// Statistics that are merely undefined for valid input (a constant column, too few
/// observations) are reported as `None`, not as errors.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum StatsError {
    /// Two inputs that must be aligned have different lengths.
    #[error("inputs have different lengths: {left} and {right}")]
    LengthMismatch {
        /// Length of the first input.
        left: usize,
        /// Length of the second input.
        right: usize,
    },
    /// An input contains NaN or an infinity.
    #[error("input contains a non-finite value")]
    NonFinite,
    /// An input that must not be empty is empty.
    #[error("input is empty")]
    Empty,
    /// A confidence level outside the open interval (0, 1).
    #[error("confidence level must be in (0, 1), got {0}")]
    InvalidLevel(f64),
    /// A number of bootstrap resamples or replicates of zero.
    #[error("the number of resamples must be at least 1")]
    ZeroResamples,
    /// The statistic is undefined on the input or on every resample.
    #[error("the statistic is undefined on this input")]
    Undefined,
    /// An annotator labelled the same item more than once.
    #[error("annotator {annotator} labelled item {item} more than once")]
    DuplicateRating {
        /// The annotator's key.
        annotator: String,
        /// The item's key.
        item: String,
    },
    /// Items with different numbers of ratings where the statistic needs the same number on each.
    #[error("item {item} has {found} ratings where item 0 has {expected}")]
    UnequalRatings {
        /// Index of the first item whose count differs.
        item: usize,
        /// The number of ratings of item 0.
        expected: usize,
        /// The number of ratings of `item`.
        found: usize,
    },
}

/// Checks that `level` lies in the open interval (0, 1).
pub(crate) fn check_level(level: f64) -> Result<(), StatsError> {
    if level > 0.0 && level < 1.0 {
        Ok(())
    } else {
        Err(StatsError::InvalidLevel(level))
    }
}

/// Checks that two aligned inputs have the same length and finite values.
pub(crate) fn check_pair(x: &[f64], y: &[f64]) -> Result<(), StatsError> {
    if x.len() != y.len() {
        return Err(StatsError::LengthMismatch { left: x.len(), right: y.len() });
    }
    if x.iter().chain(y).all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(StatsError::NonFinite)
    }
}
