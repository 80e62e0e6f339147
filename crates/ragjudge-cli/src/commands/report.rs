//! `ragjudge report` and `ragjudge plot`: the HTML report and single charts, from the files other
//! commands wrote (`ragjudge_report::{inputs, charts, html}`).

use anyhow::{bail, Result};
use clap::Args;
use ragjudge_charts::{write_chart, Size};
use ragjudge_report::charts::{all_charts, DrawnChart, NamedChart};
use ragjudge_report::html::{render, ReportOptions};
use ragjudge_report::inputs::read_inputs;
use ragjudge_report::Provenance;
use std::path::PathBuf;

/// `ragjudge report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Outputs of other commands: score files (.csv/.jsonl), `score --json` summaries, DICE
    /// output directories, `calibrate --report` files, fusion models, weakness and robustness
    /// directories, record files (questions and answers for the drill-down), and any other
    /// artifact (judge-eval, probes, testgen, calibrator, shard manifest, column definitions),
    /// shown as its key figures.
    #[arg(required = true, value_name = "DIR_OR_FILE")]
    pub inputs: Vec<PathBuf>,
    /// The HTML file to write.
    #[arg(long, short, default_value = "report.html")]
    pub output: PathBuf,
    /// Page title.
    #[arg(long, default_value = "ragjudge report")]
    pub title: String,
    /// The metric the summary leads with [default: fused, hcat_ragas_like, ciu, rougeL_f,
    /// squad_f1, bleu, whichever comes first, else the first score column].
    #[arg(long, value_name = "COLUMN")]
    pub headline: Option<String>,
    /// Questions shown in the drill-down.
    #[arg(long, default_value_t = 25)]
    pub max_questions: usize,
    /// Rows of long tables shown before the rest is counted.
    #[arg(long, default_value_t = 40)]
    pub max_rows: usize,
    /// Print what was rendered as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs `ragjudge report`.
pub fn run(args: &ReportArgs) -> Result<()> {
    ragjudge_artifacts::check_not_input(&args.output, &args.inputs)?;
    let inputs = read_inputs(&args.inputs);
    for s in &inputs.skipped {
        eprintln!("skipped {}: {}", s.path.display(), s.reason);
    }
    if inputs.loaded.is_empty() {
        bail!("no input could be used (see the lines above); nothing to report");
    }
    let opts = ReportOptions {
        title: args.title.clone(),
        max_questions: args.max_questions,
        max_rows: args.max_rows.max(1),
        headline: args.headline.clone(),
        command: Some(Provenance::of_this_process().command_line()),
    };
    let rendered = render(&inputs, &opts);
    ragjudge_artifacts::write_atomic(&args.output, rendered.html.as_bytes())?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&rendered.summary(&args.output, &inputs.skipped))?);
    } else {
        println!(
            "{}: {} sections ({}), {} charts, {:.1} kB",
            args.output.display(),
            rendered.sections.len(),
            rendered.sections.join(", "),
            rendered.charts.len(),
            rendered.html.len() as f64 / 1000.0
        );
        for n in &rendered.notes {
            println!("note: {n}");
        }
    }
    Ok(())
}

/// `ragjudge plot`.
#[derive(Debug, Args)]
pub struct PlotArgs {
    /// Outputs of other commands, as for `ragjudge report`.
    #[arg(required = true, value_name = "DIR_OR_FILE")]
    pub inputs: Vec<PathBuf>,
    /// The chart to draw, by name (see `--list`).
    #[arg(long, value_name = "NAME", required_unless_present = "list")]
    pub chart: Option<String>,
    /// The file to write: `.svg` or `.png`.
    #[arg(long, short, required_unless_present = "list")]
    pub output: Option<PathBuf>,
    /// Width in pixels [default: the chart's own].
    #[arg(long)]
    pub width: Option<u32>,
    /// Height in pixels [default: the chart's own].
    #[arg(long)]
    pub height: Option<u32>,
    /// List the charts these inputs give, with their titles.
    #[arg(long)]
    pub list: bool,
    /// Print the list, or the file written, as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs `ragjudge plot`.
pub fn run_plot(args: &PlotArgs) -> Result<()> {
    let inputs = read_inputs(&args.inputs);
    for s in &inputs.skipped {
        eprintln!("skipped {}: {}", s.path.display(), s.reason);
    }
    let charts = all_charts(&inputs);
    if args.list {
        if args.json {
            let entries: Vec<_> = charts.iter().map(NamedChart::entry).collect();
            println!("{}", serde_json::to_string_pretty(&entries)?);
            return Ok(());
        }
        for c in &charts {
            println!("{:<32} {}", c.name, c.chart.title);
        }
        return Ok(());
    }
    let (Some(name), Some(output)) = (&args.chart, &args.output) else {
        bail!("--chart and --output are needed (or --list)");
    };
    let Some(c) = charts.iter().find(|c| &c.name == name) else {
        let names: Vec<&str> = charts.iter().map(|c| c.name.as_str()).collect();
        bail!(
            "no chart `{name}` in these inputs; they give: {}",
            if names.is_empty() { "none".into() } else { names.join(", ") }
        );
    };
    let own = c.chart.suggested_size();
    let size = Size { width: args.width.unwrap_or(own.width), height: args.height.unwrap_or(own.height) };
    write_chart(&c.chart, output, size)?;
    if args.json {
        let (chart, title) = (c.name.as_str(), c.chart.title.as_str());
        let drawn = DrawnChart { output, chart, title, width: size.width, height: size.height };
        println!("{}", serde_json::to_string_pretty(&drawn)?);
    } else {
        println!("{}: {} ({}x{})", output.display(), c.chart.title, size.width, size.height);
    }
    Ok(())
}
