//! The drawing code, generic over the plotters backend so SVG and PNG come from one routine.
//!
//! Layout is computed in pixels; data coordinates go through plotters' own Cartesian mapping
//! (`ChartContext::backend_coord`), so marks line up with the tick labels plotters draws.

use std::ops::Range;
use std::sync::Once;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{register_font, FontDesc, FontFamily, FontStyle, FontTransform};

use crate::colors::{okabe_ito, Rgb};
use crate::kde::{quantile, Kde};
use crate::{
    Bar, Chart, ChartBody, ChartError, ColorScale, DistStyle, Group, HeatCell, IntervalRow, ReliabilityBin,
    ScatterPoint, Series, Size,
};

/// DejaVu Sans (Bitstream Vera licence, see `fonts/LICENSE-DejaVu.txt`), embedded so text renders
/// without system fonts.
static FONT: &[u8] = include_bytes!("../fonts/DejaVuSans.ttf");
/// WenQuanYi Micro Hei (Apache-2.0, see `fonts/LICENSE-WenQuanYi.txt`) cut down to GB 2312's 6,763
/// hanzi, kana, CJK and full-width punctuation and Latin-1 (`fonts/subset-cjk.sh`): text that holds
/// any of those characters is drawn with it, all other text with DejaVu Sans, so English charts are
/// unchanged.
static CJK_FONT: &[u8] = include_bytes!("../fonts/WenQuanYiMicroHei-GB2312.ttf");
/// The CJK font's family: the key it is registered under, and the `font-family` SVG text gets, so
/// that a browser uses the same face where it is installed and a CJK face of its own elsewhere.
const CJK_FAMILY: &str = "'WenQuanYi Micro Hei', 'Noto Sans CJK SC', 'Microsoft YaHei', 'PingFang SC', sans-serif";

const BLACK_: Rgb = Rgb(0, 0, 0);
const WHITE_: Rgb = Rgb(255, 255, 255);
const TEXT: Rgb = Rgb(0x22, 0x22, 0x22);
const MUTED: Rgb = Rgb(0x55, 0x55, 0x55);
const AXIS: Rgb = Rgb(0x44, 0x44, 0x44);
const GRID: Rgb = Rgb(0xE3, 0xE3, 0xE3);
const ZEBRA: Rgb = Rgb(0xF6, 0xF6, 0xF6);
const EMPTY_CELL: Rgb = Rgb(0xE6, 0xE6, 0xE6);
const HATCH: Rgb = Rgb(0x80, 0x80, 0x80);
const HIGHLIGHT_BAND: Rgb = Rgb(0xFB, 0xEB, 0xD9);
/// Okabe-Ito blue and vermillion.
const MAIN: Rgb = Rgb(0x00, 0x72, 0xB2);
const EMPHASIS: Rgb = Rgb(0xD5, 0x5E, 0x00);

const TITLE_SIZE: f64 = 20.0;
const DESC_SIZE: f64 = 15.0;
const TICK_SIZE: f64 = 13.0;
const TITLE_BAND: i32 = 38;
const DESC_BAND: i32 = 24;
const PAD: i32 = 8;

fn ensure_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The embedded font is a valid TrueType file; if registration ever failed, drawing text
        // reports `FontUnavailable` as a `ChartError::Draw`.
        let _ = register_font("sans-serif", FontStyle::Normal, FONT);
        let _ = register_font(CJK_FAMILY, FontStyle::Normal, CJK_FONT);
    });
}

/// Whether `c` is a Han ideograph, kana, CJK punctuation or a full-width form: a glyph DejaVu
/// Sans lacks.
fn is_cjk(c: char) -> bool {
    matches!(c, '\u{2E80}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}' | '\u{FE30}'..='\u{FE4F}' | '\u{FF00}'..='\u{FFEF}')
}

/// The font that draws `s` at `size`: the CJK face when `s` holds a CJK character, else DejaVu Sans.
fn font(s: &str, size: f64) -> FontDesc<'static> {
    let family = if s.chars().any(is_cjk) { FontFamily::Name(CJK_FAMILY) } else { FontFamily::SansSerif };
    FontDesc::new(family, size, FontStyle::Normal)
}

/// Width in pixels of `s` at `size`.
pub(crate) fn text_width(s: &str, size: f64) -> i32 {
    ensure_font();
    match font(s, size).box_size(s) {
        Ok((w, _)) => w as i32,
        Err(_) => (s.chars().count() as f64 * size * 0.6) as i32,
    }
}

/// `s`, cut and ended with "…" so that it is at most `max` pixels wide at `size`.
pub(crate) fn fit(s: &str, size: f64, max: i32) -> String {
    if text_width(s, size) <= max {
        return s.to_string();
    }
    let chars: Vec<char> = s.chars().collect();
    let cut = |k: usize| -> String {
        let mut t: String = chars[..k].iter().collect();
        t.truncate(t.trim_end().len());
        t.push('…');
        t
    };
    let (mut lo, mut hi) = (0usize, chars.len());
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if text_width(&cut(mid), size) <= max {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    cut(lo)
}

/// Formats `v` with `decimals` decimals, trailing zeros trimmed, no "-0".
pub(crate) fn fmt_num(v: f64, decimals: usize) -> String {
    let mut s = format!("{:.*}", decimals, v);
    if s.contains('.') {
        while s.ends_with('0') {
            s.pop();
        }
        if s.ends_with('.') {
            s.pop();
        }
    }
    if s == "-0" {
        s = "0".into();
    }
    s
}

/// Decimals for labels of ticks about `range / ticks` apart.
fn tick_decimals(range: f64, ticks: usize) -> usize {
    let step = range / ticks.max(1) as f64;
    if step.is_finite() && step > 0.0 {
        (-step.log10().floor()).clamp(0.0, 8.0) as usize
    } else {
        2
    }
}

/// Decimals that show `v` with about 3 significant digits.
fn value_decimals(v: f64) -> usize {
    let a = v.abs();
    if a == 0.0 || !a.is_finite() || a >= 100.0 {
        0
    } else {
        (2.0 - a.log10().floor()).clamp(0.0, 8.0) as usize
    }
}

/// `lo..hi` widened by `frac` of its length on each side; a zero-length range becomes one unit
/// (or 10 % of the value) wide.
fn padded(lo: f64, hi: f64, frac: f64) -> (f64, f64) {
    let span = hi - lo;
    if span <= f64::EPSILON * lo.abs().max(hi.abs()).max(1.0) * 16.0 {
        let half = (lo.abs() * 0.1).max(0.5);
        (lo - half, hi + half)
    } else {
        (lo - span * frac, hi + span * frac)
    }
}

fn min_max(values: impl IntoIterator<Item = f64>) -> (f64, f64) {
    values.into_iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)))
}

