//! [`OutputLock`]: an advisory lock per output path, so that two processes writing the same
//! output get a clear error instead of interleaved rows.
//!
//! The lock is a hidden file `.NAME.lock` beside the output, locked with the operating system's
//! advisory file lock (`flock` on Unix), which the system releases when the process dies, so a
//! killed run never leaves a stale lock. The file is removed when the lock is dropped.

use crate::error::ArtifactError;
use same_file::Handle;
use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

/// An exclusive advisory lock on one output path, held until dropped.
#[derive(Debug)]
pub struct OutputLock {
    file: Option<File>,
    path: PathBuf,
}

/// The lock file of `output`: `.NAME.lock` in the same folder.
pub(crate) fn lock_path(output: &Path) -> PathBuf {
    let name = output.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    output.with_file_name(format!(".{name}.lock"))
}

impl OutputLock {
    /// Takes the lock of `output` without waiting; [`ArtifactError::Busy`] when another process
    /// holds it. The output's folder must exist.
    pub fn acquire(output: &Path) -> Result<Self, ArtifactError> {
        let path = lock_path(output);
        // A lock file removed by its previous holder between our open and our lock is not the
        // lock any more: try again on the file now at the path.
        for _ in 0..8 {
            let file = OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&path)
                .map_err(|e| ArtifactError::io(&path, "create the lock file", e))?;
            match file.try_lock() {
                Ok(()) => {}
                Err(TryLockError::WouldBlock) => {
                    return Err(ArtifactError::Busy { path: output.to_path_buf(), lock: path })
                }
                Err(TryLockError::Error(e)) => return Err(ArtifactError::io(&path, "lock", e)),
            }
            let still_there = match (Handle::from_path(&path), file.try_clone().and_then(Handle::from_file)) {
                (Ok(on_disk), Ok(held)) => on_disk == held,
                _ => false,
            };
            if still_there {
                return Ok(OutputLock { file: Some(file), path });
            }
        }
        Err(ArtifactError::Busy { path: output.to_path_buf(), lock: path })
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for OutputLock {
    fn drop(&mut self) {
        // Removed while still held, so a process that opens the path afterwards locks a new file.
        let _ = std::fs::remove_file(&self.path);
        drop(self.file.take());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_the_same_output_is_busy_until_the_first_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("scores.csv");
        let first = OutputLock::acquire(&out).unwrap();
        assert_eq!(first.path(), dir.path().join(".scores.csv.lock"));
        let err = OutputLock::acquire(&out).unwrap_err();
        assert!(matches!(err, ArtifactError::Busy { .. }), "{err}");
        assert!(err.to_string().contains("another ragjudge process"), "{err}");
        drop(first);
        assert!(!dir.path().join(".scores.csv.lock").exists());
        let again = OutputLock::acquire(&out).unwrap();
        drop(again);
    }

    #[test]
    fn locks_on_different_outputs_do_not_conflict() {
        let dir = tempfile::tempdir().unwrap();
        let a = OutputLock::acquire(&dir.path().join("a.csv")).unwrap();
        let b = OutputLock::acquire(&dir.path().join("b.csv")).unwrap();
        drop((a, b));
    }
}
