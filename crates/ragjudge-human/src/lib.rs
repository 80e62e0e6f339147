//! Human labels for ragjudge: what to label, the labels themselves, and what they say about
//! the scorers (HCAT §5: sample human evaluations, calibrate machine scores to them, and
//! quantify the uncertainty).
//!
//! - [`task`]: the tasks a page shows (pairs, graded answers, claims), built from runs;
//! - [`signals`]: judges' verdicts and scorer disagreement per task;
//! - [`plan`]: what to label (`annotate --plan N`);
//! - [`store`]: the label file, written atomically as each label is given;
//! - [`agreement`]: Krippendorff's alpha and Cohen's kappa between annotators;
//! - [`job`]: the tasks of a session and the plan job, as the commands call them;
//! - [`candidates`], [`validate`]: which scorer agrees with the labels on held-out questions,
//!   and prediction-powered estimates with it;
//! - [`export`]: the label files `agree`, `judge-eval`, `calibrate`, `fuse` and the PPI options
//!   read.
#![deny(missing_docs)]
// Library code returns errors instead of panicking (tests may unwrap: clippy.toml).
#![deny(clippy::unwrap_used, clippy::expect_used)]

pub mod agreement;
pub mod candidates;
pub mod diff;
mod error;
pub mod export;
pub mod job;
pub mod plan;
pub mod signals;
pub mod store;
pub mod task;
#[cfg(test)]
mod test_support;
pub mod validate;

pub use error::HumanError;
