//! Fixed sample charts, one per chart type, shared by the tests and `examples/render_all.rs`.

#![allow(dead_code)]

use ragjudge_charts::{
    Bar, Chart, ChartBody, ColorScale, DistStyle, Group, HeatCell, IntervalRow, ReliabilityBin, ScatterPoint, Series,
};

fn chart(title: &str, x: &str, y: &str, body: ChartBody) -> Chart {
    Chart { title: title.into(), x_label: x.into(), y_label: y.into(), body }
}

/// Interval plot of score deltas with a reference line at 0.
pub fn intervals() -> Chart {
    let rows = [
        ("faithfulness", 0.12, 0.05, 0.19, Some(412), false),
        ("answer relevance", -0.03, -0.09, 0.02, Some(412), false),
        ("context precision (a rather long metric name that must be cut)", 0.21, 0.15, 0.30, Some(398), true),
        ("context recall", 0.04, -0.02, 0.11, None, false),
        ("rouge-L", -0.15, -0.24, -0.07, Some(1024), false),
    ];
    chart(
        "Delta vs baseline (95% CI)",
        "score difference",
        "metric",
        ChartBody::Intervals {
            rows: rows
                .iter()
                .map(|&(label, estimate, low, high, n, highlight)| IntervalRow {
                    label: label.into(),
                    estimate,
                    low,
                    high,
                    n,
                    highlight,
                })
                .collect(),
            reference: Some(0.0),
        },
    )
}

/// Sequential heatmap with one empty and one masked cell.
pub fn heatmap() -> Chart {
    let rows: Vec<String> = ["short", "medium length", "long questions"].iter().map(|s| s.to_string()).collect();
    let cols: Vec<String> = ["system-a", "system-b", "system-c", "system-d"].iter().map(|s| s.to_string()).collect();
    let values = [
        [Some(0.10), Some(0.35), Some(0.62), Some(0.90)],
        [Some(0.25), None, Some(0.48), Some(0.71)],
        [Some(0.05), Some(0.55), Some(0.80), Some(0.99)],
    ];
    let cells = values
        .iter()
        .enumerate()
        .map(|(i, row)| {
            row.iter()
                .enumerate()
                .map(|(j, v)| v.map(|value| HeatCell { value, text: format!("{value:.2}"), masked: i == 2 && j == 0 }))
                .collect()
        })
        .collect();
    chart(
        "Mean faithfulness by question length",
        "system",
        "question length",
        ChartBody::Heatmap { rows, cols, cells, scale: ColorScale::Sequential { min: 0.0, max: 1.0 } },
    )
}

/// Diverging heatmap (deltas around 0).
pub fn heatmap_diverging() -> Chart {
    let rows: Vec<String> = ["en", "zh", "de"].iter().map(|s| s.to_string()).collect();
    let cols: Vec<String> = ["typos", "casing", "punctuation"].iter().map(|s| s.to_string()).collect();
    let values = [[-0.20, -0.05, 0.0], [-0.10, 0.05, 0.10], [0.20, -0.15, 0.15]];
    let cells = values
        .iter()
        .map(|row| {
            row.iter().map(|&value| Some(HeatCell { value, text: format!("{value:+.2}"), masked: false })).collect()
        })
        .collect();
    chart(
        "Robustness: score change by perturbation",
        "perturbation",
        "language",
        ChartBody::Heatmap { rows, cols, cells, scale: ColorScale::Diverging { min: -0.2, center: 0.0, max: 0.2 } },
    )
}

fn groups() -> Vec<Group> {
    vec![
        Group {
            label: "retriever-bm25".into(),
            values: vec![0.42, 0.55, 0.61, 0.47, 0.50, 0.58, 0.39, 0.66, 0.52, 0.49, 0.95, 0.12],
        },
        Group {
            label: "retriever-dense".into(),
            values: vec![0.62, 0.70, 0.68, 0.75, 0.59, 0.81, 0.73, 0.66, 0.71, 0.77],
        },
        Group { label: "hybrid".into(), values: vec![0.70, 0.72, 0.85, 0.78, 0.88, 0.69, 0.74, 0.91] },
        Group { label: "constant".into(), values: vec![0.5, 0.5, 0.5] },
    ]
}

/// Box plot with jittered points.
pub fn boxes() -> Chart {
    chart(
        "Answer correctness by retriever",
        "retriever",
        "correctness",
        ChartBody::Distributions { groups: groups(), style: DistStyle::Box },
    )
}

/// Violin plot, including a group whose values are all equal.
pub fn violins() -> Chart {
    chart(
        "Answer correctness by retriever",
        "retriever",
        "correctness",
        ChartBody::Distributions { groups: groups(), style: DistStyle::Violin },
    )
}

/// Elo by round for three systems.
pub fn lines() -> Chart {
    let series = [
        ("system-a", [1500.0, 1516.0, 1530.0, 1528.0, 1545.0, 1551.0]),
        ("system-b", [1500.0, 1490.0, 1482.0, 1488.0, 1479.0, 1470.0]),
        ("system-c (long name for the legend)", [1500.0, 1494.0, 1488.0, 1484.0, 1476.0, 1479.0]),
    ];
    chart(
        "Elo by round",
        "round",
        "Elo",
        ChartBody::Lines {
            series: series
                .iter()
                .map(|(name, ys)| Series {
                    name: name.to_string(),
                    points: ys.iter().enumerate().map(|(i, y)| (i as f64, *y)).collect(),
                })
                .collect(),
        },
    )
}

