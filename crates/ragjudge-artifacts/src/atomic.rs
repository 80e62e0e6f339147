//! [`AtomicFile`] and [`OutputSet`]: outputs that appear complete or not at all.
//!
//! A file is written to `.NAME.XXXXXX.partial` in the destination's folder, flushed to disk and
//! renamed over the destination only by [`AtomicFile::commit`]; until then the previous output is
//! untouched. Dropped without a commit (an error, an interrupt handled by the caller), the partial
//! file is removed; after a `SIGKILL` it is left behind hidden and removed by the next writer of
//! the same output, which holds the output's [`OutputLock`] and so knows no one else is writing.

use crate::error::ArtifactError;
use crate::lock::OutputLock;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use tempfile::NamedTempFile;

/// An output being written: a temporary file in the destination's folder, locked.
#[derive(Debug)]
pub struct AtomicFile {
    /// `None` once committed.
    writer: Option<BufWriter<NamedTempFile>>,
    dest: PathBuf,
    lock: Option<OutputLock>,
}

/// The partial and lock files of the outputs being written in this process, for
/// [`abandon_all`].
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn live() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    LIVE.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Removes the partial and lock files of every output this process is still writing: for a
/// handler that exits at once on a signal, when destructors will not run. Every destination is
/// left as it was.
pub fn abandon_all() {
    for path in live().drain(..) {
        let _ = std::fs::remove_file(path);
    }
}

fn partial_prefix(dest: &Path) -> String {
    let name = dest.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    format!(".{name}.")
}

const PARTIAL_SUFFIX: &str = ".partial";

impl AtomicFile {
    /// Starts writing `dest`: takes its lock (an error when another process holds it), removes
    /// partial files a killed writer left, and opens a temporary file beside it. The folder must
    /// exist (see [`create_parent_dirs`]).
    pub fn create(dest: &Path) -> Result<Self, ArtifactError> {
        if dest.file_name().is_none() {
            return Err(ArtifactError::io(
                dest,
                "write",
                std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a file path"),
            ));
        }
        if dest.is_dir() {
            return Err(ArtifactError::io(
                dest,
                "write",
                std::io::Error::new(std::io::ErrorKind::IsADirectory, "is a directory"),
            ));
        }
        let dir = match dest.parent().filter(|d| !d.as_os_str().is_empty()) {
            Some(d) => d.to_path_buf(),
            None => PathBuf::from("."),
        };
        if !dir.is_dir() {
            let e = std::io::Error::new(std::io::ErrorKind::NotFound, "no such folder");
            return Err(ArtifactError::io(dest, "write", e));
        }
        let lock = OutputLock::acquire(dest)?;
        remove_stale_partials(&dir, dest);
        let mut builder = tempfile::Builder::new();
        let prefix = partial_prefix(dest);
        builder.prefix(&prefix).suffix(PARTIAL_SUFFIX);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            // The permissions a plain `File::create` gives (0666 less the umask), not 0600.
            builder.permissions(std::fs::Permissions::from_mode(0o666));
        }
        let temp = builder.tempfile_in(&dir).map_err(|e| ArtifactError::io(dest, "create a temporary file for", e))?;
        live().extend([temp.path().to_path_buf(), lock.path().to_path_buf()]);
        Ok(AtomicFile {
            writer: Some(BufWriter::with_capacity(1 << 16, temp)),
            dest: dest.to_path_buf(),
            lock: Some(lock),
        })
    }

    /// A file for `dest` holding `bytes`, not yet in place.
    pub fn with_bytes(dest: &Path, bytes: &[u8]) -> Result<Self, ArtifactError> {
        let mut file = AtomicFile::create(dest)?;
        file.write_all(bytes).map_err(|e| ArtifactError::io(dest, "write", e))?;
        Ok(file)
    }

    /// The destination.
    pub fn dest(&self) -> &Path {
        &self.dest
    }

    /// Flushes, syncs and renames the file into place. The lock is released afterwards.
    pub fn commit(mut self) -> Result<(), ArtifactError> {
        let Some(writer) = self.writer.take() else { return Ok(()) };
        let dest = self.dest.clone();
        let temp_path = writer.get_ref().path().to_path_buf();
        let temp = writer.into_inner().map_err(|e| ArtifactError::io(&dest, "write", e.into_error()))?;
        temp.as_file().sync_all().map_err(|e| ArtifactError::io(&dest, "write", e))?;
        temp.persist(&dest).map_err(|e| ArtifactError::io(&dest, "rename into place", e.error))?;
        live().retain(|p| *p != temp_path);
        sync_parent(&dest);
        Ok(())
    }

    fn writer(&mut self) -> std::io::Result<&mut BufWriter<NamedTempFile>> {
        self.writer.as_mut().ok_or_else(|| std::io::Error::other("the output was already committed"))
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        // The partial file removes itself (NamedTempFile); forget it and the lock here.
        let mut live = live();
        if let Some(w) = &self.writer {
            let temp = w.get_ref().path();
            live.retain(|p| p != temp);
        }
        if let Some(lock) = self.lock.take() {
            live.retain(|p| p != lock.path());
            drop(lock);
        }
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.writer()?.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.writer()?.write_all(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.writer()?.flush()
    }
}

/// Creates the missing folders above `path`.
pub fn create_parent_dirs(path: &Path) -> Result<(), ArtifactError> {
    match path.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(dir) => std::fs::create_dir_all(dir).map_err(|e| ArtifactError::io(dir, "create the folder", e)),
        None => Ok(()),
    }
}

/// Writes `bytes` to `path` atomically (see [`AtomicFile`]).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ArtifactError> {
    AtomicFile::with_bytes(path, bytes)?.commit()
}

