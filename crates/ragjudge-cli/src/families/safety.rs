//! `score --metrics safety`: options and construction of the safety metric family.

use crate::model_set::ModelSet;
use anyhow::{bail, Result};
use clap::Args;
use ragjudge_core::Metric;

/// Options of the safety metrics.
#[derive(Debug, Clone, Default, Args)]
pub struct SafetyArgs {}

/// Builds the safety metrics.
pub fn build(_args: &SafetyArgs, _models: &ModelSet) -> Result<Vec<Box<dyn Metric>>> {
    bail!("metric family `safety` is not available yet")
}
