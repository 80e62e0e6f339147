//! `ragjudge fuse ruber`: trains RUBER-BERT's unreferenced scorer (Ghazarian et al. 2019, after
//! Tao et al. 2018) on the (query, answer) pairs of record files, for `score --metrics semantic
//! --ruber-model FILE`. No human label is used: true pairs against answers to other queries.

use anyhow::Result;
use clap::Args;
use ragjudge_core::{ReadOptions, RecordReader};
use ragjudge_eval::fit_ruber;
use ragjudge_eval::models::{ModelSet, ModelSettings};
use ragjudge_fusion::ruber::RuberParams;
use std::path::PathBuf;

/// `ragjudge fuse ruber`.
#[derive(Debug, Args)]
pub struct RuberArgs {
    /// Record file(s) with `query` and `answer`.
    #[arg(long = "input", short = 'i', required = true, num_args = 1.., value_name = "FILE")]
    pub inputs: Vec<PathBuf>,
    /// Sentence embedder: manifest name or model directory (score with the same `--embedder`).
    #[arg(long, default_value = "minilm")]
    pub embedder: String,
    /// Seed of the initialisation and the negative pairs.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Write the trained scorer to this JSON file.
    #[arg(long, value_name = "FILE")]
    pub save: PathBuf,
}

/// Runs `ragjudge fuse ruber`.
pub fn run(args: &RuberArgs) -> Result<()> {
    let mut records = Vec::new();
    for path in &args.inputs {
        for r in RecordReader::open(path, &ReadOptions::default())? {
            records.push(r?);
        }
    }
    let models = ModelSet::new(ModelSettings { embedder: args.embedder.clone(), ..ModelSettings::default() });
    let params = RuberParams { seed: args.seed, ..RuberParams::default() };
    let model = fit_ruber(&records, &models, &params)?;
    model.save(&args.save)?;
    println!("trained on the (query, answer) pairs of {} records; model: {}", records.len(), args.save.display());
    Ok(())
}
