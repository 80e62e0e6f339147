//! Charts for ragjudge reports: interval (forest) plots, heatmaps, box and violin plots, line
//! charts, scatter plots, reliability diagrams and bar charts.
//!
//! A [`Chart`] is plain data (serde-serialisable); [`render_svg`] and [`render_png`] draw it with
//! `plotters` through one drawing routine generic over the backend, so the SVG and the PNG show the
//! same picture. Text is rendered from DejaVu Sans (and, for CJK text, a WenQuanYi Micro Hei subset)
//! embedded in the library, so PNGs need no system
//! fonts. Colours are colour-blind safe: Okabe-Ito for categories, viridis for sequential scales
//! and ColorBrewer RdBu (blue - white - red) for diverging ones. Output is deterministic: the same
//! chart gives byte-identical SVG.

//!
//! ```
//! use ragjudge_charts::{render_svg, Bar, Chart, ChartBody};
//!
//! let chart = Chart {
//!     title: "Set sizes".into(),
//!     x_label: "size".into(),
//!     y_label: "questions".into(),
//!     body: ChartBody::Bars {
//!         bars: vec![Bar { label: "1".into(), value: 40.0 }, Bar { label: "2".into(), value: 9.0 }],
//!     },
//! };
//! let svg = render_svg(&chart, chart.suggested_size()).unwrap();
//! assert!(svg.starts_with("<svg"));
//! ```

#![deny(missing_docs)]
// Library code returns errors instead of panicking (tests may unwrap: clippy.toml).
#![deny(clippy::unwrap_used, clippy::expect_used)]

mod colors;
mod draw;
mod kde;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use colors::{diverging_color, okabe_ito, viridis, Rgb, OKABE_ITO};

/// A chart: title, axis labels and what to draw.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chart {
    /// Title drawn above the chart.
    pub title: String,
    /// Label of the horizontal axis.
    pub x_label: String,
    /// Label of the vertical axis.
    pub y_label: String,
    /// The data and the kind of chart.
    pub body: ChartBody,
}

/// The kind of chart and its data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ChartBody {
    /// Horizontal interval (forest) plot, rows drawn top to bottom in the given order; optional
    /// vertical reference line (e.g. 0 for deltas).
    Intervals {
        /// One row per estimate, top to bottom.
        rows: Vec<IntervalRow>,
        /// Where to draw a dashed vertical reference line.
        reference: Option<f64>,
    },
    /// Heatmap with annotated cells; `None` cells are drawn empty (light grey) and labelled "–".
    Heatmap {
        /// Row labels, top to bottom.
        rows: Vec<String>,
        /// Column labels, left to right.
        cols: Vec<String>,
        /// `cells[row][col]`; must be `rows.len()` x `cols.len()`.
        cells: Vec<Vec<Option<HeatCell>>>,
        /// How values map to colours.
        scale: ColorScale,
    },
    /// Per-group distributions: box plot with the points jittered over it, or violin (Gaussian
    /// KDE, Silverman bandwidth) with median and quartiles marked.
    Distributions {
        /// One box or violin per group, left to right.
        groups: Vec<Group>,
        /// Box or violin.
        style: DistStyle,
    },
    /// Line chart (e.g. Elo by round), one colour per series, legend.
    Lines {
        /// The lines.
        series: Vec<Series>,
    },
    /// Scatter coloured by group, marked points drawn larger with a black outline (e.g. a topic
    /// map with sampled chunks marked), legend.
    Scatter {
        /// The points.
        points: Vec<ScatterPoint>,
    },
    /// Reliability diagram: observed frequency vs mean predicted probability per bin, point size
    /// by count, the y = x diagonal dashed; axes 0..1.
    Reliability {
        /// One point per bin.
        bins: Vec<ReliabilityBin>,
    },
    /// Vertical bars with a label under each (e.g. conformal set-size counts, margin histogram).
    Bars {
        /// The bars, left to right.
        bars: Vec<Bar>,
    },
}

