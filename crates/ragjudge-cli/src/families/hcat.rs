//! `score --metrics hcat`: options and construction of the hcat metric family.

use crate::model_set::ModelSet;
use anyhow::{bail, Result};
use clap::Args;
use ragjudge_core::Metric;

/// Options of the hcat metrics.
#[derive(Debug, Clone, Default, Args)]
pub struct HcatArgs {}

/// Builds the hcat metrics.
pub fn build(_args: &HcatArgs, _models: &ModelSet) -> Result<Vec<Box<dyn Metric>>> {
    bail!("metric family `hcat` is not available yet")
}
