//! Krippendorff's alpha against the `krippendorff` package 0.8.1 and Fleiss' kappa against
//! statsmodels 0.15.0 (`fixtures/reliability_reference.json`, made by
//! `fixtures/make_reliability_reference.py`).

use ragjudge_stats::{
    cohen_kappa, fleiss_kappa, krippendorff_alpha, pairwise_cohen_kappa, MeasurementLevel, ReliabilityData, Weights,
};
use serde_json::Value;

const TOL: f64 = 1e-9;

fn fixture() -> Value {
    serde_json::from_str(include_str!("fixtures/reliability_reference.json")).expect("valid fixture JSON")
}

fn matrix(v: &Value) -> Vec<Vec<Option<f64>>> {
    v.as_array().unwrap().iter().map(|row| row.as_array().unwrap().iter().map(Value::as_f64).collect()).collect()
}

fn case<'a>(f: &'a Value, name: &str) -> &'a Value {
    f["alpha"].as_array().unwrap().iter().find(|c| c["name"] == name).unwrap()
}

fn key(level: MeasurementLevel) -> &'static str {
    match level {
        MeasurementLevel::Nominal => "nominal",
        MeasurementLevel::Ordinal => "ordinal",
        MeasurementLevel::Interval => "interval",
        MeasurementLevel::Ratio => "ratio",
    }
}

#[test]
fn alpha_matches_krippendorff_package() {
    let f = fixture();
    assert_eq!(f["krippendorff"], "0.8.1");
    let mut worst = 0.0f64;
    let mut checked = 0;
    for case in f["alpha"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let data = matrix(&case["data"]);
        for level in MeasurementLevel::ALL {
            let got = krippendorff_alpha(&data, level).unwrap();
            assert_eq!(got.pairable_items as u64, case["pairable_items"].as_u64().unwrap(), "{name}");
            assert_eq!(got.pairable_values as u64, case["pairable_values"].as_u64().unwrap(), "{name}");
            assert_eq!((got.annotators, got.items), (data.len(), data[0].len()), "{name}");
            match (got.alpha, case["alpha"][key(level)].as_f64()) {
                (Some(g), Some(w)) => {
                    worst = worst.max((g - w).abs());
                    assert!((g - w).abs() <= TOL, "{name} {level:?}: {g} vs krippendorff {w}");
                    checked += 1;
                }
                (None, None) => {}
                (g, w) => panic!("{name} {level:?}: got {g:?}, krippendorff {w:?}"),
            }
        }
    }
    assert!(checked >= 60, "only {checked} defined alphas");
    println!("{checked} alphas; largest |diff| vs krippendorff: {worst:e}");
}

/// Krippendorff (2011), section C: nominal 0.743, ordinal 0.815, interval 0.849, ratio 0.797.
#[test]
fn published_example() {
    let f = fixture();
    let data = matrix(&case(&f, "krippendorff 2011 example")["data"]);
    for (level, want) in [
        (MeasurementLevel::Nominal, 0.743),
        (MeasurementLevel::Ordinal, 0.815),
        (MeasurementLevel::Interval, 0.849),
        (MeasurementLevel::Ratio, 0.797),
    ] {
        let a = krippendorff_alpha(&data, level).unwrap();
        assert!((a.alpha.unwrap() - want).abs() < 5e-4, "{level:?}: {:?}", a.alpha);
        // Unit 12 has a single value: 11 pairable units with 40 values.
        assert_eq!((a.pairable_items, a.pairable_values), (11, 40));
    }
    // Section C, nominal: the off-diagonal coincidences sum to 8 and n_c = (9, 13, 10, 5, 3),
    // n = 40; D_o = 8/40, D_e = (40^2 - sum n_c^2) / (40 * 39) = 1216/1560,
    // alpha = 1 - 39 * 8 / 1216.
    let nominal = krippendorff_alpha(&data, MeasurementLevel::Nominal).unwrap();
    assert!((nominal.observed_disagreement - 8.0 / 40.0).abs() < 1e-12);
    assert!((nominal.expected_disagreement - 1216.0 / 1560.0).abs() < 1e-12);
    assert!((nominal.alpha.unwrap() - (1.0 - 39.0 * 8.0 / 1216.0)).abs() < 1e-12);
}

