//! PNG output (decoded and inspected) and the error messages.

mod common;

use std::collections::HashSet;
use std::path::Path;

use ragjudge_charts::{render_png, render_svg, write_chart, Chart, ChartBody, ChartError, IntervalRow, Size};

/// Decodes PNG bytes to (width, height, RGB pixels).
fn decode(bytes: &[u8]) -> (u32, u32, Vec<[u8; 3]>) {
    let decoder = png::Decoder::new(bytes);
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb);
    let px = buf[..info.buffer_size()].chunks(3).map(|c| [c[0], c[1], c[2]]).collect();
    (info.width, info.height, px)
}

#[test]
fn png_of_every_chart_type() {
    for (name, chart) in common::all() {
        let size = Size { width: 640, height: 400 };
        let (w, h, px) = decode(&render_png(&chart, size).unwrap());
        assert_eq!((w, h), (640, 400), "{name}");
        let colours: HashSet<[u8; 3]> = px.iter().copied().collect();
        assert!(colours.len() >= 3, "{name}: {} colours", colours.len());
        // The title (text from the embedded font) puts dark pixels in the top band's middle.
        let dark_in_title = (8..32)
            .flat_map(|y| (200..440).map(move |x| (x, y)))
            .filter(|&(x, y)| {
                let p = px[(y * w + x) as usize];
                p.iter().all(|c| *c < 100)
            })
            .count();
        assert!(dark_in_title > 50, "{name}: title not drawn ({dark_in_title} dark pixels)");
    }
}

#[test]
fn png_without_title_has_no_title_pixels() {
    let mut chart = common::bars();
    chart.title.clear();
    let (w, _, px) = decode(&render_png(&chart, Size::default()).unwrap());
    let dark = (8..32)
        .flat_map(|y| (200..520).map(move |x| (x, y)))
        .filter(|&(x, y)| px[(y * w + x) as usize].iter().all(|c| *c < 100))
        .count();
    assert_eq!(dark, 0);
}

fn intervals(rows: Vec<IntervalRow>) -> Chart {
    Chart {
        title: "Deltas".into(),
        x_label: "delta".into(),
        y_label: String::new(),
        body: ChartBody::Intervals { rows, reference: None },
    }
}

#[test]
fn empty_data_is_an_error() {
    let err = render_svg(&intervals(vec![]), Size::default()).unwrap_err();
    assert!(matches!(err, ChartError::Empty { .. }));
    assert_eq!(err.to_string(), "chart `Deltas` has no data");
    let err = render_png(&intervals(vec![]), Size::default()).unwrap_err();
    assert_eq!(err.to_string(), "chart `Deltas` has no data");
}

#[test]
fn nan_estimate_is_an_error_naming_the_row() {
    let chart = intervals(vec![IntervalRow {
        label: "faithfulness".into(),
        estimate: f64::NAN,
        low: 0.0,
        high: 1.0,
        n: Some(3),
        highlight: false,
    }]);
    let err = render_svg(&chart, Size::default()).unwrap_err();
    assert!(matches!(err, ChartError::NonFinite { .. }));
    assert_eq!(err.to_string(), "chart `Deltas`: estimate of row `faithfulness` is not finite (NaN)");
    assert!(!err.to_string().contains('\n'));
}

#[test]
fn unsupported_extension_names_the_path() {
    let dir = std::env::temp_dir();
    let path = dir.join("ragjudge-charts-test.jpg");
    let err = write_chart(&common::bars(), &path, Size::default()).unwrap_err();
    assert!(matches!(err, ChartError::UnsupportedExtension { .. }));
    assert_eq!(
        err.to_string(),
        format!("unsupported chart file extension in `{}`: expected .svg or .png", path.display())
    );
    assert!(!path.exists());
}

