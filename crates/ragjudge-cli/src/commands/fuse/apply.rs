//! `ragjudge fuse apply`: a saved model over a score file.

use super::fit::{gate_summary, render_gate};
use super::{definitions_of, write};
use anyhow::Result;
use clap::Args;
use ragjudge_core::table::{has_column, read_table};
use ragjudge_fusion::model::FusedModel;
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
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs `ragjudge fuse apply`.
pub fn run(args: &ApplyArgs) -> Result<()> {
    if let Some(out) = &args.output {
        ragjudge_artifacts::check_not_input(out, &[&args.scores, &args.model])?;
    }
    let model = FusedModel::load(&args.model)?;
    let source = format!("{}", args.scores.display());
    model.check_definitions(&definitions_of(&args.scores)?, &source)?;
    let inputs = model.input_names();
    let mut keys: Vec<&str> = vec!["id"];
    if has_column(&args.scores, "system")? {
        keys.push("system");
    }
    let mut cols = keys.clone();
    cols.extend(inputs.iter().map(String::as_str));
    let table = read_table(&args.scores, &cols)?;
    let mut header: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
    header.push("fused".into());
    if model.model.has_gate() {
        header.extend(inputs.iter().map(|i| format!("gate_{i}")));
    }
    let mut out = csv::Writer::from_writer(Vec::new());
    out.write_record(&header)?;
    let (mut incomplete, mut gates) = (Vec::new(), Vec::new());
    for i in 0..table.rows.len() {
        let mut row = Vec::with_capacity(inputs.len());
        for (j, col) in inputs.iter().enumerate() {
            if let Some(v) = table.number(i, keys.len() + j, col)? {
                row.push(v);
            }
        }
        let mut cells = table.key(i, keys.len());
        if row.len() == inputs.len() {
            cells.push(model.predict(&row).to_string());
            if let Some(g) = model.model.gate(&row) {
                cells.extend(g.iter().map(f64::to_string));
                gates.push(g);
            }
        } else {
            incomplete.push(table.rows[i].0);
        }
        cells.resize(header.len(), String::new());
        out.write_record(&cells)?;
    }
    let scored = table.rows.len() - incomplete.len();
    let out = String::from_utf8(out.into_inner()?)?;
    let gate = gate_summary(inputs.clone(), &gates);
    match &args.output {
        Some(p) => write(p, &out)?,
        None if !args.json => print!("{out}"),
        None => {}
    }
    let summary = format!(
        "{scored} of {} rows scored with {} ({}); {} rows lack an input value and are left empty{}",
        table.rows.len(),
        model.model.name(),
        args.model.display(),
        incomplete.len(),
        incomplete.first().map(|l| format!(" (first on line {l})")).unwrap_or_default()
    );
    if args.json {
        let v = serde_json::json!({"scored": scored, "rows": table.rows.len(), "incomplete_lines": incomplete,
            "model": model.model.name(), "output": args.output.as_ref().map(|p| p.display().to_string()), "gate": gate});
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        eprintln!("{summary}");
        if let Some(g) = &gate {
            eprintln!("{}", render_gate(g));
        }
    }
    Ok(())
}
