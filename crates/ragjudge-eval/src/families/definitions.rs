//! How each output column was computed: its family, the version of ragjudge and the family's
//! [`MetricFamily::definition`]. `score -o FILE` writes them beside the scores
//! (`FILE.columns.json`, [`sidecar_path`]); a model fitted on those columns stores them and
//! refuses columns computed differently (e.g. CIU with another `C_char`).

use super::{select, MetricFamily, MetricSettings};
use crate::error::EvalError;
use crate::models::{ModelSet, ModelSettings};
use ragjudge_artifacts::{read_artifact, to_json_bytes, Artifact, ArtifactError, OutputSet, Provenance};
use ragjudge_core::Metric;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// How the columns of one family were computed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FamilyDefinition {
    /// The family's name (`ciu`, `lexical`, ...).
    pub family: String,
    /// The ragjudge version that computed them.
    pub version: String,
    /// The settings and models that decide the values.
    pub settings: Value,
}

/// The definition of every column of a score file, by column name.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ColumnDefinitions {
    /// Column name -> how it was computed.
    pub columns: BTreeMap<String, FamilyDefinition>,
}

impl ColumnDefinitions {
    /// The columns whose definitions differ between `self` (what a model was fitted on) and
    /// `now` (what is computed or read now), each as one line; absent columns are not compared.
    pub fn differences(&self, now: &ColumnDefinitions) -> Vec<String> {
        let mut out = Vec::new();
        for (col, was) in &self.columns {
            if let Some(is) = now.columns.get(col) {
                if was.family != is.family {
                    out.push(format!("`{col}` came from family {} and now from {}", was.family, is.family));
                } else if was.settings != is.settings {
                    out.push(format!("`{col}` was computed with {} and now with {}", was.settings, is.settings));
                } else if was.version != is.version {
                    out.push(format!("`{col}` was computed by ragjudge {} and now by {}", was.version, is.version));
                }
            }
        }
        out
    }
}

/// The metrics of the families `names`, built once, with the definition of every column they
/// produce (what [`super::build_metrics`] builds, plus how each column is computed).
pub fn build_with_definitions<S: AsRef<str>>(
    names: &[S],
    settings: &MetricSettings,
    models: &ModelSet,
) -> Result<(Vec<Box<dyn Metric>>, ColumnDefinitions), EvalError> {
    let mut metrics = Vec::new();
    let mut defs = ColumnDefinitions::default();
    for family in select(names)? {
        let def = family_definition(family, settings, models.settings());
        for metric in family.build(settings, models)? {
            for col in metric.columns() {
                defs.columns.insert(col, def.clone());
            }
            metrics.push(metric);
        }
    }
    Ok((metrics, defs))
}

/// The definitions of every column the families `names` produce with these settings.
pub fn definitions<S: AsRef<str>>(
    names: &[S],
    settings: &MetricSettings,
    models: &ModelSet,
) -> Result<ColumnDefinitions, EvalError> {
    build_with_definitions(names, settings, models).map(|(_, defs)| defs)
}

