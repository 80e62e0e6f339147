//! Compares non-negative least squares and the monotone least-squares fit with
//! `scipy.optimize.nnls` on fixtures written by `fixtures/nnls/make_nnls.py` (versions in the
//! fixture).

use ragjudge_fusion::linear::Linear;
use ragjudge_fusion::nnls::nnls;
use serde_json::Value;

fn fixture() -> Value {
    serde_json::from_str(include_str!("fixtures/nnls/nnls_cases.json")).expect("valid fixture JSON")
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array().unwrap().iter().map(|a| a.as_f64().unwrap()).collect()
}

fn rows(v: &Value) -> Vec<Vec<f64>> {
    v.as_array().unwrap().iter().map(floats).collect()
}

#[test]
fn nnls_matches_scipy() {
    for case in fixture()["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let (a, b, want) = (rows(&case["a"]), floats(&case["b"]), floats(&case["x"]));
        let x = nnls(&a, &b).unwrap();
        for (got, want) in x.iter().zip(&want) {
            assert!((got - want).abs() < 1e-9, "{name}: {x:?} vs scipy {want:?}");
            assert!(*got >= 0.0, "{name}: {x:?}");
        }
        let rnorm = a.iter().zip(&b).map(|(r, y)| (r.iter().zip(&x).map(|(v, c)| v * c).sum::<f64>() - y).powi(2));
        let rnorm = rnorm.sum::<f64>().sqrt();
        assert!((rnorm - case["rnorm"].as_f64().unwrap()).abs() < 1e-9, "{name}: residual norm {rnorm}");
    }
}

#[test]
fn the_monotone_fit_on_standardised_inputs_is_scipys_nnls_of_the_centred_label() {
    let fx = fixture();
    let case = fx["cases"].as_array().unwrap().iter().find(|c| c["name"] == "metric_like_standardised_120x6").unwrap();
    let (a, b, want) = (rows(&case["a"]), floats(&case["b"]), floats(&case["x"]));
    // The fixture's columns are standardised and its label centred, so the intercept is the
    // label's mean (0) and the weights are scipy's.
    let m = Linear::fit_monotone(&a, &b).unwrap();
    for (got, want) in m.coef.iter().zip(&want) {
        assert!((got - want).abs() < 1e-9, "{:?} vs scipy {want:?}", m.coef);
    }
    assert!(m.intercept.abs() < 1e-9, "{m:?}");
    // A shifted label moves the intercept only: by hand, + 3 to every label gives intercept 3.
    let shifted: Vec<f64> = b.iter().map(|v| v + 3.0).collect();
    let m3 = Linear::fit_monotone(&a, &shifted).unwrap();
    assert!((m3.intercept - 3.0).abs() < 1e-9 && m3.coef.iter().zip(&m.coef).all(|(p, q)| (p - q).abs() < 1e-9));
}
