//! Length-controlled Bradley-Terry against statsmodels 0.14.5's GLM (binomial, logit, no
//! intercept) on the fixture `tests/fixtures/lc_bt_fixture.json` (make_lc_bt_fixture.py).

use ragjudge_dice::bradley_terry::PairOutcome;
use ragjudge_dice::length_control::fit_length_controlled;
use serde_json::Value;

#[test]
fn equals_statsmodels_glm() {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/lc_bt_fixture.json")).unwrap();
    let fx: Value = serde_json::from_str(&text).unwrap();
    let n = fx["n"].as_u64().unwrap() as usize;
    let (mut outcomes, mut diffs) = (Vec::new(), Vec::new());
    for o in fx["outcomes"].as_array().unwrap() {
        outcomes.push(PairOutcome {
            question: o["question"].as_str().unwrap().into(),
            i: o["i"].as_u64().unwrap() as usize,
            j: o["j"].as_u64().unwrap() as usize,
            s_i: o["s_i"].as_f64().unwrap(),
            s_j: o["s_j"].as_f64().unwrap(),
        });
        diffs.push(o["len_i"].as_f64().unwrap() - o["len_j"].as_f64().unwrap());
    }
    let fit = fit_length_controlled(n, &outcomes, &diffs, 0.0);
    assert!(fit.converged);
    assert!((fit.scale - fx["scale"].as_f64().unwrap()).abs() < 1e-9);
    assert!((fit.gamma - fx["gamma"].as_f64().unwrap()).abs() < 1e-8, "{} vs {}", fit.gamma, fx["gamma"]);
    for (a, b) in fit.bt.iter().zip(fx["bt"].as_array().unwrap()) {
        assert!((a - b.as_f64().unwrap()).abs() < 1e-8, "{:?} vs {}", fit.bt, fx["bt"]);
    }
}

#[test]
fn a_judge_that_only_follows_length_gives_equal_strengths() {
    // Two systems; whoever's answer is longer wins 0.9, whatever the system. Half the time
    // system 0 writes the longer answer: the raw strengths are equal and so are the controlled
    // ones, with a clearly positive gamma.
    let mut outcomes = Vec::new();
    let mut diffs = Vec::new();
    for q in 0..40 {
        let longer_first = q % 2 == 0;
        outcomes.push(PairOutcome {
            question: format!("q{q}"),
            i: 0,
            j: 1,
            s_i: if longer_first { 0.9 } else { 0.1 },
            s_j: if longer_first { 0.1 } else { 0.9 },
        });
        diffs.push(if longer_first { 100.0 } else { -100.0 });
    }
    let fit = fit_length_controlled(2, &outcomes, &diffs, 0.0);
    assert!(fit.bt[0].abs() < 1e-9 && fit.bt[1].abs() < 1e-9);
    // d = tanh(1) for every outcome; 0.9 = sigmoid(gamma tanh(1)) -> gamma = ln(9) / tanh(1).
    assert!((fit.gamma - 9f64.ln() / 1f64.tanh()).abs() < 1e-9, "{}", fit.gamma);
}

#[test]
fn a_rank_won_by_length_alone_is_flagged() {
    use ragjudge_dice::length_control::length_control;
    // Systems a and b are equally good, but b writes the longer answer on three questions in
    // four and the judge gives the longer answer 0.9.
    let systems = vec!["a".to_string(), "b".to_string()];
    let mut outcomes = Vec::new();
    for q in 0..40usize {
        let b_longer = !q.is_multiple_of(4);
        let s_i = if b_longer { 0.1 } else { 0.9 };
        outcomes.push(PairOutcome { question: format!("q{q}"), i: 0, j: 1, s_i, s_j: 1.0 - s_i });
    }
    let length = |system: usize, q: &str| {
        let k: usize = q[1..].parse().unwrap();
        let b_longer = !k.is_multiple_of(4);
        Some(if (system == 1) == b_longer { 300.0 } else { 100.0 })
    };
    let lc = length_control(&systems, &outcomes, length, 0.0);
    assert_eq!(lc.skipped, 0);
    assert!(lc.systems[1].bt > lc.systems[0].bt + 0.5, "{:?}", lc.systems);
    assert!(lc.systems[0].bt_lc.abs() < 1e-9 && lc.systems[1].bt_lc.abs() < 1e-9, "{:?}", lc.systems);
    assert!(lc.fit.gamma > 1.0);
    // Raw: b first, a second; controlled: level, both first. a's rank depended on length.
    assert_eq!((lc.systems[1].rank, lc.systems[1].rank_lc), (1, 1));
    assert_eq!((lc.systems[0].rank, lc.systems[0].rank_lc), (2, 1));
    assert_eq!(lc.length_dependent, vec!["a".to_string()]);
    // Raw strengths: b wins 0.9 x 30 + 0.1 x 10 = 28 of 40 -> log-odds ln(28 / 12) between them.
    assert!(((lc.systems[1].bt - lc.systems[0].bt) - (28f64 / 12.0).ln()).abs() < 1e-9);
}
