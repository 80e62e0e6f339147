//! The report's sections, each from the inputs it applies to; a section with nothing to show is
//! empty and left out of the page.

use super::page::{esc, figure, key_values, num, pct, warnings, Table};
use super::ReportOptions;
use crate::charts::{
    calibration_charts, dice_charts, robustness_charts, score_charts, summarize, summary_charts, weakness_charts,
    NamedChart,
};
use crate::inputs::{records_by_key, DiceInput, DiceKind, Input, Inputs, Loaded, ScoreInput};
use ragjudge_core::Record;
use ragjudge_dice::claims::ClaimCheck;
use ragjudge_eval::SummaryReport;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Metrics the summary sentence prefers, in order, when no headline metric is given.
const HEADLINE_PREFERENCE: [&str; 6] = ["fused", "hcat_ragas_like", "ciu", "rougeL_f", "squad_f1", "bleu"];

/// What the sections share: the inputs, the options, score summaries computed once, and what was
/// drawn or noted so far.
pub(super) struct Ctx<'a> {
    pub(super) inputs: &'a Inputs,
    opts: &'a ReportOptions,
    /// Per score input (by position in `inputs.loaded`): its per-system summary.
    summaries: Vec<(usize, SummaryReport)>,
    records: BTreeMap<(String, String), &'a Record>,
    pub(super) drawn: Vec<String>,
    pub(super) notes: Vec<String>,
}

impl<'a> Ctx<'a> {
    pub(super) fn new(inputs: &'a Inputs, opts: &'a ReportOptions) -> Self {
        let summaries = inputs
            .loaded
            .iter()
            .enumerate()
            .filter_map(|(i, l)| match &l.input {
                Input::Scores(s) => Some((i, summarize(s))),
                Input::ScoreSummary(s) => Some((i, s.clone())),
                _ => None,
            })
            .collect();
        Ctx { inputs, opts, summaries, records: records_by_key(inputs), drawn: Vec::new(), notes: Vec::new() }
    }

    pub(super) fn figure(&mut self, c: &NamedChart) -> String {
        self.drawn.push(c.name.clone());
        figure(&c.name, &c.chart)
    }

    fn note(&mut self, text: String) -> String {
        let html = format!("<p class=\"muted\">{}</p>", esc(&text));
        self.notes.push(text);
        html
    }

    fn dice(&self) -> impl Iterator<Item = (&'a Loaded, &'a DiceInput)> {
        self.inputs.loaded.iter().filter_map(|l| match &l.input {
            Input::Dice(d) => Some((l, d.as_ref())),
            _ => None,
        })
    }

    fn tournament(&self) -> Option<&'a DiceInput> {
        self.dice().map(|(_, d)| d).find(|d| d.kind == DiceKind::Tournament && !d.standings.is_empty())
    }

    pub(super) fn score_inputs(&self) -> impl Iterator<Item = (&'a Loaded, &'a ScoreInput)> {
        self.inputs.loaded.iter().filter_map(|l| match &l.input {
            Input::Scores(s) => Some((l, s)),
            _ => None,
        })
    }

    /// The record of question `id` answered by `system`, when the report has the records.
    pub(super) fn record(&self, id: &str, system: &str) -> Option<&'a Record> {
        self.records.get(&(id.to_string(), system.to_string())).copied()
    }

    /// The headline metric and the summary it is in.
    pub(super) fn headline(&self) -> Option<(String, &SummaryReport)> {
        let has = |s: &SummaryReport, m: &str| {
            s.systems.iter().any(|sys| sys.metrics.iter().any(|c| c.metric == m && c.mean.is_some()))
        };
        for (_, s) in &self.summaries {
            if let Some(m) = &self.opts.headline {
                if has(s, m) {
                    return Some((m.clone(), s));
                }
                continue;
            }
            if let Some(m) = HEADLINE_PREFERENCE.iter().find(|m| has(s, m)) {
                return Some((m.to_string(), s));
            }
            let first = s.systems.iter().flat_map(|sys| &sys.metrics).find(|c| c.mean.is_some());
            if let Some(c) = first {
                return Some((c.metric.clone(), s));
            }
        }
        None
    }
}

