//! Checks that the SVG pictures encode the data: positions are read back through the axis tick
//! labels the SVG itself shows (text and position), independently of the renderer's mapping.

mod common;

use ragjudge_charts::{render_svg, Chart, ChartBody, ColorScale, Size};
use roxmltree::{Document, Node};

fn svg(chart: &Chart) -> String {
    let s = render_svg(chart, chart.suggested_size()).unwrap();
    assert!(!s.contains("NaN"), "NaN in SVG");
    s
}

fn attr_f(n: &Node, name: &str) -> f64 {
    n.attribute(name).unwrap_or_else(|| panic!("no {name} on {n:?}")).parse().unwrap()
}

fn text_of(n: &Node) -> String {
    n.text().unwrap_or("").trim().to_string()
}

/// A linear pixel -> value map fitted (least squares) to tick labels `(pixel, value)`.
#[derive(Debug)]
struct Axis {
    a: f64,
    b: f64,
}

impl Axis {
    fn fit(ticks: &[(f64, f64)]) -> Axis {
        assert!(ticks.len() >= 2, "need two tick labels, got {ticks:?}");
        let n = ticks.len() as f64;
        let mx = ticks.iter().map(|t| t.0).sum::<f64>() / n;
        let my = ticks.iter().map(|t| t.1).sum::<f64>() / n;
        let sxy: f64 = ticks.iter().map(|t| (t.0 - mx) * (t.1 - my)).sum();
        let sxx: f64 = ticks.iter().map(|t| (t.0 - mx) * (t.0 - mx)).sum();
        let b = sxy / sxx;
        let axis = Axis { a: my - b * mx, b };
        // The tick labels themselves lie on the line (to within a pixel).
        for t in ticks {
            assert!((axis.value(t.0) - t.1).abs() <= axis.b.abs() * 1.01, "{t:?} off {axis:?}");
        }
        axis
    }
    fn value(&self, px: f64) -> f64 {
        self.a + self.b * px
    }
    /// Value tolerance for `px` pixels.
    fn tol(&self, px: f64) -> f64 {
        self.b.abs() * px
    }
}

/// `(pixel, value)` pairs of tick labels.
type Ticks = Vec<(f64, f64)>;

/// Numeric x tick labels (centred, hanging under the axis) and y tick labels (right-aligned).
fn tick_axes(doc: &Document) -> (Ticks, Ticks) {
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for t in doc.descendants().filter(|n| n.has_tag_name("text")) {
        if t.attribute("transform").is_some() {
            continue;
        }
        let Ok(v) = text_of(&t).parse::<f64>() else {
            continue;
        };
        match (t.attribute("text-anchor"), t.attribute("dy")) {
            (Some("middle"), Some("0.76em")) => xs.push((attr_f(&t, "x"), v)),
            (Some("end"), Some("0.5ex")) => ys.push((attr_f(&t, "y"), v)),
            _ => {}
        }
    }
    (xs, ys)
}

fn points(n: &Node) -> Vec<(f64, f64)> {
    n.attribute("points")
        .unwrap()
        .split_whitespace()
        .map(|p| {
            let (x, y) = p.split_once(',').unwrap();
            (x.parse().unwrap(), y.parse().unwrap())
        })
        .collect()
}

