//! Compares the epsilon-SVR with scikit-learn's `SVR` on fixtures written by
//! `fixtures/svr/make_fixtures.py` (versions in the fixture): predictions, intercepts, linear
//! coefficients, gamma = "scale", cross-validated R^2 and grid search.

use ragjudge_fusion::svr::{cross_val_r2, gamma_scale, grid_search, Kernel, Svr, SvrGrid, SvrParams};
use ragjudge_fusion::FusionError;
use serde_json::Value;

fn fixture() -> Value {
    serde_json::from_str(include_str!("fixtures/svr/svr_cases.json")).expect("valid fixture JSON")
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array().unwrap().iter().map(|a| a.as_f64().unwrap()).collect()
}

fn rows(v: &Value) -> Vec<Vec<f64>> {
    v.as_array().unwrap().iter().map(floats).collect()
}

/// A kernel from the fixture's {"kind", "gamma", "degree", "coef0"}; gamma "scale" is RbfScale.
fn kernel(v: &Value) -> Kernel {
    match v["kind"].as_str().unwrap() {
        "linear" => Kernel::Linear,
        "rbf" => match v["gamma"].as_f64() {
            Some(gamma) => Kernel::Rbf { gamma },
            None => Kernel::RbfScale,
        },
        "poly" => Kernel::Poly {
            degree: v["degree"].as_u64().unwrap() as u32,
            gamma: v["gamma"].as_f64().unwrap(),
            coef0: v["coef0"].as_f64().unwrap(),
        },
        other => panic!("unknown kernel {other}"),
    }
}

fn params(case: &Value) -> SvrParams {
    SvrParams {
        c: case["c"].as_f64().unwrap(),
        epsilon: case["epsilon"].as_f64().unwrap(),
        kernel: kernel(&case["kernel"]),
        tol: case["tol"].as_f64().unwrap_or(1e-3),
    }
}

fn max_abs_diff(case: &str, got: &[f64], want: &[f64], tol: f64) -> f64 {
    assert_eq!(got.len(), want.len(), "{case}: lengths differ");
    let mut worst = 0.0f64;
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let d = (g - w).abs();
        assert!(d <= tol, "{case}[{i}]: got {g}, scikit-learn {w}, diff {d:e}");
        worst = worst.max(d);
    }
    worst
}

fn train(f: &Value) -> (Vec<Vec<f64>>, Vec<f64>) {
    (rows(&f["x_train"]), floats(&f["y_train"]))
}

#[test]
fn fixture_names_versions() {
    let f = fixture();
    assert_eq!(f["versions"]["scikit-learn"], "1.9.1");
    assert_eq!(f["versions"]["numpy"], "2.4.6");
}

#[test]
fn predictions_intercepts_and_coefficients_match_sklearn() {
    let f = fixture();
    let (x, y) = train(&f);
    let x_test = rows(&f["x_test"]);
    for case in f["fits"].as_array().unwrap() {
        let p = params(case);
        let name = format!("{:?} C={} epsilon={}", p.kernel, p.c, p.epsilon);
        let model = Svr::fit(&x, &y, &p).unwrap();
        let worst = max_abs_diff(&name, &model.predict_many(&x_test), &floats(&case["predictions"]), 1e-4);
        eprintln!("{name}: max |prediction - scikit-learn| = {worst:e}");
        let intercept = case["intercept"].as_f64().unwrap();
        assert!((model.intercept() - intercept).abs() <= 1e-4, "{name}: intercept {}", model.intercept());
        assert_eq!(model.n_support() as u64, case["n_support"].as_u64().unwrap(), "{name}: support vectors");
        match model.kernel() {
            Kernel::Rbf { gamma } | Kernel::Poly { gamma, .. } => {
                let want = case["resolved_gamma"].as_f64().unwrap();
                assert!((gamma - want).abs() <= 1e-12 * want, "{name}: gamma {gamma}, scikit-learn {want}");
            }
            Kernel::Linear => {
                let coef = model.linear_coef().expect("a linear model has coefficients");
                max_abs_diff(&format!("{name} coef"), &coef, &floats(&case["coef"]), 1e-4);
            }
            Kernel::RbfScale => panic!("{name}: a fitted model holds a resolved gamma"),
        }
        if model.kernel() != Kernel::Linear {
            assert!(model.linear_coef().is_none(), "{name}: only linear models have coefficients");
        }
    }
}