/// The verdict first: which system is best and by how much, in one sentence and one chart.
pub(super) fn summary(ctx: &mut Ctx<'_>) -> String {
    let mut s = String::new();
    if !ctx.inputs.skipped.is_empty() {
        let items: Vec<String> =
            ctx.inputs.skipped.iter().map(|k| format!("{}: {}", k.path.display(), k.reason)).collect();
        s.push_str(&warnings(&format!("{} input(s) not used", items.len()), &items));
    }
    if let Some(t) = ctx.tournament() {
        let _ = write!(s, "<p class=\"lede\">{}</p>", esc(&tournament_sentence(t)));
        if let Some(c) = dice_charts(t).into_iter().find(|c| c.name == "leaderboard") {
            s.push_str(&ctx.figure(&c));
        }
        let n_warn = t.report.pointer("/trust/warnings").and_then(Value::as_array).map_or(0, Vec::len);
        if n_warn > 0 {
            let _ = write!(
                s,
                "<p class=\"warn\">The judge-trust report raises {n_warn} warning(s): read them under <a href=\"#leaderboard\">Leaderboard</a> before trusting this order.</p>"
            );
        }
    }
    for (_, d) in ctx.dice() {
        match d.kind {
            DiceKind::Compare => {
                let _ = write!(s, "<p class=\"lede\">{}</p>", esc(&compare_sentence(&d.report)));
            }
            DiceKind::Baseline => {
                let _ = write!(s, "<p class=\"lede\">{}</p>", esc(&baseline_sentence(&d.report)));
            }
            DiceKind::Tournament => {}
        }
    }
    if let Some((metric, summary)) = ctx.headline() {
        let sentence = metric_sentence(&metric, summary);
        let _ = write!(s, "<p class=\"lede\">{}</p>", esc(&sentence));
        if ctx.tournament().is_none() {
            let chart = summary_charts(summary).into_iter().find(|c| c.name == format!("mean-{metric}"));
            if let Some(c) = chart {
                s.push_str(&ctx.figure(&c));
            }
        }
    }
    let is_test_set = |l: &&Loaded| matches!(&l.input, Input::Figures(f) if f.test_set.is_some());
    let test_sets = ctx.inputs.loaded.iter().filter(is_test_set).count();
    let figures = ctx.inputs.loaded.iter().filter(|l| matches!(l.input, Input::Figures(_))).count() - test_sets;
    if s.is_empty() && test_sets > 0 {
        let _ = write!(
            s,
            "<p>A generated test set and the quality of its questions: see <a href=\"#test-set\">Test set</a>.</p>"
        );
    }
    if s.is_empty() && figures > 0 {
        let _ =
            write!(s, "<p>{figures} output(s) read as key figures: see <a href=\"#figures\">Other outputs</a>.</p>");
    } else if test_sets > 0 && figures > 0 {
        let _ = write!(
            s,
            "<p>{figures} other output(s) read as key figures: see <a href=\"#figures\">Other outputs</a>.</p>"
        );
    } else if s.is_empty() || ctx.inputs.loaded.is_empty() {
        s.push_str("<p>Nothing to report: no input was recognised.</p>");
    }
    let mut used = Table::new(&[("input", false), ("what it is", false)]);
    for l in &ctx.inputs.loaded {
        used.row(vec![format!("<code>{}</code>", esc(&l.path.display().to_string())), esc(l.input.kind())]);
    }
    if !used.is_empty() {
        s.push_str("<details><summary>Inputs</summary>");
        s.push_str(&used.html());
        s.push_str("</details>");
    }
    s
}

/// "X ranks first ... ahead of Y ..., and the intervals (do not) overlap".
fn tournament_sentence(t: &DiceInput) -> String {
    let s = &t.standings;
    let first = &s[0];
    let mut out = format!(
        "{} ranks first of {} systems in the tournament, Bradley-Terry strength {:.2} [{:.2}, {:.2}]",
        first.system,
        s.len(),
        first.bt,
        first.bt_ci_low,
        first.bt_ci_high
    );
    if let Some(second) = s.get(1) {
        let clear = first.bt_ci_low > second.bt_ci_high;
        let _ = write!(
            out,
            ", ahead of {} at {:.2} [{:.2}, {:.2}] (difference {:.2}); {}",
            second.system,
            second.bt,
            second.bt_ci_low,
            second.bt_ci_high,
            first.bt - second.bt,
            if clear {
                "the 95% intervals do not overlap, so the lead is clear."
            } else {
                "the 95% intervals overlap, so the order of the top two is not settled."
            }
        );
    } else {
        out.push('.');
    }
    out
}

fn compare_sentence(r: &Value) -> String {
    let text = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or("?").to_string();
    let n = |k: &str| r.get(k).and_then(Value::as_f64);
    let (a, b) = (text("system_a"), text("system_b"));
    let s_a = n("s_a").unwrap_or(f64::NAN);
    let leader = if s_a >= 0.5 { &a } else { &b };
    format!(
        "In the pairwise comparison {a} scores {} against {b} over {} questions ({} wins, {} ties, {} losses): {leader} is preferred.",
        num(n("s_a"), 3),
        r.get("questions").map_or("?".into(), Value::to_string),
        r.get("wins_a").map_or("?".into(), Value::to_string),
        r.get("ties").map_or("?".into(), Value::to_string),
        r.get("wins_b").map_or("?".into(), Value::to_string),
    )
}

fn baseline_sentence(r: &Value) -> String {
    format!(
        "Baseline placement: the target system's Elo is {}, which places it {}.",
        num(r.get("target_elo").and_then(Value::as_f64), 1),
        r.get("placement").and_then(Value::as_str).unwrap_or("nowhere (no placement recorded)")
    )
}

/// The best and runner-up systems on `metric`, with intervals.
fn metric_sentence(metric: &str, summary: &SummaryReport) -> String {
    let mut rows: Vec<(&str, f64, Option<f64>, Option<f64>)> = summary
        .systems
        .iter()
        .filter_map(|s| {
            let c = s.metrics.iter().find(|c| c.metric == metric)?;
            Some((s.system.as_str(), c.mean?, c.ci_low, c.ci_high))
        })
        .collect();
    rows.sort_by(|a, b| b.1.total_cmp(&a.1));
    let Some(best) = rows.first() else { return format!("No system has a value of {metric}.") };
    let mut out =
        format!("On {metric}, {} leads with a mean of {:.3} [{}, {}]", best.0, best.1, num(best.2, 3), num(best.3, 3));
    if let Some(next) = rows.get(1) {
        let clear = matches!((best.2, next.3), (Some(lo), Some(hi)) if lo > hi);
        let _ = write!(
            out,
            ", ahead of {} at {:.3} [{}, {}] (difference {:.3}); {}",
            next.0,
            next.1,
            num(next.2, 3),
            num(next.3, 3),
            best.1 - next.1,
            if clear { "the 95% intervals do not overlap." } else { "the 95% intervals overlap." }
        );
    } else {
        out.push('.');
    }
    out
}

