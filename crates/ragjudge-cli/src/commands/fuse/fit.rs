//! `ragjudge fuse fit`.

use super::{definitions_of, DataArgs, ModelArg};
use anyhow::{bail, Result};
use clap::Args;
use ragjudge_fusion::model::{FusedModel, ModelChoice};
use ragjudge_fusion::moe::{MoeKind, MoeParams, Objective};
use ragjudge_fusion::svr::SvrGrid;
use serde_json::json;
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
    /// Write the fitted model to this JSON file.
    #[arg(long, value_name = "FILE")]
    pub save: PathBuf,
    /// Print the fit summary as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs `ragjudge fuse fit`.
pub fn run(args: &FitArgs) -> Result<()> {
    let keys = args.data.keys()?;
    let mut data = args.data.load(&args.label_col, &keys)?;
    if let Some(t) = args.binarize {
        data.y = data.y.iter().map(|&v| if v >= t { 1.0 } else { 0.0 }).collect();
        if data.y.iter().all(|&v| v == data.y[0]) {
            bail!("--binarize {t}: every joined label falls on the same side; a constant label cannot be learned");
        }
    }
    let choice = match args.model {
        ModelArg::Linear => ModelChoice::Linear,
        ModelArg::Svr => {
            if args.folds < 2 {
                bail!("--folds must be at least 2, got {}", args.folds);
            }
            ModelChoice::Svr { grid: SvrGrid::default(), folds: args.folds }
        }
        ModelArg::Moe | ModelArg::MoeConcat => {
            let kind = if args.model == ModelArg::Moe { MoeKind::Gated } else { MoeKind::Concat };
            let d = MoeParams::default();
            let objective = if args.binarize.is_some() { Objective::Binary } else { Objective::Regression };
            ModelChoice::Moe(MoeParams {
                kind,
                objective,
                seed: args.seed,
                epochs: args.epochs.unwrap_or(d.epochs),
                ..d
            })
        }
    };
    let defs = definitions_of(&args.data.scores)?;
    let argv: Vec<String> = std::env::args().collect();
    let model = FusedModel::fit(&data, &choice, &defs, &args.data.labels.display().to_string(), argv)?;
    model.save(&args.save)?;
    let pred: Vec<f64> = data.x.iter().map(|r| model.predict(r)).collect();
    let rho = ragjudge_stats::correlation::spearman(&pred, &data.y).ok().and_then(|c| c.coefficient);
    let gates: Vec<Vec<f64>> = data.x.iter().filter_map(|r| model.model.gate(r)).collect();
    let gate = gate_summary(model.input_names(), &gates);
    let unknown: Vec<&str> = model.inputs.iter().filter(|c| c.definition.is_none()).map(|c| c.name.as_str()).collect();
    if args.json {
        let v = json!({
            "model": model.model.name(), "saved": args.save.display().to_string(), "inputs": model.input_names(),
            "label": args.label_col, "join": data.counts, "training_spearman": rho, "gate": gate,
            "inputs_without_definition": unknown,
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    println!("{}", data.counts);
    println!(
        "fitted {} on {} rows: inputs {}; label `{}`",
        model.model.name(),
        data.y.len(),
        model.input_names().join(", "),
        args.label_col
    );
    if let Some(r) = rho {
        println!("Spearman on the training rows: {r:.3} (optimistic; `fuse study` measures held-out rows)");
    }
    if let Some(g) = &gate {
        println!("{}", render_gate(g));
    }
    if !unknown.is_empty() {
        println!(
            "note: no definition recorded for {} (not written by `ragjudge score -o`); such inputs are not checked when the model is applied",
            unknown.join(", ")
        );
    }
    println!("model: {}", args.save.display());
    Ok(())
}

/// MoE-CIU's gate over a data set: per input, the mean weight and how many rows it drove (had the
/// largest weight).
#[derive(Debug, Clone, serde::Serialize)]
pub struct GateSummary {
    /// Input names.
    pub inputs: Vec<String>,
    /// Mean gate weight per input.
    pub mean_weight: Vec<f64>,
    /// Rows where the input had the largest weight.
    pub drove: Vec<usize>,
}

/// The gate summary of per-row gate weights (`None` when there are none: a model without a gate).
pub fn gate_summary(inputs: Vec<String>, gates: &[Vec<f64>]) -> Option<GateSummary> {
    if gates.is_empty() {
        return None;
    }
    let m = inputs.len();
    let mut mean = vec![0.0; m];
    let mut drove = vec![0usize; m];
    for g in gates {
        for (j, w) in g.iter().enumerate() {
            mean[j] += w / gates.len() as f64;
        }
        if let Some((j, _)) = g.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)) {
            drove[j] += 1;
        }
    }
    Some(GateSummary { inputs, mean_weight: mean, drove })
}

/// The gate summary as lines of text.
pub fn render_gate(g: &GateSummary) -> String {
    let mut out = String::from("MoE-CIU gate: input, mean weight, rows where it weighs most\n");
    for j in 0..g.inputs.len() {
        out += &format!("  {:<16} {:.3} {:>6}\n", g.inputs[j], g.mean_weight[j], g.drove[j]);
    }
    out.trim_end().to_string()
}
