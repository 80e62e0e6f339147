//! The chart catalogue: every chart a report shows, built from what a command wrote, each with
//! a name `ragjudge plot` can ask for. Charts are data ([`Chart`]); `ragjudge-charts` draws them.

use crate::inputs::{DiceInput, Input, Inputs, ScoreInput, WeaknessInput};
use crate::summary::{summarize_file, Resummarize};
use ragjudge_analysis::robustness::RobustnessReport;
use ragjudge_charts::{
    Bar, Chart, ChartBody, ColorScale, DistStyle, Group, HeatCell, IntervalRow, ReliabilityBin, Series,
};
use ragjudge_dice::elo::EloConfig;
use ragjudge_dice::labels::Label;
use ragjudge_eval::SummaryReport;
use ragjudge_stats::calibration::CalibrationReport;
use serde_json::Value;
use std::collections::BTreeMap;

/// Above this many values in all, distributions are drawn as violins instead of box plots with
/// every point (a point per value would make the picture heavy and unreadable).
pub const MAX_POINTS: usize = 2000;

/// A chart with the name `ragjudge plot --chart NAME` selects it by.
#[derive(Debug, Clone, PartialEq)]
pub struct NamedChart {
    /// Name, e.g. `leaderboard` or `distribution-rougeL_f`.
    pub name: String,
    /// The chart.
    pub chart: Chart,
}

/// A chart as `plot --list --json` names it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ChartEntry<'a> {
    /// The chart's name.
    pub name: &'a str,
    /// Its title.
    pub title: &'a str,
}

/// A chart drawn to a file, as `plot --json` reports it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct DrawnChart<'a> {
    /// The file written.
    pub output: &'a std::path::Path,
    /// The chart's name.
    pub chart: &'a str,
    /// Its title.
    pub title: &'a str,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

impl NamedChart {
    /// The chart as an entry of `plot --list`.
    pub fn entry(&self) -> ChartEntry<'_> {
        ChartEntry { name: &self.name, title: &self.chart.title }
    }
}

fn named(name: impl Into<String>, title: impl Into<String>, x: &str, y: &str, body: ChartBody) -> NamedChart {
    NamedChart { name: name.into(), chart: Chart { title: title.into(), x_label: x.into(), y_label: y.into(), body } }
}

/// Every chart of every input, in input order.
pub fn all_charts(inputs: &Inputs) -> Vec<NamedChart> {
    let mut out = Vec::new();
    for l in &inputs.loaded {
        match &l.input {
            Input::Dice(d) => out.extend(dice_charts(d)),
            Input::Scores(s) => out.extend(score_charts(s, &summarize(s), None)),
            Input::ScoreSummary(s) => out.extend(summary_charts(s)),
            Input::Calibration(c) => out.extend(calibration_charts(&c.body)),
            Input::Weakness(w) => out.extend(weakness_charts(w)),
            Input::Robustness(r) => out.extend(robustness_charts(r)),
            Input::Figures(f) => {
                if let Some(crate::figures::Trust::Validation(v)) = &f.trust {
                    out.extend(trust_charts(v));
                }
            }
            Input::Records(_) | Input::FusionModel(_) => {}
        }
    }
    out
}

/// The per-system summary of a score file, as `score` computes it (1000 Poisson-bootstrap
/// replicates, seed 0, 95%): the same intervals `score` printed.
pub fn summarize(s: &ScoreInput) -> SummaryReport {
    let failed: std::collections::HashSet<usize> = s.errors.iter().map(|(i, _)| *i).collect();
    summarize_file(&s.file, |i| failed.contains(&i), &Resummarize::default())
}

