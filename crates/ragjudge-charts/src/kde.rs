//! Quantiles and a Gaussian kernel density estimate with Silverman's rule-of-thumb bandwidth,
//! for box and violin plots.

/// The `q`-quantile of sorted, finite values ([`ragjudge_stats::quantile_sorted`]: numpy's
/// linear interpolation); NaN for no values, which draws nothing.
pub(crate) fn quantile(sorted: &[f64], q: f64) -> f64 {
    ragjudge_stats::quantile_sorted(sorted, q).unwrap_or(f64::NAN)
}

/// Sample standard deviation (n - 1 in the denominator); 0 for fewer than two values.
pub(crate) fn sample_sd(values: &[f64]) -> f64 {
    let n = values.len();
    if n < 2 {
        return 0.0;
    }
    let mean = values.iter().sum::<f64>() / n as f64;
    let ss: f64 = values.iter().map(|v| (v - mean) * (v - mean)).sum();
    (ss / (n - 1) as f64).sqrt()
}

/// Silverman's rule of thumb (Silverman 1986, eq. 3.31): `0.9 * min(sd, IQR / 1.34) * n^(-1/5)`.
///
/// Falls back to `sd` when the IQR is 0, and to `None` when all values are equal (or there are
/// fewer than two), where a density is not defined.
pub(crate) fn silverman_bandwidth(values: &[f64]) -> Option<f64> {
    let n = values.len();
    if n < 2 {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let sd = sample_sd(values);
    let iqr = quantile(&sorted, 0.75) - quantile(&sorted, 0.25);
    let spread = sd.min(iqr / 1.34);
    let spread = if spread > 0.0 { spread } else { sd };
    if spread > 0.0 && spread.is_finite() {
        Some(0.9 * spread * (n as f64).powf(-0.2))
    } else {
        None
    }
}

/// A Gaussian kernel density estimate.
#[derive(Debug, Clone)]
pub(crate) struct Kde<'a> {
    data: &'a [f64],
    bandwidth: f64,
}

impl<'a> Kde<'a> {
    /// A KDE over `data` with Silverman's bandwidth; `None` when all values are equal.
    pub(crate) fn silverman(data: &'a [f64]) -> Option<Self> {
        silverman_bandwidth(data).map(|bandwidth| Kde { data, bandwidth })
    }

    /// A KDE over `data` with the given bandwidth.
    #[cfg(test)]
    pub(crate) fn with_bandwidth(data: &'a [f64], bandwidth: f64) -> Self {
        Kde { data, bandwidth }
    }

    /// The bandwidth (kernel standard deviation).
    #[cfg(test)]
    pub(crate) fn bandwidth(&self) -> f64 {
        self.bandwidth
    }

    /// `f(x) = 1 / (n h) * sum_i phi((x - x_i) / h)` with `phi` the standard normal density.
    pub(crate) fn density(&self, x: f64) -> f64 {
        let h = self.bandwidth;
        let norm = 1.0 / ((2.0 * std::f64::consts::PI).sqrt() * h * self.data.len() as f64);
        self.data
            .iter()
            .map(|xi| {
                let z = (x - xi) / h;
                (-0.5 * z * z).exp()
            })
            .sum::<f64>()
            * norm
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_type7() {
        let s = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile(&s, 0.25), 1.75);
        assert_eq!(quantile(&s, 0.5), 2.5);
        assert_eq!(quantile(&s, 0.75), 3.25);
        assert_eq!(quantile(&[7.0], 0.3), 7.0);
    }

    /// By hand for data {0, 1}: sd = 1/sqrt(2) = 0.707107, IQR = 0.75 - 0.25 = 0.5,
    /// IQR/1.34 = 0.373134 (the smaller), h = 0.9 * 0.373134 * 2^(-0.2) = 0.292349.
    /// f(0.5) = 2 * phi(0.5 / h) / (2 h) = phi(1.710284) / h = 0.092414 / 0.292349 = 0.316109.
    /// f(0) = (phi(0) + phi(1/h)) / (2 h) = (0.398942 + 0.001149) / 0.584698 = 0.684268.
    #[test]
    fn hand_computed_two_points() {
        let data = [0.0, 1.0];
        let kde = Kde::silverman(&data).unwrap();
        assert!((kde.bandwidth() - 0.292349).abs() < 1e-6, "{}", kde.bandwidth());
        assert!((kde.density(0.5) - 0.316109).abs() < 1e-5, "{}", kde.density(0.5));
        assert!((kde.density(0.0) - 0.684268).abs() < 1e-5, "{}", kde.density(0.0));
    }

    #[test]
    fn equal_values_have_no_bandwidth() {
        assert!(silverman_bandwidth(&[2.0, 2.0, 2.0]).is_none());
        assert!(silverman_bandwidth(&[2.0]).is_none());
        // IQR 0 but sd > 0: falls back to sd.
        let v = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 10.0];
        let sd = sample_sd(&v);
        let h = silverman_bandwidth(&v).unwrap();
        assert!((h - 0.9 * sd * 8f64.powf(-0.2)).abs() < 1e-12);
    }

    /// Densities from `scipy.stats.gaussian_kde` (scipy 1.17.1) with the bandwidth fixed to the
    /// same Silverman value; `tests/fixtures/kde_scipy.py` made `kde_scipy.json`.
    #[test]
    fn matches_scipy_gaussian_kde() {
        let fixture: serde_json::Value =
            serde_json::from_str(include_str!("../tests/fixtures/kde_scipy.json")).unwrap();
        for case in fixture["cases"].as_array().unwrap() {
            let data: Vec<f64> = serde_json::from_value(case["data"].clone()).unwrap();
            let h_expected = case["bandwidth"].as_f64().unwrap();
            let h = silverman_bandwidth(&data).unwrap();
            assert!((h - h_expected).abs() < 1e-12, "{h} vs {h_expected}");
            let kde = Kde::with_bandwidth(&data, h);
            let xs: Vec<f64> = serde_json::from_value(case["x"].clone()).unwrap();
            let ds: Vec<f64> = serde_json::from_value(case["density"].clone()).unwrap();
            for (x, d) in xs.iter().zip(&ds) {
                let got = kde.density(*x);
                assert!((got - d).abs() < 1e-12 * d.max(1.0), "f({x}) = {got}, scipy {d}");
            }
        }
    }
}
