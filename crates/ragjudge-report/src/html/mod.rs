//! The self-contained HTML report: one file, inline SVG and CSS, no external resources, readable
//! without JavaScript. Sections appear for the inputs present, summary first.

mod conversations;
mod figures;
mod page;
mod sections;
mod test_set;
mod trust;

pub use page::{esc, responsive, CSP};

use crate::inputs::{Inputs, Skipped};
use page::document;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::Path;

/// How the report is written.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportOptions {
    /// Page title.
    pub title: String,
    /// Questions shown in the drill-down (the rest are counted and named by file).
    pub max_questions: usize,
    /// Rows of long tables shown before "N more in FILE".
    pub max_rows: usize,
    /// The metric the summary sentence leads with (default: the first of a preference list
    /// found in the scores, else the first score column).
    pub headline: Option<String>,
    /// The command line that made the report, for the provenance section.
    pub command: Option<String>,
}

impl Default for ReportOptions {
    fn default() -> Self {
        ReportOptions {
            title: "ragjudge report".into(),
            max_questions: 25,
            max_rows: 40,
            headline: None,
            command: None,
        }
    }
}

/// A rendered report: the HTML and what went into it.
#[derive(Debug, Clone)]
pub struct Rendered {
    /// The document.
    pub html: String,
    /// Section titles, in page order.
    pub sections: Vec<String>,
    /// Charts drawn, by name.
    pub charts: Vec<String>,
    /// Notes about what was summarised or left out (also shown on the page).
    pub notes: Vec<String>,
}

/// What `report --json` prints: where the page went, what it holds and what was left out.
#[derive(Debug, Clone, Serialize)]
pub struct RenderedSummary<'a> {
    /// The HTML file.
    pub output: &'a Path,
    /// Its size.
    pub bytes: usize,
    /// Section titles, in page order.
    pub sections: &'a [String],
    /// Charts drawn, by name.
    pub charts: &'a [String],
    /// Notes about what was summarised or left out.
    pub notes: &'a [String],
    /// Inputs not used, with the reason.
    pub skipped: &'a [Skipped],
}

impl Rendered {
    /// The summary of this page written to `output`, with the inputs that were `skipped`.
    pub fn summary<'a>(&'a self, output: &'a Path, skipped: &'a [Skipped]) -> RenderedSummary<'a> {
        RenderedSummary {
            output,
            bytes: self.html.len(),
            sections: &self.sections,
            charts: &self.charts,
            notes: &self.notes,
            skipped,
        }
    }
}

/// Renders the report of `inputs`.
pub fn render(inputs: &Inputs, opts: &ReportOptions) -> Rendered {
    let mut ctx = sections::Ctx::new(inputs, opts);
    let parts: Vec<(&str, &str, String)> = vec![
        ("summary", "Summary", sections::summary(&mut ctx)),
        ("leaderboard", "Leaderboard", sections::leaderboard(&mut ctx)),
        ("metrics", "Metrics", sections::metrics(&mut ctx)),
        ("conversations", "Conversations", conversations::conversations(&mut ctx)),
        ("questions", "Questions", sections::questions(&mut ctx)),
        ("test-set", "Test set", test_set::test_set(&mut ctx)),
        ("trust", "Trust", trust::trust(&mut ctx)),
        ("calibration", "Calibration", sections::calibration(&mut ctx)),
        ("weakness", "Weaknesses", sections::weakness(&mut ctx)),
        ("robustness", "Robustness", sections::robustness(&mut ctx)),
        ("figures", "Other outputs", figures::figures(&mut ctx)),
        ("provenance", "Provenance", sections::provenance(&mut ctx)),
    ];
    let present: Vec<&(&str, &str, String)> = parts.iter().filter(|(_, _, html)| !html.is_empty()).collect();
    let mut body = String::from("<main>\n<header class=\"top\">");
    let _ = write!(body, "<h1>{}</h1>", esc(&opts.title));
    body.push_str("<nav class=\"toc\">");
    for (id, title, _) in &present {
        let _ = write!(body, "<a href=\"#{id}\">{title}</a>");
    }
    body.push_str("</nav></header>\n");
    for (id, title, html) in &present {
        let _ = write!(body, "<section id=\"{id}\">\n<h2>{title}</h2>\n{html}\n</section>\n");
    }
    body.push_str("</main>");
    Rendered {
        html: document(&opts.title, &body),
        sections: present.iter().map(|(_, t, _)| t.to_string()).collect(),
        charts: ctx.drawn.clone(),
        notes: ctx.notes.clone(),
    }
}
