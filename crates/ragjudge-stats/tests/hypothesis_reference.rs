//! Mann-Whitney U and Benjamini-Hochberg against scipy 1.17.1 and statsmodels 0.15.0
//! (`fixtures/hypothesis_reference.json`, made by `fixtures/make_hypothesis_reference.py`).

use ragjudge_stats::hypothesis::{benjamini_hochberg, mann_whitney_u, MwuMethod, RankedSample};
use serde_json::Value;

fn fixture() -> Value {
    serde_json::from_str(include_str!("fixtures/hypothesis_reference.json")).expect("valid fixture JSON")
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect()
}

#[test]
fn mann_whitney_matches_scipy() {
    let f = fixture();
    assert_eq!(f["scipy"], "1.17.1");
    let mut worst = 0.0f64;
    for case in f["mannwhitneyu"].as_array().unwrap() {
        let (x, y) = (floats(&case["x"]), floats(&case["y"]));
        for (key, method) in
            [("auto", MwuMethod::Auto), ("exact", MwuMethod::Exact), ("asymptotic", MwuMethod::Asymptotic)]
        {
            let Some(want) = case.get(key) else { continue };
            let got = mann_whitney_u(&x, &y, method).unwrap();
            let name = case["name"].as_str().unwrap();
            assert_eq!(got.u1, want["u1"].as_f64().unwrap(), "{name} {key}");
            let p = want["p"].as_f64().unwrap();
            let diff = (got.p_value - p).abs();
            worst = worst.max(diff / p.max(1e-300));
            assert!(diff <= 1e-12 + 1e-9 * p, "{name} {key}: {} vs scipy {p}", got.p_value);
        }
    }
    println!("largest relative p-value difference: {worst:e}");
}

/// The same cases through one ranked sample with `x` spread among `y` (every third position):
/// a group tested against the rest of its sample is the two-sample test.
#[test]
fn groups_of_a_ranked_sample_match_scipy() {
    let f = fixture();
    for case in f["mannwhitneyu"].as_array().unwrap() {
        let (x, y) = (floats(&case["x"]), floats(&case["y"]));
        let (mut sample, mut group, mut ys) = (Vec::new(), Vec::new(), y.iter());
        for &v in &x {
            sample.extend(ys.by_ref().take(2));
            group.push(sample.len());
            sample.push(v);
        }
        sample.extend(ys);
        let ranked = RankedSample::new(&sample).unwrap();
        let name = case["name"].as_str().unwrap();
        for (key, method) in
            [("auto", MwuMethod::Auto), ("exact", MwuMethod::Exact), ("asymptotic", MwuMethod::Asymptotic)]
        {
            let Some(want) = case.get(key) else { continue };
            let got = ranked.mann_whitney(group.iter().copied(), method).unwrap();
            assert_eq!(got.u1, want["u1"].as_f64().unwrap(), "{name} {key}");
            let p = want["p"].as_f64().unwrap();
            assert!((got.p_value - p).abs() <= 1e-12 + 1e-9 * p, "{name} {key}: {} vs scipy {p}", got.p_value);
        }
    }
}

#[test]
fn benjamini_hochberg_matches_statsmodels() {
    let f = fixture();
    assert_eq!(f["statsmodels"], "0.15.0");
    for case in f["fdr_bh"].as_array().unwrap() {
        let got = benjamini_hochberg(&floats(&case["p"])).unwrap();
        for (g, w) in got.iter().zip(floats(&case["adjusted"])) {
            assert!((g - w).abs() < 1e-15, "{}: {got:?}", case["name"]);
        }
    }
}
