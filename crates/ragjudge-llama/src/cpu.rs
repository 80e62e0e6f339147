//! llama.cpp's CPU backend, picked at run time.
//!
//! With the `cpu-variants` feature (the CLI's `portable`) ggml compiles its CPU backend once per x86-64
//! feature level (`x64`, `sse42`, `sandybridge`, `haswell`, `skylakex`, `icelake`, `zen4`, ...;
//! on Arm, per Armv8/v9 level) as a loadable library, `libggml-cpu-<level>.so`. At start the
//! loader asks each library for its score on this CPU and keeps the best one whose
//! instructions the CPU has: a binary built anywhere uses AVX-512 where it exists and still
//! runs, on the plain `x64` library, where no extension does. Without the feature (the default)
//! the backend is linked in, compiled for the build machine's CPU under the workspace's
//! `-C target-cpu=native` (GGML_NATIVE), else with ggml's defaults for a non-native build (AVX2,
//! FMA, F16C).
//!
//! The libraries are looked for in `$RAGJUDGE_GGML_BACKENDS` when it is set, else in the
//! build's own backend folder, the executable's folder and the current folder.
//!
//! One of the two modules of the crate with `unsafe` code: ggml's backend registry has no safe binding.
#![allow(unsafe_code)]

use std::ffi::{CStr, CString};

/// Environment variable naming the folder of the `libggml-cpu-*.so` libraries.
pub const BACKENDS_ENV: &str = "RAGJUDGE_GGML_BACKENDS";

unsafe extern "C" fn void_log(
    _level: llama_cpp_sys_2::ggml_log_level,
    _text: *const std::os::raw::c_char,
    _user_data: *mut std::os::raw::c_void,
) {
}

/// Sends llama.cpp's and ggml's log lines nowhere.
pub(crate) fn quiet_logs() {
    // SAFETY: a callback that ignores its arguments, and no user data.
    unsafe { llama_cpp_sys_2::llama_log_set(Some(void_log), std::ptr::null_mut()) }
}

/// Loads the best CPU backend library once (a no-op without the `cpu-variants` feature).
/// Errors when no library could be loaded: llama.cpp would have no device to run on.
pub(crate) fn load_backends() -> Result<(), String> {
    if !cfg!(feature = "cpu-variants") {
        return Ok(());
    }
    let from_env = std::env::var_os(BACKENDS_ENV);
    match &from_env {
        Some(dir) => {
            let dir = CString::new(dir.to_string_lossy().as_bytes())
                .map_err(|_| format!("{BACKENDS_ENV} contains a NUL byte"))?;
            // SAFETY: a valid NUL-terminated path; ggml copies what it needs.
            unsafe { llama_cpp_sys_2::ggml_backend_load_all_from_path(dir.as_ptr()) }
        }
        // SAFETY: no arguments; searches the default folders.
        None => unsafe { llama_cpp_sys_2::ggml_backend_load_all() },
    }
    if cpu_features().is_some() {
        return Ok(());
    }
    let searched = match from_env {
        Some(dir) => format!("{} (from {BACKENDS_ENV})", dir.to_string_lossy()),
        None => {
            let built = llama_cpp_sys_2::BACKENDS_DIR.unwrap_or("the build's backend folder");
            format!("{built}, the executable's folder or the current folder")
        }
    };
    Err(format!(
        "no llama.cpp CPU backend (libggml-cpu-*.so) could be loaded from {searched}; set \
         {BACKENDS_ENV} to the folder that holds them"
    ))
}

/// The features of the CPU backend in use, as llama.cpp names them (`AVX2`, `AVX512`,
/// `FMA`, ...), each with its value; `None` when no CPU backend is registered. With
/// `cpu-variants` this tells which library the loader picked.
pub fn cpu_features() -> Option<Vec<(String, String)>> {
    // SAFETY: the registry functions only read ggml's global backend list, and the feature
    // list is a static array terminated by a NULL name.
    unsafe {
        for i in 0..llama_cpp_sys_2::ggml_backend_reg_count() {
            let reg = llama_cpp_sys_2::ggml_backend_reg_get(i);
            if reg.is_null() || CStr::from_ptr(llama_cpp_sys_2::ggml_backend_reg_name(reg)).to_bytes() != b"CPU" {
                continue;
            }
            let mut out = Vec::new();
            let proc = llama_cpp_sys_2::ggml_backend_reg_get_proc_address(reg, c"ggml_backend_get_features".as_ptr());
            if !proc.is_null() {
                let get: unsafe extern "C" fn(
                    llama_cpp_sys_2::ggml_backend_reg_t,
                ) -> *mut llama_cpp_sys_2::ggml_backend_feature = std::mem::transmute(proc);
                let mut f = get(reg);
                while !f.is_null() && !(*f).name.is_null() {
                    let text = |p: *const std::os::raw::c_char| {
                        if p.is_null() {
                            String::new()
                        } else {
                            CStr::from_ptr(p).to_string_lossy().into_owned()
                        }
                    };
                    out.push((text((*f).name), text((*f).value)));
                    f = f.add(1);
                }
            }
            return Some(out);
        }
    }
    None
}
