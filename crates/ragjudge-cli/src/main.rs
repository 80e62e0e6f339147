//! The `ragjudge` command-line tool: parses arguments, calls the libraries, prints reports.

mod args;
mod backends;
mod commands;
mod progress;

use clap::Parser;

fn main() {
    let cli = args::Cli::parse();
    let result = match cli.command {
        args::Command::Score(a) => commands::score::run(&a),
        args::Command::Correlate(a) => commands::correlate::run(&a),
        args::Command::Models(a) => commands::models::run(&a),
        args::Command::Embed(a) => commands::embed::run_embed(&a),
        args::Command::Similarity(a) => commands::embed::run_similarity(&a),
        args::Command::Ask(a) => commands::ask::run(&a),
        args::Command::Agree(a) => commands::agree::run(&a),
        args::Command::Compare(a) => commands::dice::compare::run(&a),
        args::Command::Tournament(a) => commands::dice::tournament::run(&a),
        args::Command::Baseline(a) => commands::dice::baseline::run(&a),
        args::Command::Calibrate(a) => commands::calibrate::run(&a),
        args::Command::Probes(a) => commands::probes::run(&a),
    };
    if let Err(e) = result {
        // One line: the chain of causes joined, so the reason names file, line and field.
        eprintln!("error: {}", format_chain(&e));
        std::process::exit(1);
    }
}

fn format_chain(e: &anyhow::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    for cause in e.chain() {
        let s = cause.to_string();
        if !parts.iter().any(|p| p.contains(&s)) {
            parts.push(s);
        }
    }
    parts.join(": ").replace('\n', " ")
}