/// With two annotators each item labelled by both adds one coincidence per ordered pair, so
/// `o_ck` counts the items labelled (c, k) or (k, c) and `o_cc` twice the items labelled (c, c)
/// (Krippendorff 2011, section B); alpha = 1 - (n - 1) sum o_ck delta_ck / sum n_c n_k delta_ck.
#[test]
fn two_annotators_equal_the_formula() {
    let f = fixture();
    for name in ["two annotators", "binary 2 x 10 complete"] {
        let data = matrix(&case(&f, name)["data"]);
        let pairs: Vec<(f64, f64)> = data[0].iter().zip(&data[1]).filter_map(|(a, b)| Some(((*a)?, (*b)?))).collect();
        let mut values: Vec<f64> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
        values.sort_by(f64::total_cmp);
        values.dedup();
        let at = |v: f64| values.iter().position(|&w| w == v).unwrap();
        let k = values.len();
        let mut o = vec![vec![0.0; k]; k];
        for &(a, b) in &pairs {
            o[at(a)][at(b)] += 1.0;
            o[at(b)][at(a)] += 1.0;
        }
        let n_c: Vec<f64> = o.iter().map(|row| row.iter().sum()).collect();
        let n = 2.0 * pairs.len() as f64;
        for level in MeasurementLevel::ALL {
            let delta = |c: usize, d: usize| -> f64 {
                let (lo, hi) = (c.min(d), c.max(d));
                match level {
                    MeasurementLevel::Nominal => f64::from(u8::from(c != d)),
                    MeasurementLevel::Ordinal => (n_c[lo..=hi].iter().sum::<f64>() - (n_c[lo] + n_c[hi]) / 2.0).powi(2),
                    MeasurementLevel::Interval => (values[c] - values[d]).powi(2),
                    // 0/0 on the diagonal at value 0: no difference.
                    MeasurementLevel::Ratio if c == d => 0.0,
                    MeasurementLevel::Ratio => ((values[c] - values[d]) / (values[c] + values[d])).powi(2),
                }
            };
            let (mut num, mut den) = (0.0, 0.0);
            for c in 0..k {
                for d in 0..k {
                    num += o[c][d] * delta(c, d);
                    den += n_c[c] * n_c[d] * delta(c, d);
                }
            }
            let by_hand = 1.0 - (n - 1.0) * num / den;
            let got = krippendorff_alpha(&data, level).unwrap().alpha.unwrap();
            assert!((got - by_hand).abs() < 1e-12, "{name} {level:?}: {got} vs {by_hand}");
            let want = case(&f, name)["alpha"][key(level)].as_f64().unwrap();
            assert!((got - want).abs() <= TOL, "{name} {level:?}: {got} vs krippendorff {want}");
        }
    }
}

/// The same alphas from (annotator, item, value) triples in scrambled order.
#[test]
fn alpha_from_triples() {
    let f = fixture();
    let data = matrix(&case(&f, "codes 1-5 3 x 20")["data"]);
    let mut triples = Vec::new();
    for (a, row) in data.iter().enumerate() {
        for (i, v) in row.iter().enumerate() {
            if let Some(v) = v {
                triples.push((format!("annotator-{a}"), format!("item-{:02}", (i * 7) % 20), *v));
            }
        }
    }
    triples.reverse();
    let built = ReliabilityData::from_triples(triples).unwrap();
    assert_eq!(built.annotators.len(), 3);
    for level in MeasurementLevel::ALL {
        let got = krippendorff_alpha(&built.values, level).unwrap();
        let direct = krippendorff_alpha(&data, level).unwrap();
        assert!((got.alpha.unwrap() - direct.alpha.unwrap()).abs() < 1e-12, "{level:?}");
        assert_eq!(got.pairable_values, direct.pairable_values);
        // Items nobody labelled do not appear among the triples.
        assert_eq!(got.pairable_items, direct.pairable_items);
    }
}

/// Each pairwise kappa is `cohen_kappa` (scikit-learn) on the pair's common items.
#[test]
fn pairwise_kappa_is_cohen_kappa_of_each_pair() {
    let f = fixture();
    for name in ["codes 1-3 5 x 40", "likert close agreement 4 x 25", "binary 4 x 30"] {
        let data = matrix(&case(&f, name)["data"]);
        for weights in [Weights::None, Weights::Linear, Weights::Quadratic] {
            let got = pairwise_cohen_kappa(&data, weights).unwrap();
            let m = data.len();
            assert_eq!(got.pairs.len(), m * (m - 1) / 2);
            let mut kappas = Vec::new();
            for p in &got.pairs {
                // Integer codes: the values themselves are small integers.
                let (a, b): (Vec<i64>, Vec<i64>) = data[p.first]
                    .iter()
                    .zip(&data[p.second])
                    .filter_map(|(a, b)| Some(((*a)? as i64, (*b)? as i64)))
                    .unzip();
                assert_eq!(p.items, a.len());
                let want = cohen_kappa(&a, &b, weights).unwrap();
                assert_eq!(p.kappa, want, "{name} {weights:?} {}-{}", p.first, p.second);
                kappas.extend(want);
            }
            let mean = kappas.iter().sum::<f64>() / kappas.len() as f64;
            assert!((got.mean.unwrap() - mean).abs() < 1e-15);
        }
    }
}

#[test]
fn fleiss_matches_statsmodels() {
    let f = fixture();
    assert_eq!(f["statsmodels"], "0.15.0");
    for case in f["fleiss"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let got = fleiss_kappa(&matrix(&case["data"])).unwrap();
        match (got, case["kappa"].as_f64()) {
            (Some(g), Some(w)) => assert!((g - w).abs() <= TOL, "{name}: {g} vs statsmodels {w}"),
            (None, None) => {}
            (g, w) => panic!("{name}: got {g:?}, statsmodels {w:?}"),
        }
    }
    // Fleiss (1971): 0.210.
    let wiki = f["fleiss"].as_array().unwrap().iter().find(|c| c["name"] == "fleiss 1971 wikipedia").unwrap();
    assert!((fleiss_kappa(&matrix(&wiki["data"])).unwrap().unwrap() - 0.210).abs() < 5e-4);
}