/// One row of an interval plot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IntervalRow {
    /// Row label, drawn left of the axis.
    pub label: String,
    /// Point estimate (a dot).
    pub estimate: f64,
    /// Lower end of the interval.
    pub low: f64,
    /// Upper end of the interval.
    pub high: f64,
    /// Sample size, shown as `n=` right of the plot when known.
    pub n: Option<usize>,
    /// Draw this row emphasised (vermillion, shaded band).
    pub highlight: bool,
}

/// One annotated heatmap cell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HeatCell {
    /// Value mapped to the cell's colour.
    pub value: f64,
    /// Text written in the cell; lines separated by `\n` are drawn one under the other.
    pub text: String,
    /// Drawn greyed and hatched (e.g. below a minimum n); the text is still shown.
    pub masked: bool,
}

/// How heatmap values map to colours.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ColorScale {
    /// Viridis from `min` to `max`; values outside are clamped.
    Sequential {
        /// Value drawn darkest (viridis 0).
        min: f64,
        /// Value drawn brightest (viridis 1).
        max: f64,
    },
    /// Blue (`min`) - white (`center`) - red (`max`); values outside are clamped.
    Diverging {
        /// Value drawn darkest blue.
        min: f64,
        /// Value drawn white.
        center: f64,
        /// Value drawn darkest red.
        max: f64,
    },
}

/// One group of a distribution plot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Group {
    /// Group label, drawn under its box or violin with `n=`.
    pub label: String,
    /// The observations.
    pub values: Vec<f64>,
}

/// How a distribution is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DistStyle {
    /// Box (quartiles, median, 1.5 IQR whiskers) with the points jittered over it.
    Box,
    /// Violin (Gaussian KDE, Silverman bandwidth) with median and quartiles marked.
    Violin,
}

/// One line of a line chart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Series {
    /// Name shown in the legend.
    pub name: String,
    /// `(x, y)` points, joined in the given order.
    pub points: Vec<(f64, f64)>,
}

/// One point of a scatter plot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScatterPoint {
    /// Horizontal position.
    pub x: f64,
    /// Vertical position.
    pub y: f64,
    /// Group, which picks the colour (in order of first appearance).
    pub group: String,
    /// Drawn larger with a black outline.
    pub marked: bool,
}

/// One bin of a reliability diagram.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReliabilityBin {
    /// Mean predicted probability in the bin (0..1).
    pub predicted: f64,
    /// Observed frequency in the bin (0..1).
    pub observed: f64,
    /// Number of predictions in the bin; sets the point size.
    pub count: usize,
}

/// One bar of a bar chart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bar {
    /// Label drawn under the bar.
    pub label: String,
    /// Height of the bar (may be negative).
    pub value: f64,
}

/// Size of a rendered chart in pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

impl Default for Size {
    /// 720 x 405 (16:9).
    fn default() -> Self {
        Size { width: 720, height: 405 }
    }
}

impl Size {
    /// The smallest size a chart can be drawn at.
    pub const MIN: Size = Size { width: 240, height: 180 };
    /// The largest size a chart can be drawn at (each side).
    pub const MAX_SIDE: u32 = 8192;
}

impl Chart {
    /// A size at which the chart stays readable: interval plots and heatmaps grow with their rows
    /// (64 rows stay readable), heatmaps, distributions and bars widen with their columns.
    pub fn suggested_size(&self) -> Size {
        let (w, h) = match &self.body {
            ChartBody::Intervals { rows, .. } => (720, (110 + 22 * rows.len()).max(405)),
            ChartBody::Heatmap { rows, cols, .. } => {
                ((260 + 64 * cols.len()).max(720), (150 + 28 * rows.len()).max(405))
            }
            ChartBody::Distributions { groups, .. } => ((150 + 80 * groups.len()).max(720), 405),
            ChartBody::Bars { bars } => ((120 + 44 * bars.len()).max(720), 405),
            ChartBody::Lines { .. } | ChartBody::Scatter { .. } => (720, 405),
            ChartBody::Reliability { .. } => (560, 500),
        };
        let side = |v: usize, min: u32| (v.min(Size::MAX_SIDE as usize) as u32).max(min);
        Size { width: side(w, Size::MIN.width), height: side(h, Size::MIN.height) }
    }
}

