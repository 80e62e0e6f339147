//! Metric families: what `--metrics lexical,ciu,...` names. Each family is one file with a type
//! implementing [`MetricFamily`], registered by one line in the `families!` list below (which
//! declares the module and adds the family to [`FAMILIES`]); its options, if any, are a field of
//! [`MetricSettings`]. CONTRIBUTING.md walks through adding one.

/// Declares each family's module and lists the families, in the order `--help` shows them.
macro_rules! families {
    ($($module:ident :: $family:ident),* $(,)?) => {
        $(mod $module;)*
        /// Every metric family, in the order `--help` lists them.
        pub static FAMILIES: &[&dyn MetricFamily] = &[$(&$module::$family),*];
    };
}

families! {
    lexical::Lexical,
    ciu::Ciu,
    retrieval::Retrieval,
    hcat::Hcat,
    safety::Safety,
    trec::Trec,
    ragchecker::RagChecker,
    semantic::Semantic,
    agent::Agent,
    conversation::Conversation,
    fused::Fused,
}

mod definitions;

pub use ciu::CiuSettings;
pub use definitions::{
    build_with_definitions, definitions, read_definitions, sidecar_path, stage_definitions, write_definitions,
    ColumnDefinitions, FamilyDefinition,
};
pub use fused::FusedSettings;
pub use hcat::{HcatNli, HcatSettings};
pub use lexical::{LangMode, LexicalSettings, ZhRougeTokens};
pub use ragchecker::{ClaimsFrom, RagCheckerSettings};
pub use retrieval::RetrievalSettings;
pub use safety::SafetySettings;
pub use semantic::{fit_ruber, fit_ruber_with, SemanticMetric, SemanticSettings, MIN_RUBER_PAIRS};
pub use trec::{NoAnswerMode, TrecParts, TrecSettings, TREC_PARTS};

use crate::error::EvalError;
use crate::models::{ModelSet, ModelSettings};
use crate::stages::{ConsistencySettings, Stage};
use ragjudge_core::Metric;
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;

/// A metric family: a name and how to build its metrics (and any cross-record stages it needs)
/// from the settings and the shared models.
pub trait MetricFamily: Sync {
    /// The name `--metrics` knows it by.
    fn name(&self) -> &'static str;
    /// Builds the family's metrics; models are loaded through `models` only when needed.
    fn build(&self, settings: &MetricSettings, models: &ModelSet) -> Result<Vec<Box<dyn Metric>>, EvalError>;
    /// What, besides the family and the version of ragjudge, decides its values: the settings and
    /// the models it uses (none by default). Stored with fitted models that take its columns as
    /// inputs, so that columns computed differently are refused ([`definitions`]).
    fn definition(&self, _settings: &MetricSettings, _models: &ModelSettings) -> Value {
        Value::Object(Default::default())
    }
    /// The cross-record stages this family adds to a run (none by default).
    fn stages(&self, _ctx: &StageContext<'_>) -> Result<Vec<Box<dyn Stage>>, EvalError> {
        Ok(Vec::new())
    }
}

/// The options of every family, each family's in its own field.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MetricSettings {
    /// ROUGE / BLEU / chrF / SQuAD.
    pub lexical: LexicalSettings,
    /// Conversational information utility.
    pub ciu: CiuSettings,
    /// Retrieval metrics from graded contexts.
    pub retrieval: RetrievalSettings,
    /// HCAT embedding and NLI metrics.
    pub hcat: HcatSettings,
    /// PII and toxicity.
    pub safety: SafetySettings,
    /// TREC RAG metrics as in Open RAG Eval.
    pub trec: TrecSettings,
    /// BERTScore and RUBER against the reference and the query.
    pub semantic: SemanticSettings,
    /// Consistency across repeated runs (also turned on by the `trec` family).
    pub consistency: ConsistencySettings,
    /// Fusion models (`fused:FILE`).
    pub fused: FusedSettings,
    /// RAGChecker's diagnostics.
    pub ragchecker: RagCheckerSettings,
}

/// What a family's [`MetricFamily::stages`] may look at.
pub struct StageContext<'a> {
    /// The settings of the run.
    pub settings: &'a MetricSettings,
    /// Every value column of the run, in order.
    pub columns: &'a [String],
    /// The per-record output file, if any (stages name their files after it).
    pub output: Option<&'a Path>,
    /// The run's models.
    pub models: &'a Arc<ModelSet>,
    /// Bootstrap replicates of the run's intervals.
    pub bootstrap: usize,
    /// Seed of the bootstrap.
    pub seed: u64,
    /// Confidence level of the intervals.
    pub level: f64,
}

