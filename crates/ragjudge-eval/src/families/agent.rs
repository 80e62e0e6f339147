//! `agent`: agent trajectories from a record's `steps` (`ragjudge_lexical::trajectory`): step,
//! tool-call and retrieval counts, latency, tool calls against `meta.expected_tools` (set and
//! order-aware matching) and each retrieval step's passages against the relevant ones.

use super::{MetricFamily, MetricSettings};
use crate::error::EvalError;
use crate::models::ModelSet;
use ragjudge_core::Metric;
use ragjudge_lexical::trajectory::TrajectoryMetric;

/// The `agent` family.
pub struct Agent;

impl MetricFamily for Agent {
    fn name(&self) -> &'static str {
        "agent"
    }

    fn build(&self, _settings: &MetricSettings, _models: &ModelSet) -> Result<Vec<Box<dyn Metric>>, EvalError> {
        Ok(vec![Box::new(TrajectoryMetric)])
    }
}
