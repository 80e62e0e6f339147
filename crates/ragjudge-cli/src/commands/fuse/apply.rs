//! `ragjudge fuse apply`: a saved model over a score file (`FusedModel::apply_file`), with the
//! shift check of the scored inputs against the model's training rows (`ragjudge_fusion::shift`).

use super::{definitions_of, write, ShiftArgs};
use anyhow::Result;
use clap::Args;
use ragjudge_fusion::job::ApplySummary;
use ragjudge_fusion::model::FusedModel;
use serde::Serialize;
use std::path::PathBuf;

/// `ragjudge fuse apply`.
#[derive(Debug, Args)]
pub struct ApplyArgs {
    /// The model file (`fuse fit --save`).
    #[arg(value_name = "MODEL")]
    pub model: PathBuf,
    /// Score file with the model's input columns.
    #[arg(long, value_name = "FILE")]
    pub scores: PathBuf,
    /// Output CSV: the key columns, `fused`, and for MoE-CIU the gate weight of each input; stdout when absent.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// When the shift check warns.
    #[command(flatten)]
    pub shift: ShiftArgs,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
}

/// What `--json` prints: the summary and where the scores went.
#[derive(Serialize)]
struct Printed<'a> {
    #[serde(flatten)]
    summary: &'a ApplySummary,
    output: Option<String>,
}

/// Runs `ragjudge fuse apply`.
pub fn run(args: &ApplyArgs) -> Result<()> {
    if let Some(out) = &args.output {
        ragjudge_artifacts::check_not_input(out, &[&args.scores, &args.model])?;
    }
    let shift = args.shift.settings();
    shift.validate()?;
    let model = FusedModel::load(&args.model)?;
    let source = format!("{}", args.scores.display());
    model.check_definitions(&definitions_of(&args.scores)?, &source)?;
    let applied = model.apply_file(&args.scores, &shift, args.shift.on_shift())?;
    let out = String::from_utf8(applied.csv)?;
    match &args.output {
        Some(p) => write(p, &out)?,
        None if !args.json => print!("{out}"),
        None => {}
    }
    let s = &applied.summary;
    if args.json {
        let printed = Printed { summary: s, output: args.output.as_ref().map(|p| p.display().to_string()) };
        println!("{}", serde_json::to_string_pretty(&printed)?);
    } else {
        eprintln!(
            "{} of {} rows scored with {} ({}); {} rows lack an input value and are left empty{}",
            s.scored,
            s.rows,
            s.model,
            args.model.display(),
            s.incomplete_lines.len(),
            s.incomplete_lines.first().map(|l| format!(" (first on line {l})")).unwrap_or_default()
        );
        if let Some(g) = &s.gate {
            eprintln!("{}", g.render());
        }
    }
    // Warnings (or the note that the check is unavailable) go to stderr whatever the format.
    if !args.json || s.shift.as_ref().is_none_or(|r| r.warned) {
        eprint!("{}", s.render_shift(&args.model.display().to_string()));
    }
    Ok(())
}
