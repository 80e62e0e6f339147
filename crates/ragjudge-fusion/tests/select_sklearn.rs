//! Compares the Table 2 feature-selection strategies with scikit-learn's selectors on fixtures
//! written by `fixtures/svr/make_fixtures.py` (versions in the fixture).

use ragjudge_fusion::select::{f_regression, forest_importances, select, select_many, table2_strategies, Strategy};
use serde_json::Value;

fn fixture() -> Value {
    serde_json::from_str(include_str!("fixtures/svr/select_cases.json")).expect("valid fixture JSON")
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array().unwrap().iter().map(|a| a.as_f64().unwrap()).collect()
}

fn rows(v: &Value) -> Vec<Vec<f64>> {
    v.as_array().unwrap().iter().map(floats).collect()
}

fn indices(v: &Value) -> Vec<usize> {
    v.as_array().unwrap().iter().map(|a| a.as_u64().unwrap() as usize).collect()
}

fn assert_relative(what: &str, got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: lengths differ");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let scale = w.abs().max(f64::MIN_POSITIVE);
        assert!((g - w).abs() <= tol * scale, "{what}[{i}]: got {g}, scikit-learn {w}");
    }
}

#[test]
fn fixture_names_versions() {
    let f = fixture();
    assert_eq!(f["versions"]["scikit-learn"], "1.9.1");
    assert_eq!(f["versions"]["numpy"], "2.4.6");
}

#[test]
fn f_regression_matches_sklearn() {
    for dataset in fixture()["datasets"].as_array().unwrap() {
        let name = dataset["name"].as_str().unwrap();
        let (f_statistic, p_values) = f_regression(&rows(&dataset["x"]), &floats(&dataset["y"])).unwrap();
        assert_relative(&format!("{name} F"), &f_statistic, &floats(&dataset["f_statistic"]), 1e-8);
        assert_relative(&format!("{name} p"), &p_values, &floats(&dataset["p_values"]), 1e-8);
    }
}

#[test]
fn every_deterministic_strategy_selects_sklearns_columns() {
    for dataset in fixture()["datasets"].as_array().unwrap() {
        let name = dataset["name"].as_str().unwrap();
        let (x, y) = (rows(&dataset["x"]), floats(&dataset["y"]));
        let supports = dataset["supports"].as_object().unwrap();
        assert_eq!(supports.len(), 17, "{name}: every Table 2 row but Random Forest");
        for (label, want) in supports {
            let strategy = Strategy::parse(label).unwrap_or_else(|| panic!("unknown label {label}"));
            let got = select(strategy, &x, &y, 0).unwrap();
            assert_eq!(got, indices(want), "{name}: {label}");
        }
        // The shared score cache changes nothing.
        let strategies: Vec<Strategy> = supports.keys().map(|label| Strategy::parse(label).unwrap()).collect();
        let together = select_many(&strategies, &x, &y, 0).unwrap();
        for (strategy, got) in strategies.iter().zip(together) {
            assert_eq!(got, indices(&supports[&strategy.label()]), "{name}: {} in select_many", strategy.label());
        }
    }
}

#[test]
fn random_forest_finds_the_strong_columns_deterministically() {
    let forest = &fixture()["forest"];
    let (x, y) = (rows(&forest["x"]), floats(&forest["y"]));
    let want = indices(&forest["support"]);
    assert_eq!(want, vec![1, 4], "the fixture's signal is in columns 1 and 4");
    for seed in [0, 1, 42] {
        let got = select(Strategy::RandomForest, &x, &y, seed).unwrap();
        assert_eq!(got, want, "seed {seed}");
        assert_eq!(select(Strategy::RandomForest, &x, &y, seed).unwrap(), got, "seed {seed} repeats");
    }
    let importances = forest_importances(&x, &y, 100, 0).unwrap();
    assert!((importances.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    for (j, (got, want)) in importances.iter().zip(floats(&forest["importances"])).enumerate() {
        assert!((got - want).abs() < 0.05, "importance {j}: {got}, scikit-learn {want}");
    }
    assert_ne!(forest_importances(&x, &y, 10, 1).unwrap(), forest_importances(&x, &y, 10, 2).unwrap());
}

#[test]
fn table2_rows_in_order() {
    let labels: Vec<String> = table2_strategies(6).iter().map(Strategy::label).collect();
    let want = [
        "Univariate",
        "Random Forest",
        "Recursive-5",
        "Recursive-4",
        "Recursive-3",
        "Recursive-2",
        "Recursive-1",
        "Forward-1",
        "Forward-2",
        "Forward-3",
        "Forward-4",
        "Forward-5",
        "Backward-1",
        "Backward-2",
        "Backward-3",
        "Backward-4",
        "Backward-5",
        "All",
    ];
    assert_eq!(labels, want);
}

#[test]
fn bad_inputs_are_errors() {
    let dataset = &fixture()["datasets"][0];
    let (x, y) = (rows(&dataset["x"]), floats(&dataset["y"]));
    for strategy in [
        Strategy::Forward(0),
        Strategy::Forward(6),
        Strategy::Backward(7),
        Strategy::Recursive(0),
        Strategy::Recursive(6),
    ] {
        let err = select(strategy, &x, &y, 0).expect_err(&strategy.label()).to_string();
        assert!(err.contains(&strategy.label()) && !err.contains('\n'), "{err}");
    }
    let one_column: Vec<Vec<f64>> = x.iter().map(|row| vec![row[0]]).collect();
    assert!(select(Strategy::Univariate, &one_column, &y, 0).is_err());
    assert!(select(Strategy::All, &x, &y[1..], 0).is_err(), "mismatched lengths");
    assert!(select(Strategy::Univariate, &[], &[], 0).is_err(), "no rows");
    let mut nan = x.clone();
    nan[3][2] = f64::NAN;
    let err = select(Strategy::Forward(2), &nan, &y, 0).unwrap_err().to_string();
    assert!(err.contains("row 3, column 2"), "{err}");
    assert!(f_regression(&x[..2], &y[..2]).is_err(), "two rows leave no degrees of freedom");
    let few: Vec<Vec<f64>> = x[..8].to_vec();
    assert!(select(Strategy::Backward(2), &few, &y[..8], 0).is_err(), "5 folds need 10 rows");
}

#[test]
fn constant_column_scores_zero() {
    let x: Vec<Vec<f64>> = (0..10).map(|i| vec![0.5, i as f64 / 10.0]).collect();
    let y: Vec<f64> = (0..10).map(|i| 1.0 + (i % 5) as f64).collect();
    let (f_statistic, p_values) = f_regression(&x, &y).unwrap();
    assert_eq!((f_statistic[0], p_values[0]), (0.0, 1.0));
    assert_eq!(select(Strategy::Univariate, &x, &y, 0).unwrap(), vec![1]);
}