/// Standings, Elo by round, the win matrix and the judge-trust panel of every DICE run.
pub(super) fn leaderboard(ctx: &mut Ctx<'_>) -> String {
    let mut s = String::new();
    let runs: Vec<(&Loaded, &DiceInput)> = ctx.dice().collect();
    for (l, d) in runs {
        let _ = write!(
            s,
            "<h3>{} <span class=\"muted\"><code>{}</code></span></h3>",
            esc(kind_title(d.kind)),
            esc(&l.path.display().to_string())
        );
        if !d.standings.is_empty() {
            let mut t = Table::new(&[
                ("rank", true),
                ("system", false),
                ("Elo", true),
                ("Bradley-Terry", true),
                ("95% interval", true),
                ("wins", true),
                ("ties", true),
                ("losses", true),
            ]);
            let shown = d.standings.len().min(ctx.opts.max_rows.max(64));
            for st in &d.standings[..shown] {
                t.row(vec![
                    st.rank.to_string(),
                    esc(&st.system),
                    format!("{:.1}", st.elo),
                    format!("{:.3}", st.bt),
                    format!("[{:.3}, {:.3}]", st.bt_ci_low, st.bt_ci_high),
                    st.wins.to_string(),
                    st.ties.to_string(),
                    st.losses.to_string(),
                ]);
            }
            s.push_str(&t.html());
            if shown < d.standings.len() {
                let note = ctx.note(format!("{} more systems in {}", d.standings.len() - shown, l.path.display()));
                s.push_str(&note);
            }
        }
        if d.kind == DiceKind::Baseline {
            if let Some(tiers) = d.report.get("tiers").and_then(Value::as_array) {
                let mut t =
                    Table::new(&[("tier", false), ("Elo", true), ("wins", true), ("ties", true), ("losses", true)]);
                for tier in tiers {
                    let g = |k: &str| {
                        tier.get(k).map_or("–".into(), |v| v.as_str().map_or(v.to_string(), str::to_string))
                    };
                    t.row(vec![
                        esc(&g("tier")),
                        num(tier.get("elo").and_then(Value::as_f64), 1),
                        g("wins"),
                        g("ties"),
                        g("losses"),
                    ]);
                }
                s.push_str(&t.html());
            }
        }
        let charts: Vec<NamedChart> = dice_charts(d).into_iter().filter(|c| c.name != "leaderboard").collect();
        if !charts.is_empty() {
            s.push_str("<div class=\"grid2\">");
            for c in &charts {
                s.push_str(&ctx.figure(c));
            }
            s.push_str("</div>");
        }
        s.push_str(&trust_panel(&d.report));
    }
    s
}

fn kind_title(kind: DiceKind) -> &'static str {
    match kind {
        DiceKind::Tournament => "Tournament",
        DiceKind::Compare => "Pairwise comparison",
        DiceKind::Baseline => "Baseline placement",
    }
}

/// The judge-trust numbers with their warnings in plain words.
fn trust_panel(report: &Value) -> String {
    let Some(t) = report.get("trust") else { return String::new() };
    let f = |k: &str| t.get(k).and_then(Value::as_f64);
    let spread = |k: &str| {
        t.get(k).filter(|v| !v.is_null()).map_or("–".to_string(), |v| {
            let g = |x: &str| v.get(x).and_then(Value::as_f64);
            format!("median {} (min {}, max {})", num(g("median"), 3), num(g("min"), 3), num(g("max"), 3))
        })
    };
    let judge = report.get("judge").and_then(Value::as_str).unwrap_or("?");
    let mut s = String::from("<h3>Judge trust</h3>");
    s.push_str(&key_values(&[
        ("judge", format!("<code>{}</code>", esc(judge))),
        ("pairs judged", t.get("pairs").map_or("–".into(), Value::to_string)),
        ("order consistency", pct(f("order_consistency"))),
        ("first position wins", pct(f("first_position_rate"))),
        ("ties", pct(f("tie_rate"))),
        ("label probability mass", spread("label_mass")),
        ("margin |P(A) − P(B)|", spread("margin")),
        ("scored hard", pct(f("hard_rate"))),
        (
            "longer answer wins",
            format!(
                "{} of {} decided pairs",
                pct(f("length_agreement")),
                t.get("length_pairs").map_or("0".into(), Value::to_string)
            ),
        ),
    ]));
    let items: Vec<String> = t
        .get("warnings")
        .and_then(Value::as_array)
        .map(|w| w.iter().filter_map(Value::as_str).map(str::to_string).collect())
        .unwrap_or_default();
    if items.is_empty() && f("order_consistency").is_none() {
        // A protocol that grades each answer alone: there is no presentation order to check.
        s.push_str("<p class=\"ok\">No trust warning: each answer is graded alone (no presentation order to check), and the verdicts are not led by length.</p>");
    } else if items.is_empty() {
        s.push_str("<p class=\"ok\">No trust warning: the judge is consistent across orders and not led by position or length.</p>");
    } else {
        s.push_str(&warnings("The judge-trust report warns:", &items));
    }
    s
}

