//! SVG snapshots of each chart type on fixed data (`tests/snapshots/`).

mod common;

use ragjudge_charts::render_svg;

#[test]
fn svg_snapshots() {
    for (name, chart) in common::all() {
        let svg = render_svg(&chart, chart.suggested_size()).unwrap();
        insta::assert_snapshot!(name, svg);
    }
}

#[test]
fn chart_json_round_trip() {
    for (_, chart) in common::all() {
        let json = serde_json::to_string(&chart).unwrap();
        let back: ragjudge_charts::Chart = serde_json::from_str(&json).unwrap();
        assert_eq!(back, chart);
    }
    let json = serde_json::to_value(common::heatmap()).unwrap();
    assert_eq!(json["body"]["kind"], "heatmap");
    assert_eq!(json["body"]["scale"]["kind"], "sequential");
    let json = serde_json::to_value(common::violins()).unwrap();
    assert_eq!(json["body"]["style"], "violin");
}