/// Leaderboard intervals, Elo by round and the win matrix of a tournament; the margin histogram
/// of any DICE run.
pub fn dice_charts(d: &DiceInput) -> Vec<NamedChart> {
    let mut out = Vec::new();
    if !d.standings.is_empty() {
        let rows = d
            .standings
            .iter()
            .map(|s| IntervalRow {
                label: format!("{}. {}", s.rank, s.system),
                estimate: s.bt,
                low: s.bt_ci_low,
                high: s.bt_ci_high,
                n: Some(s.matches),
                highlight: s.rank == 1,
            })
            .collect();
        out.push(named(
            "leaderboard",
            "Bradley-Terry strength with 95% bootstrap interval",
            "strength (log-odds of winning a question)",
            "system (rank)",
            ChartBody::Intervals { rows, reference: Some(0.0) },
        ));
    }
    if !d.matches.is_empty() {
        out.push(named(
            "elo-by-round",
            "Elo after each round",
            "round",
            "Elo",
            ChartBody::Lines { series: elo_series(d) },
        ));
        if let Some(body) = win_matrix(d) {
            out.push(named(
                "win-matrix",
                "Score of the row system against the column system (question wins-ties-losses)",
                "opponent",
                "system",
                body,
            ));
        }
    }
    if let Some(h) = d.report.pointer("/trust/margin_histogram").and_then(Value::as_array) {
        let labels = ["< 0.1", "0.1-0.3", "0.3-0.6", ">= 0.6"];
        let bars: Vec<Bar> =
            h.iter().zip(labels).map(|(n, l)| Bar { label: l.to_string(), value: n.as_f64().unwrap_or(0.0) }).collect();
        if bars.len() == 4 && bars.iter().any(|b| b.value > 0.0) {
            out.push(named(
                "margins",
                "Judge margins: |P(A) - P(B)| per judged pair",
                "margin",
                "pairs",
                ChartBody::Bars { bars },
            ));
        }
    }
    out
}

/// Each system's Elo after every round, from the initial rating.
fn elo_series(d: &DiceInput) -> Vec<Series> {
    let initial = EloConfig::default().initial;
    let order: Vec<String> = if d.standings.is_empty() {
        let mut o: Vec<String> = Vec::new();
        for m in &d.matches {
            for s in [&m.a, &m.b] {
                if !o.contains(s) {
                    o.push(s.clone());
                }
            }
        }
        o
    } else {
        d.standings.iter().map(|s| s.system.clone()).collect()
    };
    let rounds = d.matches.iter().map(|m| m.round).max().unwrap_or(0) + 1;
    let mut current: BTreeMap<&str, f64> = order.iter().map(|s| (s.as_str(), initial)).collect();
    let mut series: Vec<Series> =
        order.iter().map(|s| Series { name: s.clone(), points: vec![(0.0, initial)] }).collect();
    for round in 0..rounds {
        for m in d.matches.iter().filter(|m| m.round == round) {
            current.insert(m.a.as_str(), m.elo_a);
            current.insert(m.b.as_str(), m.elo_b);
        }
        for s in &mut series {
            s.points.push(((round + 1) as f64, current[s.name.as_str()]));
        }
    }
    series
}

/// Mean DICE score of the row system against the column system, over their matches, with the
/// row system's question wins-ties-losses from `labels.jsonl` under it.
fn win_matrix(d: &DiceInput) -> Option<ChartBody> {
    let systems: Vec<String> = d.standings.iter().map(|s| s.system.clone()).collect();
    if systems.len() < 2 {
        return None;
    }
    let mut sums: BTreeMap<(&str, &str), (f64, usize)> = BTreeMap::new();
    for m in &d.matches {
        let e = sums.entry((m.a.as_str(), m.b.as_str())).or_default();
        e.0 += m.s_a;
        e.1 += 1;
        let e = sums.entry((m.b.as_str(), m.a.as_str())).or_default();
        e.0 += 1.0 - m.s_a;
        e.1 += 1;
    }
    // (row, column) -> [wins, ties, losses] of the row system, question by question.
    let mut record: BTreeMap<(&str, &str), [usize; 3]> = BTreeMap::new();
    for l in &d.labels {
        let k = match l.label {
            Label::A => 0,
            Label::Tie => 1,
            Label::B => 2,
        };
        record.entry((l.system_a.as_str(), l.system_b.as_str())).or_default()[k] += 1;
        record.entry((l.system_b.as_str(), l.system_a.as_str())).or_default()[2 - k] += 1;
    }
    let cells = systems
        .iter()
        .map(|r| {
            systems
                .iter()
                .map(|c| {
                    sums.get(&(r.as_str(), c.as_str())).map(|&(s, n)| HeatCell {
                        value: s / n as f64,
                        text: match record.get(&(r.as_str(), c.as_str())) {
                            Some([w, t, l]) => format!("{:.2}\n{w}-{t}-{l}", s / n as f64),
                            None => format!("{:.2}", s / n as f64),
                        },
                        masked: false,
                    })
                })
                .collect()
        })
        .collect();
    Some(ChartBody::Heatmap {
        rows: systems.clone(),
        cols: systems,
        cells,
        scale: ColorScale::Diverging { min: 0.0, center: 0.5, max: 1.0 },
    })
}

