//! `ragjudge fuse study --transfer`: leave one group out (`ragjudge_fusion::transfer`), the
//! groups from a column or from two score files.

use super::{definitions_of, write, ShiftArgs, StudyArgs};
use anyhow::{bail, Context as _, Result};
use clap::Args;
use ragjudge_fusion::moe::MoeParams;
use ragjudge_fusion::svr::SvrGrid;
use ragjudge_fusion::transfer::{check_same_definitions, concat, groups_from_column, run, TransferConfig};
use std::path::PathBuf;

/// The options of `fuse study --transfer`.
#[derive(Debug, Args)]
pub struct TransferArgs {
    /// Fit on some groups and test on another, each group held out once, instead of random splits:
    /// every model (monotone and shrunk too), each input, the best single input chosen on the
    /// training groups, and the shift check per held-out group.
    #[arg(long)]
    pub transfer: bool,
    /// --transfer: the groups are the values of this column (of --scores, else of --labels).
    #[arg(long, value_name = "COL", requires = "transfer", conflicts_with = "transfer_test")]
    pub group_by: Option<String>,
    /// --transfer: a second score file; the two files are the two groups (both directions).
    #[arg(long, value_name = "FILE", requires = "transfer")]
    pub transfer_test: Option<PathBuf>,
    /// The labels of --transfer-test [default: --labels].
    #[arg(long, value_name = "FILE", requires = "transfer_test")]
    pub transfer_test_labels: Option<PathBuf>,
    /// --transfer: seed of the MoE fits and of the shrinkage's inner folds.
    #[arg(long, default_value_t = 0, requires = "transfer")]
    pub seed: u64,
    /// When the shift check warns.
    #[command(flatten)]
    pub shift: ShiftArgs,
}

/// Runs `ragjudge fuse study --transfer`.
pub fn run_transfer(args: &StudyArgs) -> Result<()> {
    let t = &args.transfer;
    let [label] = args.label_cols.as_slice() else {
        bail!("--transfer takes one --label-col, got {}", args.label_cols.join(","));
    };
    let config = TransferConfig {
        folds: args.folds,
        grid: SvrGrid::default(),
        moe: MoeParams::default(),
        seed: t.seed,
        shift: t.shift.settings(),
        on_shift: t.shift.on_shift(),
    };
    config.shift.validate()?;
    let keys = args.data.keys()?;
    // The join counts are printed once both sides are known to be usable.
    let (data, groups, from, joined) = if let Some(col) = &t.group_by {
        let data = args.data.load(label, &keys)?;
        let groups = groups_from_column(&data, &args.data.scores, &args.data.labels, col, &keys)?;
        let joined = data.counts.to_string();
        (data, groups, format!("groups by `{col}`"), joined)
    } else if let Some(test) = &t.transfer_test {
        let labels = t.transfer_test_labels.as_ref().unwrap_or(&args.data.labels);
        // Each file's group is its stem (its path when the stems are the same).
        let stem = |p: &PathBuf| p.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let (a, b) = match (stem(&args.data.scores), stem(test)) {
            (x, y) if x != y && !x.is_empty() && !y.is_empty() => (x, y),
            _ => (args.data.scores.display().to_string(), test.display().to_string()),
        };
        let inputs = args.data.inputs();
        check_same_definitions(&inputs, &a, &definitions_of(&args.data.scores)?, &b, &definitions_of(test)?)?;
        let data = args.data.load(label, &keys)?;
        let other = ragjudge_fusion::dataset::load(test, &inputs, labels, label, &keys)?;
        let joined = format!("{a}: {}\n{b}: {}", data.counts, other.counts);
        let (data, groups) = concat(data, &a, other, &b)?;
        (data, groups, "the two score files".to_string(), joined)
    } else {
        bail!("--transfer needs --group-by COL or --transfer-test FILE");
    };
    eprintln!("{joined}");
    let report = run(&data, &groups, &from, &config)?;
    let md = report.to_markdown();
    let json = serde_json::to_string_pretty(&report)?;
    if let Some(dir) = &args.output {
        std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
        write(&dir.join("transfer.csv"), &report.to_csv())?;
        write(&dir.join("transfer.md"), &md)?;
        write(&dir.join("transfer.json"), &(json.clone() + "\n"))?;
    }
    if args.json {
        println!("{json}");
    } else {
        print!("{md}");
    }
    Ok(())
}