/// Per-system means with intervals for every metric, and distributions.
pub(super) fn metrics(ctx: &mut Ctx<'_>) -> String {
    let mut s = String::new();
    let summaries = ctx.summaries.clone();
    for (i, summary) in &summaries {
        let l = &ctx.inputs.loaded[*i];
        let _ = write!(s, "<h3><code>{}</code></h3>", esc(&l.path.display().to_string()));
        let _ = write!(
            s,
            "<p class=\"muted\">{} records, {} failed, {} skipped; means with {:.0}% bootstrap intervals ({} replicates).</p>",
            summary.records,
            summary.failed,
            summary.skipped,
            100.0 * summary.level,
            summary.bootstrap
        );
        s.push_str(&summary_table(summary, ["system", "records", "failed"]));
        // Charts of the key metrics only (the headline, then the preference list, then the first
        // columns); every metric is in the table and `ragjudge plot` draws any of them.
        let (key, metrics) = key_metrics(summary, ctx.headline().map(|(m, _)| m).as_deref(), MAX_METRICS_DRAWN);
        let charts = match &l.input {
            Input::Scores(sc) => score_charts(sc, summary, Some(&key)),
            _ => summary_charts(summary)
                .into_iter()
                .filter(|c| key.iter().any(|m| c.name == format!("mean-{m}")))
                .collect(),
        };
        if let Input::Scores(sc) = &l.input {
            if sc.file.rows.len() > crate::charts::MAX_POINTS {
                let note = ctx.note(format!(
                    "{} rows: distributions drawn as violins rather than one point per record",
                    sc.file.rows.len()
                ));
                s.push_str(&note);
            }
            if !sc.errors.is_empty() {
                let items: Vec<String> = sc
                    .errors
                    .iter()
                    .take(ctx.opts.max_rows)
                    .map(|(r, e)| format!("{} / {}: {e}", sc.file.rows[*r].id, sc.file.rows[*r].system))
                    .collect();
                let title = format!("{} record(s) with a failed metric (first {} shown)", sc.errors.len(), items.len());
                s.push_str(&warnings(&title, &items));
            }
        }
        s.push_str("<div class=\"grid2\">");
        for c in &charts {
            s.push_str(&ctx.figure(c));
        }
        s.push_str("</div>");
        if metrics > key.len() {
            let note = ctx.note(format!(
                "charts drawn for {} of the {metrics} metrics ({}); the others: `ragjudge plot {} --list`",
                key.len(),
                key.join(", "),
                l.path.display()
            ));
            s.push_str(&note);
        }
    }
    s
}

/// Metrics whose charts the page draws.
const MAX_METRICS_DRAWN: usize = 4;

/// Up to `max` metrics of `summary` (`headline` first, then the preference list, then column
/// order), and how many metrics have a mean.
fn key_metrics(summary: &SummaryReport, headline: Option<&str>, max: usize) -> (Vec<String>, usize) {
    let mut all: Vec<&str> = Vec::new();
    for sys in &summary.systems {
        for m in &sys.metrics {
            if m.mean.is_some() && !all.contains(&m.metric.as_str()) {
                all.push(&m.metric);
            }
        }
    }
    let mut out: Vec<String> = Vec::new();
    let candidates = headline.into_iter().chain(HEADLINE_PREFERENCE.iter().copied()).chain(all.iter().copied());
    for m in candidates {
        if out.len() < max && all.contains(&m) && !out.iter().any(|o| o == m) {
            out.push(m.to_string());
        }
    }
    (out, all.len())
}

/// Rows of `summary` (headed `head`: the row's name, its items, its failures) by column: the
/// mean, with its interval where it has one, and its count.
pub(super) fn summary_table(summary: &SummaryReport, head: [&str; 3]) -> String {
    let mut metrics: Vec<&str> = Vec::new();
    for sys in &summary.systems {
        for m in &sys.metrics {
            if !metrics.contains(&m.metric.as_str()) {
                metrics.push(&m.metric);
            }
        }
    }
    let mut columns: Vec<(&str, bool)> = vec![(head[0], false), (head[1], true), (head[2], true)];
    columns.extend(metrics.iter().map(|m| (*m, true)));
    let mut t = Table::new(&columns);
    for sys in &summary.systems {
        let mut row = vec![esc(&sys.system), sys.records.to_string(), sys.failed.to_string()];
        for m in &metrics {
            row.push(match sys.metrics.iter().find(|c| c.metric == *m) {
                Some(c) if c.mean.is_some() && (c.ci_low.is_some() || c.ci_high.is_some()) => format!(
                    "{}<br><span class=\"muted\">[{}, {}] n={}</span>",
                    num(c.mean, 3),
                    num(c.ci_low, 3),
                    num(c.ci_high, 3),
                    c.n
                ),
                Some(c) if c.mean.is_some() => {
                    format!("{}<br><span class=\"muted\">n={}</span>", num(c.mean, 3), c.n)
                }
                _ => "–".into(),
            });
        }
        t.row(row);
    }
    t.html()
}

/// Per question: the answers side by side with their scores and evidence, and every pairwise
/// verdict with probabilities, margins and reasoning.
pub(super) fn questions(ctx: &mut Ctx<'_>) -> String {
    // Question ids in first-seen order: traces, then records, then scores.
    let mut ids: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut push = |id: &str, ids: &mut Vec<String>| {
        if seen.insert(id.to_string()) {
            ids.push(id.to_string());
        }
    };
    for (_, d) in ctx.dice() {
        for t in &d.traces {
            push(&t.question_id, &mut ids);
        }
    }
    for (id, _) in ctx.records.keys() {
        push(id, &mut ids);
    }
    let score_inputs: Vec<(&Loaded, &ScoreInput)> = ctx.score_inputs().collect();
    let has_evidence = !ctx.records.is_empty()
        || ctx.dice().any(|(_, d)| !d.traces.is_empty())
        || score_inputs.iter().any(|(_, s)| s.details.iter().any(Option::is_some));
    if !has_evidence {
        return String::new();
    }
    for (_, sc) in &score_inputs {
        for r in &sc.file.rows {
            push(&r.id, &mut ids);
        }
    }
    let shown = ids.len().min(ctx.opts.max_questions);
    let mut s = format!(
        "<p class=\"muted\">{} question(s); the first {} are shown{}.</p>",
        ids.len(),
        shown,
        if shown < ids.len() { " (set --max-questions to show more)" } else { "" }
    );
    if shown < ids.len() {
        ctx.notes.push(format!("{} of {} questions shown in the drill-down", shown, ids.len()));
    }
    let mut hidden = 0;
    for id in &ids[..shown] {
        let (html, h) = question(ctx, id, &score_inputs);
        s.push_str(&html);
        hidden += h;
    }
    if hidden > 0 {
        ctx.notes.push(format!(
            "{hidden} judge verdicts left out of the drill-down (at most {} per question)",
            2 * ctx.opts.max_rows
        ));
    }
    s
}

