//! `ragjudge merge-caches`: the call caches of workers that judged disjoint shards combined into
//! one, so that one run over all records replays every judgement (`CallCache::absorb`).

use anyhow::{bail, Context, Result};
use clap::Args;
use ragjudge_store::CallCache;
use std::path::PathBuf;

/// `ragjudge merge-caches`.
#[derive(Debug, Args)]
pub struct MergeCachesArgs {
    /// The workers' cache files (`--cache FILE` of each shard's run).
    #[arg(required = true, num_args = 1.., value_name = "CACHE")]
    pub inputs: Vec<PathBuf>,
    /// The cache to add them to (created if missing; what it holds is kept).
    #[arg(long, value_name = "FILE")]
    pub into: PathBuf,
}

/// Runs `ragjudge merge-caches`.
pub fn run(args: &MergeCachesArgs) -> Result<()> {
    for input in &args.inputs {
        if !input.is_file() {
            bail!("{}: no such cache file", input.display());
        }
        if input.canonicalize().ok() == args.into.canonicalize().ok() {
            bail!("{}: is the cache merged into (--into)", input.display());
        }
    }
    let into = CallCache::open(&args.into).with_context(|| format!("{}", args.into.display()))?;
    for input in &args.inputs {
        let added = into.absorb(input)?;
        println!("{}: {added} new entries", input.display());
    }
    println!("{}: {} entries", args.into.display(), into.len()?);
    Ok(())
}
