//! Confidence intervals of a binomial proportion.

use statrs::distribution::{ContinuousCDF, Normal};

/// The Wilson score interval (Wilson 1927) of `successes` out of `n` at confidence `level`
/// (e.g. 0.95), as statsmodels' `proportion_confint(method="wilson")`; `None` when `n` is 0 or
/// `level` is not in (0, 1).
pub fn wilson(successes: u64, n: u64, level: f64) -> Option<(f64, f64)> {
    if n == 0 || !(level > 0.0 && level < 1.0) || successes > n {
        return None;
    }
    let z = Normal::standard().inverse_cdf(1.0 - (1.0 - level) / 2.0);
    let (n, p) = (n as f64, successes as f64 / n as f64);
    let z2 = z * z;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = z / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    Some(((centre - half).max(0.0), (centre + half).min(1.0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// statsmodels 0.14.5 `proportion_confint(k, n, alpha=0.05, method="wilson")`.
    #[test]
    fn wilson_equals_statsmodels() {
        let cases = [
            (7, 10, 0.39677814746114537, 0.8922087325936989),
            (0, 5, 0.0, 0.43448246478317487),
            (150, 200, 0.6856590168795417, 0.8049183199318249),
            (41, 66, 0.5005847591462179, 0.7285055300626205),
        ];
        for (k, n, lo, hi) in cases {
            let (a, b) = wilson(k, n, 0.95).unwrap();
            assert!((a - lo).abs() < 1e-12 && (b - hi).abs() < 1e-12, "{k}/{n}: ({a}, {b}) vs ({lo}, {hi})");
        }
        assert_eq!(wilson(0, 0, 0.95), None);
        assert_eq!(wilson(3, 2, 0.95), None);
    }
}
