//! Pulls built-in models into `$RAGJUDGE_HOME/models` and verifies them, printing timings.
//!
//! `cargo run -p ragjudge-store --example pull -- minilm smollm2-135m`

use ragjudge_store::{Manifest, ModelStore, PullOptions};
use std::time::Instant;

fn main() {
    let names: Vec<String> = std::env::args().skip(1).collect();
    if names.is_empty() {
        eprintln!("usage: pull MODEL...   (models: {})", model_names().join(", "));
        std::process::exit(2);
    }
    let store = ModelStore::default();
    let t0 = Instant::now();
    let opts =
        PullOptions::default().with_progress(move |msg| eprintln!("  {:7.2}s {msg}", t0.elapsed().as_secs_f64()));
    let mut failed = false;
    for name in &names {
        let Some(entry) = store.manifest().get(name) else {
            eprintln!("{name}: not in the manifest (models: {})", model_names().join(", "));
            failed = true;
            continue;
        };
        match store.pull(entry, &opts) {
            Ok(r) => println!(
                "{name}: pull {:.1} s ({}; {:.1} MB downloaded, {:.1} MB written) -> {}",
                r.elapsed.as_secs_f64(),
                if r.already_installed { "already installed" } else { "installed" },
                r.downloaded_bytes as f64 / 1e6,
                r.written_bytes as f64 / 1e6,
                r.dir.display()
            ),
            Err(e) => {
                eprintln!("{name}: {e}");
                failed = true;
                continue;
            }
        }
        let start = Instant::now();
        match store.verify(entry) {
            Ok(v) => println!(
                "{name}: verify {:.2} s ({:.1} MB, sha256 ok)",
                start.elapsed().as_secs_f64(),
                v.bytes as f64 / 1e6
            ),
            Err(e) => {
                eprintln!("{name}: {e}");
                failed = true;
            }
        }
    }
    if failed {
        std::process::exit(1);
    }
}

fn model_names() -> Vec<String> {
    Manifest::builtin().models().iter().map(|m| m.name.clone()).collect()
}