/// Means with intervals per metric (from `summary`) and distributions per system, for the
/// metrics in `only` (every metric when `None`).
pub fn score_charts(s: &ScoreInput, summary: &SummaryReport, only: Option<&[String]>) -> Vec<NamedChart> {
    let wanted = |m: &str| only.is_none_or(|o| o.iter().any(|w| w == m));
    let mut out = summary_charts(summary);
    out.retain(|c| c.name.strip_prefix("mean-").is_some_and(wanted));
    let total_points = s.file.rows.len();
    let style = if total_points > MAX_POINTS { DistStyle::Violin } else { DistStyle::Box };
    for (c, metric) in s.file.columns.iter().enumerate().filter(|(_, m)| wanted(m)) {
        let mut by_system: Vec<(String, Vec<f64>)> = Vec::new();
        for row in &s.file.rows {
            let Some(v) = row.values[c] else { continue };
            match by_system.iter_mut().find(|(sys, _)| *sys == row.system) {
                Some((_, vals)) => vals.push(v),
                None => by_system.push((row.system.clone(), vec![v])),
            }
        }
        if by_system.is_empty() {
            continue;
        }
        let groups = by_system.into_iter().map(|(label, values)| Group { label, values }).collect();
        out.push(named(
            format!("distribution-{metric}"),
            format!("{metric}: distribution per system"),
            "system",
            metric,
            ChartBody::Distributions { groups, style },
        ));
    }
    out
}

/// Means with 95% intervals per metric, one row per system.
pub fn summary_charts(summary: &SummaryReport) -> Vec<NamedChart> {
    let mut metrics: Vec<String> = Vec::new();
    for s in &summary.systems {
        for m in &s.metrics {
            if !metrics.contains(&m.metric) {
                metrics.push(m.metric.clone());
            }
        }
    }
    let mut out = Vec::new();
    for metric in metrics {
        let rows: Vec<IntervalRow> = summary
            .systems
            .iter()
            .filter_map(|s| {
                let m = s.metrics.iter().find(|m| m.metric == metric)?;
                let mean = m.mean?;
                Some(IntervalRow {
                    label: s.system.clone(),
                    estimate: mean,
                    low: m.ci_low.unwrap_or(mean),
                    high: m.ci_high.unwrap_or(mean),
                    n: Some(m.n as usize),
                    highlight: false,
                })
            })
            .collect();
        if rows.is_empty() {
            continue;
        }
        out.push(named(
            format!("mean-{metric}"),
            format!("{metric}: mean per system with 95% interval"),
            metric.as_str(),
            "system",
            ChartBody::Intervals { rows, reference: None },
        ));
    }
    out
}

/// The candidate scorers' Spearman correlation with the human labels (the pick highlighted, the
/// annotators' own agreement as the reference line), and the prediction-powered estimates beside
/// the labels-only ones.
pub fn trust_charts(v: &ragjudge_human::validate::Validation) -> Vec<NamedChart> {
    let mut out = Vec::new();
    let rows: Vec<IntervalRow> = v
        .candidates
        .iter()
        .filter(|c| c.eligible)
        .take(15)
        .filter_map(|c| {
            let r = c.spearman?;
            let kind = match c.source {
                ragjudge_human::candidates::Source::Judge | ragjudge_human::candidates::Source::Baseline => {
                    format!(" ({})", c.source.as_str())
                }
                _ => String::new(),
            };
            Some(IntervalRow {
                label: format!("{}{}{kind}", c.name, if c.reversed { " ↓" } else { "" }),
                estimate: r,
                low: c.low.unwrap_or(r),
                high: c.high.unwrap_or(r),
                n: Some(c.n),
                highlight: v.picked.as_deref() == Some(c.name.as_str()),
            })
        })
        .collect();
    if !rows.is_empty() {
        let reference = v.ceiling.as_ref().and_then(|c| c.spearman);
        out.push(named(
            "trust-candidates",
            match reference {
                Some(_) => "Each scorer against the labels (Spearman, 95%; dashed: annotators)",
                None => "Each scorer against the human labels (Spearman, 95% interval)",
            },
            "Spearman correlation with the labels",
            "scorer",
            ChartBody::Intervals { rows, reference },
        ));
    }
    let mut rows = Vec::new();
    for e in &v.estimates {
        let (p, c) = (&e.ppi.ppi, &e.ppi.classical);
        rows.push(IntervalRow {
            label: format!("{} · PPI", e.group),
            estimate: p.estimate,
            low: p.low,
            high: p.high,
            n: Some(e.ppi.n + e.ppi.unlabelled),
            highlight: true,
        });
        rows.push(IntervalRow {
            label: format!("{} · labels only", e.group),
            estimate: c.estimate,
            low: c.low,
            high: c.high,
            n: Some(e.ppi.n),
            highlight: false,
        });
    }
    if !rows.is_empty() {
        let (what, reference) = match v.view {
            ragjudge_human::task::View::Pairwise => ("win rate of the second system", Some(0.5)),
            _ => ("mean grade", None),
        };
        out.push(named(
            "trust-estimates",
            format!("{what}: PPI (labels + pick) and labels alone"),
            what,
            "",
            ChartBody::Intervals { rows, reference },
        ));
    }
    out
}

