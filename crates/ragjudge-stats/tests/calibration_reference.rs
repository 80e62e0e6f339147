//! Compares the calibrators with scikit-learn (isotonic, Platt) and statsmodels (ordinal) on
//! fixtures written by `fixtures/make_calibration_reference.py` (versions in the fixture).

use ragjudge_stats::calibration::{Calibrator, IsotonicCalibrator, Method, OrdinalLogit, PlattScaler};
use serde_json::Value;

fn fixture() -> Value {
    serde_json::from_str(include_str!("fixtures/calibration_reference.json")).expect("valid fixture JSON")
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array().unwrap().iter().map(|a| a.as_f64().unwrap()).collect()
}

fn rows(v: &Value) -> Vec<Vec<f64>> {
    v.as_array().unwrap().iter().map(floats).collect()
}

fn ints(v: &Value) -> Vec<usize> {
    v.as_array().unwrap().iter().map(|a| a.as_u64().unwrap() as usize).collect()
}

fn assert_close(case: &str, what: &str, got: &[f64], want: &[f64], tol: f64) -> f64 {
    assert_eq!(got.len(), want.len(), "{case}: {what}: lengths differ");
    let mut worst = 0.0f64;
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let d = (g - w).abs();
        assert!(d <= tol, "{case}: {what}[{i}]: got {g}, reference {w}, diff {d:e}");
        worst = worst.max(d);
    }
    worst
}

#[test]
fn fixture_names_versions() {
    let f = fixture();
    for key in ["numpy", "scipy", "scikit-learn", "statsmodels"] {
        assert!(f["versions"][key].is_string(), "missing version of {key}");
    }
}

#[test]
fn isotonic_matches_scikit_learn() {
    const TOL: f64 = 1e-9;
    let f = fixture();
    for case in f["isotonic"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let m = IsotonicCalibrator::fit(&floats(&case["x"]), &floats(&case["y"])).unwrap();
        assert_close(name, "x_thresholds", &m.x_thresholds, &floats(&case["x_thresholds"]), TOL);
        assert_close(name, "y_thresholds", &m.y_thresholds, &floats(&case["y_thresholds"]), TOL);
        let pred: Vec<f64> = floats(&case["x_new"]).iter().map(|&s| m.predict(s)).collect();
        let d = assert_close(name, "predict", &pred, &floats(&case["predict"]), TOL);
        println!("isotonic {name}: max |diff| of predictions {d:.2e}");
    }
}

#[test]
fn platt_matches_scikit_learn() {
    // scikit-learn stops L-BFGS at a projected gradient of 1e-6, so parameters agree to ~1e-5.
    const TOL: f64 = 1e-4;
    let f = fixture();
    for case in f["platt"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let y: Vec<bool> = ints(&case["y"]).iter().map(|&l| l == 1).collect();
        let m = PlattScaler::fit(&rows(&case["x"]), &y).unwrap();
        assert_close(name, "a", &m.a, &floats(&case["a"]), TOL);
        assert_close(name, "b", &[m.b], &[case["b"].as_f64().unwrap()], TOL);
        let pred: Vec<f64> = rows(&case["x_new"]).iter().map(|r| m.predict(r)).collect();
        let d = assert_close(name, "predict", &pred, &floats(&case["predict"]), TOL);
        println!("platt {name}: a {:?} b {}, max |diff| of probabilities {d:.2e}", m.a, m.b);
    }
}

#[test]
fn ordinal_matches_statsmodels() {
    const TOL: f64 = 1e-4;
    let f = fixture();
    for case in f["ordinal"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let levels = case["levels"].as_u64().unwrap() as usize;
        let m = OrdinalLogit::fit(&rows(&case["x"]), &ints(&case["y"]), levels).unwrap();
        assert_close(name, "beta", &m.beta, &floats(&case["beta"]), TOL);
        assert_close(name, "cutpoints", &m.cutpoints, &floats(&case["cutpoints"]), TOL);
        let mut got = Vec::new();
        let mut want = Vec::new();
        for (r, p) in rows(&case["x_new"]).iter().zip(case["predict"].as_array().unwrap()) {
            got.extend(m.predict_proba(r));
            want.extend(floats(p));
        }
        let d = assert_close(name, "predict", &got, &want, TOL);
        println!("ordinal {name}: max |diff| of probabilities {d:.2e}");
    }
}

#[test]
fn dispatch_checks_methods_against_labels() {
    let x: Vec<Vec<f64>> = (0..6).map(|i| vec![f64::from(i)]).collect();
    let three = [0, 1, 2, 0, 1, 2];
    assert!(Calibrator::fit(Method::Platt, &x, &three, 3).is_err());
    assert!(Calibrator::fit(Method::Isotonic, &x, &three, 3).is_err());
    let two_cols: Vec<Vec<f64>> = (0..6).map(|i| vec![f64::from(i), 1.0]).collect();
    assert!(Calibrator::fit(Method::Isotonic, &two_cols, &[0, 1, 0, 1, 0, 1], 2).is_err());
    let c = Calibrator::fit(Method::Ordinal, &x, &three, 3).unwrap();
    let p = c.predict_proba(&[2.5]).unwrap();
    assert_eq!(p.len(), 3);
    assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    assert!(c.predict_proba(&[1.0, 2.0]).is_err());
    assert!(c.predict_proba(&[f64::NAN]).is_err());
    // The JSON form round-trips and names the method.
    let text = serde_json::to_string(&c).unwrap();
    assert!(text.contains("\"method\":\"ordinal\""), "{text}");
    assert_eq!(serde_json::from_str::<Calibrator>(&text).unwrap(), c);
}