/// One question's drill-down, and how many of its verdicts were left out for length.
fn question(ctx: &Ctx<'_>, id: &str, score_inputs: &[(&Loaded, &ScoreInput)]) -> (String, usize) {
    let mine: Vec<(&(String, String), &&Record)> = ctx.records.iter().filter(|((q, _), _)| q == id).collect();
    let query = mine.first().map(|(_, r)| r.query.clone()).unwrap_or_default();
    let mut s = format!(
        "<details><summary>{}{}</summary>",
        esc(id),
        if query.is_empty() { String::new() } else { format!(": {}", esc(&truncate(&query, 140))) }
    );
    if let Some(reference) = mine.iter().find_map(|(_, r)| r.reference.clone()) {
        let _ = write!(s, "<p><strong>Reference:</strong> {}</p>", esc(&reference));
    }
    // Systems that answered, from records and scores.
    let mut systems: Vec<String> = mine.iter().map(|((_, sys), _)| sys.clone()).collect();
    for (_, sc) in score_inputs {
        for r in sc.file.rows.iter().filter(|r| r.id == id) {
            if !systems.contains(&r.system) {
                systems.push(r.system.clone());
            }
        }
    }
    if !systems.is_empty() {
        s.push_str("<div class=\"answers\">");
        for sys in &systems {
            let _ = write!(s, "<div class=\"answer\"><h4>{}</h4>", esc(sys));
            if let Some(r) = ctx.records.get(&(id.to_string(), sys.clone())) {
                s.push_str(&earlier_turns(r));
                let _ = write!(s, "<p>{}</p>", esc(&r.answer));
                s.push_str(&trajectory(r));
            }
            for (_, sc) in score_inputs {
                let Some(i) = sc.file.rows.iter().position(|r| r.id == id && &r.system == sys) else { continue };
                let row = &sc.file.rows[i];
                let vals: Vec<String> = sc
                    .file
                    .columns
                    .iter()
                    .zip(&row.values)
                    .filter_map(|(c, v)| v.map(|v| format!("{}&nbsp;{:.3}", esc(c), v)))
                    .take(12)
                    .collect();
                if !vals.is_empty() {
                    let _ = write!(s, "<p class=\"muted\">{}</p>", vals.join(" · "));
                }
                if let Some((_, e)) = sc.errors.iter().find(|(r, _)| *r == i) {
                    let _ = write!(s, "<p class=\"bad\">failed: {}</p>", esc(e));
                }
                if let Some(Some(detail)) = sc.details.get(i) {
                    s.push_str(&evidence(detail));
                }
            }
            s.push_str("</div>");
        }
        s.push_str("</div>");
    }
    let mut verdicts = Table::new(&[
        ("pair", false),
        ("shown first", false),
        ("P(A)", true),
        ("P(B)", true),
        ("P(tie)", true),
        ("margin", true),
        ("categories", false),
        ("reasoning", false),
    ]);
    let limit = 2 * ctx.opts.max_rows;
    let mut hidden = 0;
    for (l, d) in ctx.dice() {
        let mine: Vec<_> = d.traces.iter().filter(|t| t.question_id == id).collect();
        if mine.len() > limit {
            hidden += mine.len() - limit;
            let _ = write!(
                s,
                "<p class=\"muted\">{} of {} verdicts on this question shown; all are in <code>traces.jsonl</code> beside <code>{}</code>.</p>",
                limit,
                mine.len(),
                esc(&l.path.display().to_string())
            );
        }
        for t in mine.into_iter().take(limit) {
            let first = match t.order {
                ragjudge_dice::judgement::Order::Ab => &t.system_a,
                ragjudge_dice::judgement::Order::Ba => &t.system_b,
            };
            let cat = |c: &Option<String>| c.clone().unwrap_or_else(|| "–".into());
            let reasoning = if t.reasoning.trim().is_empty() {
                "<span class=\"muted\">(no reasoning stage)</span>".to_string()
            } else {
                format!("<details><summary>read</summary><pre>{}</pre></details>", esc(&t.reasoning))
            };
            verdicts.row(vec![
                format!("{} vs {}", esc(&t.system_a), esc(&t.system_b)),
                esc(first),
                format!("{:.3}", t.probs.a),
                format!("{:.3}", t.probs.b),
                format!("{:.3}", t.probs.tie),
                format!("{:.3}", (t.pair_probs.a - t.pair_probs.b).abs()),
                format!("{} / {}", esc(&cat(&t.category_a_raw)), esc(&cat(&t.category_b_raw))),
                reasoning,
            ]);
        }
    }
    if !verdicts.is_empty() {
        s.push_str("<p><strong>Judge verdicts</strong> (probabilities of each order in original A/B terms; margin of the order-averaged pair)</p>");
        s.push_str(&verdicts.html());
    }
    s.push_str(&claim_checks(ctx, id));
    s.push_str("</details>");
    (s, hidden)
}