fn rgba(c: Rgb, alpha: f64) -> RGBAColor {
    RGBAColor(c.0, c.1, c.2, alpha)
}

fn stroke(c: Rgb, width: u32) -> ShapeStyle {
    ShapeStyle { color: rgba(c, 1.0), filled: false, stroke_width: width }
}

fn fill(c: Rgb, alpha: f64) -> ShapeStyle {
    ShapeStyle { color: rgba(c, alpha), filled: true, stroke_width: 0 }
}

/// The style that draws `s`.
fn text_style(s: &str, size: f64, c: Rgb, h: HPos, v: VPos) -> TextStyle<'static> {
    TextStyle { font: font(s, size), color: RGBColor(c.0, c.1, c.2).to_backend_color(), pos: Pos::new(h, v) }
}

/// Splitmix64 of `i`: a deterministic pseudo-random number in 0..1.
fn unit_hash(i: u64) -> f64 {
    let mut z = i.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64
}

/// The pixel rectangle of a plot.
#[derive(Debug, Clone)]
struct PlotRect {
    x: Range<i32>,
    y: Range<i32>,
}

/// Pixel-space drawing on the root area.
struct Canvas<'t, DB: DrawingBackend> {
    root: DrawingArea<DB, Shift>,
    title: &'t str,
    w: i32,
    h: i32,
}

impl<DB: DrawingBackend> Canvas<'_, DB> {
    fn err(&self, e: impl std::fmt::Display) -> ChartError {
        ChartError::Draw { title: self.title.to_string(), message: e.to_string() }
    }

    fn text(&self, s: &str, at: (i32, i32), size: f64, c: Rgb, h: HPos, v: VPos) -> Result<(), ChartError> {
        if s.is_empty() {
            return Ok(());
        }
        self.root.draw_text(s, &text_style(s, size, c, h, v), at).map_err(|e| self.err(e))
    }

    /// Text turned 270 degrees (reading bottom to top), centred on `at` along its length.
    fn text_up(&self, s: &str, at: (i32, i32), size: f64, c: Rgb) -> Result<(), ChartError> {
        if s.is_empty() {
            return Ok(());
        }
        let style = text_style(s, size, c, HPos::Center, VPos::Top).transform(FontTransform::Rotate270);
        self.root.draw_text(s, &style, at).map_err(|e| self.err(e))
    }

    /// Text turned 90 degrees (reading top to bottom), starting at `at`.
    fn text_down(&self, s: &str, at: (i32, i32), size: f64, c: Rgb) -> Result<(), ChartError> {
        if s.is_empty() {
            return Ok(());
        }
        let style = text_style(s, size, c, HPos::Left, VPos::Center).transform(FontTransform::Rotate90);
        self.root.draw_text(s, &style, at).map_err(|e| self.err(e))
    }

    fn path(&self, pts: Vec<(i32, i32)>, style: ShapeStyle) -> Result<(), ChartError> {
        self.root.draw(&PathElement::new(pts, style)).map_err(|e| self.err(e))
    }

    fn line(&self, a: (i32, i32), b: (i32, i32), c: Rgb, width: u32) -> Result<(), ChartError> {
        self.path(vec![a, b], stroke(c, width))
    }

    /// A dashed segment: 6 px on, 4 px off.
    fn dashed(&self, a: (i32, i32), b: (i32, i32), c: Rgb, width: u32) -> Result<(), ChartError> {
        let (dx, dy) = ((b.0 - a.0) as f64, (b.1 - a.1) as f64);
        let len = (dx * dx + dy * dy).sqrt();
        if len < 1.0 {
            return Ok(());
        }
        let at = |d: f64| {
            let t = (d / len).min(1.0);
            (a.0 + (dx * t).round() as i32, a.1 + (dy * t).round() as i32)
        };
        let mut d = 0.0;
        while d < len {
            self.line(at(d), at(d + 6.0), c, width)?;
            d += 10.0;
        }
        Ok(())
    }

    fn rect(&self, a: (i32, i32), b: (i32, i32), style: ShapeStyle) -> Result<(), ChartError> {
        self.root.draw(&Rectangle::new([a, b], style)).map_err(|e| self.err(e))
    }

    fn circle(&self, at: (i32, i32), r: i32, style: ShapeStyle) -> Result<(), ChartError> {
        self.root.draw(&Circle::new(at, r.max(1), style)).map_err(|e| self.err(e))
    }

    fn polygon(&self, pts: Vec<(i32, i32)>, style: ShapeStyle) -> Result<(), ChartError> {
        self.root.draw(&Polygon::new(pts, style)).map_err(|e| self.err(e))
    }

    /// White background and the title, centred at the top.
    fn frame(&self, title: &str) -> Result<(), ChartError> {
        self.root.fill(&WHITE).map_err(|e| self.err(e))?;
        let t = fit(title, TITLE_SIZE, self.w - 2 * PAD);
        self.text(&t, (self.w / 2, PAD), TITLE_SIZE, BLACK_, HPos::Center, VPos::Top)
    }

    /// The axis labels: x centred under `plot` at the bottom, y turned along the left edge.
    fn axis_labels(&self, plot: &PlotRect, x_label: &str, y_label: &str) -> Result<(), ChartError> {
        let xmid = (plot.x.start + plot.x.end) / 2;
        let x = fit(x_label, DESC_SIZE, (self.w - 2 * PAD).max(10));
        self.text(&x, (xmid, self.h - PAD), DESC_SIZE, TEXT, HPos::Center, VPos::Bottom)?;
        let ymid = (plot.y.start + plot.y.end) / 2;
        let y = fit(y_label, DESC_SIZE, (self.h - TITLE_BAND - PAD).max(10));
        self.text_up(&y, (PAD, ymid), DESC_SIZE, TEXT)
    }

    /// Legend entries (colour swatch + name) stacked from `top` at `left`.
    fn legend(&self, left: i32, top: i32, width: i32, entries: &[LegendEntry]) -> Result<(), ChartError> {
        let mut y = top;
        for (name, c, swatch) in entries {
            if y + 16 > self.h - PAD {
                self.text("…", (left, y), TICK_SIZE, MUTED, HPos::Left, VPos::Center)?;
                break;
            }
            match swatch {
                Swatch::Line => self.rect((left, y - 2), (left + 14, y + 2), fill(*c, 1.0))?,
                Swatch::DashedLine => {
                    self.rect((left, y - 2), (left + 5, y + 2), fill(*c, 1.0))?;
                    self.rect((left + 9, y - 2), (left + 14, y + 2), fill(*c, 1.0))?;
                }
                Swatch::Dot => self.circle((left + 7, y), 4, fill(*c, 1.0))?,
                Swatch::Marked => {
                    self.circle((left + 7, y), 6, fill(*c, 1.0))?;
                    self.circle((left + 7, y), 6, stroke(BLACK_, 2))?;
                }
            }
            let name = fit(name, TICK_SIZE, width - 22);
            self.text(&name, (left + 20, y), TICK_SIZE, TEXT, HPos::Left, VPos::Center)?;
            y += 20;
        }
        Ok(())
    }
}

