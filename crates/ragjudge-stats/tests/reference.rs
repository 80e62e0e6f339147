//! Compares ragjudge-stats with scipy, scikit-learn and numpy on fixtures written by
//! `fixtures/make_stats_reference.py` (versions recorded in the fixture header).

use ragjudge_stats::*;
use serde_json::Value;

const TOL: f64 = 1e-9;

fn fixture() -> Value {
    let text = include_str!("fixtures/stats_reference.json");
    serde_json::from_str(text).expect("valid fixture JSON")
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array().unwrap().iter().map(|a| a.as_f64().unwrap()).collect()
}

/// Tracks the largest absolute difference per quantity, failing past `TOL`.
#[derive(Default)]
struct MaxDiff(Vec<(String, f64)>);

impl MaxDiff {
    fn check(&mut self, what: &str, case: &str, got: Option<f64>, want: &Value) {
        match (got, want.as_f64()) {
            (None, None) => {}
            (Some(g), Some(w)) => {
                let d = (g - w).abs();
                assert!(d <= TOL, "{case}: {what}: got {g}, scipy/sklearn/numpy {w}, diff {d:e}");
                match self.0.iter_mut().find(|(k, _)| k == what) {
                    Some(entry) => entry.1 = entry.1.max(d),
                    None => self.0.push((what.to_string(), d)),
                }
            }
            (g, _) => panic!("{case}: {what}: got {g:?}, expected {want}"),
        }
    }

    fn report(&self, title: &str) {
        println!("max |diff| vs reference ({title}):");
        for (k, d) in &self.0 {
            println!("  {k:<28} {d:.3e}");
        }
    }
}

#[test]
fn fixture_header_names_versions() {
    let f = fixture();
    for key in ["numpy", "scipy", "scikit-learn"] {
        assert!(f["versions"][key].is_string(), "missing version of {key}");
    }
}

#[test]
fn correlations_match_scipy() {
    let f = fixture();
    let mut md = MaxDiff::default();
    for case in f["correlation"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let x = floats(&case["x"]);
        let y = floats(&case["y"]);
        for (level_key, level) in [("0.95", 0.95), ("0.9", 0.90)] {
            let p = pearson_with_level(&x, &y, level).unwrap();
            let s = spearman_with_level(&x, &y, level).unwrap();
            let k = kendall_tau_b_with_level(&x, &y, level).unwrap();
            for c in [&p, &s, &k] {
                assert_eq!(c.n, x.len());
            }
            md.check("pearson r", name, p.coefficient, &case["pearson"]["r"]);
            md.check("pearson p", name, p.p_value, &case["pearson"]["p"]);
            md.check("spearman rho", name, s.coefficient, &case["spearman"]["r"]);
            md.check("spearman p", name, s.p_value, &case["spearman"]["p"]);
            md.check("kendall tau-b", name, k.coefficient, &case["kendall"]["tau"]);
            md.check("kendall p", name, k.p_value, &case["kendall"]["p"]);
            let pci = &case["pearson"]["ci"][level_key];
            md.check("pearson ci (scipy)", name, p.ci_low, &pci[0]);
            md.check("pearson ci (scipy)", name, p.ci_high, &pci[1]);
            let sci = &case["spearman"]["ci"][level_key];
            md.check("spearman ci (Fieller)", name, s.ci_low, &sci[0]);
            md.check("spearman ci (Fieller)", name, s.ci_high, &sci[1]);
            let kci = &case["kendall"]["ci"][level_key];
            md.check("kendall ci (Fieller)", name, k.ci_low, &kci[0]);
            md.check("kendall ci (Fieller)", name, k.ci_high, &kci[1]);
        }
    }
    md.report("scipy.stats correlations");
}

/// A permutation of `0..n` with exactly `k` inversions (greedy Lehmer code).
fn perm_with_inversions(n: usize, mut k: usize) -> Vec<f64> {
    let mut avail: Vec<usize> = (0..n).collect();
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let step = k.min(n - 1 - i);
        out.push(avail.remove(step) as f64);
        k -= step;
    }
    out
}