/// Removes `.NAME.*.partial` files in `dir`: left by a killed writer of `dest`.
fn remove_stale_partials(dir: &Path, dest: &Path) {
    let prefix = partial_prefix(dest);
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with(&prefix)
            && name.ends_with(PARTIAL_SUFFIX)
            && name.len() > prefix.len() + PARTIAL_SUFFIX.len()
        {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Makes the rename durable: syncs the folder that holds `path` (Unix; a no-op elsewhere).
fn sync_parent(path: &Path) {
    #[cfg(unix)]
    if let Some(dir) = path.parent() {
        let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
    }
}

/// A main output and its sidecars, replaced together by [`OutputSet::commit`]: every file is
/// complete on disk before the first rename, the sidecars are renamed first and the main file
/// last, and sidecars of an earlier run that this run does not write are removed.
#[derive(Debug, Default)]
pub struct OutputSet {
    files: Vec<AtomicFile>,
    stale: Vec<PathBuf>,
}

impl OutputSet {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a file; the first one added is the main output and is renamed last.
    pub fn push(&mut self, file: AtomicFile) {
        self.files.push(file);
    }

    /// Adds every file and stale path of `other`, after this set's own.
    pub fn extend(&mut self, other: OutputSet) {
        self.files.extend(other.files);
        self.stale.extend(other.stale);
    }

    /// Adds a file with `bytes` as its content.
    pub fn push_bytes(&mut self, path: &Path, bytes: &[u8]) -> Result<(), ArtifactError> {
        self.files.push(AtomicFile::with_bytes(path, bytes)?);
        Ok(())
    }

    /// A sidecar of an earlier run to remove if this set does not write it.
    pub fn remove_if_unwritten(&mut self, path: &Path) {
        self.stale.push(path.to_path_buf());
    }

    /// Replaces every file; removes the stale sidecars.
    pub fn commit(self) -> Result<(), ArtifactError> {
        let OutputSet { mut files, stale } = self;
        let written: Vec<PathBuf> = files.iter().map(|f| f.dest.clone()).collect();
        for path in stale.iter().filter(|p| !written.contains(p)) {
            match std::fs::remove_file(path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(ArtifactError::io(path, "remove the earlier sidecar", e)),
            }
        }
        if files.is_empty() {
            return Ok(());
        }
        let main = files.remove(0);
        for f in files {
            f.commit()?;
        }
        main.commit()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> =
            std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        v.sort();
        v
    }

    #[test]
    fn the_previous_output_stays_until_the_new_one_is_committed() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.csv");
        std::fs::write(&out, "old\n").unwrap();
        let mut f = AtomicFile::create(&out).unwrap();
        f.write_all(b"new\n").unwrap();
        f.flush().unwrap();
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "old\n");
        f.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "new\n");
        assert_eq!(names(dir.path()), vec!["out.csv"], "no partial or lock file left");
    }

    #[test]
    fn a_dropped_writer_leaves_the_previous_output_and_no_partial_file() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.jsonl");
        std::fs::write(&out, "old\n").unwrap();
        {
            let mut f = AtomicFile::create(&out).unwrap();
            f.write_all(b"half a ro").unwrap();
        }
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "old\n");
        assert_eq!(names(dir.path()), vec!["out.jsonl"]);
    }

    #[test]
    fn partial_files_of_a_killed_writer_are_removed_by_the_next_writer() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.csv");
        std::fs::write(dir.path().join(".out.csv.abc123.partial"), "killed").unwrap();
        std::fs::write(dir.path().join(".other.csv.abc123.partial"), "someone else's").unwrap();
        write_atomic(&out, b"x").unwrap();
        assert_eq!(names(dir.path()), vec![".other.csv.abc123.partial", "out.csv"]);
    }

    #[test]
    fn missing_folders_are_an_error_unless_created_and_a_folder_is_not_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let nested = dir.path().join("a/b/c.json");
        let err = write_atomic(&nested, b"{}").unwrap_err();
        assert!(err.to_string().contains("no such folder"), "{err}");
        create_parent_dirs(&nested).unwrap();
        write_atomic(&nested, b"{}").unwrap();
        assert_eq!(std::fs::read_to_string(&nested).unwrap(), "{}");
        let err = write_atomic(dir.path(), b"x").unwrap_err();
        assert!(err.to_string().contains("is a directory"), "{err}");
    }

    #[test]
    fn a_second_writer_of_the_same_output_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.csv");
        let first = AtomicFile::create(&out).unwrap();
        let err = AtomicFile::create(&out).unwrap_err();
        assert!(matches!(err, ArtifactError::Busy { .. }), "{err}");
        first.commit().unwrap();
    }

    #[test]
    fn a_set_replaces_its_files_and_removes_stale_sidecars() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("s.csv");
        let columns = dir.path().join("s.csv.columns.json");
        let shard = dir.path().join("s.csv.shard.json");
        std::fs::write(&main, "old").unwrap();
        std::fs::write(&shard, "old shard").unwrap();
        let mut set = OutputSet::new();
        set.push_bytes(&main, b"new").unwrap();
        set.push_bytes(&columns, b"{}").unwrap();
        set.remove_if_unwritten(&columns);
        set.remove_if_unwritten(&shard);
        assert_eq!(std::fs::read_to_string(&main).unwrap(), "old");
        set.commit().unwrap();
        assert_eq!(names(dir.path()), vec!["s.csv", "s.csv.columns.json"]);
        assert_eq!(std::fs::read_to_string(&main).unwrap(), "new");
    }

    #[cfg(unix)]
    #[test]
    fn outputs_get_the_permissions_of_a_plain_create() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("plain");
        std::fs::write(&plain, "x").unwrap();
        let atomic = dir.path().join("atomic");
        write_atomic(&atomic, b"x").unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&atomic), mode(&plain));
    }
}
