//! Ctrl-C (SIGINT, SIGTERM, SIGHUP). Every output is written atomically, so an interrupted
//! command never leaves a half-written file at an output path. Commands that can stop cleanly
//! (`score`: between batches) say so with [`stop_between_batches`]: the first signal then asks
//! them to stop, a second one exits at once. Any other command exits at the first signal, except
//! `serve`, which does not install this handler: it shuts down with its own grace period.

use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);
static POLLED: AtomicBool = AtomicBool::new(false);

/// The exit code of an interrupted command (128 + SIGINT).
pub const EXIT_INTERRUPTED: i32 = 130;

/// Installs the handler; called once, first thing in `main`.
pub fn install() {
    let handler = || {
        if POLLED.load(Ordering::SeqCst) && !REQUESTED.swap(true, Ordering::SeqCst) {
            eprintln!("\ninterrupt: stopping after the records in flight (again to stop at once)");
        } else {
            ragjudge_artifacts::abandon_all();
            eprintln!("\ninterrupted: outputs not yet complete were not written; earlier outputs are unchanged");
            // Not `std::process::exit`: the judge's threads may be decoding (see `exit_process`).
            ragjudge_eval::models::backends::exit_process(EXIT_INTERRUPTED);
        }
    };
    if let Err(e) = ctrlc::set_handler(handler) {
        eprintln!("warning: cannot handle Ctrl-C ({e}); an interrupted run still leaves earlier outputs intact");
    }
}

/// The running command checks [`requested`] and stops cleanly.
pub fn stop_between_batches() {
    POLLED.store(true, Ordering::SeqCst);
}

/// Whether the user asked to stop.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::SeqCst)
}
