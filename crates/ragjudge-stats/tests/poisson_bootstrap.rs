//! The streaming Poisson bootstrap against the classic bootstrap and normal theory.

use ragjudge_stats::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

fn normal_sample(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let dist = Normal::new(0.6, 0.25).unwrap();
    (0..n).map(|_| rng.sample(dist)).collect()
}

fn width(ci: &Ci) -> f64 {
    ci.high - ci.low
}

#[test]
fn poisson_ci_agrees_with_classic_and_normal_theory() {
    let xs = normal_sample(2000, 11);
    let n = xs.len() as f64;
    let m = mean(&xs).unwrap();
    let se = std_dev(&xs).unwrap() / n.sqrt();
    let t = StudentsT::new(0.0, 1.0, n - 1.0).unwrap().inverse_cdf(0.975);
    let theory = Ci { estimate: m, low: m - t * se, high: m + t * se, level: 0.95 };
    let classic = bootstrap_ci(&xs, |v| mean(v).unwrap_or(f64::NAN), 2000, 0.95, 3).unwrap();

    for seed in [1u64, 2, 3] {
        let mut pb = PoissonBootstrapMean::new(1000, seed);
        for &x in &xs {
            pb.push(x);
        }
        let ci = pb.ci(0.95).unwrap();
        assert_eq!(pb.count(), 2000);
        assert!((ci.estimate - m).abs() < 1e-12);
        assert!(ci.low < m && m < ci.high);
        for (name, other) in [("classic bootstrap", &classic), ("normal theory", &theory)] {
            let rel = (width(&ci) - width(other)).abs() / width(other);
            println!(
                "seed {seed}: Poisson width {:.6} vs {name} {:.6} ({:.1}%)",
                width(&ci),
                width(other),
                rel * 100.0
            );
            assert!(rel < 0.10, "seed {seed}: width off by {:.1}% from {name}", rel * 100.0);
            // Centres agree to a small fraction of the width.
            let centre = |c: &Ci| (c.low + c.high) / 2.0;
            assert!((centre(&ci) - centre(other)).abs() < 0.1 * width(other));
        }
    }
}

#[test]
fn poisson_is_deterministic_for_a_seed() {
    let xs = normal_sample(500, 5);
    let run = |seed| {
        let mut pb = PoissonBootstrapMean::new(200, seed);
        xs.iter().for_each(|&x| pb.push(x));
        pb.ci(0.9).unwrap()
    };
    assert_eq!(run(8), run(8));
    assert_ne!(run(8), run(9));
}

#[test]
fn shared_weights_equal_own_weights_with_same_seed() {
    // push() on an accumulator seeded s draws exactly what PoissonWeights::new(B, s) does.
    let xs = normal_sample(300, 6);
    let mut own = PoissonBootstrapMean::new(100, 77);
    let mut shared = PoissonBootstrapMean::new(100, 0);
    let mut weights = PoissonWeights::new(100, 77);
    for &x in &xs {
        own.push(x);
        shared.push_weighted(x, weights.draw());
    }
    assert_eq!(own.ci(0.95), shared.ci(0.95));
}

#[test]
fn poisson_push_is_fast() {
    // 5k values x 1000 replicates; a few microseconds per value in release builds.
    let mut pb = PoissonBootstrapMean::with_seed(1);
    let start = std::time::Instant::now();
    for i in 0..5_000 {
        pb.push((i % 97) as f64);
    }
    let per_value = start.elapsed().as_secs_f64() / 5_000.0;
    println!("Poisson push: {:.2} us per value (1000 replicates)", per_value * 1e6);
    assert!(pb.ci(0.95).is_some());
    // Generous bound so unoptimised test builds on a loaded machine still pass.
    assert!(per_value < 2e-3);
}
