//! Where ragjudge keeps its files: `$RAGJUDGE_HOME`, else `$HOME/.cache/ragjudge`.

use std::path::PathBuf;

/// The ragjudge home directory: `$RAGJUDGE_HOME` when set and non-empty, else
/// `$HOME/.cache/ragjudge` (`%USERPROFILE%` on Windows), else `.ragjudge` in the working directory.
pub fn ragjudge_home() -> PathBuf {
    if let Some(dir) = non_empty_var("RAGJUDGE_HOME") {
        return PathBuf::from(dir);
    }
    match non_empty_var("HOME").or_else(|| non_empty_var("USERPROFILE")) {
        Some(home) => PathBuf::from(home).join(".cache").join("ragjudge"),
        None => PathBuf::from(".ragjudge"),
    }
}

/// The directory installed models live in: `ragjudge_home()/models`, one sub-directory per model.
pub fn models_dir() -> PathBuf {
    ragjudge_home().join("models")
}

fn non_empty_var(name: &str) -> Option<std::ffi::OsString> {
    std::env::var_os(name).filter(|v| !v.is_empty())
}