/// How a legend entry is drawn.
#[derive(Debug, Clone, Copy)]
enum Swatch {
    Line,
    DashedLine,
    Dot,
    Marked,
}

type LegendEntry = (String, Rgb, Swatch);

/// What the numeric axes of a chart show.
struct Axes {
    x: (f64, f64),
    y: (f64, f64),
    /// Numeric tick labels along x (false: the chart labels x itself).
    x_ticks: bool,
    y_ticks: bool,
    x_grid: bool,
    y_grid: bool,
    /// Pixels left of the plot for tick labels (or the chart's own labels).
    left: i32,
    /// Pixels under the plot for tick labels (or the chart's own labels).
    bottom: i32,
    /// Pixels right of the plot (legend, `n=` column).
    right: i32,
}

impl Axes {
    /// Numbers on both axes with grid lines.
    fn numeric(x: (f64, f64), y: (f64, f64), left: i32, right: i32) -> Self {
        Axes { x, y, x_ticks: true, y_ticks: true, x_grid: true, y_grid: true, left, bottom: 30, right }
    }

    /// `n` categories along x (the chart labels them) over a numeric y axis from `lo` to `hi`,
    /// wide enough on the left for its tick labels.
    fn categories(n: usize, (lo, hi): (f64, f64), bottom: i32) -> Self {
        Axes {
            x: (0.0, n as f64),
            y: (lo, hi),
            x_ticks: false,
            y_ticks: true,
            x_grid: false,
            y_grid: true,
            left: tick_label_width(lo, hi),
            bottom,
            right: 0,
        }
    }
}

/// Pixels left of a plot for the y tick labels of `lo..hi`.
fn tick_label_width(lo: f64, hi: f64) -> i32 {
    let dec = tick_decimals(hi - lo, 6);
    [lo, hi].iter().map(|v| text_width(&fmt_num(*v, dec), TICK_SIZE)).max().unwrap_or(0) + 14
}

/// Builds a Cartesian chart on `canvas` for `axes`, draws the mesh, ticks and axis labels, then
/// hands the data -> pixel map and the plot rectangle to `body`.
fn with_axes<DB: DrawingBackend>(
    canvas: &Canvas<'_, DB>,
    chart: &Chart,
    axes: Axes,
    body: impl FnOnce(&dyn Fn(f64, f64) -> (i32, i32), &PlotRect) -> Result<(), ChartError>,
) -> Result<(), ChartError> {
    let xdesc = if chart.x_label.is_empty() { 0 } else { DESC_BAND };
    let ydesc = if chart.y_label.is_empty() { 0 } else { DESC_BAND };
    let area = canvas.root.margin(TITLE_BAND, PAD + xdesc, PAD + ydesc, PAD + axes.right);
    const X_TICKS: usize = 8;
    const Y_TICKS: usize = 6;
    let xd = tick_decimals(axes.x.1 - axes.x.0, X_TICKS);
    let yd = tick_decimals(axes.y.1 - axes.y.0, Y_TICKS);
    let mut cc = ChartBuilder::on(&area)
        .margin_top(6)
        .margin_right(16)
        .x_label_area_size(axes.bottom.max(0) as u32)
        .y_label_area_size(axes.left.max(0) as u32)
        .build_cartesian_2d(axes.x.0..axes.x.1, axes.y.0..axes.y.1)
        .map_err(|e| canvas.err(e))?;
    let fx = move |v: &f64| fmt_num(*v, xd);
    let fy = move |v: &f64| fmt_num(*v, yd);
    {
        let mut mesh = cc.configure_mesh();
        mesh.max_light_lines(0)
            .bold_line_style(stroke(GRID, 1))
            .axis_style(stroke(AXIS, 1))
            .label_style(text_style("0", TICK_SIZE, TEXT, HPos::Center, VPos::Center))
            .x_labels(if axes.x_ticks { X_TICKS } else { 0 })
            .y_labels(if axes.y_ticks { Y_TICKS } else { 0 })
            .x_label_formatter(&fx)
            .y_label_formatter(&fy);
        if !axes.x_grid {
            mesh.disable_x_mesh();
        }
        if !axes.y_grid {
            mesh.disable_y_mesh();
        }
        mesh.draw().map_err(|e| canvas.err(e))?;
    }
    let (px, py) = cc.plotting_area().get_pixel_range();
    let plot = PlotRect { x: px, y: py };
    canvas.axis_labels(&plot, &chart.x_label, &chart.y_label)?;
    let map = |x: f64, y: f64| cc.backend_coord(&(x, y));
    body(&map, &plot)
}

