//! Typed, versioned JSON artifacts: a document is `{"kind", "schema_version", "provenance", ...}`
//! with the artifact's own fields beside them. Readers dispatch on `kind` ([`peek_header`]),
//! never on guessed fields; a newer `schema_version` is a one-line error, an older one is
//! brought up to date by [`Artifact::migrate`].

use crate::atomic::write_atomic;
use crate::error::ArtifactError;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

/// A JSON file one command writes for another to read; its JSON Schema ([`document_schema`]) is
/// derived from the type and committed under `docs/schemas/`.
pub trait Artifact: Serialize + DeserializeOwned + schemars::JsonSchema {
    /// The `kind` field, e.g. `"leaderboard"`.
    const KIND: &'static str;
    /// The schema version this build writes and the newest it reads.
    const SCHEMA_VERSION: u32;

    /// Whether a JSON object without `kind` is this artifact as written before artifacts were
    /// versioned (read as schema version 0). None by default.
    fn is_legacy(_value: &Value) -> bool {
        false
    }

    /// Brings a document of schema version `from` (older than [`Self::SCHEMA_VERSION`]) up to
    /// date. Unchanged by default: fields added since have serde defaults.
    fn migrate(value: Value, _from: u32) -> Value {
        value
    }
}

/// Where an artifact came from: enough to rerun it and to see what changed between two runs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Provenance {
    /// The ragjudge version that wrote it.
    pub ragjudge: String,
    /// The command line, one argument per item, the program name first (empty where the
    /// artifact must not depend on how it was produced, e.g. column definitions, which a merge
    /// of shards reproduces byte for byte).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub command: Vec<String>,
    /// The input files with their SHA-256 digests.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inputs: Vec<InputFile>,
    /// The models used, by role (`judge`, `embedder`, ...): a name and its identity (a digest or
    /// a server's model name).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub models: BTreeMap<String, String>,
    /// The versions of the prompts used, by protocol.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub prompts: BTreeMap<String, String>,
    /// The settings of the library call that produced the artifact, the same whichever face
    /// (command line, Python, server) made the call.
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub settings: Value,
}

/// One input file of an artifact.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct InputFile {
    /// The path as given.
    pub path: String,
    /// SHA-256 of its bytes, hex.
    pub sha256: String,
    /// Its size in bytes.
    pub bytes: u64,
}

impl InputFile {
    /// An input held in memory (e.g. records passed from Python), named `name`.
    pub fn of_bytes(name: &str, bytes: &[u8]) -> Self {
        let sha256 = Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect();
        InputFile { path: name.to_string(), sha256, bytes: bytes.len() as u64 }
    }

    /// Hashes `path`.
    pub fn hash(path: &Path) -> Result<Self, ArtifactError> {
        let mut file = std::fs::File::open(path).map_err(|e| ArtifactError::io(path, "read", e))?;
        let mut hasher = Sha256::new();
        let mut buf = vec![0u8; 1 << 16];
        let mut bytes = 0u64;
        loop {
            let n = file.read(&mut buf).map_err(|e| ArtifactError::io(path, "read", e))?;
            if n == 0 {
                break;
            }
            hasher.update(&buf[..n]);
            bytes += n as u64;
        }
        let sha256 = hasher.finalize().iter().map(|b| format!("{b:02x}")).collect();
        Ok(InputFile { path: path.display().to_string(), sha256, bytes })
    }
}

impl Provenance {
    /// This process: the ragjudge version and its command line.
    pub fn of_this_process() -> Self {
        Provenance {
            ragjudge: env!("CARGO_PKG_VERSION").to_string(),
            command: std::env::args().collect(),
            ..Default::default()
        }
    }

    /// The ragjudge version alone.
    pub fn version_only() -> Self {
        Provenance { ragjudge: env!("CARGO_PKG_VERSION").to_string(), ..Default::default() }
    }

