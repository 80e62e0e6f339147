//! Leaving the process while llama.cpp may still be working.
//!
//! `std::process::exit` runs the C exit handlers and C++ static destructors, which tear down
//! ggml's backend registry and the OpenMP runtime. When a command is interrupted, llama.cpp's
//! worker threads may still be decoding: they then run on freed state and the process dies of
//! SIGSEGV instead of exiting with the code asked for (seen on an interrupted tournament).
//! [`exit_now`] ends the process without running them.
#![allow(unsafe_code)]

use std::io::Write;

/// Flushes stdout and stderr and ends the process with `code` at once, without C exit handlers
/// or destructors (`_exit`). Outputs must already be safe on disk: nothing else runs.
pub fn exit_now(code: i32) -> ! {
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    // SAFETY: `_exit` takes no pointer and never returns; it is async-signal-safe.
    unsafe { libc::_exit(code) }
}