/// Draws `chart` on `backend` (already validated).
pub(crate) fn draw<DB: DrawingBackend>(chart: &Chart, backend: DB) -> Result<(), ChartError> {
    ensure_font();
    let root = backend.into_drawing_area();
    let (w, h) = root.dim_in_pixel();
    let canvas = Canvas { root, title: &chart.title, w: w as i32, h: h as i32 };
    canvas.frame(&chart.title)?;
    match &chart.body {
        ChartBody::Intervals { rows, reference } => intervals(&canvas, chart, rows, *reference)?,
        ChartBody::Heatmap { rows, cols, cells, scale } => heatmap(&canvas, chart, rows, cols, cells, scale)?,
        ChartBody::Distributions { groups, style } => distributions(&canvas, chart, groups, *style)?,
        ChartBody::Lines { series } => lines(&canvas, chart, series)?,
        ChartBody::Scatter { points } => scatter(&canvas, chart, points)?,
        ChartBody::Reliability { bins } => reliability(&canvas, chart, bins)?,
        ChartBody::Bars { bars } => bars_chart(&canvas, chart, bars)?,
    }
    canvas.root.present().map_err(|e| canvas.err(e))
}

fn intervals<DB: DrawingBackend>(
    canvas: &Canvas<'_, DB>,
    chart: &Chart,
    rows: &[IntervalRow],
    reference: Option<f64>,
) -> Result<(), ChartError> {
    let n = rows.len();
    let (lo, hi) = min_max(rows.iter().flat_map(|r| [r.low, r.high, r.estimate]).chain(reference));
    let (lo, hi) = padded(lo, hi, 0.05);
    // Row pitch once the title and the x axis are taken off, to size the labels.
    let pitch = (canvas.h - TITLE_BAND - 2 * PAD - 40 - DESC_BAND) as f64 / n as f64;
    let label_size = (pitch * 0.8).clamp(7.0, TICK_SIZE);
    let max_label = (canvas.w as f64 * 0.35) as i32;
    let label_w = rows.iter().map(|r| text_width(&r.label, label_size)).max().unwrap_or(0).min(max_label);
    let n_size = (label_size - 1.0).max(7.0);
    let n_w = rows.iter().filter_map(|r| r.n).map(|k| text_width(&format!("n={k}"), n_size)).max().map_or(0, |w| w + 6);
    let axes = Axes {
        x: (lo, hi),
        y: (0.0, n as f64),
        x_ticks: true,
        y_ticks: false,
        x_grid: true,
        y_grid: false,
        left: label_w + 12,
        bottom: 30,
        right: n_w,
    };
    with_axes(canvas, chart, axes, |map, plot| {
        let row_px = (plot.y.end - plot.y.start) as f64 / n as f64;
        let cap = (row_px * 0.25).clamp(2.0, 5.0) as i32;
        let radius = (row_px * 0.3).clamp(2.0, 5.0) as i32;
        for (i, r) in rows.iter().enumerate() {
            let yc = n as f64 - i as f64 - 0.5;
            let (top, bottom) = (map(lo, yc + 0.5).1, map(lo, yc - 0.5).1);
            if r.highlight {
                canvas.rect((plot.x.start + 1, top), (plot.x.end - 1, bottom), fill(HIGHLIGHT_BAND, 1.0))?;
            } else if i % 2 == 1 {
                canvas.rect((plot.x.start + 1, top), (plot.x.end - 1, bottom), fill(ZEBRA, 1.0))?;
            }
        }
        if let Some(x) = reference {
            let px = map(x, 0.0).0;
            canvas.dashed((px, plot.y.start), (px, plot.y.end), MUTED, 1)?;
        }
        for (i, r) in rows.iter().enumerate() {
            let yc = n as f64 - i as f64 - 0.5;
            let c = if r.highlight { EMPHASIS } else { MAIN };
            let a = map(r.low, yc);
            let b = map(r.high, yc);
            canvas.line(a, b, c, 2)?;
            canvas.line((a.0, a.1 - cap), (a.0, a.1 + cap), c, 2)?;
            canvas.line((b.0, b.1 - cap), (b.0, b.1 + cap), c, 2)?;
            canvas.circle(map(r.estimate, yc), radius, fill(c, 1.0))?;
            let label = fit(&r.label, label_size, label_w);
            let lc = if r.highlight { EMPHASIS } else { TEXT };
            canvas.text(&label, (plot.x.start - 8, a.1), label_size, lc, HPos::Right, VPos::Center)?;
            if let Some(k) = r.n {
                canvas.text(&format!("n={k}"), (plot.x.end + 6, a.1), n_size, MUTED, HPos::Left, VPos::Center)?;
            }
        }
        Ok(())
    })
}

/// Fill of a heatmap cell: its scale colour; masked cells greyed towards #D9D9D9.
fn cell_fill(cell: &Option<HeatCell>, scale: &ColorScale) -> Rgb {
    match cell {
        None => EMPTY_CELL,
        Some(c) if c.masked => scale.color(c.value).mix(Rgb(0xD9, 0xD9, 0xD9), 0.7),
        Some(c) => scale.color(c.value),
    }
}

