//! Logistic regression against statsmodels 0.14.5's binomial GLM (fixture written by
//! `tests/fixtures/make_logistic_fixture.py`).

use ragjudge_stats::logistic::Logistic;
use serde_json::Value;

#[test]
fn equals_statsmodels_glm_with_fractional_targets() {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/logistic_fixture.json")).unwrap();
    let fx: Value = serde_json::from_str(&text).unwrap();
    let x: Vec<Vec<f64>> = fx["x"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect())
        .collect();
    let y: Vec<f64> = fx["y"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    let fit = Logistic::fit(&x, &y, 0.0).unwrap();
    for (a, b) in fit.coef.iter().zip(fx["coef"].as_array().unwrap()) {
        assert!((a - b.as_f64().unwrap()).abs() < 1e-9, "{:?} vs {}", fit.coef, fx["coef"]);
    }
    // A ridge shrinks the weights towards 0, not the intercept's role.
    let shrunk = Logistic::fit(&x, &y, 10.0).unwrap();
    assert!(shrunk.coef[0].abs() < fit.coef[0].abs());
}

#[test]
fn one_feature_by_hand() {
    // x = 0 twice with y (1, 0) and x = 1 twice with y (1, 1): separable at x = 1, so a ridge is
    // needed; with x = 1 giving (1, 0.5) the MLE is finite: intercept logit(1/2) = 0, and
    // p(x=1) = 0.75 -> weight ln 3.
    let x = vec![vec![0.0], vec![0.0], vec![1.0], vec![1.0]];
    let fit = Logistic::fit(&x, &[1.0, 0.0, 1.0, 0.5], 0.0).unwrap();
    assert!(fit.coef[1].abs() < 1e-12 && (fit.coef[0] - 3f64.ln()).abs() < 1e-12, "{:?}", fit.coef);
    assert!((fit.predict(&[1.0]) - 0.75).abs() < 1e-12);
    assert!(Logistic::fit(&x, &[1.0, 0.0], 0.0).is_err());
}
