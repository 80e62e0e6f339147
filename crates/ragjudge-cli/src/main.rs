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
    // `serve` shuts down on its own signals: it stops accepting and lets requests in flight
    // finish for its grace period (docs/serve.md).
    if !matches!(cli.command, cli::Command::Serve(_)) {
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