fn heatmap<DB: DrawingBackend>(
    canvas: &Canvas<'_, DB>,
    chart: &Chart,
    rows: &[String],
    cols: &[String],
    cells: &[Vec<Option<HeatCell>>],
    scale: &ColorScale,
) -> Result<(), ChartError> {
    let (nr, nc) = (rows.len() as i32, cols.len() as i32);
    let xdesc = if chart.x_label.is_empty() { 0 } else { DESC_BAND };
    let ydesc = if chart.y_label.is_empty() { 0 } else { DESC_BAND };
    // Colour bar: 16 px bar and its labels on the right.
    let (smin, smid, smax) = match *scale {
        ColorScale::Sequential { min, max } => (min, None, max),
        ColorScale::Diverging { min, center, max } => (min, Some(center), max),
    };
    let sd = value_decimals((smax - smin).abs() / 10.0).max(value_decimals(smax)).min(6);
    let bar_labels: Vec<String> =
        [Some(smin), smid, Some(smax)].into_iter().flatten().map(|v| fmt_num(v, sd)).collect();
    let bar_lw = bar_labels.iter().map(|s| text_width(s, 12.0)).max().unwrap_or(0);
    let bar_area = 24 + 16 + 6 + bar_lw + 8;
    // Row labels on the left.
    let label_size = TICK_SIZE;
    let left_max = (canvas.w as f64 * 0.3) as i32;
    let left = rows.iter().map(|r| text_width(r, label_size)).max().unwrap_or(0).min(left_max) + 10;
    let x0 = PAD + ydesc + left;
    let x1 = canvas.w - PAD - bar_area;
    let cell_w = (x1 - x0) as f64 / nc as f64;
    // Column labels under the grid: horizontal when they fit, else turned 90 degrees.
    let widest_col = cols.iter().map(|c| text_width(c, label_size)).max().unwrap_or(0);
    let turned = widest_col as f64 > cell_w - 4.0;
    let bottom_max = (canvas.h as f64 * 0.3) as i32;
    let bottom = if turned { widest_col.min(bottom_max) + 10 } else { 24 };
    let y0 = TITLE_BAND + 4;
    let y1 = canvas.h - PAD - xdesc - bottom;
    let cell_h = (y1 - y0) as f64 / nr as f64;
    let gap = if cell_w >= 8.0 && cell_h >= 8.0 { 1 } else { 0 };
    let cx = |j: i32| x0 + (j as f64 * cell_w).round() as i32;
    let cy = |i: i32| y0 + (i as f64 * cell_h).round() as i32;
    let text_size = (cell_h * 0.45).clamp(7.0, 13.0).min(cell_w * 0.5);
    for (i, row) in cells.iter().enumerate() {
        let i = i as i32;
        for (j, cell) in row.iter().enumerate() {
            let j = j as i32;
            let (a, b) = ((cx(j) + gap, cy(i) + gap), (cx(j + 1) - gap, cy(i + 1) - gap));
            let bg = cell_fill(cell, scale);
            canvas.rect(a, b, fill(bg, 1.0))?;
            if matches!(cell, Some(c) if c.masked) {
                hatch(canvas, a, b)?;
            }
            // A cell's text may have several lines (`\n`), drawn as a block centred in the cell;
            // lines that do not fit the cell's height are left out.
            let lines: Vec<String> = match cell {
                None => vec!["–".to_string()],
                Some(c) => c.text.lines().map(|l| fit(l, text_size, (cell_w as i32 - 4).max(4))).collect(),
            };
            let line_h = text_size * 1.15;
            let fitting = ((cell_h - 2.0) / line_h).floor().max(1.0) as usize;
            let lines = &lines[..lines.len().min(fitting)];
            let tc = if cell.is_none() { MUTED } else { bg.text_color() };
            let mid = ((a.0 + b.0) / 2, (a.1 + b.1) / 2);
            if text_size >= 7.0 {
                let first = mid.1 as f64 - line_h * (lines.len() as f64 - 1.0) / 2.0;
                for (k, line) in lines.iter().enumerate() {
                    let y = (first + k as f64 * line_h).round() as i32;
                    canvas.text(line, (mid.0, y), text_size, tc, HPos::Center, VPos::Center)?;
                }
            }
        }
    }
    // Row and column labels.
    let row_size = label_size.min((cell_h * 0.8).max(7.0));
    for (i, r) in rows.iter().enumerate() {
        let y = (cy(i as i32) + cy(i as i32 + 1)) / 2;
        let t = fit(r, row_size, left - 10);
        canvas.text(&t, (x0 - 8, y), row_size, TEXT, HPos::Right, VPos::Center)?;
    }
    let col_size = label_size.min((cell_w * 0.8).max(7.0));
    for (j, c) in cols.iter().enumerate() {
        let x = (cx(j as i32) + cx(j as i32 + 1)) / 2;
        if turned {
            let t = fit(c, col_size, bottom - 10);
            canvas.text_down(&t, (x, y1 + 6), col_size, TEXT)?;
        } else {
            canvas.text(c, (x, y1 + 6), col_size, TEXT, HPos::Center, VPos::Top)?;
        }
    }
    let plot = PlotRect { x: x0..x1, y: y0..y1 };
    canvas.axis_labels(&plot, &chart.x_label, &chart.y_label)?;
    // Colour bar: 64 strips from min (bottom) to max (top).
    let bx = x1 + 24;
    let (by0, by1) = (y0, y1.min(y0 + 320).max(y0 + 40));
    const STRIPS: i32 = 64;
    let bh = (by1 - by0) as f64;
    for k in 0..STRIPS {
        let t = (k as f64 + 0.5) / STRIPS as f64;
        let c = match scale {
            ColorScale::Sequential { .. } => crate::colors::viridis(t),
            ColorScale::Diverging { .. } => crate::colors::diverging_color(t),
        };
        let top = by1 - ((k + 1) as f64 * bh / STRIPS as f64).round() as i32;
        let bot = by1 - (k as f64 * bh / STRIPS as f64).round() as i32;
        canvas.rect((bx, top), (bx + 16, bot), fill(c, 1.0))?;
    }
    canvas.rect((bx, by0), (bx + 16, by1), stroke(AXIS, 1))?;
    let mut marks = vec![(by1, bar_labels[0].clone())];
    if let Some(_c) = smid {
        marks.push(((by0 + by1) / 2, bar_labels[1].clone()));
    }
    marks.push((by0, bar_labels[bar_labels.len() - 1].clone()));
    for (y, s) in marks {
        canvas.line((bx + 16, y), (bx + 20, y), AXIS, 1)?;
        canvas.text(&s, (bx + 22, y), 12.0, TEXT, HPos::Left, VPos::Center)?;
    }
    Ok(())
}

/// Diagonal hatching (45 degrees, every 6 px) inside the rectangle `a`-`b`.
fn hatch<DB: DrawingBackend>(canvas: &Canvas<'_, DB>, a: (i32, i32), b: (i32, i32)) -> Result<(), ChartError> {
    let (w, h) = (b.0 - a.0, b.1 - a.1);
    if w <= 0 || h <= 0 {
        return Ok(());
    }
    // Lines x + y = s (relative to a), clipped to the box.
    let mut s = 6;
    while s < w + h {
        let start = (s.min(w), s - s.min(w));
        let end = (s - s.min(h), s.min(h));
        canvas.line((a.0 + start.0, a.1 + start.1), (a.0 + end.0, a.1 + end.1), HATCH, 1)?;
        s += 6;
    }
    Ok(())
}

/// The summary a box plot draws.
struct BoxStats {
    q1: f64,
    median: f64,
    q3: f64,
    low_whisker: f64,
    high_whisker: f64,
}

