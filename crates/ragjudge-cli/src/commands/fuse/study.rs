//! `ragjudge fuse study`: the CIU paper's protocol on a score file and its labels, or, with
//! `--transfer`, leave one group out (`transfer.rs`).

use super::transfer::{run_transfer, TransferArgs};
use super::{write, DataArgs};
use anyhow::{bail, Context as _, Result};
use clap::Args;
use ragjudge_fusion::moe::MoeParams;
use ragjudge_fusion::study::{run as run_study, StudyConfig};
use ragjudge_fusion::svr::SvrGrid;
use std::path::PathBuf;

/// `ragjudge fuse study`.
#[derive(Debug, Args)]
pub struct StudyArgs {
    /// The data.
    #[command(flatten)]
    pub data: DataArgs,
    /// Label column(s) of `--labels`, comma separated (e.g. overall,groundedness).
    #[arg(long = "label-col", value_delimiter = ',', value_name = "COLS", required = true)]
    pub label_cols: Vec<String>,
    /// Random splits (the paper: 15).
    #[arg(long, default_value_t = 15)]
    pub seeds: usize,
    /// Held-out rows per split (the paper: 50).
    #[arg(long, default_value_t = 50)]
    pub test_size: usize,
    /// Cross-validation folds of the SVR grid search.
    #[arg(long, default_value_t = 5)]
    pub folds: usize,
    /// Skip the 17 feature-selection strategies (SVR on all inputs only).
    #[arg(long)]
    pub no_strategies: bool,
    /// Directory for study.csv, study.md and study.json (transfer.* with --transfer).
    #[arg(long, short, value_name = "DIR")]
    pub output: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Leave one group out.
    #[command(flatten)]
    pub transfer: TransferArgs,
}

/// Runs `ragjudge fuse study`.
pub fn run(args: &StudyArgs) -> Result<()> {
    if args.folds < 2 {
        bail!("--folds must be at least 2, got {}", args.folds);
    }
    if args.transfer.transfer {
        return run_transfer(args);
    }
    let keys = args.data.keys()?;
    let data = args.label_cols.iter().map(|l| args.data.load(l, &keys)).collect::<Result<Vec<_>>>()?;
    let config = StudyConfig {
        seeds: args.seeds,
        test_size: args.test_size,
        grid: SvrGrid::default(),
        folds: args.folds,
        strategies: !args.no_strategies,
        moe: MoeParams::default(),
    };
    let report = run_study(&data, &config)?;
    eprintln!("{}", data[0].counts);
    let md = report.to_markdown();
    let json = serde_json::to_string_pretty(&report)?;
    if let Some(dir) = &args.output {
        std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
        write(&dir.join("study.csv"), &report.to_csv())?;
        write(&dir.join("study.md"), &md)?;
        write(&dir.join("study.json"), &(json.clone() + "\n"))?;
    }
    if args.json {
        println!("{json}");
    } else {
        print!("{md}");
        for (l, (label, (name, best))) in report.labels.iter().zip(report.best_single()).enumerate() {
            if let Some(moe) = report.rows.iter().find(|r| r.name == "MoE-CIU") {
                let m = moe.spearman[l].mean;
                println!(
                    "{label}: MoE-CIU {m:.3} vs best single metric {name} {best:.3} ({:+.1}%)",
                    100.0 * (m - best) / best.abs()
                );
            }
        }
    }
    Ok(())
}
