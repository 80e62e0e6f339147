//! `ragjudge models pull|list|verify`; the listing table is in `table`.

mod table;

use table::{human_bytes, list};

use crate::progress::Progress;
use anyhow::{bail, Result};
use clap::{Args, Subcommand};
use ragjudge_store::{ModelEntry, ModelStore, PullOptions};
use std::sync::Arc;

/// `ragjudge models`.
#[derive(Debug, Args)]
pub struct ModelsArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: ModelsAction,
}

/// `ragjudge models pull|list|verify`.
#[derive(Debug, Subcommand)]
pub enum ModelsAction {
    /// Download, check and install models (default: every non-optional model).
    Pull {
        /// Manifest names.
        names: Vec<String>,
        /// Download again even when installed.
        #[arg(long)]
        force: bool,
        /// Print a JSON report on stdout.
        #[arg(long)]
        json: bool,
    },
    /// List the known models and whether they are installed.
    List {
        /// Print JSON on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Recompute the sha256 of installed model files and compare with the pinned hashes.
    Verify {
        /// Manifest names (default: every installed model).
        names: Vec<String>,
        /// Print JSON on stdout.
        #[arg(long)]
        json: bool,
    },
}

/// Runs `ragjudge models`.
pub fn run(args: &ModelsArgs) -> Result<()> {
    let store = ModelStore::default();
    match &args.action {
        ModelsAction::Pull { names, force, json } => pull(&store, names, *force, *json),
        ModelsAction::List { json } => list(&store, *json),
        ModelsAction::Verify { names, json } => verify(&store, names, *json),
    }
}

/// The entries named, or `default` when none is.
fn entries<'a>(
    store: &'a ModelStore,
    names: &[String],
    default: impl Fn(&ModelEntry) -> bool,
) -> Result<Vec<&'a ModelEntry>> {
    let manifest = store.manifest();
    if names.is_empty() {
        return Ok(manifest.models().iter().filter(|e| default(e)).collect());
    }
    names
        .iter()
        .map(|n| match manifest.get(n) {
            Some(e) => Ok(e),
            None => {
                let known: Vec<&str> = manifest.models().iter().map(|e| e.name.as_str()).collect();
                bail!("unknown model `{n}` (known: {})", known.join(", "))
            }
        })
        .collect()
}

fn pull(store: &ModelStore, names: &[String], force: bool, json: bool) -> Result<()> {
    let progress = Arc::new(Progress::new("steps"));
    let p = Arc::clone(&progress);
    let opts = PullOptions { force, ..PullOptions::default() }.with_progress(move |m| p.println(m));
    let mut reports = Vec::new();
    for entry in entries(store, names, |e| !e.optional)? {
        let r = store.pull(entry, &opts)?;
        if !json {
            let what = if r.already_installed { "already installed" } else { "installed" };
            progress.println(&format!("{}: {what} in {} ({:.1} s)", r.name, r.dir.display(), r.elapsed.as_secs_f64()));
        }
        reports.push(r);
    }
    progress.finish();
    if json {
        println!("{}", serde_json::to_string_pretty(&reports)?);
    }
    Ok(())
}

fn verify(store: &ModelStore, names: &[String], json: bool) -> Result<()> {
    let chosen = entries(store, names, |e| store.is_installed(e))?;
    if chosen.is_empty() {
        bail!("no model is installed; run `ragjudge models pull`");
    }
    let mut reports = Vec::new();
    for entry in chosen {
        let r = store.verify(entry)?;
        if !json {
            println!(
                "{}: ok ({} files, {}, {:.1} s)",
                r.name,
                r.files.len(),
                human_bytes(r.bytes),
                r.elapsed.as_secs_f64()
            );
        }
        reports.push(r);
    }
    if json {
        println!("{}", serde_json::to_string_pretty(&reports)?);
    }
    Ok(())
}
