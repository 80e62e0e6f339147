//! `ragjudge calibrate`: map machine scores to human labels (Platt, isotonic, ordinal) and give
//! conformal prediction sets (seed 003, section 5).

use anyhow::{bail, Result};
use clap::Args;

/// `ragjudge calibrate`.
#[derive(Debug, Args)]
pub struct CalibrateArgs {}

/// Runs `ragjudge calibrate`.
pub fn run(_args: &CalibrateArgs) -> Result<()> {
    bail!("calibrate is not available yet")
}