#[test]
fn intervals_map_back_to_low_high_estimate() {
    let chart = common::intervals();
    let ChartBody::Intervals { rows, .. } = &chart.body else { unreachable!() };
    let s = svg(&chart);
    let doc = Document::parse(&s).unwrap();
    let (xt, _) = tick_axes(&doc);
    let x = Axis::fit(&xt);
    let is_mark = |n: &Node| {
        matches!(n.attribute("stroke"), Some("#0072B2") | Some("#D55E00"))
            || matches!(n.attribute("fill"), Some("#0072B2") | Some("#D55E00"))
    };
    // Interval lines: horizontal two-point polylines in the mark colours, top to bottom.
    let mut lines: Vec<Vec<(f64, f64)>> = doc
        .descendants()
        .filter(|n| n.has_tag_name("polyline") && is_mark(n))
        .map(|n| points(&n))
        .filter(|p| p.len() == 2 && p[0].1 == p[1].1)
        .collect();
    lines.sort_by(|a, b| a[0].1.total_cmp(&b[0].1));
    let mut dots: Vec<(f64, f64)> = doc
        .descendants()
        .filter(|n| n.has_tag_name("circle") && is_mark(n))
        .map(|n| (attr_f(&n, "cx"), attr_f(&n, "cy")))
        .collect();
    dots.sort_by(|a, b| a.1.total_cmp(&b.1));
    assert_eq!(lines.len(), rows.len());
    assert_eq!(dots.len(), rows.len());
    for ((row, line), dot) in rows.iter().zip(&lines).zip(&dots) {
        let (lo, hi) = (line[0].0.min(line[1].0), line[0].0.max(line[1].0));
        assert!((x.value(lo) - row.low).abs() <= x.tol(1.5), "{}: low {} vs {}", row.label, x.value(lo), row.low);
        assert!((x.value(hi) - row.high).abs() <= x.tol(1.5), "{}: high {} vs {}", row.label, x.value(hi), row.high);
        assert!((x.value(dot.0) - row.estimate).abs() <= x.tol(1.5), "{}: estimate", row.label);
        assert!((dot.1 - line[0].1).abs() <= 1.0, "dot on its row");
    }
    // The highlighted row is drawn in vermillion, the others in blue.
    let highlighted = rows.iter().position(|r| r.highlight).unwrap();
    let colours: Vec<&str> = {
        let mut c: Vec<(f64, &str)> = doc
            .descendants()
            .filter(|n| n.has_tag_name("circle") && is_mark(n))
            .map(|n| (attr_f(&n, "cy"), n.attribute("fill").unwrap()))
            .collect();
        c.sort_by(|a, b| a.0.total_cmp(&b.0));
        c.into_iter().map(|(_, f)| f).collect()
    };
    assert_eq!(colours[highlighted], "#D55E00");
    assert_eq!(colours.iter().filter(|c| **c == "#D55E00").count(), 1);
    // n= shown for rows that have it; long labels cut with an ellipsis.
    let texts: Vec<String> = doc.descendants().filter(|n| n.has_tag_name("text")).map(|n| text_of(&n)).collect();
    for row in rows {
        if let Some(k) = row.n {
            assert!(texts.contains(&format!("n={k}")));
        }
    }
    assert!(texts.iter().any(|t| t.starts_with("context precision") && t.ends_with('…')));
}

#[test]
fn bars_tops_map_back_to_values() {
    for chart in [common::bars(), common::bars_negative()] {
        let ChartBody::Bars { bars } = &chart.body else { unreachable!() };
        let s = svg(&chart);
        let doc = Document::parse(&s).unwrap();
        let (_, yt) = tick_axes(&doc);
        let y = Axis::fit(&yt);
        let mut rects: Vec<(f64, f64, f64)> = doc
            .descendants()
            .filter(|n| n.has_tag_name("rect") && n.attribute("fill") == Some("#0072B2"))
            .map(|n| (attr_f(&n, "x"), attr_f(&n, "y"), attr_f(&n, "height")))
            .collect();
        rects.sort_by(|a, b| a.0.total_cmp(&b.0));
        assert_eq!(rects.len(), bars.len());
        for (bar, (_, top, h)) in bars.iter().zip(&rects) {
            // One end of the bar is at 0, the other at the value.
            let (v_top, v_bottom) = (y.value(*top), y.value(top + h));
            let (zero, end) = if bar.value >= 0.0 { (v_bottom, v_top) } else { (v_top, v_bottom) };
            assert!(zero.abs() <= y.tol(1.5), "{}: base {zero}", bar.label);
            assert!((end - bar.value).abs() <= y.tol(1.5), "{}: {end} vs {}", bar.label, bar.value);
        }
    }
}

fn hex(s: &str) -> (u8, u8, u8) {
    let s = s.trim_start_matches('#');
    let p = |i| u8::from_str_radix(&s[i..i + 2], 16).unwrap();
    (p(0), p(2), p(4))
}