#[test]
fn write_chart_by_extension() {
    let dir = std::env::temp_dir().join(format!("ragjudge-charts-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let chart = common::reliability();
    write_chart(&chart, &dir.join("r.svg"), Size::default()).unwrap();
    write_chart(&chart, &dir.join("r.PNG"), Size::default()).unwrap();
    assert!(std::fs::read_to_string(dir.join("r.svg")).unwrap().starts_with("<svg"));
    assert_eq!(&std::fs::read(dir.join("r.PNG")).unwrap()[..4], b"\x89PNG");
    let err = write_chart(&chart, Path::new("/nonexistent-dir/x/r.svg"), Size::default()).unwrap_err();
    assert!(matches!(err, ChartError::Io { .. }), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn other_invalid_data() {
    let mut chart = common::heatmap();
    if let ChartBody::Heatmap { cells, .. } = &mut chart.body {
        cells[1].pop();
    }
    let err = render_svg(&chart, Size::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "chart `Mean faithfulness by question length`: heatmap row `medium length` has 3 cells for 4 columns"
    );
    let mut chart = common::boxes();
    if let ChartBody::Distributions { groups, .. } = &mut chart.body {
        groups[1].values[2] = f64::INFINITY;
    }
    let err = render_svg(&chart, Size::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "chart `Answer correctness by retriever`: value 2 of group `retriever-dense` is not finite (inf)"
    );
    let mut chart = common::heatmap();
    if let ChartBody::Heatmap { scale, .. } = &mut chart.body {
        *scale = ragjudge_charts::ColorScale::Sequential { min: 1.0, max: 0.0 };
    }
    let err = render_svg(&chart, Size::default()).unwrap_err();
    assert_eq!(err.to_string(), "chart `Mean faithfulness by question length`: colour scale min 1 is above max 0");
    let err = render_svg(&common::bars(), Size { width: 10, height: 10 }).unwrap_err();
    assert!(matches!(err, ChartError::Size { .. }), "{err}");
}

#[test]
fn degenerate_data_draws_without_nan() {
    // One bar of height zero, one point, all-equal intervals and one-value groups.
    let mut flat_heatmap = common::heatmap();
    if let ChartBody::Heatmap { scale, .. } = &mut flat_heatmap.body {
        *scale = ragjudge_charts::ColorScale::Sequential { min: 0.5, max: 0.5 };
    }
    let charts = vec![
        flat_heatmap,
        Chart {
            title: "zero".into(),
            x_label: String::new(),
            y_label: String::new(),
            body: ChartBody::Bars { bars: vec![ragjudge_charts::Bar { label: "only".into(), value: 0.0 }] },
        },
        intervals(vec![IntervalRow {
            label: "point".into(),
            estimate: 2.0,
            low: 2.0,
            high: 2.0,
            n: None,
            highlight: true,
        }]),
        Chart {
            title: "one".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            body: ChartBody::Distributions {
                groups: vec![
                    ragjudge_charts::Group { label: "single".into(), values: vec![1.0] },
                    ragjudge_charts::Group { label: "none".into(), values: vec![] },
                ],
                style: ragjudge_charts::DistStyle::Violin,
            },
        },
        Chart {
            title: "dot".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            body: ChartBody::Scatter {
                points: vec![ragjudge_charts::ScatterPoint { x: 1.0, y: 1.0, group: "g".into(), marked: true }],
            },
        },
    ];
    for chart in charts {
        let svg = render_svg(&chart, Size::default()).unwrap();
        assert!(!svg.contains("NaN"), "{}", chart.title);
        render_png(&chart, Size::default()).unwrap();
    }
}

/// Dark pixels of the title band of `chart` drawn as PNG, as a set of positions.
fn title_ink(chart: &Chart) -> HashSet<(u32, u32)> {
    let (w, _, px) = decode(&render_png(chart, Size::default()).unwrap());
    (4..36)
        .flat_map(|y| (0..w).map(move |x| (x, y)))
        .filter(|&(x, y)| px[(y * w + x) as usize].iter().all(|c| *c < 100))
        .collect()
}

#[test]
fn chinese_text_is_drawn_with_glyphs_not_boxes() {
    let titled = |t: &str| {
        let mut c = common::bars();
        c.title = t.into();
        c
    };
    // Without a CJK face each character is the same missing-glyph box (or nothing): two titles
    // of different characters would leave the same ink. Drawn from the embedded face, they differ,
    // and a dense character leaves more ink than a sparse one of the same width.
    let dense = title_ink(&titled("检索增强生成评测"));
    let sparse = title_ink(&titled("一二三十八人十一"));
    assert!(dense.len() > 200, "{} dark pixels", dense.len());
    assert_ne!(dense, sparse);
    assert!(dense.len() > sparse.len() * 2, "dense {} vs sparse {}", dense.len(), sparse.len());
    // Mixed text draws its Latin letters too (the CJK face carries Latin-1).
    assert!(title_ink(&titled("系统 A 的得分")).len() > title_ink(&titled("系统 的得分")).len());
}

#[test]
fn chinese_svg_text_names_a_cjk_family_and_english_text_keeps_its_own() {
    let mut c = common::bars();
    c.title = "各系统得分".into();
    let svg = render_svg(&c, Size::default()).unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let family_of = |text: &str| {
        doc.descendants()
            .find(|n| n.has_tag_name("text") && n.text().map(str::trim) == Some(text))
            .and_then(|n| n.attribute("font-family"))
            .map(str::to_string)
    };
    let zh = family_of("各系统得分").unwrap_or_else(|| panic!("the title is not drawn: {svg}"));
    assert!(zh.starts_with("'WenQuanYi Micro Hei'") && zh.ends_with("sans-serif"), "{zh}");
    // The x axis label of the sample bar chart is English.
    assert_eq!(family_of("set size").as_deref(), Some("sans-serif"));
}
