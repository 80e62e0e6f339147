//! The Conversations section: per-turn scores of multi-turn records summarised by conversation
//! (`ragjudge_eval::conversations`: intervals that resample whole conversations), the headline
//! metric by turn, and the conversations themselves.

use super::page::{esc, num, responsive, Table};
use super::sections::Ctx;
use crate::inputs::ScoreInput;
use crate::summary::Resummarize;
use ragjudge_charts::{render_svg, Chart, ChartBody, ColorScale, HeatCell};
use ragjudge_eval::conversations::{ConversationReport, ConversationSummarizer};
use ragjudge_eval::ColumnReport;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Fewer conversations than this per system and the intervals are called rough.
const FEW_CONVERSATIONS: u64 = 10;
/// Conversations listed before the rest are only counted.
const MAX_ROWS: usize = 30;
/// Columns of the conversation table: the `conv_*` ones first, then the headline, at most this many.
const MAX_COLUMNS: usize = 5;

/// The conversation and turn of row `i`: from its record when the report has the records, else
/// from the `conversation` family's evidence.
fn conversation_of(ctx: &Ctx<'_>, s: &ScoreInput, i: usize) -> (Option<String>, u64) {
    let row = &s.file.rows[i];
    if let Some(r) = ctx.record(&row.id, &row.system) {
        return (r.conversation(), r.turn());
    }
    let d = s.details.get(i).and_then(Option::as_ref).and_then(|d| d.get("conversation"));
    let name = d.and_then(|d| d.get("conversation")).and_then(Value::as_str).map(str::to_string);
    (name, d.and_then(|d| d.get("turn")).and_then(Value::as_u64).unwrap_or(1))
}

/// The section; empty when no scored record belongs to a conversation.
pub(super) fn conversations(ctx: &mut Ctx<'_>) -> String {
    let how = Resummarize::default();
    let mut out = String::new();
    let inputs: Vec<&ScoreInput> = ctx.score_inputs().map(|(_, s)| s).collect();
    for s in inputs {
        let failed: std::collections::HashSet<usize> = s.errors.iter().map(|(i, _)| *i).collect();
        let mut summarizer = ConversationSummarizer::new(s.file.columns.clone(), how.bootstrap, how.seed);
        // (system, turn) -> per column (sum, n), for the chart.
        let mut by_turn: BTreeMap<(String, u64), Vec<(f64, u64)>> = BTreeMap::new();
        for (i, row) in s.file.rows.iter().enumerate() {
            let (conversation, turn) = conversation_of(ctx, s, i);
            summarizer.add(&row.system, conversation.as_deref(), turn, &row.values, failed.contains(&i));
            if conversation.is_some() {
                let cells =
                    by_turn.entry((row.system.clone(), turn)).or_insert_with(|| vec![(0.0, 0); row.values.len()]);
                for (c, v) in cells.iter_mut().zip(&row.values) {
                    if let Some(x) = v {
                        c.0 += x;
                        c.1 += 1;
                    }
                }
            }
        }
        let report = summarizer.report(how.level);
        if report.rows.is_empty() {
            continue;
        }
        let headline = ctx.headline().map(|(m, _)| m);
        let shown = shown_columns(&report, headline.clone());
        out.push_str(&system_table(&report, &shown));
        // The headline metric by turn (it has a value at the first turn, which `conv_*` has not).
        let charted = headline.and_then(|h| report.columns.iter().position(|c| *c == h)).or(shown.first().copied());
        if let Some(j) = charted {
            out.push_str(&by_turn_figure(ctx, &report.columns[j], &by_turn, j));
        }
        out.push_str(&conversation_table(&report, &shown));
    }
    out
}

/// Indexes of the columns shown: `conv_*` first, then the headline metric, then the rest, each
/// only when some conversation has a value.
fn shown_columns(report: &ConversationReport, headline: Option<String>) -> Vec<usize> {
    let has = |j: usize| report.rows.iter().any(|r| r.cells[j].mean.is_some());
    let mut order: Vec<usize> = (0..report.columns.len()).filter(|&j| report.columns[j].starts_with("conv_")).collect();
    if let Some(h) = headline.and_then(|h| report.columns.iter().position(|c| *c == h)) {
        order.push(h);
    }
    order.extend(0..report.columns.len());
    let mut seen = Vec::new();
    for j in order {
        if has(j) && !seen.contains(&j) {
            seen.push(j);
        }
    }
    seen.truncate(MAX_COLUMNS);
    seen
}

fn interval(c: &ColumnReport) -> String {
    match (c.mean, c.ci_low, c.ci_high) {
        (Some(m), Some(lo), Some(hi)) => {
            format!("{} <span class=\"muted\">[{}, {}]</span>", num(Some(m), 3), num(Some(lo), 3), num(Some(hi), 3))
        }
        (m, _, _) => num(m, 3),
    }
}

