//! Coverage of split conformal sets (HCAT §5.2) on 1,000 seeded synthetic
//! exchangeable data sets per setting: the mean coverage must reach `1 - alpha` and stay below
//! the upper bound `(k + 1) / (n + 1)`, `k = ceil((n + 1)(1 - alpha))`, that holds when scores
//! have no ties (Angelopoulos and Bates 2023, theorem D.1 and D.2); that upper bound is checked
//! for the LAC sets of the continuous Platt and ordinal probabilities.
//!
//! The calibration split has n = 198 rows, so `n + 1 = 199` makes the expected coverage
//! `k / (n + 1)` exceed `1 - alpha` by at least 0.004 for every alpha here (alpha = 0.05:
//! ceil(189.05) = 190, 190/199 = 0.9548; 0.1: ceil(179.1) = 180, 0.9045; 0.2: ceil(159.2) = 160,
//! 0.8040). Per data set the coverage has a standard deviation of about
//! sqrt(alpha (1 - alpha) / n) ~ 0.02 plus test-split noise ~ 0.01, so the mean of 1,000 has a
//! Monte Carlo error near 0.0007, well inside that margin.

use ragjudge_stats::calibration::{Calibrator, Method};
use ragjudge_stats::conformal::{ConformalScore, Coverage, SplitConformal};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const DATASETS: u64 = 1000;
const N_FIT: usize = 200;
const N_CAL: usize = 198;
const N_TEST: usize = 1000;
const ALPHAS: [f64; 3] = [0.05, 0.1, 0.2];

struct Data {
    x: Vec<Vec<f64>>,
    y: Vec<usize>,
}

fn logistic_noise(rng: &mut ChaCha8Rng) -> f64 {
    let u: f64 = rng.gen_range(1e-12..1.0 - 1e-12);
    (u / (1.0 - u)).ln()
}

/// Binary labels: `P(y = 1 | s) = expit(6 s - 3)`, `s ~ U(0, 1)`.
fn binary(rng: &mut ChaCha8Rng, n: usize) -> Data {
    let x: Vec<Vec<f64>> = (0..n).map(|_| vec![rng.gen::<f64>()]).collect();
    let y = x.iter().map(|r| usize::from(6.0 * r[0] - 3.0 + logistic_noise(rng) > 0.0)).collect();
    Data { x, y }
}

/// Four ordered levels: latent `4 s + logistic noise` cut at 1, 2 and 3.
fn ordinal(rng: &mut ChaCha8Rng, n: usize) -> Data {
    let x: Vec<Vec<f64>> = (0..n).map(|_| vec![rng.gen::<f64>()]).collect();
    let y = x
        .iter()
        .map(|r| {
            let z = 4.0 * r[0] + logistic_noise(rng);
            [1.0, 2.0, 3.0].iter().filter(|&&c| z > c).count()
        })
        .collect();
    Data { x, y }
}

/// Mean (over data sets) coverage of each alpha, plus the 5th percentile for the report.
fn simulate(
    method: Method,
    score: ConformalScore,
    levels: usize,
    gen: fn(&mut ChaCha8Rng, usize) -> Data,
) -> Vec<(f64, f64)> {
    let mut cov: Vec<Vec<f64>> = vec![Vec::new(); ALPHAS.len()];
    for seed in 0..DATASETS {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (fit, cal, test) = (gen(&mut rng, N_FIT), gen(&mut rng, N_CAL), gen(&mut rng, N_TEST));
        let model = Calibrator::fit(method, &fit.x, &fit.y, levels).expect("fit");
        let probs = |d: &Data| -> Vec<Vec<f64>> { d.x.iter().map(|r| model.predict_proba(r).unwrap()).collect() };
        let (p_cal, p_test) = (probs(&cal), probs(&test));
        for (i, &alpha) in ALPHAS.iter().enumerate() {
            let c = SplitConformal::calibrate(score, &p_cal, &cal.y, alpha).unwrap();
            cov[i].push(Coverage::measure(&c, &p_test, &test.y).unwrap().coverage);
        }
    }
    cov.into_iter()
        .map(|mut v| {
            v.sort_by(f64::total_cmp);
            (v.iter().sum::<f64>() / v.len() as f64, v[v.len() / 20])
        })
        .collect()
}

fn check(name: &str, results: &[(f64, f64)], check_upper: bool) {
    for (&alpha, &(mean, p5)) in ALPHAS.iter().zip(results) {
        let k = ((N_CAL + 1) as f64 * (1.0 - alpha)).ceil();
        let upper = (k + 1.0) / (N_CAL + 1) as f64;
        println!(
            "{name} alpha {alpha}: mean coverage {mean:.4} (5th percentile {p5:.4}), bounds [{:.4}, {upper:.4}]",
            1.0 - alpha
        );
        assert!(mean >= 1.0 - alpha, "{name} alpha {alpha}: mean coverage {mean} < {}", 1.0 - alpha);
        if check_upper {
            assert!(mean <= upper + 0.003, "{name} alpha {alpha}: mean coverage {mean} > {upper}: sets too large");
        }
    }
}

#[test]
fn binary_platt_sets_cover() {
    check("binary platt LAC", &simulate(Method::Platt, ConformalScore::Lac, 2, binary), true);
}

#[test]
fn binary_isotonic_sets_cover() {
    // Isotonic probabilities have ties (flat pieces), so only the lower bound holds.
    check("binary isotonic LAC", &simulate(Method::Isotonic, ConformalScore::Lac, 2, binary), false);
}

#[test]
fn multilevel_ordinal_lac_sets_cover() {
    check("4-level ordinal LAC", &simulate(Method::Ordinal, ConformalScore::Lac, 4, ordinal), true);
}

#[test]
fn multilevel_ordinal_aps_sets_cover() {
    // Non-randomised APS scores pile up at 1 (the least likely label), so only the lower
    // bound holds.
    check("4-level ordinal APS", &simulate(Method::Ordinal, ConformalScore::Aps, 4, ordinal), false);
}