/// The reliability diagram and the conformal set sizes.
pub fn calibration_charts(c: &CalibrationReport) -> Vec<NamedChart> {
    let mut out = Vec::new();
    if !c.reliability.is_empty() {
        let bins = c
            .reliability
            .iter()
            .map(|b| ReliabilityBin { predicted: b.confidence, observed: b.accuracy, count: b.count })
            .collect();
        out.push(named(
            "reliability",
            format!("Reliability of the calibrated {} ({} split)", c.label_column, c.quality_on),
            "mean predicted probability",
            "observed frequency",
            ChartBody::Reliability { bins },
        ));
    }
    for set in &c.sets {
        let score = set.score.name();
        let Some(test) = &set.test else { continue };
        let bars: Vec<Bar> = test
            .size_counts
            .iter()
            .enumerate()
            .map(|(k, &n)| Bar { label: format!("{k} label{}", if k == 1 { "" } else { "s" }), value: n as f64 })
            .collect();
        if bars.iter().any(|b| b.value > 0.0) {
            out.push(named(
                format!("set-sizes-{}", score.to_ascii_lowercase()),
                format!("Conformal {score} prediction-set sizes on the test split (alpha {})", c.alpha),
                "set size",
                "test rows",
                ChartBody::Bars { bars },
            ));
        }
    }
    out
}

/// Per metric: the slices of every system with intervals, and a heatmap of the first pair of
/// dimensions per system (cells below the minimum n hatched, not hidden).
pub fn weakness_charts(w: &[WeaknessInput]) -> Vec<NamedChart> {
    let mut out = Vec::new();
    for m in w {
        let r = &m.report;
        let rows: Vec<IntervalRow> = r
            .marginal
            .iter()
            .map(|s| IntervalRow {
                label: format!("{} · {}={}", s.system, s.dimension, s.stratum),
                estimate: s.mean,
                low: s.ci_low,
                high: s.ci_high,
                n: Some(s.n),
                highlight: s.significant && s.difference.is_some_and(|d| d < 0.0),
            })
            .collect();
        if !rows.is_empty() {
            out.push(named(
                format!("slices-{}", m.metric),
                format!("{}: mean per stratum (highlighted: significantly below the rest)", m.metric),
                m.metric.as_str(),
                "system · stratum",
                ChartBody::Intervals { rows, reference: None },
            ));
        }
        let Some(first) = r.bivariate.first() else { continue };
        let dims = first.dimensions.clone();
        let cells: Vec<_> = r.bivariate.iter().filter(|c| c.dimensions == dims).collect();
        let (lo, hi) =
            cells.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), c| (lo.min(c.mean), hi.max(c.mean)));
        let (lo, hi) = if hi > lo { (lo, hi) } else { (lo - 0.5, hi + 0.5) };
        let mut systems: Vec<&str> = Vec::new();
        for c in &cells {
            if !systems.contains(&c.system.as_str()) {
                systems.push(&c.system);
            }
        }
        for system in systems {
            let mine: Vec<_> = cells.iter().filter(|c| c.system == system).collect();
            let mut rows: Vec<String> = Vec::new();
            let mut cols: Vec<String> = Vec::new();
            for c in &mine {
                if !rows.contains(&c.strata[0]) {
                    rows.push(c.strata[0].clone());
                }
                if !cols.contains(&c.strata[1]) {
                    cols.push(c.strata[1].clone());
                }
            }
            rows.sort();
            cols.sort();
            let grid = rows
                .iter()
                .map(|a| {
                    cols.iter()
                        .map(|b| {
                            mine.iter().find(|c| &c.strata[0] == a && &c.strata[1] == b).map(|c| HeatCell {
                                value: c.mean,
                                text: format!("{:.2}{}\nn={}", c.mean, if c.significant { "*" } else { "" }, c.n),
                                masked: c.small,
                            })
                        })
                        .collect()
                })
                .collect();
            out.push(named(
                format!("weakness-{}-{}", m.metric, system),
                format!("{} of {} by {} x {}", m.metric, system, dims[0], dims[1]),
                &format!("{}   (* significant; hatched: n too small to test)", dims[1]),
                dims[0].as_str(),
                ChartBody::Heatmap { rows, cols, cells: grid, scale: ColorScale::Sequential { min: lo, max: hi } },
            ));
        }
    }
    out
}

