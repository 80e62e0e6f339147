//! `ragjudge models list`: the known models as a table (or JSON), with human-readable sizes.

use anyhow::Result;
use ragjudge_store::ModelStore;

pub(super) fn list(store: &ModelStore, json: bool) -> Result<()> {
    let models = store.list();
    if json {
        println!("{}", serde_json::to_string_pretty(&models)?);
        return Ok(());
    }
    println!("{:<16} {:<16} {:>10} {:<10} description", "name", "kind", "size", "installed");
    for m in &models {
        let installed = if m.installed {
            "yes"
        } else if m.optional {
            "no (opt.)"
        } else {
            "no"
        };
        println!("{:<16} {:<16} {:>10} {:<10} {}", m.name, m.kind, human_bytes(m.size), installed, m.description);
    }
    println!("models directory: {}", store.dir().display());
    Ok(())
}

/// `1.2 GB`-style sizes.
pub(super) fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["B", "kB", "MB", "GB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1000.0 && u < UNITS.len() - 1 {
        v /= 1000.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}
