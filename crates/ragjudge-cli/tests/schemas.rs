//! Every artifact kind has its JSON Schema, generated from its type, committed under
//! `docs/schemas/KIND.schema.json`. A changed type fails here until the file is regenerated:
//! `RAGJUDGE_BLESS=1 cargo test -p ragjudge-cli --test schemas` (then review the diff, and bump the
//! artifact's `SCHEMA_VERSION` if a field changed meaning or went away).

use ragjudge_artifacts::{document_schema, Artifact};
use serde_json::Value;
use std::path::PathBuf;

/// Every artifact kind, with its schema.
fn kinds() -> Vec<(&'static str, Value)> {
    fn of<T: Artifact>() -> (&'static str, Value) {
        (T::KIND, document_schema::<T>())
    }
    vec![
        of::<ragjudge_eval::families::ColumnDefinitions>(),
        of::<ragjudge_eval::merge::ShardManifest>(),
        of::<ragjudge_dice::leaderboard::LeaderboardReport>(),
        of::<ragjudge_dice::compare::CompareReport>(),
        of::<ragjudge_dice::baseline::BaselineReport>(),
        of::<ragjudge_dice::meta::job::JudgeEvalReport>(),
        of::<ragjudge_analysis::weakness::WeaknessArtifact>(),
        of::<ragjudge_analysis::robustness::RobustnessReport>(),
        of::<ragjudge_stats::calibration::report::CalibrationReport>(),
        of::<ragjudge_stats::calibration::saved::FittedCalibration>(),
        of::<ragjudge_fusion::model::FusedModel>(),
        of::<ragjudge_safety::probes::report::ProbeReport>(),
        of::<ragjudge_testgen::pipeline::TopicsDocument>(),
        of::<ragjudge_testgen::pipeline::TestgenSummary>(),
        of::<ragjudge_human::store::LabelSet>(),
        of::<ragjudge_human::plan::Plan>(),
        of::<ragjudge_human::agreement::AnnotatorAgreement>(),
        of::<ragjudge_human::validate::Validation>(),
    ]
}

fn schema_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/schemas")
}

#[test]
fn every_artifact_kind_has_its_committed_schema() {
    let bless = std::env::var_os("RAGJUDGE_BLESS").is_some();
    let mut stale = Vec::new();
    let kinds = kinds();
    for (kind, schema) in &kinds {
        let path = schema_dir().join(format!("{kind}.schema.json"));
        let text = serde_json::to_string_pretty(schema).unwrap() + "\n";
        if bless {
            std::fs::write(&path, &text).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            stale.push(path.display().to_string());
        }
    }
    assert!(stale.is_empty(), "stale or missing schemas (regenerate with RAGJUDGE_BLESS=1): {stale:?}");
    // No schema file for a kind that no longer exists.
    let mut files: Vec<String> = std::fs::read_dir(schema_dir())
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".schema.json").map(str::to_string))
        .collect();
    files.sort();
    let mut names: Vec<String> = kinds.iter().map(|(k, _)| k.to_string()).collect();
    names.sort();
    assert_eq!(files, names);
}