    /// The same, with the given command line (faces other than the binary, e.g. Python).
    pub fn with_command(command: Vec<String>) -> Self {
        Provenance { ragjudge: env!("CARGO_PKG_VERSION").to_string(), command, ..Default::default() }
    }

    /// Adds the input files, hashed; a file given twice is listed once. Folders are skipped.
    pub fn add_inputs<P: AsRef<Path>>(&mut self, paths: &[P]) -> Result<(), ArtifactError> {
        for p in paths {
            let p = p.as_ref();
            if p.is_dir() || self.inputs.iter().any(|i| Path::new(&i.path) == p) {
                continue;
            }
            self.inputs.push(InputFile::hash(p)?);
        }
        Ok(())
    }

    /// Records the model used in `role`.
    pub fn add_model(&mut self, role: &str, identity: &str) {
        self.models.insert(role.to_string(), identity.to_string());
    }

    /// Records the version of the prompts of `protocol`.
    pub fn add_prompt(&mut self, protocol: &str, version: &str) {
        self.prompts.insert(protocol.to_string(), version.to_string());
    }

    /// The command line as one shell line, arguments with spaces or quotes single-quoted.
    pub fn command_line(&self) -> String {
        self.command.iter().map(|a| shell_quote(a)).collect::<Vec<_>>().join(" ")
    }
}

/// `arg` as a POSIX shell word.
fn shell_quote(arg: &str) -> String {
    let plain = !arg.is_empty() && arg.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:,@+%".contains(c));
    if plain {
        arg.to_string()
    } else {
        format!("'{}'", arg.replace('\'', r"'\''"))
    }
}

/// The fields every artifact starts with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Header {
    /// What the file is.
    pub kind: String,
    /// The version of its schema.
    pub schema_version: u32,
}

/// An artifact as read: its header, provenance and body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Document<T> {
    /// What the file is ([`Artifact::KIND`]).
    pub kind: String,
    /// The schema version it was written with (after migration: [`Artifact::SCHEMA_VERSION`]).
    pub schema_version: u32,
    /// Where it came from.
    #[serde(default)]
    pub provenance: Provenance,
    /// The artifact's own fields.
    #[serde(flatten)]
    pub body: T,
}

#[derive(Serialize)]
struct DocumentRef<'a, T> {
    kind: &'static str,
    schema_version: u32,
    provenance: &'a Provenance,
    #[serde(flatten)]
    body: &'a T,
}

/// The JSON Schema of `T`'s documents (`kind` fixed to [`Artifact::KIND`]), as committed under
/// `docs/schemas/KIND.schema.json`.
pub fn document_schema<T: Artifact>() -> Value {
    let mut schema = serde_json::to_value(schemars::schema_for!(Document<T>)).unwrap_or_default();
    if let Some(o) = schema.as_object_mut() {
        o.insert("title".into(), Value::from(T::KIND));
        o.insert("$comment".into(), Value::from(format!("schema_version {}", T::SCHEMA_VERSION)));
    }
    if let Some(kind) = schema.pointer_mut("/properties/kind") {
        *kind = serde_json::json!({ "description": "What the file is.", "const": T::KIND });
    }
    schema
}