/// Paired deltas with intervals per metric, one row per system, perturbation and severity
/// (highlighted: the whole interval below zero).
pub fn robustness_charts(r: &RobustnessReport) -> Vec<NamedChart> {
    let mut by_metric: Vec<(String, Vec<IntervalRow>)> = Vec::new();
    for d in &r.deltas {
        let (Some(est), Some(low), Some(high)) = (d.delta, d.ci_low, d.ci_high) else { continue };
        let row = IntervalRow {
            label: format!("{} · {} {}", d.system, d.perturbation, d.severity),
            estimate: est,
            low,
            high,
            n: Some(d.n),
            highlight: high < 0.0,
        };
        match by_metric.iter_mut().find(|(m, _)| *m == d.metric) {
            Some((_, rows)) => rows.push(row),
            None => by_metric.push((d.metric.clone(), vec![row])),
        }
    }
    by_metric
        .into_iter()
        .map(|(metric, rows)| {
            named(
                format!("robustness-{metric}"),
                format!("{metric}: change under perturbation (variant − original), 95% paired interval"),
                "delta (variant − original)",
                "system · perturbation severity",
                ChartBody::Intervals { rows, reference: Some(0.0) },
            )
        })
        .collect()
}

/// Violins of a metric per system and stratum of one dimension (`rows`: system, stratum, value).
pub fn stratum_distributions<'a>(
    metric: &str,
    dimension: &str,
    rows: impl IntoIterator<Item = (&'a str, &'a str, f64)>,
) -> Option<NamedChart> {
    let mut groups: BTreeMap<(String, String), Vec<f64>> = BTreeMap::new();
    for (system, stratum, v) in rows {
        groups.entry((system.to_string(), stratum.to_string())).or_default().push(v);
    }
    if groups.is_empty() {
        return None;
    }
    let total: usize = groups.values().map(Vec::len).sum();
    let style = if total > MAX_POINTS { DistStyle::Violin } else { DistStyle::Box };
    let groups = groups
        .into_iter()
        .map(|((system, stratum), values)| Group { label: format!("{system} · {stratum}"), values })
        .collect();
    Some(named(
        format!("strata-{metric}-{dimension}"),
        format!("{metric} by {dimension}, per system"),
        &format!("system · {dimension}"),
        metric,
        ChartBody::Distributions { groups, style },
    ))
}

/// Writes every chart as `DIR/NAME.svg` and `DIR/NAME.png`; returns the files written.
pub fn write_all(
    charts: &[NamedChart],
    dir: &std::path::Path,
) -> Result<Vec<std::path::PathBuf>, ragjudge_charts::ChartError> {
    std::fs::create_dir_all(dir)
        .map_err(|source| ragjudge_charts::ChartError::Io { path: dir.to_path_buf(), source })?;
    let mut out = Vec::new();
    for c in charts {
        let size = c.chart.suggested_size();
        for ext in ["svg", "png"] {
            let path = dir.join(format!("{}.{ext}", file_name(&c.name)));
            ragjudge_charts::write_chart(&c.chart, &path, size)?;
            out.push(path);
        }
    }
    Ok(out)
}

/// A chart name as a file name: characters other than letters, digits, `-`, `_` and `.` become `_`.
fn file_name(name: &str) -> String {
    name.chars().map(|c| if c.is_alphanumeric() || "-_.".contains(c) { c } else { '_' }).collect()
}
