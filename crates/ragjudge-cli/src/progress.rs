//! A progress indicator on a terminal, silent otherwise.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use ragjudge_core::InputError;
use std::io::IsTerminal;
use std::path::Path;
use std::time::Duration;

/// Malformed records reported one by one before the rest are only counted.
const MAX_REPORTED: u64 = 20;

/// Counts processed items; draws only when stderr is a terminal.
pub struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    /// A spinner counting `unit` (e.g. "records").
    pub fn new(unit: &str) -> Self {
        if !std::io::stderr().is_terminal() {
            return Self { bar: None };
        }
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        let template = format!("{{spinner}} {{human_pos}} {unit} ({{per_sec}}) {{elapsed}} {{msg}}");
        bar.set_style(ProgressStyle::with_template(&template).unwrap_or_else(|_| ProgressStyle::default_spinner()));
        bar.enable_steady_tick(Duration::from_millis(200));
        Self { bar: Some(bar) }
    }

    /// Adds `n` processed items.
    pub fn inc(&self, n: u64) {
        if let Some(b) = &self.bar {
            b.inc(n);
        }
    }

    /// Shows a short message beside the counter.
    pub fn message(&self, msg: String) {
        if let Some(b) = &self.bar {
            b.set_message(msg);
        }
    }

    /// Removes the indicator from the terminal.
    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }

    /// Prints a line above the indicator (or plainly on stderr).
    pub fn println(&self, line: &str) {
        match &self.bar {
            Some(b) => b.suspend(|| eprintln!("{line}")),
            None => eprintln!("{line}"),
        }
    }
}

/// What the evaluation engine reports, drawn on the terminal and printed on stderr.
impl ragjudge_eval::Progress for Progress {
    fn input(&self, path: &Path) {
        self.message(path.display().to_string());
    }

    fn scored(&self, n: u64) {
        self.inc(n);
    }

    fn skipped(&self, error: &InputError, count: u64) {
        if count <= MAX_REPORTED {
            self.println(&format!("skipped: {error}"));
        } else if count == MAX_REPORTED + 1 {
            self.println("skipped: further invalid records are counted, not listed");
        }
    }

    fn warn(&self, message: &str) {
        self.println(message);
    }

    fn done(&self) {
        self.finish();
    }

    fn cancelled(&self) -> bool {
        crate::interrupt::requested()
    }
}