/// Per shown column and system: the mean over turns and over conversations, with intervals.
fn system_table(report: &ConversationReport, shown: &[usize]) -> String {
    let mut t = Table::new(&[
        ("metric", false),
        ("system", false),
        ("conversations", true),
        ("turns", true),
        ("per turn", true),
        ("per conversation", true),
    ]);
    for &j in shown {
        for s in &report.systems {
            t.row(vec![
                format!("<code>{}</code>", esc(&report.columns[j])),
                esc(&s.system),
                s.conversation_means[j].n.to_string(),
                s.turn_means[j].n.to_string(),
                interval(&s.turn_means[j]),
                interval(&s.conversation_means[j]),
            ]);
        }
    }
    let mut out = format!(
        "<p>Multi-turn records grouped by conversation. Intervals ({:.0}%) resample whole conversations: the turns of one conversation are not independent. <em>Per conversation</em> averages each conversation's mean, so every conversation counts once however long; the counts are of conversations and turns with a value (a first turn has nothing to contradict or forget).</p>",
        report.level * 100.0
    );
    out.push_str(&t.html());
    let fewest = report.systems.iter().map(|s| s.conversations).min().unwrap_or(0);
    if fewest < FEW_CONVERSATIONS {
        let _ = write!(
            out,
            "<p class=\"warn\">A system has only {fewest} conversation(s): intervals from fewer than {FEW_CONVERSATIONS} conversations are rough.</p>"
        );
    }
    if report.outside > 0 {
        let _ = write!(
            out,
            "<p class=\"muted\">{} scored records name no conversation and are left out here.</p>",
            report.outside
        );
    }
    out
}

/// Turns drawn in the by-turn chart; later turns are left out of it (not of the tables).
const MAX_TURNS: u64 = 12;

/// The mean of column `j` at each turn (columns) for each system (rows), as a heatmap.
fn by_turn_figure(
    ctx: &mut Ctx<'_>,
    column: &str,
    by_turn: &BTreeMap<(String, u64), Vec<(f64, u64)>>,
    j: usize,
) -> String {
    let turns: Vec<u64> = {
        let mut t: Vec<u64> = by_turn.keys().map(|(_, t)| *t).filter(|t| *t <= MAX_TURNS).collect();
        t.sort_unstable();
        t.dedup();
        t
    };
    let mut systems: Vec<&str> = Vec::new();
    for (s, _) in by_turn.keys() {
        if !systems.contains(&s.as_str()) {
            systems.push(s);
        }
    }
    let cell = |s: &str, t: u64| {
        let (sum, n) = by_turn.get(&(s.to_string(), t))?[j];
        (n > 0).then(|| HeatCell {
            value: sum / n as f64,
            text: format!("{:.3}\nn={n}", sum / n as f64),
            masked: false,
        })
    };
    let cells: Vec<Vec<Option<HeatCell>>> =
        systems.iter().map(|s| turns.iter().map(|&t| cell(s, t)).collect()).collect();
    let values: Vec<f64> = cells.iter().flatten().flatten().map(|c| c.value).collect();
    if turns.len() < 2 || values.is_empty() {
        return String::new();
    }
    let (lo, hi) = values.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
    let chart = Chart {
        title: format!("{column}: mean by turn"),
        x_label: "turn".into(),
        y_label: "system".into(),
        body: ChartBody::Heatmap {
            rows: systems.iter().map(|s| s.to_string()).collect(),
            cols: turns.iter().map(|t| format!("turn {t}")).collect(),
            cells,
            scale: ColorScale::Sequential { min: lo, max: if hi > lo { hi } else { lo + 1.0 } },
        },
    };
    let name = format!("turns-{column}");
    ctx.drawn.push(name.clone());
    match render_svg(&chart, chart.suggested_size()) {
        Ok(svg) => format!(
            "<figure id=\"chart-{}\">{}<figcaption>{}</figcaption></figure>",
            esc(&name),
            responsive(&svg),
            esc(&chart.title)
        ),
        Err(e) => format!("<p class=\"warn\">Chart <code>{}</code> not drawn: {}</p>", esc(&name), esc(&e.to_string())),
    }
}

/// One row per conversation (the first [`MAX_ROWS`]): turns, failed turns, and each shown
/// column's mean with its least value and turn.
fn conversation_table(report: &ConversationReport, shown: &[usize]) -> String {
    let mut head: Vec<(String, bool)> =
        vec![("system".into(), false), ("conversation".into(), false), ("turns".into(), true), ("failed".into(), true)];
    head.extend(shown.iter().map(|&j| (format!("{} (least, at turn)", report.columns[j]), true)));
    let head_refs: Vec<(&str, bool)> = head.iter().map(|(h, n)| (h.as_str(), *n)).collect();
    let mut t = Table::new(&head_refs);
    for r in report.rows.iter().take(MAX_ROWS) {
        let mut row = vec![esc(&r.system), esc(&r.conversation), r.turns.to_string(), r.failed.to_string()];
        for &j in shown {
            let c = &r.cells[j];
            row.push(match (c.min, c.min_turn) {
                (Some(m), Some(turn)) => {
                    format!("{} <span class=\"muted\">({}, {turn})</span>", num(c.mean, 3), num(Some(m), 3))
                }
                _ => num(c.mean, 3),
            });
        }
        t.row(row);
    }
    let mut out = String::from("<details><summary>Conversations</summary>");
    out.push_str(&t.html());
    if report.rows.len() > MAX_ROWS {
        let _ = write!(out, "<p class=\"muted\">{} more conversations not listed (all are in <code>OUTPUT.conversations.csv</code> of <code>score</code>).</p>", report.rows.len() - MAX_ROWS);
    }
    out.push_str("</details>");
    out
}
