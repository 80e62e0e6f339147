//! The weights hash behind a judge's identity, cached in a `FILE.sha256` sidecar.
//!
//! The sidecar holds `HASH  NAME` (the `sha256sum` format, so `sha256sum -c` still checks it)
//! and a second line `# size=BYTES mtime_ns=NANOS`. The cached hash is used only while the
//! file's size and modification time are unchanged; otherwise the file is hashed again.

use ragjudge_models::{ModelError, Reason};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

/// Size and modification time of a file, the key of its cached hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    size: u64,
    mtime_ns: u128,
}

fn stamp(path: &Path) -> Result<Stamp, ModelError> {
    let meta = fs::metadata(path).map_err(|e| ModelError::Io(Reason::caused(path.display(), e)))?;
    let mtime_ns = meta.modified().ok().and_then(|t| t.duration_since(UNIX_EPOCH).ok()).map_or(0, |d| d.as_nanos());
    Ok(Stamp { size: meta.len(), mtime_ns })
}

/// The sidecar path: `FILE.sha256` next to `FILE`.
pub fn sidecar_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(".sha256");
    path.with_file_name(name)
}

/// Streams the file through sha256; lowercase hex (shared with `ragjudge models verify`).
pub use ragjudge_models::hash::sha256_file;

fn read_sidecar(path: &Path, want: Stamp) -> Option<String> {
    let text = fs::read_to_string(sidecar_path(path)).ok()?;
    let mut lines = text.lines();
    let hash = lines.next()?.split_whitespace().next()?.to_ascii_lowercase();
    if hash.len() != 64 || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let meta = lines.next()?.strip_prefix('#')?;
    let mut size = None;
    let mut mtime_ns = None;
    for field in meta.split_whitespace() {
        if let Some(v) = field.strip_prefix("size=") {
            size = v.parse::<u64>().ok();
        } else if let Some(v) = field.strip_prefix("mtime_ns=") {
            mtime_ns = v.parse::<u128>().ok();
        }
    }
    (Stamp { size: size?, mtime_ns: mtime_ns? } == want).then_some(hash)
}

/// The file's sha256 (lowercase hex), from the sidecar when it matches the file's size and
/// modification time, else computed and written to the sidecar (when the folder is writable).
pub fn weights_sha256(path: &Path) -> Result<String, ModelError> {
    let before = stamp(path)?;
    if let Some(hash) = read_sidecar(path, before) {
        return Ok(hash);
    }
    let hash = sha256_file(path)?;
    if stamp(path)? == before {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let text = format!("{hash}  {name}\n# size={} mtime_ns={}\n", before.size, before.mtime_ns);
        // A read-only model folder is fine: the hash is then recomputed on the next load.
        let _ = fs::write(sidecar_path(path), text);
    }
    Ok(hash)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_known_text_and_caches_it() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("w.gguf");
        fs::write(&file, b"abc").unwrap();
        // sha256("abc") from FIPS 180-2, appendix B.1.
        let want = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        assert_eq!(weights_sha256(&file).unwrap(), want);
        let side = fs::read_to_string(sidecar_path(&file)).unwrap();
        assert!(side.starts_with(&format!("{want}  w.gguf\n# size=3 ")));
        // A doctored sidecar with the right stamp is trusted: proof that the cache is read.
        let doctored = side.replacen(want, &"0".repeat(64), 1);
        fs::write(sidecar_path(&file), doctored).unwrap();
        assert_eq!(weights_sha256(&file).unwrap(), "0".repeat(64));
        // A changed file (different size) is hashed again; expected value from Python 3 hashlib.
        fs::write(&file, b"abcd").unwrap();
        assert_eq!(weights_sha256(&file).unwrap(), "88d4266fd4e6338d13b845fcf289579d209c897823b9217da3e161936f031589");
    }

    #[test]
    fn sidecar_without_stamp_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("m.gguf");
        fs::write(&file, b"abc").unwrap();
        fs::write(sidecar_path(&file), format!("{}  m.gguf\n", "1".repeat(64))).unwrap();
        assert!(weights_sha256(&file).unwrap().starts_with("ba7816bf"));
    }
}
