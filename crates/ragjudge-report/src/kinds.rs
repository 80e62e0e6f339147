//! What a JSON input is, for `report` and `gate` to dispatch on with one match arm per kind: the
//! `kind` of its artifact header, or for a file written before artifacts had one, the kind whose
//! `Artifact::is_legacy` recognises it.

use ragjudge_analysis::robustness::RobustnessReport;
use ragjudge_analysis::weakness::WeaknessArtifact;
use ragjudge_artifacts::{peek_header, Artifact, ArtifactError, Header};
use ragjudge_dice::baseline::BaselineReport;
use ragjudge_dice::compare::CompareReport;
use ragjudge_dice::leaderboard::LeaderboardReport;
use ragjudge_dice::meta::job::JudgeEvalReport;
use ragjudge_eval::families::ColumnDefinitions;
use ragjudge_eval::ShardManifest;
use ragjudge_fusion::model::FusedModel;
use ragjudge_human::agreement::AnnotatorAgreement;
use ragjudge_human::plan::Plan;
use ragjudge_human::store::LabelSet;
use ragjudge_human::validate::Validation;
use ragjudge_safety::probes::report::ProbeReport;
use ragjudge_stats::calibration::{CalibrationReport, FittedCalibration};
use ragjudge_testgen::pipeline::{TestgenSummary, TopicsDocument};
use serde_json::Value;
use std::path::Path;

/// Recognises a document of one kind written before artifacts had a header.
type IsLegacy = fn(&Value) -> bool;

/// Every kind `report` and `gate` read.
pub const KINDS: [&str; 18] = [
    LeaderboardReport::KIND,
    CompareReport::KIND,
    BaselineReport::KIND,
    JudgeEvalReport::KIND,
    WeaknessArtifact::KIND,
    RobustnessReport::KIND,
    CalibrationReport::KIND,
    FittedCalibration::KIND,
    FusedModel::KIND,
    ProbeReport::KIND,
    TopicsDocument::KIND,
    TestgenSummary::KIND,
    ShardManifest::KIND,
    ColumnDefinitions::KIND,
    Validation::KIND,
    AnnotatorAgreement::KIND,
    LabelSet::KIND,
    Plan::KIND,
];

/// Kinds recognised in files without a header, tried in this order.
const LEGACY: [(&str, IsLegacy); 11] = [
    (LeaderboardReport::KIND, LeaderboardReport::is_legacy),
    (CompareReport::KIND, CompareReport::is_legacy),
    (BaselineReport::KIND, BaselineReport::is_legacy),
    (WeaknessArtifact::KIND, WeaknessArtifact::is_legacy),
    (RobustnessReport::KIND, RobustnessReport::is_legacy),
    (CalibrationReport::KIND, CalibrationReport::is_legacy),
    (FusedModel::KIND, FusedModel::is_legacy),
    (JudgeEvalReport::KIND, JudgeEvalReport::is_legacy),
    (ProbeReport::KIND, ProbeReport::is_legacy),
    (TopicsDocument::KIND, TopicsDocument::is_legacy),
    (FittedCalibration::KIND, FittedCalibration::is_legacy),
];

/// A JSON file, identified.
#[derive(Debug, Clone, PartialEq)]
pub enum JsonKind {
    /// An artifact: its header (its body is read through its type).
    Artifact(Header),
    /// A file of kind `kind` written before artifacts had a header, as read.
    Legacy {
        /// The kind.
        kind: &'static str,
        /// The document.
        value: Value,
    },
    /// JSON of no artifact kind (recognised by its fields, if at all).
    Other(Value),
}

impl JsonKind {
    /// The kind, when there is one.
    pub fn kind(&self) -> Option<&str> {
        match self {
            JsonKind::Artifact(h) => Some(&h.kind),
            JsonKind::Legacy { kind, .. } => Some(kind),
            JsonKind::Other(_) => None,
        }
    }
}

/// Identifies the JSON file `path`; the error is one line without the file name (`cannot
/// read: ...`, `not JSON: ...`).
pub fn identify(path: &Path) -> Result<JsonKind, String> {
    let describe = |e: ArtifactError| match e {
        ArtifactError::Io { source, .. } => format!("cannot read: {source}"),
        ArtifactError::Json { source, .. } => format!("not JSON: {source}"),
        other => other.detail(),
    };
    if let Some(header) = peek_header(path).map_err(describe)? {
        return Ok(JsonKind::Artifact(header));
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read: {e}"))?;
    let value: Value = serde_json::from_str(ragjudge_core::bom::strip(&text)).map_err(|e| format!("not JSON: {e}"))?;
    Ok(match LEGACY.iter().find(|(_, is)| is(&value)) {
        Some(&(kind, _)) => JsonKind::Legacy { kind, value },
        None => JsonKind::Other(value),
    })
}

/// Reads the artifact `T` identified as `kind` from `path` (a legacy document as read, an
/// artifact from the file); the error is one line without the file name.
pub fn read<T: Artifact>(path: &Path, kind: JsonKind) -> Result<ragjudge_artifacts::Document<T>, String> {
    match kind {
        JsonKind::Legacy { value, .. } | JsonKind::Other(value) => {
            ragjudge_artifacts::read_artifact_value(path, value).map_err(|e| e.detail())
        }
        JsonKind::Artifact(_) => ragjudge_artifacts::read_artifact(path).map_err(|e| e.detail()),
    }
}