#[test]
fn gamma_scale_matches_sklearn() {
    let f = fixture();
    let (x, _) = train(&f);
    let want = f["gamma_scale"].as_f64().unwrap();
    assert!((gamma_scale(&x) - want).abs() <= 1e-12 * want, "got {}, scikit-learn {want}", gamma_scale(&x));
    assert_eq!(gamma_scale(&[vec![0.5, 0.5], vec![0.5, 0.5]]), 1.0, "zero variance gives 1");
}

#[test]
fn cross_val_r2_matches_sklearn() {
    let f = fixture();
    let (x, y) = train(&f);
    for case in f["cross_val"].as_array().unwrap() {
        let p = params(case);
        let folds = case["folds"].as_u64().unwrap() as usize;
        let got = cross_val_r2(&x, &y, &p, folds).unwrap();
        let want = case["mean_r2"].as_f64().unwrap();
        let name = format!("{:?} C={} epsilon={} tol={}", p.kernel, p.c, p.epsilon, p.tol);
        eprintln!("{name}: mean R^2 {got}, scikit-learn {want}, diff {:e}", (got - want).abs());
        assert!((got - want).abs() <= 1e-4, "{name}: mean R^2 {got}, scikit-learn {want}");
    }
}

#[test]
fn grid_search_picks_sklearns_candidate() {
    let f = fixture();
    let (x, y) = train(&f);
    let g = &f["grid"];
    let grid = SvrGrid {
        c: floats(&g["c"]),
        epsilon: floats(&g["epsilon"]),
        kernels: g["kernels"].as_array().unwrap().iter().map(kernel).collect(),
        tol: g["tol"].as_f64().unwrap(),
    };
    let folds = g["folds"].as_u64().unwrap() as usize;

    // Same candidates, same order, same scores as cv_results_.
    let candidates = grid.candidates();
    let want_candidates = g["candidate_params"].as_array().unwrap();
    let want_scores = floats(&g["mean_test_score"]);
    assert_eq!(candidates.len(), want_candidates.len());
    for ((got, want), score) in candidates.iter().zip(want_candidates).zip(&want_scores) {
        assert_eq!(
            (got.kernel, got.c, got.epsilon),
            (kernel(&want["kernel"]), want["c"].as_f64().unwrap(), want["epsilon"].as_f64().unwrap())
        );
        let mine = cross_val_r2(&x, &y, got, folds).unwrap();
        assert!((mine - score).abs() <= 1e-4, "{got:?}: mean R^2 {mine}, scikit-learn {score}");
    }

    let (model, best, score) = grid_search(&x, &y, &grid, folds).unwrap();
    assert_eq!(best.kernel, kernel(&g["best_kernel"]));
    assert_eq!(best.c, g["best_c"].as_f64().unwrap());
    assert_eq!(best.epsilon, g["best_epsilon"].as_f64().unwrap());
    let want = g["best_score"].as_f64().unwrap();
    assert!((score - want).abs() <= 1e-4, "best score {score}, scikit-learn {want}");
    let x_test = rows(&f["x_test"]);
    max_abs_diff("refitted best model", &model.predict_many(&x_test), &floats(&g["best_predictions"]), 1e-4);
}

