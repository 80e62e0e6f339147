//! `ragjudge fuse fit`: the scores joined to the labels, then the library's fit job
//! (`ragjudge_fusion::job`), saved as a `fusion-model` file and summarised.

use super::{definitions_of, DataArgs, ModelArg};
use anyhow::Result;
use clap::Args;
use ragjudge_artifacts::{check_not_input, Provenance};
use ragjudge_fusion::job::{FitSettings, FitSummary, ModelName};
use ragjudge_fusion::shrink::ShrinkSetting;
use serde::Serialize;
use std::path::PathBuf;

/// `ragjudge fuse fit`.
#[derive(Debug, Args)]
pub struct FitArgs {
    /// The data.
    #[command(flatten)]
    pub data: DataArgs,
    /// Label column of `--labels`.
    #[arg(long = "label-col", value_name = "COL")]
    pub label_col: String,
    /// The model.
    #[arg(long, value_enum, default_value_t = ModelArg::Moe)]
    pub model: ModelArg,
    /// Seed of the MoE initialisation and batches.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// MoE training epochs [default: the model's].
    #[arg(long)]
    pub epochs: Option<usize>,
    /// Binarise the labels (1 when label >= T, else 0); MoE models then train as binary
    /// classifiers (cross-entropy) and predict a probability.
    #[arg(long, value_name = "T")]
    pub binarize: Option<f64>,
    /// Cross-validation folds of the SVR grid search.
    #[arg(long, default_value_t = 5)]
    pub folds: usize,
    /// Least squares only: every input's weight >= 0 on standardised inputs (non-negative least
    /// squares), for inputs oriented so that higher is better.
    #[arg(long)]
    pub monotone: bool,
    /// Shrink the fused score toward the best single input (by training Spearman):
    /// `LAMBDA fused + (1 - LAMBDA) input`; `auto` chooses LAMBDA by inner cross-validation.
    #[arg(long, value_name = "auto|LAMBDA", value_parser = parse_shrink)]
    pub shrink: Option<ShrinkSetting>,
    /// Write the fitted model to this JSON file.
    #[arg(long, value_name = "FILE")]
    pub save: PathBuf,
    /// Print the fit summary as JSON.
    #[arg(long)]
    pub json: bool,
}

/// What `--json` prints: where the model went, and the fit summary.
#[derive(Serialize)]
struct Printed<'a> {
    saved: String,
    #[serde(flatten)]
    summary: &'a FitSummary,
}

impl FitArgs {
    /// The library's settings.
    pub(crate) fn settings(&self) -> FitSettings {
        FitSettings {
            model: match self.model {
                ModelArg::Moe => ModelName::Moe,
                ModelArg::MoeConcat => ModelName::MoeConcat,
                ModelArg::Svr => ModelName::Svr,
                ModelArg::Linear => ModelName::Linear,
            },
            seed: self.seed,
            epochs: self.epochs,
            binarize: self.binarize,
            folds: self.folds,
            monotone: self.monotone,
            shrink: self.shrink,
        }
    }
}

fn parse_shrink(s: &str) -> Result<ShrinkSetting, String> {
    s.parse().map_err(|e: ragjudge_fusion::FusionError| e.to_string())
}

/// Runs `ragjudge fuse fit`.
pub fn run(args: &FitArgs) -> Result<()> {
    let settings = args.settings();
    settings.choice()?;
    let inputs = [&args.data.scores, &args.data.labels];
    check_not_input(&args.save, &inputs)?;
    let keys = args.data.keys()?;
    let data = args.data.load(&args.label_col, &keys)?;
    let defs = definitions_of(&args.data.scores)?;
    let mut provenance = Provenance::of_this_process();
    provenance.add_inputs(&inputs)?;
    let fit = settings.fit(data, &defs, &args.data.labels.display().to_string(), provenance)?;
    fit.write(&args.save)?;
    if args.json {
        let printed = Printed { saved: args.save.display().to_string(), summary: &fit.summary };
        println!("{}", serde_json::to_string_pretty(&printed)?);
    } else {
        print!("{}", fit.summary.render());
        println!("model: {}", args.save.display());
    }
    Ok(())
}