/// Moves the arguments of `--metrics` entries (`fused:FILE`) into `settings` and returns the
/// family names alone. Only `fused` takes an argument.
pub fn split_arguments<S: AsRef<str>>(names: &[S], settings: &mut MetricSettings) -> Result<Vec<String>, EvalError> {
    let mut out = Vec::new();
    for name in names.iter().map(|s| s.as_ref().trim()).filter(|s| !s.is_empty()) {
        match name.split_once(':') {
            Some(("fused", file)) if !file.is_empty() => {
                settings.fused.models.push(file.into());
                out.push("fused".to_string());
            }
            Some((family, _)) => {
                return Err(EvalError::settings(format!(
                    "--metrics {name}: only `fused` takes an argument (fused:FILE), not `{family}`"
                )))
            }
            None => out.push(name.to_string()),
        }
    }
    Ok(out)
}

/// The names of every family.
pub fn known() -> Vec<&'static str> {
    FAMILIES.iter().map(|f| f.name()).collect()
}

/// The family called `name`.
pub fn find(name: &str) -> Result<&'static dyn MetricFamily, EvalError> {
    FAMILIES
        .iter()
        .copied()
        .find(|f| f.name() == name)
        .ok_or_else(|| EvalError::settings(format!("unknown metric `{name}` (known: {})", known().join(", "))))
}

/// The families named (trimmed, empty names ignored), in the order given, each once.
pub fn select<S: AsRef<str>>(names: &[S]) -> Result<Vec<&'static dyn MetricFamily>, EvalError> {
    let mut out: Vec<&'static dyn MetricFamily> = Vec::new();
    for name in names.iter().map(|s| s.as_ref().trim()).filter(|s| !s.is_empty()) {
        let family = find(name)?;
        if !out.iter().any(|f| f.name() == family.name()) {
            out.push(family);
        }
    }
    if out.is_empty() {
        return Err(EvalError::settings(format!("--metrics is empty (known: {})", known().join(", "))));
    }
    Ok(out)
}

/// Builds the metrics of the families named, in the order given, each family once.
pub fn build_metrics<S: AsRef<str>>(
    names: &[S],
    settings: &MetricSettings,
    models: &ModelSet,
) -> Result<Vec<Box<dyn Metric>>, EvalError> {
    let mut metrics = Vec::new();
    for family in select(names)? {
        metrics.extend(family.build(settings, models)?);
    }
    Ok(metrics)
}

/// The cross-record stages of a run: each family's; consistency across runs when the settings ask
/// for it and no family added it already; last, Open RAG Eval's results CSV when a file is named
/// (it carries the consistency columns, so it finishes after consistency).
pub fn build_stages<S: AsRef<str>>(names: &[S], ctx: &StageContext<'_>) -> Result<Vec<Box<dyn Stage>>, EvalError> {
    let mut stages: Vec<Box<dyn Stage>> = Vec::new();
    for family in select(names)? {
        stages.extend(family.stages(ctx)?);
    }
    if ctx.settings.consistency.enabled && !stages.iter().any(|s| s.name() == crate::stages::CONSISTENCY) {
        stages.insert(0, crate::stages::consistency(ctx)?);
    }
    if let Some(path) = &ctx.settings.trec.open_rag_csv {
        stages.push(crate::stages::open_rag_csv(path.clone(), ctx.settings.trec.options()?, ctx.columns));
    }
    Ok(stages)
}

/// A model file as a family's [`MetricFamily::definition`] names it: its file name and the sha256
/// of its bytes (`null` when unreadable: the family's build reports why).
pub(crate) fn file_identity(path: &Path) -> Value {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    serde_json::json!({"file": name, "sha256": ragjudge_models::hash::sha256_file(path).ok()})
}

/// Fails unless `value` is a finite number in `[lo, hi]`.
pub(crate) fn check_range(flag: &str, value: f64, lo: f64, hi: f64) -> Result<(), EvalError> {
    if !(value.is_finite() && (lo..=hi).contains(&value)) {
        return Err(EvalError::settings(format!("{flag} must be a number in [{lo}, {hi}], got {value}")));
    }
    Ok(())
}

/// Fails when the directory `path` would be written into does not exist.
pub(crate) fn check_parent(flag: &str, path: &Path) -> Result<(), EvalError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        if !dir.is_dir() {
            return Err(EvalError::settings(format!("{flag}: directory {} does not exist", dir.display())));
        }
    }
    Ok(())
}