fn family_definition(family: &dyn MetricFamily, settings: &MetricSettings, models: &ModelSettings) -> FamilyDefinition {
    FamilyDefinition {
        family: family.name().to_string(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        settings: family.definition(settings, models),
    }
}

/// Where the definitions of the score file `scores` are kept: `scores` with `.columns.json` added.
pub fn sidecar_path(scores: &Path) -> PathBuf {
    let mut name = scores.as_os_str().to_owned();
    name.push(".columns.json");
    PathBuf::from(name)
}

impl Artifact for ColumnDefinitions {
    const KIND: &'static str = "column-definitions";
    const SCHEMA_VERSION: u32 = 1;

    /// Before artifacts were versioned the file held `{"columns": {...}}` alone.
    fn is_legacy(value: &Value) -> bool {
        value.get("columns").is_some_and(Value::is_object)
    }
}

/// Adds the definitions beside the score file `scores` to `set` (written with the scores). Their
/// provenance is the ragjudge version alone: the definitions say how the columns were computed,
/// whichever command computed them, so a merge of shards writes the file of a single run.
pub fn stage_definitions(scores: &Path, defs: &ColumnDefinitions, set: &mut OutputSet) -> Result<PathBuf, EvalError> {
    let path = sidecar_path(scores);
    let bytes = to_json_bytes(&Provenance::version_only(), defs)
        .map_err(|e| EvalError::io(&path, format!("cannot encode: {e}")))?;
    set.push_bytes(&path, &bytes)?;
    Ok(path)
}

/// Writes the definitions beside the score file `scores`, now.
pub fn write_definitions(scores: &Path, defs: &ColumnDefinitions) -> Result<PathBuf, EvalError> {
    let mut set = OutputSet::new();
    let path = stage_definitions(scores, defs, &mut set)?;
    set.commit()?;
    Ok(path)
}

/// The definitions kept beside the score file `scores`, if there are any.
pub fn read_definitions(scores: &Path) -> Result<Option<ColumnDefinitions>, EvalError> {
    let path = sidecar_path(scores);
    if !path.exists() {
        return Ok(None);
    }
    match read_artifact::<ColumnDefinitions>(&path) {
        Ok(doc) => Ok(Some(doc.body)),
        Err(e @ (ArtifactError::NewerSchema { .. } | ArtifactError::Io { .. })) => Err(e.into()),
        Err(e) => Err(EvalError::io(&path, format!("not a column-definitions file: {}", e.detail()))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ciu_columns_with_another_c_char_differ_and_the_rest_do_not() {
        let models = ModelSet::new(ModelSettings::default());
        let a = definitions(&["lexical", "ciu"], &MetricSettings::default(), &models).unwrap();
        assert_eq!(a.columns["ciu"].family, "ciu");
        assert_eq!(a.columns["rougeL_f"].family, "lexical");
        assert_eq!(a.columns["ciu"].settings["c_char"], 0.005);
        let mut s = MetricSettings::default();
        s.ciu.c_char = 0.01;
        let b = definitions(&["ciu"], &s, &models).unwrap();
        let d = a.differences(&b);
        assert_eq!(d.len(), 1, "{d:?}");
        assert!(d[0].starts_with("`ciu` was computed with {"), "{}", d[0]);
        assert!(d[0].contains("\"c_char\":0.01"), "{}", d[0]);
        assert!(a.differences(&a).is_empty());
    }

    #[test]
    fn the_sidecar_round_trips_and_is_absent_for_other_files() {
        let dir = tempfile::tempdir().unwrap();
        let scores = dir.path().join("s.csv");
        assert_eq!(sidecar_path(&scores), dir.path().join("s.csv.columns.json"));
        assert_eq!(read_definitions(&scores).unwrap(), None);
        let models = ModelSet::new(ModelSettings::default());
        let defs = definitions(&["ciu"], &MetricSettings::default(), &models).unwrap();
        write_definitions(&scores, &defs).unwrap();
        let text = std::fs::read_to_string(sidecar_path(&scores)).unwrap();
        assert!(text.starts_with("{\n  \"kind\": \"column-definitions\",\n  \"schema_version\": 1,"), "{text}");
        assert_eq!(read_definitions(&scores).unwrap(), Some(defs.clone()));
        // A file of an earlier ragjudge: the definitions alone.
        std::fs::write(sidecar_path(&scores), serde_json::to_string(&defs).unwrap()).unwrap();
        assert_eq!(read_definitions(&scores).unwrap(), Some(defs));
        std::fs::write(sidecar_path(&scores), r#"{"kind": "column-definitions", "schema_version": 9, "columns": {}}"#)
            .unwrap();
        let e = read_definitions(&scores).unwrap_err().to_string();
        assert!(e.contains("schema version 9 was written by a newer ragjudge"), "{e}");
        std::fs::write(sidecar_path(&scores), "[").unwrap();
        let e = read_definitions(&scores).unwrap_err().to_string();
        assert!(e.contains("s.csv.columns.json: not a column-definitions file"), "{e}");
    }
}