/// Why a chart could not be drawn or written.
#[derive(Debug, thiserror::Error)]
pub enum ChartError {
    /// The chart has nothing to draw.
    #[error("chart `{title}` has no data")]
    Empty {
        /// The chart's title.
        title: String,
    },
    /// A number is NaN or infinite.
    #[error("chart `{title}`: {what} is not finite ({value})")]
    NonFinite {
        /// The chart's title.
        title: String,
        /// Which number, naming its row or group.
        what: String,
        /// The offending value.
        value: f64,
    },
    /// The data is inconsistent (e.g. a heatmap row with the wrong number of cells).
    #[error("chart `{title}`: {reason}")]
    Invalid {
        /// The chart's title.
        title: String,
        /// What is wrong.
        reason: String,
    },
    /// The requested size is too small or too large.
    #[error("chart size {width}x{height} is outside {min_w}x{min_h} .. {max}x{max}", min_w = Size::MIN.width, min_h = Size::MIN.height, max = Size::MAX_SIDE)]
    Size {
        /// Requested width.
        width: u32,
        /// Requested height.
        height: u32,
    },
    /// `write_chart` was given a path ending in neither `.svg` nor `.png`.
    #[error("unsupported chart file extension in `{}`: expected .svg or .png", path.display())]
    UnsupportedExtension {
        /// The path.
        path: PathBuf,
    },
    /// The drawing backend failed.
    #[error("drawing chart `{title}` failed: {message}")]
    Draw {
        /// The chart's title.
        title: String,
        /// The backend's message.
        message: String,
    },
    /// PNG encoding failed.
    #[error("encoding PNG failed: {0}")]
    Png(#[from] png::EncodingError),
    /// Writing the file failed.
    #[error("writing chart to `{}` failed: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// Renders the chart as an SVG document.
pub fn render_svg(chart: &Chart, size: Size) -> Result<String, ChartError> {
    draw::validate(chart, size)?;
    let mut out = String::new();
    {
        let backend = plotters::backend::SVGBackend::with_string(&mut out, (size.width, size.height));
        draw::draw(chart, backend)?;
    }
    Ok(out)
}

/// Renders the chart as PNG bytes (8-bit RGB).
pub fn render_png(chart: &Chart, size: Size) -> Result<Vec<u8>, ChartError> {
    draw::validate(chart, size)?;
    let mut rgb = vec![255u8; size.width as usize * size.height as usize * 3];
    {
        let backend = plotters::backend::BitMapBackend::with_buffer(&mut rgb, (size.width, size.height));
        draw::draw(chart, backend)?;
    }
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, size.width, size.height);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut writer = enc.write_header().map_err(ChartError::Png)?;
        writer.write_image_data(&rgb).map_err(ChartError::Png)?;
        writer.finish().map_err(ChartError::Png)?;
    }
    Ok(out)
}

/// Writes the chart to `path` as SVG or PNG, chosen by the extension (`.svg` or `.png`, any case).
pub fn write_chart(chart: &Chart, path: &Path, size: Size) -> Result<(), ChartError> {
    let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    let bytes = match ext.as_deref() {
        Some("svg") => render_svg(chart, size)?.into_bytes(),
        Some("png") => render_png(chart, size)?,
        _ => return Err(ChartError::UnsupportedExtension { path: path.to_path_buf() }),
    };
    ragjudge_artifacts::write_atomic(path, &bytes).map_err(|e| {
        let source = match e {
            ragjudge_artifacts::ArtifactError::Io { source, .. } => source,
            other => std::io::Error::other(other.to_string()),
        };
        ChartError::Io { path: path.to_path_buf(), source }
    })
}
