//! Exact Wasserstein distance against POT's `ot.emd2` and against hand-solved transport problems.

use approx::assert_abs_diff_eq;
use ragjudge_hcat::{exact_uniform, mean_pairwise, HcatError};
use serde_json::Value;

/// Checks that `plan` is a coupling of the uniform marginals of an `n x k` problem.
fn assert_marginals(plan: &[(usize, usize, f64)], n: usize, k: usize) {
    let mut rows = vec![0.0; n];
    let mut cols = vec![0.0; k];
    for &(i, j, m) in plan {
        assert!(m > 0.0);
        rows[i] += m;
        cols[j] += m;
    }
    for r in rows {
        assert_abs_diff_eq!(r, 1.0 / n as f64, epsilon = 1e-12);
    }
    for c in cols {
        assert_abs_diff_eq!(c, 1.0 / k as f64, epsilon = 1e-12);
    }
}

#[test]
fn exact_value_matches_pot_emd2_on_fixture_cases() {
    // Fixture made by tests/fixtures/make_wasserstein.py (POT 0.9.7.post1, ot.emd2).
    let text = include_str!("fixtures/wasserstein_pot.json");
    let fixture: Value = serde_json::from_str(text).unwrap();
    let cases = fixture["cases"].as_array().unwrap();
    assert!(cases.len() >= 20);
    for case in cases {
        let cost: Vec<Vec<f64>> = serde_json::from_value(case["cost"].clone()).unwrap();
        let expected = case["emd2"].as_f64().unwrap();
        let t = exact_uniform(&cost).unwrap();
        assert!((t.cost - expected).abs() <= 1e-9, "{}: got {}, POT {}", case["name"], t.cost, expected);
        assert_marginals(&t.plan, cost.len(), cost[0].len());
        // The plan's own cost is the reported value.
        let plan_cost: f64 = t.plan.iter().map(|&(i, j, m)| m * cost[i][j]).sum();
        assert_abs_diff_eq!(plan_cost, t.cost, epsilon = 1e-12);
    }
}

#[test]
fn three_sources_two_sinks_solved_by_hand() {
    // Masses 1/3 per row, 1/2 per column. Row 3 goes wholly to column 2 (0.2). Rows 1 and 2 prefer
    // column 1; column 2 still needs 1/2 - 1/3 = 1/6, cheapest from row 2 (extra 0.52 - 0.04 = 0.48
    // against 0.8 for row 1). W = (0.2/3) + (0.04/6) + (0.52/6) + (0.2/3) = 1.36/6.
    let cost = vec![vec![0.2, 1.0], vec![0.04, 0.52], vec![1.0, 0.2]];
    let t = exact_uniform(&cost).unwrap();
    assert_abs_diff_eq!(t.cost, 1.36 / 6.0, epsilon = 1e-12);
    let expected = [(0, 0, 1.0 / 3.0), (1, 0, 1.0 / 6.0), (1, 1, 1.0 / 6.0), (2, 1, 1.0 / 3.0)];
    assert_eq!(t.plan.len(), expected.len());
    for (got, want) in t.plan.iter().zip(expected) {
        assert_eq!((got.0, got.1), (want.0, want.1));
        assert_abs_diff_eq!(got.2, want.2, epsilon = 1e-12);
    }
    // Mean pairwise: (0.2 + 1 + 0.04 + 0.52 + 1 + 0.2) / 6 = 2.96 / 6.
    assert_abs_diff_eq!(mean_pairwise(&cost).unwrap(), 2.96 / 6.0, epsilon = 1e-12);
}

#[test]
fn one_source_or_one_sink_moves_everything_so_exact_equals_mean() {
    // With one source (or one sink) there is only one plan: the exact value is the mean cost.
    let row = vec![vec![0.1, 0.5, 0.9]];
    assert_abs_diff_eq!(exact_uniform(&row).unwrap().cost, 0.5, epsilon = 1e-12);
    let col = vec![vec![0.3], vec![0.7]];
    assert_abs_diff_eq!(exact_uniform(&col).unwrap().cost, 0.5, epsilon = 1e-12);
    assert_abs_diff_eq!(exact_uniform(&[vec![0.25]]).unwrap().cost, 0.25, epsilon = 1e-15);
}

#[test]
fn permutation_problem_finds_the_matching_not_the_mean() {
    // Square, zero diagonal: the identity matching costs 0, the mean pairwise cost is 2 * 1 / 4.
    let cost = vec![vec![0.0, 1.0], vec![1.0, 0.0]];
    assert_abs_diff_eq!(exact_uniform(&cost).unwrap().cost, 0.0, epsilon = 1e-15);
    assert_abs_diff_eq!(mean_pairwise(&cost).unwrap(), 0.5, epsilon = 1e-15);
}

#[test]
fn negative_costs_are_shifted_not_rejected() {
    // Subtracting 1 from every cost of the 2x2 case lowers W by exactly 1: 0 - 1 = -1.
    let cost = vec![vec![-1.0, 0.0], vec![0.0, -1.0]];
    assert_abs_diff_eq!(exact_uniform(&cost).unwrap().cost, -1.0, epsilon = 1e-15);
}

#[test]
fn empty_ragged_and_non_finite_inputs_are_errors() {
    assert_eq!(exact_uniform(&[]), Err(HcatError::EmptyTransport));
    assert_eq!(exact_uniform(&[vec![]]), Err(HcatError::EmptyTransport));
    assert!(matches!(exact_uniform(&[vec![0.1, 0.2], vec![0.3]]), Err(HcatError::InvalidCost(_))));
    assert!(matches!(exact_uniform(&[vec![f64::NAN]]), Err(HcatError::InvalidCost(_))));
    assert_eq!(mean_pairwise(&[]), None);
}
