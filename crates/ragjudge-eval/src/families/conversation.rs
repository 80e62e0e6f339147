//! `conversation`: multi-turn records scored per turn (`ragjudge_trec::conversation`:
//! contradiction with the assistant's earlier turns, retention of what the user said, repetition)
//! and per conversation (the [`crate::stages::conversations`] stage summarises every column of
//! the run by conversation, with intervals that resample whole conversations).
//!
//! Contradiction and retention are read from the NLI cross-encoder of the model settings when it
//! has a contradiction label, else from the judge.

use super::{MetricFamily, MetricSettings, StageContext};
use crate::error::EvalError;
use crate::models::{ModelSet, ModelSettings};
use crate::stages::{self, Stage};
use ragjudge_core::Metric;
use ragjudge_trec::answer::EntailmentModel;
use ragjudge_trec::conversation::{ConversationMetric, CONVERSATION_PROMPTS_VERSION};
use serde_json::{json, Value};

/// The `conversation` family.
pub struct Conversation;

impl MetricFamily for Conversation {
    fn name(&self) -> &'static str {
        "conversation"
    }

    fn definition(&self, _settings: &MetricSettings, models: &ModelSettings) -> Value {
        json!({"nli_model": models.nli, "judge": models.judge.spec, "prompts": CONVERSATION_PROMPTS_VERSION})
    }

    fn build(&self, _settings: &MetricSettings, models: &ModelSet) -> Result<Vec<Box<dyn Metric>>, EvalError> {
        let model = match models.cross_encoder()? {
            Some(ce) if ce.labels().iter().any(|l| l.to_lowercase().contains("contradict")) => {
                EntailmentModel::CrossEncoder(ce)
            }
            _ => EntailmentModel::Judge(models.judge()?),
        };
        Ok(vec![Box::new(ConversationMetric::new(model))])
    }

    fn stages(&self, ctx: &StageContext<'_>) -> Result<Vec<Box<dyn Stage>>, EvalError> {
        Ok(vec![stages::conversations(ctx)?])
    }
}