/// The conversation before a turn (a record's `history`), folded.
fn earlier_turns(r: &Record) -> String {
    if r.history.is_empty() {
        return String::new();
    }
    let mut s = format!("<details><summary>{} earlier turns</summary><ol class=\"turns\">", r.history.len());
    for t in &r.history {
        let _ = write!(s, "<li><strong>{}:</strong> {}</li>", esc(&t.role), esc(&truncate(&t.text, 400)));
    }
    s.push_str("</ol></details>");
    s
}

/// An agent's steps (a record's `steps`): one row per retrieval, tool or model call, in order.
fn trajectory(r: &Record) -> String {
    if r.steps.is_empty() {
        return String::new();
    }
    let mut t = Table::new(&[
        ("#", true),
        ("step", false),
        ("name", false),
        ("input", false),
        ("output", false),
        ("passages", true),
        ("ms", true),
    ]);
    for (i, st) in r.steps.iter().enumerate() {
        let output = match &st.error {
            Some(e) => format!("<span class=\"bad\">failed: {}</span>", esc(&truncate(e, 120))),
            None => esc(&truncate(st.output.as_deref().unwrap_or_default(), 120)),
        };
        t.row(vec![
            (i + 1).to_string(),
            esc(&st.kind),
            esc(&st.name),
            esc(&truncate(st.input.as_deref().unwrap_or_default(), 120)),
            output,
            if st.contexts.is_empty() { String::new() } else { st.contexts.len().to_string() },
            st.latency_ms.map(|m| format!("{m:.0}")).unwrap_or_default(),
        ]);
    }
    format!("<details><summary>{} steps</summary>{}</details>", r.steps.len(), t.html())
}

/// The claim checks of each answer to question `id` (runs judged with `--protocol claims` or
/// `ragchecker`): one row per system, with each sentence's support and the reference sentences'
/// coverage; `ragchecker` adds its score and ROUGE-L F.
fn claim_checks(ctx: &Ctx<'_>, id: &str) -> String {
    let mut rows: Vec<(String, &ClaimCheck)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (_, d) in ctx.dice() {
        for v in d.verdicts.iter().filter(|v| v.id == id) {
            let Some(pair) = &v.verdict.claims else { continue };
            for (system, c) in [(&v.system_a, &pair.0), (&v.system_b, &pair.1)] {
                if seen.insert(system.clone()) {
                    rows.push((system.clone(), c));
                }
            }
        }
    }
    if rows.is_empty() {
        return String::new();
    }
    // In the order of the answer cards above.
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    let mixed = rows.iter().any(|(_, c)| c.overlap.is_some());
    let mut headers = vec![("system", false), ("utility", true), ("precision", true), ("recall", true)];
    if mixed {
        headers.extend([("ROUGE-L F", true), ("score", true)]);
    }
    headers.extend([("claims (P supported)", false), ("declined", false)]);
    let mut table = Table::new(&headers);
    let opt = |x: Option<f64>| x.map_or_else(|| "–".to_string(), |x| format!("{x:.3}"));
    for (system, c) in rows {
        let claims: Vec<String> =
            c.claims.iter().zip(&c.support).map(|(t, p)| format!("{} ({p:.2})", esc(t))).collect();
        let declined: Vec<String> = c.declined.iter().map(|(t, _)| esc(t)).collect();
        let mut cells = vec![esc(&system), format!("{:.3}", c.utility), opt(c.precision), opt(c.recall)];
        if mixed {
            cells.extend([opt(c.overlap), opt(c.score)]);
        }
        cells.extend([claims.join("<br>"), declined.join("<br>")]);
        table.row(cells);
    }
    let how = if mixed {
        "each answer claim against the whole reference; score 0.3 precision + 0.2 recall + 0.5 ROUGE-L F, \
         compared unless an answer declines; utility on CRAG's scale: 1 perfect, 0 declined, -1 wrong"
    } else {
        "each answer sentence against the reference; utility on CRAG's scale: 1 perfect, 0 declined, -1 wrong"
    };
    format!("<p><strong>Claim checks</strong> ({how})</p>{}", table.html())
}

/// A score row's evidence (its `detail` object), highlights first.
fn evidence(detail: &serde_json::Map<String, Value>) -> String {
    let mut items: Vec<(String, String)> = Vec::new();
    for (k, v) in detail {
        let text = match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        items.push((k.clone(), truncate(&text, 400)));
    }
    // The least-grounded sentence and nugget matches are what a reader looks for first.
    items.sort_by_key(|(k, _)| !(k.contains("least") || k.contains("nugget")));
    let mut s = String::from("<details><summary>evidence</summary><dl class=\"kv\">");
    for (k, v) in items {
        let _ = write!(s, "<dt>{}</dt><dd>{}</dd>", esc(&k), esc(&v));
    }
    s.push_str("</dl></details>");
    s
}

fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max).collect();
    out.push('…');
    out
}