/// Topic map with a few sampled chunks marked.
pub fn scatter() -> Chart {
    let mut points = Vec::new();
    let centres = [("billing", -2.0, 1.0), ("shipping", 1.5, 2.0), ("returns", 0.5, -1.5)];
    for (g, (name, cx, cy)) in centres.iter().enumerate() {
        for k in 0..12 {
            let a = k as f64 * 0.52 + g as f64;
            let r = 0.3 + 0.07 * k as f64;
            points.push(ScatterPoint {
                x: cx + r * a.cos(),
                y: cy + r * a.sin(),
                group: name.to_string(),
                marked: k % 5 == 0,
            });
        }
    }
    chart("Topic map of the corpus", "component 1", "component 2", ChartBody::Scatter { points })
}

/// Reliability diagram of an over-confident judge.
pub fn reliability() -> Chart {
    let bins =
        [(0.05, 0.10, 40), (0.15, 0.20, 25), (0.35, 0.30, 18), (0.55, 0.45, 22), (0.75, 0.60, 35), (0.95, 0.80, 120)];
    chart(
        "Judge calibration",
        "mean predicted probability",
        "observed frequency",
        ChartBody::Reliability {
            bins: bins
                .iter()
                .map(|&(predicted, observed, count)| ReliabilityBin { predicted, observed, count })
                .collect(),
        },
    )
}

/// Conformal set sizes.
pub fn bars() -> Chart {
    let bars = [("0", 3.0), ("1", 412.0), ("2", 138.0), ("3", 41.0), ("4 or more (rare)", 7.0)];
    chart(
        "Conformal prediction set sizes",
        "set size",
        "questions",
        ChartBody::Bars {
            bars: bars.iter().map(|(label, value)| Bar { label: label.to_string(), value: *value }).collect(),
        },
    )
}

/// Bars with negative values.
pub fn bars_negative() -> Chart {
    let bars = [("a", -0.25), ("b", 0.1), ("c", 0.4), ("d", -0.05)];
    chart(
        "Margins",
        "pair",
        "margin",
        ChartBody::Bars {
            bars: bars.iter().map(|(label, value)| Bar { label: label.to_string(), value: *value }).collect(),
        },
    )
}

/// Every sample chart with a file stem.
pub fn all() -> Vec<(&'static str, Chart)> {
    vec![
        ("intervals", intervals()),
        ("heatmap", heatmap()),
        ("heatmap_diverging", heatmap_diverging()),
        ("box", boxes()),
        ("violin", violins()),
        ("lines", lines()),
        ("scatter", scatter()),
        ("reliability", reliability()),
        ("bars", bars()),
        ("bars_negative", bars_negative()),
    ]
}

/// Larger charts for looking at by eye (not snapshotted): 64 interval rows, a wide heatmap with
/// long column labels, ten line series (the palette cycles).
pub fn stress() -> Vec<(&'static str, Chart)> {
    let rows = (0..64)
        .map(|i| {
            let e = ((i * 37) % 64) as f64 / 64.0 - 0.5;
            IntervalRow {
                label: format!("stratum {i}: topic = long topic name number {i}"),
                estimate: e,
                low: e - 0.1 - (i % 5) as f64 * 0.02,
                high: e + 0.1 + (i % 3) as f64 * 0.02,
                n: Some(20 + i * 7),
                highlight: i % 17 == 3,
            }
        })
        .collect();
    let intervals64 = chart(
        "Weakness slices (64 strata)",
        "difference to the rest",
        "stratum",
        ChartBody::Intervals { rows, reference: Some(0.0) },
    );
    let nr = 12;
    let nc = 14;
    let cells = (0..nr)
        .map(|i| {
            (0..nc)
                .map(|j| {
                    let v = ((i * 7 + j * 3) % 20) as f64 / 19.0;
                    (j != 5 || i != 2).then(|| HeatCell { value: v, text: format!("{v:.2}"), masked: (i + j) % 9 == 0 })
                })
                .collect()
        })
        .collect();
    let heat = chart(
        "Wide heatmap",
        "system",
        "slice",
        ChartBody::Heatmap {
            rows: (0..nr).map(|i| format!("slice {i}")).collect(),
            cols: (0..nc).map(|j| format!("system-with-a-long-name-{j}")).collect(),
            cells,
            scale: ColorScale::Sequential { min: 0.0, max: 1.0 },
        },
    );
    let series = (0..10)
        .map(|s| Series {
            name: format!("system {s}"),
            points: (0..30)
                .map(|r| (r as f64, 1500.0 + ((r * (s + 1)) as f64 * 0.7).sin() * 20.0 * s as f64))
                .collect(),
        })
        .collect();
    let lines10 = chart("Elo by round, ten systems", "round", "Elo", ChartBody::Lines { series });
    vec![
        ("stress_intervals64", intervals64),
        ("stress_heatmap_wide", heat),
        ("stress_lines10", lines10),
        ("zh_intervals", zh()),
    ]
}

/// Chinese labels and title, one label mixed with Latin letters and digits.
pub fn zh() -> Chart {
    let rows =
        [("参考答案", 0.71, 0.62, 0.79), ("检索增强生成 (BM25 + e5)", 0.55, 0.46, 0.64), ("仅模型", 0.18, 0.11, 0.26)];
    chart(
        "各层级的胜率（95% 置信区间）",
        "胜率",
        "系统",
        ChartBody::Intervals {
            rows: rows
                .iter()
                .map(|&(label, estimate, low, high)| IntervalRow {
                    label: label.into(),
                    estimate,
                    low,
                    high,
                    n: Some(70),
                    highlight: false,
                })
                .collect(),
            reference: Some(0.5),
        },
    )
}
