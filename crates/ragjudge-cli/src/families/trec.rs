//! `score --metrics trec`: options and construction of the trec metric family.

use crate::model_set::ModelSet;
use anyhow::{bail, Result};
use clap::Args;
use ragjudge_core::Metric;

/// Options of the trec metrics.
#[derive(Debug, Clone, Default, Args)]
pub struct TrecArgs {}

/// Builds the trec metrics.
pub fn build(_args: &TrecArgs, _models: &ModelSet) -> Result<Vec<Box<dyn Metric>>> {
    bail!("metric family `trec` is not available yet")
}