/// Calibration quality, the reliability diagram and conformal set sizes.
pub(super) fn calibration(ctx: &mut Ctx<'_>) -> String {
    let mut s = String::new();
    for l in &ctx.inputs.loaded {
        let Input::Calibration(doc) = &l.input else { continue };
        let c = &doc.body;
        let _ = write!(
            s,
            "<p>{} calibration of <code>{}</code> to <code>{}</code>{} on {} joined rows; on the {} split Brier {} and ECE {}.</p>",
            esc(c.method.name()),
            esc(&c.score_columns.join(", ")),
            esc(&c.label_column),
            c.binarize.map_or(String::new(), |t| format!(" ≥ {t}")),
            c.joined,
            esc(&c.quality_on),
            num(c.quality.map(|q| q.brier), 4),
            num(c.quality.map(|q| q.ece), 4)
        );
        let mut t = Table::new(&[
            ("score", false),
            ("q̂", true),
            ("test coverage", true),
            ("target", true),
            ("mean set size", true),
        ]);
        for set in &c.sets {
            let target = 1.0 - c.alpha;
            let cov = match set.test.as_ref().map(|t| t.coverage) {
                Some(v) if v + 1e-12 < target => format!("<span class=\"bad\">{v:.3}</span>"),
                Some(v) => format!("<span class=\"ok\">{v:.3}</span>"),
                None => "–".into(),
            };
            t.row(vec![
                esc(set.score.name()),
                num(set.q_hat, 4),
                cov,
                format!("≥ {target:.2}"),
                num(set.test.as_ref().map(|t| t.mean_size), 3),
            ]);
        }
        s.push_str(&t.html());
        let charts = calibration_charts(c);
        s.push_str("<div class=\"grid2\">");
        for ch in &charts {
            s.push_str(&ctx.figure(ch));
        }
        s.push_str("</div>");
    }
    s
}

/// The weakest significant slices and cells, and the heatmaps.
pub(super) fn weakness(ctx: &mut Ctx<'_>) -> String {
    let mut s = String::new();
    for l in &ctx.inputs.loaded {
        let Input::Weakness(ws) = &l.input else { continue };
        for w in ws {
            let r = &w.report;
            let _ = write!(
                s,
                "<h3>{}</h3><p>{} significant weak slice(s) and {} cell(s) (Benjamini-Hochberg over every test); {} row(s) without a value or strata left out.</p>",
                esc(&w.metric),
                r.weakest.len(),
                r.weakest_cells.len(),
                w.rows_left_out
            );
            let mut t = Table::new(&[
                ("system", false),
                ("slice", false),
                ("n", true),
                ("mean [95%]", true),
                ("rest", true),
                ("p (adjusted)", true),
            ]);
            for &i in r.weakest.iter().take(ctx.opts.max_rows) {
                let sl = &r.marginal[i];
                t.row(vec![
                    esc(&sl.system),
                    esc(&format!("{}={}", sl.dimension, sl.stratum)),
                    sl.n.to_string(),
                    format!("{:.3} [{:.3}, {:.3}]", sl.mean, sl.ci_low, sl.ci_high),
                    num(sl.rest_mean, 3),
                    sl.p_adjusted.map_or("–".into(), |p| format!("{p:.2e}")),
                ]);
            }
            for &i in r.weakest_cells.iter().take(ctx.opts.max_rows) {
                let c = &r.bivariate[i];
                t.row(vec![
                    esc(&c.system),
                    esc(&format!("{}={} × {}={}", c.dimensions[0], c.strata[0], c.dimensions[1], c.strata[1])),
                    c.n.to_string(),
                    format!("{:.3}", c.mean),
                    num(c.rest_mean, 3),
                    c.p_adjusted.map_or("–".into(), |p| format!("{p:.2e}")),
                ]);
            }
            if !t.is_empty() {
                s.push_str(&t.html());
            }
            let hidden = r.weakest.len().saturating_sub(ctx.opts.max_rows)
                + r.weakest_cells.len().saturating_sub(ctx.opts.max_rows);
            if hidden > 0 {
                let note = ctx.note(format!("{hidden} more weak slices or cells in {}", l.path.display()));
                s.push_str(&note);
            }
        }
        let charts = weakness_charts(ws);
        let max = 2 * ctx.opts.max_rows;
        s.push_str("<div class=\"grid2\">");
        for c in charts.iter().take(max) {
            s.push_str(&ctx.figure(c));
        }
        s.push_str("</div>");
        if charts.len() > max {
            let note = ctx.note(format!(
                "{} more weakness charts: `ragjudge plot {} --list`",
                charts.len() - max,
                l.path.display()
            ));
            s.push_str(&note);
        }
    }
    s
}

