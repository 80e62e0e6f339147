//! The `ragjudge` command-line tool: parses arguments, calls the libraries, prints reports.

mod args;
mod backends;
mod cli;
mod commands;
#[cfg(test)]
mod defaults;
mod interrupt;
mod progress;

use clap::Parser;

/// jemalloc instead of the system allocator (feature `jemalloc`): flatter resident memory in a
/// long-running `serve`, and heap statistics for its `/metrics`.
#[cfg(feature = "jemalloc")]
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() {
    let cli = cli::Cli::parse();
    // `serve` and `annotate serve` shut down on their own signals: they stop accepting and let
    // requests in flight finish for their grace period (docs/serve.md).
    let serving = matches!(cli.command, cli::Command::Serve(_))
        || matches!(&cli.command, cli::Command::Annotate(a)
            if matches!(a.command, commands::annotate::AnnotateCommand::Serve(_)));
    if !serving {
        interrupt::install();
    }
    let result = cli.command.run();
    if let Err(e) = result {
        // One line: the chain of causes joined, so the reason names file, line and field.
        eprintln!("error: {}", format_chain(&e));
        if matches!(e.downcast_ref::<ragjudge_eval::EvalError>(), Some(ragjudge_eval::EvalError::Interrupted { .. })) {
            std::process::exit(interrupt::EXIT_INTERRUPTED);
        }
        // 2: a command could not run as asked (e.g. a gate naming a column the summary lacks),
        // as clap's usage errors; 1: anything else, a failed gate check included.
        let usage = e.downcast_ref::<commands::gate::GateUsageError>().is_some();
        std::process::exit(if usage { 2 } else { 1 });
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