#[test]
fn kendall_exact_p_matches_scipy_for_every_count() {
    let f = fixture();
    let mut md = MaxDiff::default();
    for case in f["kendall_exact"].as_array().unwrap() {
        let n = case["n"].as_u64().unwrap() as usize;
        let x: Vec<f64> = (0..n).map(|i| i as f64).collect();
        for (dis, want) in case["p_by_discordant"].as_array().unwrap().iter().enumerate() {
            let y = perm_with_inversions(n, dis);
            let got = kendall_tau_b(&x, &y).unwrap().p_value;
            md.check("kendall exact p", &format!("n={n} dis={dis}"), got, want);
        }
    }
    md.report("scipy kendalltau exact branch");
}

#[test]
fn kappa_and_confusion_match_sklearn() {
    let f = fixture();
    let mut md = MaxDiff::default();
    for case in f["kappa"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let want_cm: Vec<Vec<u64>> = case["confusion"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect())
            .collect();
        let results = match case["kind"].as_str().unwrap() {
            "str" => {
                let conv = |v: &Value| -> Vec<String> {
                    v.as_array().unwrap().iter().map(|a| a.as_str().unwrap().to_string()).collect()
                };
                run_kappa(&conv(&case["y1"]), &conv(&case["y2"]), &conv(&case["labels"]))
            }
            _ => {
                let conv =
                    |v: &Value| -> Vec<i64> { v.as_array().unwrap().iter().map(|a| a.as_i64().unwrap()).collect() };
                run_kappa(&conv(&case["y1"]), &conv(&case["y2"]), &conv(&case["labels"]))
            }
        };
        let (cm, acc, kappas) = results;
        assert_eq!(cm, want_cm, "{name}: confusion matrix");
        md.check("accuracy", name, acc, &case["accuracy"]);
        md.check("kappa (none)", name, kappas[0], &case["kappa"]["none"]);
        md.check("kappa (linear)", name, kappas[1], &case["kappa"]["linear"]);
        md.check("kappa (quadratic)", name, kappas[2], &case["kappa"]["quadratic"]);
    }
    md.report("sklearn.metrics");
}

type KappaResults = (Vec<Vec<u64>>, Option<f64>, [Option<f64>; 3]);

fn run_kappa<T: Ord + Clone + std::fmt::Debug>(y1: &[T], y2: &[T], labels: &[T]) -> KappaResults {
    assert_eq!(unique_labels(y1, y2), labels, "label order");
    let cm = confusion_matrix(y1, y2, labels).unwrap();
    let acc = accuracy(y1, y2).unwrap();
    let k = [Weights::None, Weights::Linear, Weights::Quadratic].map(|w| cohen_kappa(y1, y2, w).unwrap());
    (cm, acc, k)
}

#[test]
fn describe_matches_numpy() {
    let f = fixture();
    let mut md = MaxDiff::default();
    for case in f["describe"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let v = floats(&case["values"]);
        // Relative tolerance for large-offset data: compare scaled differences.
        md.check("mean", name, mean(&v), &case["mean"]);
        md.check("var (ddof=0)", name, population_variance(&v), &case["var_population"]);
        md.check("var (ddof=1)", name, variance(&v), &case["var_sample"]);
        md.check("std (ddof=1)", name, std_dev(&v), &case["std_sample"]);
        md.check("std (ddof=0)", name, population_std_dev(&v), &case["std_population"]);
        md.check("median", name, median(&v), &case["median"]);
        md.check("iqr", name, iqr(&v), &case["iqr"]);
        md.check("cv", name, coefficient_of_variation(&v), &case["cv"]);
        let qs = floats(&case["quantile_qs"]);
        let got = quantiles(&v, &qs).unwrap();
        for (i, want) in case["quantiles"].as_array().unwrap().iter().enumerate() {
            md.check("quantile", name, Some(got[i]), want);
            md.check("quantile (single)", name, quantile(&v, qs[i]), want);
        }
        let s: Summary = v.iter().copied().collect();
        md.check("Summary mean", name, s.mean(), &case["mean"]);
        md.check("Summary var (ddof=1)", name, s.variance(), &case["var_sample"]);
        md.check("Summary min", name, s.min(), &case["min"]);
        md.check("Summary max", name, s.max(), &case["max"]);
    }
    md.report("numpy");
}

#[test]
fn rankdata_matches_scipy() {
    let f = fixture();
    for case in f["rank"].as_array().unwrap() {
        assert_eq!(rankdata_average(&floats(&case["values"])), floats(&case["ranks"]));
    }
}