/// `body` as its artifact document, pretty-printed with a final newline.
pub fn to_json_bytes<T: Artifact>(provenance: &Provenance, body: &T) -> Result<Vec<u8>, serde_json::Error> {
    let doc = DocumentRef { kind: T::KIND, schema_version: T::SCHEMA_VERSION, provenance, body };
    let mut bytes = serde_json::to_vec_pretty(&doc)?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// Writes `body` to `path` as its artifact document, atomically.
pub fn write_artifact<T: Artifact>(path: &Path, provenance: &Provenance, body: &T) -> Result<(), ArtifactError> {
    let bytes = to_json_bytes(provenance, body).map_err(|source| ArtifactError::Json { path: path.into(), source })?;
    write_atomic(path, &bytes)
}

/// The `kind` and `schema_version` of a JSON file; `None` when it is JSON without them (a file
/// of an older ragjudge, or not an artifact).
pub fn peek_header(path: &Path) -> Result<Option<Header>, ArtifactError> {
    let value = read_json(path)?;
    Ok(header_of(&value))
}

fn header_of(value: &Value) -> Option<Header> {
    let kind = value.get("kind")?.as_str()?.to_string();
    let schema_version = value.get("schema_version")?.as_u64().and_then(|v| u32::try_from(v).ok())?;
    Some(Header { kind, schema_version })
}

fn read_json(path: &Path) -> Result<Value, ArtifactError> {
    let text = std::fs::read_to_string(path).map_err(|e| ArtifactError::io(path, "read", e))?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    serde_json::from_str(text).map_err(|source| ArtifactError::Json { path: path.into(), source })
}

/// Reads the artifact `T` from `path`: checks its kind, refuses a newer schema, migrates an
/// older one.
pub fn read_artifact<T: Artifact>(path: &Path) -> Result<Document<T>, ArtifactError> {
    read_artifact_value(path, read_json(path)?)
}

/// [`read_artifact`] on a JSON value already read from `path`.
pub fn read_artifact_value<T: Artifact>(path: &Path, mut value: Value) -> Result<Document<T>, ArtifactError> {
    let header = match header_of(&value) {
        Some(h) => h,
        None if value.get("kind").is_none() && T::is_legacy(&value) => {
            Header { kind: T::KIND.into(), schema_version: 0 }
        }
        None if value.get("kind").is_none() => {
            return Err(ArtifactError::NoHeader { path: path.into(), field: "kind" })
        }
        None => return Err(ArtifactError::NoHeader { path: path.into(), field: "schema_version" }),
    };
    if header.kind != T::KIND {
        return Err(ArtifactError::WrongKind { path: path.into(), expected: T::KIND, found: header.kind });
    }
    if header.schema_version > T::SCHEMA_VERSION {
        return Err(ArtifactError::NewerSchema {
            path: path.into(),
            kind: header.kind,
            found: header.schema_version,
            supported: T::SCHEMA_VERSION,
        });
    }
    if header.schema_version < T::SCHEMA_VERSION {
        value = T::migrate(value, header.schema_version);
    }
    if let Some(obj) = value.as_object_mut() {
        obj.insert("kind".into(), Value::from(T::KIND));
        obj.insert("schema_version".into(), Value::from(T::SCHEMA_VERSION));
    }
    serde_json::from_value(value).map_err(|source| ArtifactError::Json { path: PathBuf::from(path), source })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
    struct Tally {
        count: u32,
        #[serde(default)]
        label: String,
    }

    impl Artifact for Tally {
        const KIND: &'static str = "tally";
        const SCHEMA_VERSION: u32 = 2;
        fn is_legacy(value: &Value) -> bool {
            value.get("count").is_some()
        }
        fn migrate(mut value: Value, from: u32) -> Value {
            if from < 2 {
                if let Some(o) = value.as_object_mut() {
                    o.insert("label".into(), Value::from(format!("migrated from {from}")));
                }
            }
            value
        }
    }

    #[test]
    fn the_schema_of_a_document_fixes_its_kind_and_lists_its_fields() {
        let schema = document_schema::<Tally>();
        assert_eq!(schema["title"], "tally");
        assert_eq!(schema["properties"]["kind"]["const"], "tally");
        assert_eq!(schema["properties"]["count"]["type"], "integer");
        let required: Vec<&str> = schema["required"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
        // `provenance` and `label` have defaults: a file may leave them out.
        assert!(required.contains(&"kind") && required.contains(&"count"), "{required:?}");
        assert!(!required.contains(&"label"), "{required:?}");
    }

    fn prov() -> Provenance {
        Provenance::with_command(vec!["ragjudge".into(), "tally".into()])
    }

    #[test]
    fn a_document_round_trips_with_its_header_first() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.json");
        write_artifact(&path, &prov(), &Tally { count: 3, label: "x".into() }).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("{\n  \"kind\": \"tally\",\n  \"schema_version\": 2,\n  \"provenance\""), "{text}");
        assert!(text.ends_with("}\n"));
        let doc: Document<Tally> = read_artifact(&path).unwrap();
        assert_eq!(doc.body, Tally { count: 3, label: "x".into() });
        assert_eq!(doc.provenance.command, vec!["ragjudge", "tally"]);
        assert_eq!(peek_header(&path).unwrap(), Some(Header { kind: "tally".into(), schema_version: 2 }));
    }

    #[test]
    fn a_newer_schema_an_unknown_kind_and_a_missing_header_are_one_line_errors() {
        let dir = tempfile::tempdir().unwrap();
        let newer = dir.path().join("newer.json");
        std::fs::write(&newer, r#"{"kind": "tally", "schema_version": 3, "count": 1}"#).unwrap();
        let e = read_artifact::<Tally>(&newer).unwrap_err().to_string();
        assert!(e.contains("schema version 3 was written by a newer ragjudge") && e.contains("up to version 2"), "{e}");
        assert!(!e.contains('\n'));
        let other = dir.path().join("other.json");
        std::fs::write(&other, r#"{"kind": "leaderboard", "schema_version": 1}"#).unwrap();
        let e = read_artifact::<Tally>(&other).unwrap_err().to_string();
        assert!(e.ends_with("a `leaderboard` file, expected `tally`"), "{e}");
        let bare = dir.path().join("bare.json");
        std::fs::write(&bare, r#"{"rows": []}"#).unwrap();
        let e = read_artifact::<Tally>(&bare).unwrap_err().to_string();
        assert!(e.contains("not a ragjudge artifact (no `kind` field)"), "{e}");
    }

    #[test]
    fn older_and_legacy_documents_are_migrated() {
        let dir = tempfile::tempdir().unwrap();
        let v1 = dir.path().join("v1.json");
        std::fs::write(&v1, "\u{feff}{\"kind\": \"tally\", \"schema_version\": 1, \"count\": 4}").unwrap();
        let doc: Document<Tally> = read_artifact(&v1).unwrap();
        assert_eq!(doc.body.label, "migrated from 1");
        assert_eq!(doc.schema_version, 2);
        let legacy = dir.path().join("legacy.json");
        std::fs::write(&legacy, r#"{"count": 5}"#).unwrap();
        let doc: Document<Tally> = read_artifact(&legacy).unwrap();
        assert_eq!((doc.body.count, doc.body.label.as_str()), (5, "migrated from 0"));
        assert_eq!(doc.provenance, Provenance::default());
    }

    #[test]
    fn inputs_are_hashed_once_each() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.txt");
        std::fs::write(&a, "abc").unwrap();
        let mut p = prov();
        p.add_inputs(&[a.clone(), a.clone()]).unwrap();
        // SHA-256("abc"), FIPS 180-2 appendix B.1.
        assert_eq!(p.inputs.len(), 1);
        assert_eq!(p.inputs[0].sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assert_eq!(p.inputs[0].bytes, 3);
    }

    #[test]
    fn command_line_quotes_what_the_shell_would_split() {
        let p = Provenance {
            ragjudge: "0.1.0".into(),
            command: vec!["ragjudge".into(), "--ids".into(), "q1,q2".into(), "it's here".into(), String::new()],
            ..Default::default()
        };
        assert_eq!(p.command_line(), r"ragjudge --ids q1,q2 'it'\''s here' ''");
    }

    #[test]
    fn command_lines_are_shell_quoted() {
        let p = Provenance::with_command(vec![
            "ragjudge".into(),
            "score".into(),
            "--input".into(),
            "my runs.jsonl".into(),
            "it's".into(),
        ]);
        assert_eq!(p.command_line(), r"ragjudge score --input 'my runs.jsonl' 'it'\''s'");
    }
}
