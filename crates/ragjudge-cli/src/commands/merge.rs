//! `ragjudge merge`: the outputs of `score --shard i/n` for every `i` joined into one score file
//! and one per-system summary, as a single `score` run gives (`ragjudge_eval::merge`).

use anyhow::Result;
use clap::Args;
use ragjudge_eval::{merge_shards, render_table};
use serde_json::Value;
use std::path::PathBuf;

/// `ragjudge merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The shards' per-record outputs (`score --shard i/n -o FILE`), each shard once, any order.
    #[arg(required = true, num_args = 1.., value_name = "SHARD_OUTPUT")]
    pub inputs: Vec<PathBuf>,
    /// The merged per-record output: OUT.csv, OUT.jsonl or OUT.parquet (shard 1's rows first).
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Print the summary as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

/// Runs `ragjudge merge`.
pub fn run(args: &MergeArgs) -> Result<()> {
    let merged = merge_shards(&args.inputs, args.output.as_deref())?;
    if args.json {
        let mut v = serde_json::to_value(&merged.summary)?;
        if let (Some(obj), Some(out)) = (v.as_object_mut(), &args.output) {
            obj.insert("output".into(), Value::from(out.display().to_string()));
        }
        if let Some(obj) = v.as_object_mut() {
            obj.insert("shards".into(), Value::from(merged.shards));
        }
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        print!("{}", render_table(&merged.summary));
        println!("merged {} shards", merged.shards);
        if let Some(out) = &args.output {
            println!("per-record scores: {}", out.display());
        }
    }
    Ok(())
}
