//! With the `cpu-variants` feature llama.cpp is a set of shared libraries: `libllama.so.0`,
//! `libggml.so.0`, `libggml-base.so.0` and one CPU backend per feature level,
//! `libggml-cpu-<level>.so`. `llama-cpp-sys-2` leaves them in its build folder (its own copy
//! step links only the unversioned names, which point at files it does not copy). This puts
//! every one of them beside the build's binaries (`target/<profile>/`, `deps/`, `examples/`),
//! where the `ragjudge` binary (rpath `$ORIGIN`) and ggml's backend loader (which searches the
//! executable's folder) find them, so the folder can be moved as a whole.

use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=DEP_LLAMA_BACKENDS_DIR");
    let Ok(backends) = std::env::var("DEP_LLAMA_BACKENDS_DIR") else { return };
    let backends = PathBuf::from(backends);
    let Some(lib) = backends.parent().map(|p| p.join("lib")) else { return };
    // OUT_DIR is target/<profile>/build/ragjudge-llama-<hash>/out.
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let Some(profile) = out.ancestors().nth(3) else { return };
    for from in [&lib, &backends] {
        println!("cargo:rerun-if-changed={}", from.display());
        for to in [profile.to_path_buf(), profile.join("deps"), profile.join("examples")] {
            if to.is_dir() {
                if let Err(e) = place_libraries(from, &to) {
                    println!("cargo:warning=cannot place the llama.cpp libraries in {}: {e}", to.display());
                }
            }
        }
    }
}

/// Every shared library of `from` (`*.so*`, `*.dylib`, `*.dll`) into `to`: symbolic links as
/// links, files as hard links (a copy across file systems), replacing what is there.
fn place_libraries(from: &Path, to: &Path) -> std::io::Result<()> {
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let name = entry.file_name();
        let text = name.to_string_lossy();
        if !(text.contains(".so") || text.ends_with(".dylib") || text.ends_with(".dll")) {
            continue;
        }
        let dest = to.join(&name);
        if dest.symlink_metadata().is_ok() {
            std::fs::remove_file(&dest)?;
        }
        let kind = entry.file_type()?;
        #[cfg(unix)]
        if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(entry.path())?, &dest)?;
            continue;
        }
        if kind.is_file() && std::fs::hard_link(entry.path(), &dest).is_err() {
            std::fs::copy(entry.path(), &dest)?;
        }
    }
    Ok(())
}
