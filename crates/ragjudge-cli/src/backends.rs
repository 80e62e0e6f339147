//! Model backends from command-line options, through the engine (`ragjudge_eval::models`).

use crate::args::{JudgeArgs, Precision};
use anyhow::Result;
use ragjudge_eval::models::{backends, EncoderSettings};
use ragjudge_models::{Embedder, Judge};

/// A judge from `--judge local:MODEL | openai:MODEL`, behind the call cache unless `--no-cache`.
pub fn judge(args: &JudgeArgs) -> Result<Box<dyn Judge>> {
    Ok(backends::judge(&args.settings())?)
}

/// With `dry_run`, a stand-in that counts calls and estimates prompt tokens, behind a read-only
/// view of the same call cache (so calls already cached count as free); else [`judge`].
pub fn judge_or_dry_run(args: &JudgeArgs, dry_run: bool) -> Result<Box<dyn Judge>> {
    Ok(backends::judge_or_dry_run(&args.settings(), dry_run)?)
}

/// An embedding model (manifest name, pulled on first use, or directory).
pub fn embedder(
    model: &str,
    batch_size: usize,
    threads: Option<usize>,
    precision: Precision,
) -> Result<Box<dyn Embedder>> {
    Ok(backends::embedder(model, EncoderSettings { batch_size, threads, precision: precision.into() })?)
}