#[test]
fn saved_model_predicts_the_same() {
    let f = fixture();
    let (x, y) = train(&f);
    let model = Svr::fit(&x, &y, &SvrParams::default()).unwrap();
    let json = serde_json::to_string(&model).unwrap();
    let loaded: Svr = serde_json::from_str(&json).unwrap();
    let x_test = rows(&f["x_test"]);
    assert_eq!(model.predict_many(&x_test), loaded.predict_many(&x_test));
    assert!(model.predict(&[0.5]).is_nan(), "a row of the wrong length predicts NaN");

    let mut value: Value = serde_json::from_str(&json).unwrap();
    value["support_vectors"][0] = serde_json::json!([0.5]);
    let err = serde_json::from_value::<Svr>(value).unwrap_err().to_string();
    assert!(err.contains("support vector 0"), "{err}");
    let mut value: Value = serde_json::from_str(&json).unwrap();
    value["kernel"] = serde_json::json!("RbfScale");
    assert!(serde_json::from_value::<Svr>(value).is_err());
}

fn one_line_error(result: Result<impl std::fmt::Debug, FusionError>, what: &str) -> String {
    let message = result.expect_err(what).to_string();
    assert!(!message.is_empty() && !message.contains('\n'), "{what}: {message:?}");
    message
}

#[test]
fn bad_inputs_are_errors() {
    let x = vec![vec![0.1, 0.2], vec![0.3, 0.4], vec![0.5, 0.9]];
    let y = vec![1.0, 2.0, 3.0];
    let p = SvrParams::default();
    one_line_error(Svr::fit(&x, &y[..2], &p), "mismatched lengths");
    one_line_error(Svr::fit(&[], &[], &p), "no rows");
    one_line_error(Svr::fit(&[vec![], vec![]], &[1.0, 2.0], &p), "no features");
    one_line_error(Svr::fit(&[vec![0.1, 0.2], vec![0.3]], &[1.0, 2.0], &p), "ragged rows");
    let mut nan = x.clone();
    nan[1][0] = f64::NAN;
    assert!(one_line_error(Svr::fit(&nan, &y, &p), "NaN cell").contains("row 1, column 0"));
    let mut inf = x.clone();
    inf[2][1] = f64::INFINITY;
    one_line_error(Svr::fit(&inf, &y, &p), "infinite cell");
    one_line_error(Svr::fit(&x, &[1.0, f64::NAN, 3.0], &p), "NaN target");
    for c in [0.0, -1.0, f64::NAN] {
        one_line_error(Svr::fit(&x, &y, &SvrParams { c, ..p }), "C <= 0");
    }
    one_line_error(Svr::fit(&x, &y, &SvrParams { epsilon: -0.1, ..p }), "negative epsilon");
    one_line_error(Svr::fit(&x, &y, &SvrParams { tol: 0.0, ..p }), "zero tol");
    one_line_error(Svr::fit(&x, &y, &SvrParams { kernel: Kernel::Rbf { gamma: 0.0 }, ..p }), "zero gamma");
    let poly = Kernel::Poly { degree: 2, gamma: 1.0, coef0: f64::INFINITY };
    one_line_error(Svr::fit(&x, &y, &SvrParams { kernel: poly, ..p }), "infinite coef0");
    one_line_error(cross_val_r2(&x, &y, &p, 5), "more folds than rows allow");
    one_line_error(cross_val_r2(&x, &y, &p, 1), "one fold");
    let empty = SvrGrid { kernels: vec![], ..SvrGrid::default() };
    let six: Vec<Vec<f64>> = (0..6).map(|i| vec![i as f64 / 6.0, 0.5]).collect();
    one_line_error(grid_search(&six, &[1.0, 2.0, 3.0, 4.0, 5.0, 1.0], &empty, 3), "empty grid");
}

#[test]
fn epsilon_zero_is_accepted() {
    let f = fixture();
    let (x, y) = train(&f);
    let model = Svr::fit(&x, &y, &SvrParams { epsilon: 0.0, kernel: Kernel::Linear, ..SvrParams::default() }).unwrap();
    assert!(model.predict(&x[0]).is_finite());
}
