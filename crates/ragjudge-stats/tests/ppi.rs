//! Prediction-powered inference against `ppi_py` 0.2.3 (fixture written by
//! `tests/fixtures/make_ppi_fixture.py`), and its coverage and width over simulated data sets.

use ragjudge_stats::ppi::{ppi_mean, tuned_lambda};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;

fn floats(v: &Value) -> Vec<f64> {
    v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect()
}

#[test]
fn estimates_and_intervals_equal_ppi_py() {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/ppi_fixture.json")).unwrap();
    let fx: Value = serde_json::from_str(&text).unwrap();
    let cases = fx["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 8);
    for (k, c) in cases.iter().enumerate() {
        let (y, yhat, yu) = (floats(&c["y"]), floats(&c["yhat"]), floats(&c["yhat_unlabelled"]));
        let alpha = c["alpha"].as_f64().unwrap();
        for (name, lambda) in [("tuned", None), ("ppi", Some(1.0)), ("classical_lam0", Some(0.0))] {
            let r = ppi_mean(&y, &yhat, &yu, alpha, lambda).unwrap();
            let want = &c[name];
            let ci = floats(&want["ci"]);
            let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * (1.0 + b.abs());
            assert!(close(r.ppi.estimate, want["estimate"].as_f64().unwrap()), "case {k} {name}: {r:?} vs {want}");
            assert!(close(r.ppi.low, ci[0]) && close(r.ppi.high, ci[1]), "case {k} {name}: {r:?} vs {want}");
            let cl = floats(&c["classical"]["ci"]);
            assert!(close(r.classical.low, cl[0]) && close(r.classical.high, cl[1]), "case {k}: {r:?}");
        }
    }
}

/// Labels Y ~ Bernoulli(p_i), judge Ŷ = p_i + noise + bias (an informative but biased judge).
fn simulate(rng: &mut ChaCha8Rng, n: usize, big_n: usize, bias: f64) -> (Vec<f64>, Vec<f64>, Vec<f64>, f64) {
    let truth: f64 = 0.6;
    let mut draw = |m: usize| -> (Vec<f64>, Vec<f64>) {
        (0..m)
            .map(|_| {
                let p: f64 = (truth + rng.gen_range(-0.35..0.35_f64)).clamp(0.0, 1.0);
                let y = if rng.gen::<f64>() < p { 1.0 } else { 0.0 };
                let yhat = (p + bias + rng.gen_range(-0.1..0.1_f64)).clamp(0.0, 1.0);
                (y, yhat)
            })
            .unzip()
    };
    let (y, yhat) = draw(n);
    let (_, yu) = draw(big_n);
    (y, yhat, yu, truth)
}

#[test]
fn intervals_cover_the_truth_and_beat_the_labels_alone_over_1000_data_sets() {
    let (alpha, sets) = (0.1, 1000);
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let (mut covered, mut classical_covered, mut narrower) = (0, 0, 0);
    let (mut width, mut classical_width) = (0.0, 0.0);
    for _ in 0..sets {
        let (y, yhat, yu, truth) = simulate(&mut rng, 100, 2000, 0.08);
        let r = ppi_mean(&y, &yhat, &yu, alpha, None).unwrap();
        covered += usize::from(r.ppi.low <= truth && truth <= r.ppi.high);
        classical_covered += usize::from(r.classical.low <= truth && truth <= r.classical.high);
        narrower += usize::from(r.ppi.high - r.ppi.low < r.classical.high - r.classical.low);
        width += (r.ppi.high - r.ppi.low) / sets as f64;
        classical_width += (r.classical.high - r.classical.low) / sets as f64;
    }
    let coverage = covered as f64 / sets as f64;
    eprintln!(
        "coverage {coverage:.3} (labels only {:.3}); mean width {width:.4} vs {classical_width:.4}; narrower in {narrower} of {sets}",
        classical_covered as f64 / sets as f64
    );
    assert!(coverage >= 1.0 - alpha - 0.01, "coverage {coverage}");
    assert!(width < classical_width, "{width} vs {classical_width}");
    assert!(narrower > 950, "{narrower}");
}

#[test]
fn an_uninformative_judge_gets_lambda_near_zero_and_bad_input_is_refused() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let y: Vec<f64> = (0..200).map(|_| rng.gen::<f64>()).collect();
    let yhat: Vec<f64> = (0..200).map(|_| rng.gen::<f64>()).collect();
    let yu: Vec<f64> = (0..1000).map(|_| rng.gen::<f64>()).collect();
    assert!(tuned_lambda(&y, &yhat, &yu) < 0.15);
    assert!(ppi_mean(&y, &y[..199], &yu, 0.1, None).is_err());
    assert!(ppi_mean(&y[..1], &yhat[..1], &yu, 0.1, None).is_err());
    assert!(ppi_mean(&y, &yhat, &[], 0.1, None).is_err());
    assert!(ppi_mean(&y, &yhat, &yu, 1.5, None).is_err());
    let mut bad = yu.clone();
    bad[3] = f64::NAN;
    assert!(ppi_mean(&y, &yhat, &bad, 0.1, None).is_err());
}