fn box_stats(values: &[f64]) -> BoxStats {
    let mut s = values.to_vec();
    s.sort_by(f64::total_cmp);
    let (q1, median, q3) = (quantile(&s, 0.25), quantile(&s, 0.5), quantile(&s, 0.75));
    let iqr = q3 - q1;
    let low_whisker = s.iter().copied().find(|v| *v >= q1 - 1.5 * iqr).unwrap_or(q1);
    let high_whisker = s.iter().rev().copied().find(|v| *v <= q3 + 1.5 * iqr).unwrap_or(q3);
    BoxStats { q1, median, q3, low_whisker, high_whisker }
}

/// How a two-part category label joins its parts ("system · stratum").
const LABEL_JOIN: &str = " · ";

fn distributions<DB: DrawingBackend>(
    canvas: &Canvas<'_, DB>,
    chart: &Chart,
    groups: &[Group],
    style: DistStyle,
) -> Result<(), ChartError> {
    let g = groups.len();
    let (lo, hi) = min_max(groups.iter().flat_map(|gr| gr.values.iter().copied()));
    let (lo, hi) = padded(lo, hi, 0.05);
    // A label "system · stratum" too wide for its slot is drawn on two lines, so room is kept
    // for a second line whenever a label has that form.
    let two_part = groups.iter().any(|gr| gr.label.contains(LABEL_JOIN));
    let axes = Axes::categories(g, (lo, hi), if two_part { 56 } else { 40 });
    with_axes(canvas, chart, axes, |map, plot| {
        let slot = (plot.x.end - plot.x.start) as f64 / g as f64;
        for (gi, gr) in groups.iter().enumerate() {
            let c = okabe_ito(gi);
            let xc = gi as f64 + 0.5;
            let mut label_y = plot.y.end + 8;
            let cxp = map(xc, lo).0;
            let width = (slot as i32 - 6).max(8);
            let lines: Vec<&str> = match gr.label.split_once(LABEL_JOIN) {
                Some((a, b)) if text_width(&gr.label, TICK_SIZE) > width => vec![a, b],
                _ => vec![gr.label.as_str()],
            };
            for line in lines {
                canvas.text(&fit(line, TICK_SIZE, width), (cxp, label_y), TICK_SIZE, TEXT, HPos::Center, VPos::Top)?;
                label_y += 16;
            }
            let n_text = format!("n={}", gr.values.len());
            canvas.text(&n_text, (cxp, label_y), 12.0, MUTED, HPos::Center, VPos::Top)?;
            if gr.values.is_empty() {
                continue;
            }
            let st = box_stats(&gr.values);
            match style {
                DistStyle::Box => {
                    let hw = 0.25;
                    let (a, b) = (map(xc - hw, st.q3), map(xc + hw, st.q1));
                    canvas.rect(a, b, fill(c, 0.25))?;
                    canvas.rect(a, b, stroke(c, 2))?;
                    // Whiskers with caps.
                    let cap = 0.1;
                    for (from, to) in [(st.q3, st.high_whisker), (st.q1, st.low_whisker)] {
                        canvas.line(map(xc, from), map(xc, to), c, 2)?;
                        canvas.line(map(xc - cap, to), map(xc + cap, to), c, 2)?;
                    }
                    // Points jittered over the box, deterministic per group and index.
                    for (k, v) in gr.values.iter().enumerate() {
                        let u = unit_hash(((gi as u64) << 32) ^ k as u64);
                        let x = xc + (u - 0.5) * 0.36;
                        canvas.circle(map(x, *v), 3, fill(BLACK_, 0.45))?;
                    }
                    canvas.line(map(xc - hw, st.median), map(xc + hw, st.median), BLACK_, 3)?;
                }
                DistStyle::Violin => {
                    let hw = 0.4;
                    let (vmin, vmax) = min_max(gr.values.iter().copied());
                    match Kde::silverman(&gr.values) {
                        Some(kde) if vmax > vmin => {
                            const STEPS: usize = 80;
                            let ys: Vec<f64> =
                                (0..=STEPS).map(|k| vmin + (vmax - vmin) * k as f64 / STEPS as f64).collect();
                            let ds: Vec<f64> = ys.iter().map(|y| kde.density(*y)).collect();
                            let dmax = ds.iter().copied().fold(0.0, f64::max);
                            let half = |d: f64| if dmax > 0.0 { hw * d / dmax } else { 0.0 };
                            let mut pts: Vec<(i32, i32)> =
                                ys.iter().zip(&ds).map(|(y, d)| map(xc + half(*d), *y)).collect();
                            pts.extend(ys.iter().zip(&ds).rev().map(|(y, d)| map(xc - half(*d), *y)));
                            canvas.polygon(pts.clone(), fill(c, 0.35))?;
                            pts.push(pts[0]);
                            canvas.path(pts, stroke(c, 2))?;
                        }
                        _ => {
                            // All values equal: a flat line across the violin's width.
                            canvas.line(map(xc - hw, vmin), map(xc + hw, vmin), c, 3)?;
                        }
                    }
                    // Inner box: quartile bar, median as a white dot.
                    canvas.line(map(xc, st.low_whisker), map(xc, st.high_whisker), BLACK_, 1)?;
                    let q = (map(xc, st.q3), map(xc, st.q1));
                    canvas.rect((q.0 .0 - 3, q.0 .1), (q.1 .0 + 3, q.1 .1), fill(BLACK_, 0.85))?;
                    let m = map(xc, st.median);
                    canvas.circle(m, 4, fill(WHITE_, 1.0))?;
                    canvas.circle(m, 4, stroke(BLACK_, 1))?;
                }
            }
        }
        Ok(())
    })
}

/// Width of a legend listing `names`, capped at 30 % of the chart.
fn legend_width(names: &[&str], w: i32) -> i32 {
    let widest = names.iter().map(|n| text_width(n, TICK_SIZE)).max().unwrap_or(0);
    (widest + 34).min((w as f64 * 0.3) as i32)
}