/// Paired deltas under perturbation, out-of-distribution behaviour and the worst examples.
pub(super) fn robustness(ctx: &mut Ctx<'_>) -> String {
    let mut s = String::new();
    for l in &ctx.inputs.loaded {
        let Input::Robustness(r) = &l.input else { continue };
        let _ = write!(
            s,
            "<p>{} variant(s) paired with their originals; {} excluded (named in <code>robustness.json</code>); intervals: paired bootstrap, {} replicates, {:.0}%.</p>",
            r.pairs,
            r.exclusions.len(),
            r.bootstrap,
            100.0 * r.level
        );
        let mut t = Table::new(&[
            ("metric", false),
            ("system", false),
            ("perturbation", false),
            ("n", true),
            ("original", true),
            ("variant", true),
            ("delta [95%]", true),
            ("worse", true),
            ("correct → wrong", true),
        ]);
        for d in r.deltas.iter().take(ctx.opts.max_rows) {
            t.row(vec![
                esc(&d.metric),
                esc(&d.system),
                esc(&format!("{} {}", d.perturbation, d.severity)),
                d.n.to_string(),
                num(d.original_mean, 3),
                num(d.variant_mean, 3),
                format!("{} [{}, {}]", num(d.delta, 3), num(d.ci_low, 3), num(d.ci_high, 3)),
                pct(d.worse_share),
                pct(d.flips.as_ref().map(|f| f.rate)),
            ]);
        }
        s.push_str(&t.html());
        if r.deltas.len() > ctx.opts.max_rows {
            let note = ctx.note(format!(
                "{} more delta rows in deltas.csv beside {}",
                r.deltas.len() - ctx.opts.max_rows,
                l.path.display()
            ));
            s.push_str(&note);
        }
        let charts = robustness_charts(r);
        s.push_str("<div class=\"grid2\">");
        for c in &charts {
            s.push_str(&ctx.figure(c));
        }
        s.push_str("</div>");
        if !r.ood.is_empty() {
            let mut t =
                Table::new(&[("system", false), ("OOD questions", true), ("abstained", true), ("hallucination", true)]);
            for o in &r.ood {
                t.row(vec![
                    esc(&o.system),
                    o.n.to_string(),
                    pct(o.abstention.as_ref().and_then(|a| a.rate)),
                    num(o.hallucination.as_ref().and_then(|h| h.mean), 3),
                ]);
            }
            s.push_str("<h3>Out-of-distribution questions</h3>");
            s.push_str(&t.html());
        }
        if !r.worst.is_empty() {
            let mut t = Table::new(&[
                ("metric", false),
                ("system", false),
                ("question", false),
                ("perturbation", false),
                ("original", true),
                ("variant", true),
            ]);
            for w in r.worst.iter().take(ctx.opts.max_rows) {
                t.row(vec![
                    esc(&w.metric),
                    esc(&w.system),
                    esc(&w.original_id),
                    esc(&format!("{} {}", w.perturbation, w.severity)),
                    format!("{:.3}", w.original),
                    format!("{:.3}", w.variant),
                ]);
            }
            s.push_str("<h3>Largest drops</h3>");
            s.push_str(&t.html());
        }
    }
    s
}

/// The version and the command line of an artifact, or the settings of the library call when
/// the artifact records those instead (they are the same whichever face made the call), with
/// its inputs' digests.
fn provenance_line(p: &crate::Provenance) -> String {
    let how = if p.command.is_empty() { p.settings.to_string() } else { p.command_line() };
    let mut line = format!("ragjudge {}: <code>{}</code>", esc(&p.ragjudge), esc(&how));
    for i in &p.inputs {
        line += &format!("<br>{} <code>sha256:{}</code>", esc(&i.path), esc(&i.sha256[..i.sha256.len().min(16)]));
    }
    line
}

/// Versions, judges, prompts, seeds and the exact commands behind every input.
pub(super) fn provenance(ctx: &mut Ctx<'_>) -> String {
    let mut t = Table::new(&[("input", false), ("what", false), ("written by", false)]);
    for l in &ctx.inputs.loaded {
        let mut by = Vec::new();
        match &l.input {
            Input::Dice(d) => {
                if let Some(p) = &d.provenance {
                    by.push(provenance_line(p));
                }
                if let Some(j) = d.report.get("judge").and_then(Value::as_str) {
                    by.push(format!("judge <code>{}</code>", esc(j)));
                }
                let mut prompts: Vec<&str> = d.traces.iter().map(|t| t.prompt_version.as_str()).collect();
                prompts.sort_unstable();
                prompts.dedup();
                if !prompts.is_empty() {
                    by.push(format!("prompts {}", esc(&prompts.join(", "))));
                }
                if let Some(p) = d.report.get("label_prior").filter(|p| !p.is_null()) {
                    by.push(format!("label prior divided out: <code>{}</code>", esc(&p.to_string())));
                }
                if let Some(u) = d.report.get("usage").filter(|u| !u.is_null()) {
                    by.push(format!("usage <code>{}</code>", esc(&u.to_string())));
                }
            }
            Input::Calibration(c) if c.provenance != crate::Provenance::default() => {
                by.push(provenance_line(&c.provenance));
            }
            Input::Figures(f) if f.provenance != crate::Provenance::default() => {
                by.push(provenance_line(&f.provenance));
            }
            Input::FusionModel(m) => {
                let names: Vec<String> = m.body.inputs.iter().map(|i| i.name.clone()).collect();
                by.push(format!(
                    "{} on <code>{}</code> → <code>{}</code> ({} rows)",
                    esc(m.body.model.name()),
                    esc(&names.join(", ")),
                    esc(&m.body.label.column),
                    m.body.label.rows
                ));
                if m.provenance != crate::Provenance::default() {
                    by.push(provenance_line(&m.provenance));
                }
            }
            Input::Scores(sc) => {
                by.push(format!("{} rows, columns {}", sc.file.rows.len(), esc(&sc.file.columns.join(", "))))
            }
            Input::Records(r) => by.push(format!("{} records", r.len())),
            _ => {}
        }
        t.row(vec![
            format!("<code>{}</code>", esc(&l.path.display().to_string())),
            esc(l.input.kind()),
            by.join("<br>"),
        ]);
    }
    for k in &ctx.inputs.skipped {
        t.row(vec![format!("<code>{}</code>", esc(&k.path.display().to_string())), "not used".into(), esc(&k.reason)]);
    }
    let mut s = key_values(&[
        ("report by", format!("ragjudge {}", env!("CARGO_PKG_VERSION"))),
        ("command", ctx.opts.command.as_ref().map_or("–".into(), |c| format!("<code>{}</code>", esc(c)))),
        ("score intervals", "Poisson bootstrap, 1000 replicates, seed 0, 95% (as `ragjudge score`)".into()),
    ]);
    s.push_str(&t.html());
    if !ctx.notes.is_empty() {
        s.push_str("<h3>Summarised or left out</h3><ul>");
        for n in &ctx.notes {
            let _ = write!(s, "<li>{}</li>", esc(n));
        }
        s.push_str("</ul>");
    }
    s
}