/// WCAG relative luminance, written out here independently of the library's.
fn luminance(c: (u8, u8, u8)) -> f64 {
    let lin = |v: u8| {
        let v = v as f64 / 255.0;
        if v <= 0.03928 {
            v / 12.92
        } else {
            ((v + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * lin(c.0) + 0.7152 * lin(c.1) + 0.0722 * lin(c.2)
}

/// Heatmap cells in row-major order (fill, x, y): the filled rects left of the colour bar.
fn heat_cells<'a>(doc: &'a Document) -> Vec<(String, f64, f64)> {
    let rects: Vec<Node<'a, 'a>> = doc
        .descendants()
        .filter(|n| n.has_tag_name("rect") && n.attribute("fill") != Some("none"))
        .filter(|n| !(attr_f(n, "x") == 0.0 && attr_f(n, "y") == 0.0))
        .collect();
    // The colour bar is the rightmost column of strips.
    let bar_x = rects.iter().map(|n| attr_f(n, "x")).fold(f64::MIN, f64::max);
    let mut cells: Vec<(String, f64, f64)> = rects
        .iter()
        .filter(|n| attr_f(n, "x") < bar_x)
        .map(|n| (n.attribute("fill").unwrap().to_string(), attr_f(n, "x"), attr_f(n, "y")))
        .collect();
    cells.sort_by(|a, b| a.2.total_cmp(&b.2).then(a.1.total_cmp(&b.1)));
    cells
}

#[test]
fn heatmap_cells_and_colours() {
    let chart = common::heatmap();
    let ChartBody::Heatmap { rows, cols, cells, .. } = &chart.body else { unreachable!() };
    let s = svg(&chart);
    let doc = Document::parse(&s).unwrap();
    let drawn = heat_cells(&doc);
    assert_eq!(drawn.len(), rows.len() * cols.len());
    // Viridis luminance rises with the value: order the plain cells by value, check luminance.
    let mut plain: Vec<(f64, f64)> = Vec::new();
    for (k, cell) in cells.iter().flatten().enumerate() {
        match cell {
            None => assert_eq!(drawn[k].0, "#E6E6E6", "empty cell is light grey"),
            Some(c) if !c.masked => plain.push((c.value, luminance(hex(&drawn[k].0)))),
            Some(_) => {
                let (r, g, b) = hex(&drawn[k].0);
                let spread = r.max(g).max(b) - r.min(g).min(b);
                assert!(spread < 60, "masked cell is greyed: {}", drawn[k].0);
            }
        }
    }
    plain.sort_by(|a, b| a.0.total_cmp(&b.0));
    for w in plain.windows(2) {
        assert!(w[0].1 < w[1].1, "luminance not rising with value: {plain:?}");
    }
    let texts: Vec<(String, Option<&str>)> =
        doc.descendants().filter(|n| n.has_tag_name("text")).map(|n| (text_of(&n), n.attribute("fill"))).collect();
    assert!(texts.iter().any(|t| t.0 == "–"), "empty cell labelled with a dash");
    // Dark cell: white text; bright cell: black text.
    assert_eq!(texts.iter().find(|t| t.0 == "0.10").unwrap().1, Some("#FFFFFF"));
    assert_eq!(texts.iter().find(|t| t.0 == "0.99").unwrap().1, Some("#000000"));
    // The masked cell keeps its text.
    assert!(texts.iter().any(|t| t.0 == "0.05"));
    // Colour bar ends.
    assert!(texts.iter().any(|t| t.0 == "0") && texts.iter().any(|t| t.0 == "1"));
}

#[test]
fn diverging_heatmap_colours() {
    let chart = common::heatmap_diverging();
    let ChartBody::Heatmap { cells, scale, .. } = &chart.body else { unreachable!() };
    let ColorScale::Diverging { min, center, max } = *scale else { unreachable!() };
    let s = svg(&chart);
    let doc = Document::parse(&s).unwrap();
    let drawn = heat_cells(&doc);
    assert_eq!(drawn.len(), 9);
    for (k, cell) in cells.iter().flatten().enumerate() {
        let v = cell.as_ref().unwrap().value;
        let (r, _, b) = hex(&drawn[k].0);
        // ColorBrewer RdBu (11 classes) ends and centre, reversed: blue low, red high.
        if v == min {
            assert_eq!(drawn[k].0, "#053061");
        } else if v == max {
            assert_eq!(drawn[k].0, "#67001F");
        } else if v == center {
            assert_eq!(drawn[k].0, "#F7F7F7");
        } else if v < center {
            assert!(b > r, "below centre is blue: {v} {}", drawn[k].0);
        } else {
            assert!(r > b, "above centre is red: {v} {}", drawn[k].0);
        }
    }
}

#[test]
fn reliability_points_map_back() {
    let chart = common::reliability();
    let ChartBody::Reliability { bins } = &chart.body else { unreachable!() };
    let s = svg(&chart);
    let doc = Document::parse(&s).unwrap();
    let (xt, yt) = tick_axes(&doc);
    let (x, y) = (Axis::fit(&xt), Axis::fit(&yt));
    // Axes run 0..1.
    assert!(xt.iter().any(|t| t.1 == 0.0) && xt.iter().any(|t| t.1 == 1.0));
    let mut dots: Vec<(f64, f64, f64)> = doc
        .descendants()
        .filter(|n| n.has_tag_name("circle") && n.attribute("fill") == Some("#0072B2"))
        .map(|n| (attr_f(&n, "cx"), attr_f(&n, "cy"), attr_f(&n, "r")))
        .collect();
    dots.sort_by(|a, b| a.0.total_cmp(&b.0));
    assert_eq!(dots.len(), bins.len());
    for (bin, d) in bins.iter().zip(&dots) {
        assert!((x.value(d.0) - bin.predicted).abs() <= x.tol(1.5));
        assert!((y.value(d.1) - bin.observed).abs() <= y.tol(1.5));
    }
    // Point size grows with the count.
    let biggest = bins.iter().enumerate().max_by_key(|b| b.1.count).unwrap().0;
    assert!(dots.iter().all(|d| d.2 <= dots[biggest].2));
    // The diagonal is dashed: many short segments in grey.
    let dashes =
        doc.descendants().filter(|n| n.has_tag_name("polyline") && n.attribute("stroke") == Some("#555555")).count();
    assert!(dashes > 10, "{dashes}");
}

#[test]
fn distributions_show_counts() {
    for chart in [common::boxes(), common::violins()] {
        let ChartBody::Distributions { groups, .. } = &chart.body else { unreachable!() };
        let s = svg(&chart);
        let doc = Document::parse(&s).unwrap();
        let texts: Vec<String> = doc.descendants().filter(|n| n.has_tag_name("text")).map(|n| text_of(&n)).collect();
        for g in groups {
            assert!(texts.contains(&format!("n={}", g.values.len())), "n= for {}", g.label);
        }
    }
    // Box plot: every point drawn (jittered), at its value.
    let chart = common::boxes();
    let ChartBody::Distributions { groups, .. } = &chart.body else { unreachable!() };
    let s = svg(&chart);
    let doc = Document::parse(&s).unwrap();
    let (_, yt) = tick_axes(&doc);
    let y = Axis::fit(&yt);
    let mut got: Vec<f64> = doc
        .descendants()
        .filter(|n| n.has_tag_name("circle") && n.attribute("fill") == Some("#000000"))
        .map(|n| y.value(attr_f(&n, "cy")))
        .collect();
    let mut want: Vec<f64> = groups.iter().flat_map(|g| g.values.clone()).collect();
    got.sort_by(f64::total_cmp);
    want.sort_by(f64::total_cmp);
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        assert!((g - w).abs() <= y.tol(1.5), "{g} vs {w}");
    }
}

#[test]
fn same_chart_same_bytes() {
    for (_, chart) in common::all() {
        let size = Size::default();
        assert_eq!(render_svg(&chart, size).unwrap(), render_svg(&chart, size).unwrap());
    }
}

#[test]
fn sixty_four_rows_get_room() {
    let mut chart = common::intervals();
    let ChartBody::Intervals { rows, .. } = &mut chart.body else { unreachable!() };
    let row = rows[0].clone();
    *rows = (0..64).map(|i| ragjudge_charts::IntervalRow { label: format!("stratum {i}"), ..row.clone() }).collect();
    let size = chart.suggested_size();
    assert!(size.height >= 64 * 18, "{size:?}");
    let s = render_svg(&chart, size).unwrap();
    let doc = Document::parse(&s).unwrap();
    let labels: Vec<f64> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text") && text_of(n).starts_with("stratum"))
        .map(|n| attr_f(&n, "y"))
        .collect();
    assert_eq!(labels.len(), 64);
    for w in labels.windows(2) {
        assert!(w[1] - w[0] >= 16.0, "rows too close: {}", w[1] - w[0]);
    }
}

#[test]
fn heatmap_cell_text_lines_are_drawn_one_under_the_other() {
    use ragjudge_charts::HeatCell;
    let cell = |v: f64| Some(HeatCell { value: v, text: format!("{v:.2}\nn=3"), masked: false });
    let chart = Chart {
        title: "two lines".into(),
        x_label: "b".into(),
        y_label: "a".into(),
        body: ChartBody::Heatmap {
            rows: vec!["r1".into(), "r2".into()],
            cols: vec!["c1".into(), "c2".into()],
            cells: vec![vec![cell(0.1), cell(0.2)], vec![cell(0.3), cell(0.4)]],
            scale: ColorScale::Sequential { min: 0.0, max: 1.0 },
        },
    };
    let s = svg(&chart);
    let doc = Document::parse(&s).unwrap();
    let texts: Vec<Node> = doc.descendants().filter(|n| n.has_tag_name("text")).collect();
    assert!(texts.iter().all(|t| !text_of(t).contains('\n')));
    let value = texts.iter().find(|t| text_of(t) == "0.10").expect("the value line");
    let count = texts.iter().filter(|t| text_of(t) == "n=3").collect::<Vec<_>>();
    assert_eq!(count.len(), 4, "one count line per cell");
    // The count line of the first cell: same x, below the value line.
    let below = count.iter().find(|t| (attr_f(t, "x") - attr_f(value, "x")).abs() < 0.5).unwrap();
    assert!(attr_f(below, "y") > attr_f(value, "y"));
}