fn lines<DB: DrawingBackend>(canvas: &Canvas<'_, DB>, chart: &Chart, series: &[Series]) -> Result<(), ChartError> {
    let (x_lo, x_hi) = min_max(series.iter().flat_map(|s| s.points.iter().map(|p| p.0)));
    let (y_lo, y_hi) = min_max(series.iter().flat_map(|s| s.points.iter().map(|p| p.1)));
    let (x_lo, x_hi) = padded(x_lo, x_hi, 0.02);
    let (y_lo, y_hi) = padded(y_lo, y_hi, 0.06);
    let names: Vec<&str> = series.iter().map(|s| s.name.as_str()).collect();
    let legend_w = legend_width(&names, canvas.w);
    let axes = Axes::numeric((x_lo, x_hi), (y_lo, y_hi), tick_label_width(y_lo, y_hi), legend_w);
    with_axes(canvas, chart, axes, |map, plot| {
        for (si, s) in series.iter().enumerate() {
            let c = okabe_ito(si);
            let pts: Vec<(i32, i32)> = s.points.iter().map(|p| map(p.0, p.1)).collect();
            // Past the 8 palette colours, series repeat a colour dashed.
            let dashed = si >= crate::OKABE_ITO.len();
            if pts.len() > 1 && dashed {
                for w in pts.windows(2) {
                    canvas.dashed(w[0], w[1], c, 2)?;
                }
            } else if pts.len() > 1 {
                canvas.path(pts.clone(), stroke(c, 2))?;
            }
            if pts.len() <= 40 {
                for p in pts {
                    canvas.circle(p, 3, fill(c, 1.0))?;
                }
            }
        }
        let entries: Vec<LegendEntry> = series
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let swatch = if i >= crate::OKABE_ITO.len() { Swatch::DashedLine } else { Swatch::Line };
                (s.name.clone(), okabe_ito(i), swatch)
            })
            .collect();
        canvas.legend(plot.x.end + 20, plot.y.start + 8, legend_w - 4, &entries)
    })
}

fn scatter<DB: DrawingBackend>(
    canvas: &Canvas<'_, DB>,
    chart: &Chart,
    points: &[ScatterPoint],
) -> Result<(), ChartError> {
    let mut groups: Vec<&str> = Vec::new();
    for p in points {
        if !groups.contains(&p.group.as_str()) {
            groups.push(&p.group);
        }
    }
    let color_of = |g: &str| okabe_ito(groups.iter().position(|x| *x == g).unwrap_or(0));
    let any_marked = points.iter().any(|p| p.marked);
    let mut names: Vec<&str> = groups.clone();
    if any_marked {
        names.push("marked");
    }
    let legend_w = legend_width(&names, canvas.w);
    let (x_lo, x_hi) = padded_pair(min_max(points.iter().map(|p| p.x)), 0.04);
    let (y_lo, y_hi) = padded_pair(min_max(points.iter().map(|p| p.y)), 0.06);
    let axes = Axes::numeric((x_lo, x_hi), (y_lo, y_hi), tick_label_width(y_lo, y_hi), legend_w);
    with_axes(canvas, chart, axes, |map, plot| {
        for p in points.iter().filter(|p| !p.marked) {
            canvas.circle(map(p.x, p.y), 3, fill(color_of(&p.group), 0.75))?;
        }
        for p in points.iter().filter(|p| p.marked) {
            let at = map(p.x, p.y);
            canvas.circle(at, 6, fill(color_of(&p.group), 1.0))?;
            canvas.circle(at, 6, stroke(BLACK_, 2))?;
        }
        let mut entries: Vec<LegendEntry> = groups.iter().map(|g| (g.to_string(), color_of(g), Swatch::Dot)).collect();
        if any_marked {
            entries.push(("marked".to_string(), Rgb(0xBB, 0xBB, 0xBB), Swatch::Marked));
        }
        canvas.legend(plot.x.end + 20, plot.y.start + 8, legend_w - 4, &entries)
    })
}

fn padded_pair((lo, hi): (f64, f64), frac: f64) -> (f64, f64) {
    padded(lo, hi, frac)
}

fn reliability<DB: DrawingBackend>(
    canvas: &Canvas<'_, DB>,
    chart: &Chart,
    bins: &[ReliabilityBin],
) -> Result<(), ChartError> {
    let axes = Axes::numeric((0.0, 1.0), (0.0, 1.0), 44, 0);
    let max_count = bins.iter().map(|b| b.count).max().unwrap_or(0).max(1) as f64;
    with_axes(canvas, chart, axes, |map, _plot| {
        canvas.dashed(map(0.0, 0.0), map(1.0, 1.0), MUTED, 1)?;
        let mut sorted: Vec<&ReliabilityBin> = bins.iter().collect();
        sorted.sort_by(|a, b| a.predicted.total_cmp(&b.predicted));
        let pts: Vec<(i32, i32)> = sorted.iter().map(|b| map(b.predicted, b.observed)).collect();
        if pts.len() > 1 {
            canvas.path(pts, stroke(MAIN, 1))?;
        }
        for b in &sorted {
            let r = 3.0 + 7.0 * (b.count as f64 / max_count).sqrt();
            canvas.circle(map(b.predicted, b.observed), r.round() as i32, fill(MAIN, 0.8))?;
        }
        Ok(())
    })
}

fn bars_chart<DB: DrawingBackend>(canvas: &Canvas<'_, DB>, chart: &Chart, bars: &[Bar]) -> Result<(), ChartError> {
    let nb = bars.len();
    let (vlo, vhi) = min_max(bars.iter().map(|b| b.value));
    let (vlo, vhi) = (vlo.min(0.0), vhi.max(0.0));
    let span = if vhi > vlo { vhi - vlo } else { 1.0 };
    let y_lo = if vlo < 0.0 { vlo - 0.08 * span } else { 0.0 };
    let y_hi = if vhi > 0.0 || vlo == 0.0 { vhi + 0.1 * span } else { 0.0 };
    let axes = Axes::categories(nb, (y_lo, y_hi), 26);
    with_axes(canvas, chart, axes, |map, plot| {
        let slot = (plot.x.end - plot.x.start) as f64 / nb as f64;
        for (i, b) in bars.iter().enumerate() {
            let a = map(i as f64 + 0.15, b.value);
            let z = map(i as f64 + 0.85, 0.0);
            canvas.rect(a, z, fill(MAIN, 1.0))?;
            let xc = map(i as f64 + 0.5, 0.0).0;
            let label = fit(&b.label, TICK_SIZE, (slot as i32 - 4).max(6));
            canvas.text(&label, (xc, plot.y.end + 8), TICK_SIZE, TEXT, HPos::Center, VPos::Top)?;
            let v = fmt_num(b.value, value_decimals(b.value));
            if (text_width(&v, 12.0) as f64) < slot - 2.0 {
                let (y, vpos) = if b.value >= 0.0 { (a.1 - 3, VPos::Bottom) } else { (a.1 + 3, VPos::Top) };
                canvas.text(&v, (xc, y), 12.0, MUTED, HPos::Center, vpos)?;
            }
        }
        // Zero line.
        if y_lo < 0.0 {
            canvas.line(map(0.0, 0.0), map(nb as f64, 0.0), AXIS, 1)?;
        }
        Ok(())
    })
}

/// Checks the size and the data before anything is drawn.
pub(crate) fn validate(chart: &Chart, size: Size) -> Result<(), ChartError> {
    if size.width < Size::MIN.width
        || size.height < Size::MIN.height
        || size.width > Size::MAX_SIDE
        || size.height > Size::MAX_SIDE
    {
        return Err(ChartError::Size { width: size.width, height: size.height });
    }
    let title = &chart.title;
    let empty = || ChartError::Empty { title: title.clone() };
    let finite = |v: f64, what: &dyn Fn() -> String| {
        if v.is_finite() {
            Ok(())
        } else {
            Err(ChartError::NonFinite { title: title.clone(), what: what(), value: v })
        }
    };
    let invalid = |reason: String| ChartError::Invalid { title: title.clone(), reason };
    match &chart.body {
        ChartBody::Intervals { rows, reference } => {
            if rows.is_empty() {
                return Err(empty());
            }
            for r in rows {
                finite(r.estimate, &|| format!("estimate of row `{}`", r.label))?;
                finite(r.low, &|| format!("low of row `{}`", r.label))?;
                finite(r.high, &|| format!("high of row `{}`", r.label))?;
                if r.low > r.high {
                    return Err(invalid(format!("row `{}` has low {} above high {}", r.label, r.low, r.high)));
                }
            }
            if let Some(x) = reference {
                finite(*x, &|| "the reference line".to_string())?;
            }
        }
        ChartBody::Heatmap { rows, cols, cells, scale } => {
            if rows.is_empty() || cols.is_empty() {
                return Err(empty());
            }
            if cells.len() != rows.len() {
                return Err(invalid(format!(
                    "heatmap has {} rows of cells for {} row labels",
                    cells.len(),
                    rows.len()
                )));
            }
            for (i, row) in cells.iter().enumerate() {
                if row.len() != cols.len() {
                    return Err(invalid(format!(
                        "heatmap row `{}` has {} cells for {} columns",
                        rows[i],
                        row.len(),
                        cols.len()
                    )));
                }
                for (j, c) in row.iter().enumerate() {
                    if let Some(c) = c {
                        finite(c.value, &|| format!("value of cell (`{}`, `{}`)", rows[i], cols[j]))?;
                    }
                }
            }
            match *scale {
                ColorScale::Sequential { min, max } => {
                    finite(min, &|| "colour scale min".into())?;
                    finite(max, &|| "colour scale max".into())?;
                    // min == max is allowed (every cell takes the middle colour).
                    if min > max {
                        return Err(invalid(format!("colour scale min {min} is above max {max}")));
                    }
                }
                ColorScale::Diverging { min, center, max } => {
                    finite(min, &|| "colour scale min".into())?;
                    finite(center, &|| "colour scale center".into())?;
                    finite(max, &|| "colour scale max".into())?;
                    if !(min <= center && center <= max) {
                        return Err(invalid(format!(
                            "diverging colour scale needs min <= center <= max, got {min}, {center}, {max}"
                        )));
                    }
                }
            }
        }
        ChartBody::Distributions { groups, .. } => {
            if groups.iter().all(|g| g.values.is_empty()) {
                return Err(empty());
            }
            for g in groups {
                for (k, v) in g.values.iter().enumerate() {
                    finite(*v, &|| format!("value {k} of group `{}`", g.label))?;
                }
            }
        }
        ChartBody::Lines { series } => {
            if series.iter().all(|s| s.points.is_empty()) {
                return Err(empty());
            }
            for s in series {
                for (k, (x, y)) in s.points.iter().enumerate() {
                    finite(*x, &|| format!("x of point {k} of series `{}`", s.name))?;
                    finite(*y, &|| format!("y of point {k} of series `{}`", s.name))?;
                }
            }
        }
        ChartBody::Scatter { points } => {
            if points.is_empty() {
                return Err(empty());
            }
            for (k, p) in points.iter().enumerate() {
                finite(p.x, &|| format!("x of point {k} (group `{}`)", p.group))?;
                finite(p.y, &|| format!("y of point {k} (group `{}`)", p.group))?;
            }
        }
        ChartBody::Reliability { bins } => {
            if bins.is_empty() {
                return Err(empty());
            }
            for (k, b) in bins.iter().enumerate() {
                finite(b.predicted, &|| format!("predicted of bin {k}"))?;
                finite(b.observed, &|| format!("observed of bin {k}"))?;
                if !(0.0..=1.0).contains(&b.predicted) || !(0.0..=1.0).contains(&b.observed) {
                    return Err(invalid(format!(
                        "bin {k} is outside 0..1 (predicted {}, observed {})",
                        b.predicted, b.observed
                    )));
                }
            }
        }
        ChartBody::Bars { bars } => {
            if bars.is_empty() {
                return Err(empty());
            }
            for b in bars {
                finite(b.value, &|| format!("value of bar `{}`", b.label))?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_text_is_cut_with_ellipsis() {
        let s = "a very long label that will never fit in forty pixels";
        let t = fit(s, 13.0, 40);
        assert!(t.ends_with('…'), "{t}");
        assert!(text_width(&t, 13.0) <= 40);
        assert_eq!(fit("ok", 13.0, 40), "ok");
    }

    #[test]
    fn numbers_format_cleanly() {
        assert_eq!(fmt_num(0.5, 2), "0.5");
        assert_eq!(fmt_num(-0.0001, 2), "0");
        assert_eq!(fmt_num(1500.0, 0), "1500");
        assert_eq!(fmt_num(0.125, 3), "0.125");
    }

    #[test]
    fn jitter_is_in_unit_interval_and_fixed() {
        for i in 0..1000 {
            let u = unit_hash(i);
            assert!((0.0..1.0).contains(&u));
        }
        assert_eq!(unit_hash(7), unit_hash(7));
    }
}
