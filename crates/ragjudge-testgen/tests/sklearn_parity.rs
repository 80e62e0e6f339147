//! Parity with scikit-learn 1.9.1 (numpy 2.4.6) on fixtures made by `fixtures/make_fixtures.py`.

use approx::assert_abs_diff_eq;
use ndarray::Array2;
use ragjudge_testgen::cluster::{dbscan, kmeans, kmeans_auto, silhouette, KMeansOptions};
use ragjudge_testgen::reduce::Projection;
use serde_json::Value;

fn fixture() -> Value {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/sklearn.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn matrix(v: &Value) -> Array2<f64> {
    let rows: Vec<Vec<f64>> = serde_json::from_value(v.clone()).unwrap();
    let d = rows[0].len();
    Array2::from_shape_vec((rows.len(), d), rows.into_iter().flatten().collect()).unwrap()
}

fn floats(v: &Value) -> Vec<f64> {
    serde_json::from_value(v.clone()).unwrap()
}

fn ints(v: &Value) -> Vec<i64> {
    serde_json::from_value(v.clone()).unwrap()
}

/// Whether two labellings are the same partition (equal up to renaming the clusters).
fn same_partition(a: &[i64], b: &[i64]) -> bool {
    let mut map = std::collections::HashMap::new();
    let mut back = std::collections::HashMap::new();
    a.iter().zip(b).all(|(x, y)| *map.entry(x).or_insert(y) == y && *back.entry(y).or_insert(x) == x)
}

#[test]
fn pca_matches_scikit_learn_up_to_sign() {
    let f = &fixture()["pca"];
    let x = matrix(&f["x"]);
    let p = Projection::fit(&x, 3).unwrap();
    for (a, b) in p.explained_variance().iter().zip(floats(&f["explained_variance"])) {
        assert_abs_diff_eq!(*a, b, epsilon = 1e-8 * b.max(1.0));
    }
    for (a, b) in p.explained_variance_ratio().iter().zip(floats(&f["explained_variance_ratio"])) {
        assert_abs_diff_eq!(*a, b, epsilon = 1e-9);
    }
    let want = matrix(&f["components_"]);
    let t = p.transform(&x);
    let want_t = matrix(&f["transformed"]);
    for k in 0..3 {
        let sign = if p.components().row(k).dot(&want.row(k)) < 0.0 { -1.0 } else { 1.0 };
        for (a, b) in p.components().row(k).iter().zip(want.row(k)) {
            assert_abs_diff_eq!(sign * a, *b, epsilon = 1e-7);
        }
        for (a, b) in t.column(k).iter().zip(want_t.column(k)) {
            assert_abs_diff_eq!(sign * a, *b, epsilon = 1e-6);
        }
    }
}

#[test]
fn kmeans_matches_scikit_learn_partition_and_inertia() {
    let f = &fixture()["kmeans"];
    let x = matrix(&f["x"]);
    let (labels, inertia) = kmeans(&x, 3, 10, 0).unwrap();
    let labels: Vec<i64> = labels.iter().map(|&l| l as i64).collect();
    assert!(same_partition(&labels, &ints(&f["labels"])));
    assert_abs_diff_eq!(inertia, f["inertia"].as_f64().unwrap(), epsilon = 1e-8);
}

#[test]
fn silhouette_matches_scikit_learn_for_each_k_and_picks_three() {
    let f = &fixture()["kmeans"];
    let x = matrix(&f["x"]);
    // For k = 2 and 3 both find the same partition (the blobs), so the scores must agree.
    for k in 2..=3usize {
        let (labels, _) = kmeans(&x, k, 10, 0).unwrap();
        let want = f["silhouette_by_k"][k.to_string()].as_f64().unwrap();
        assert_abs_diff_eq!(silhouette(&x, &labels).unwrap(), want, epsilon = 1e-12);
    }
    let auto = kmeans_auto(&x, &KMeansOptions { k_max: 6, ..KMeansOptions::default() }).unwrap();
    assert_eq!(auto.clusters, 3);
    assert_abs_diff_eq!(auto.silhouette.unwrap(), f["silhouette_by_k"]["3"].as_f64().unwrap(), epsilon = 1e-12);
    assert_eq!(auto.k_scores.iter().map(|s| s.0).collect::<Vec<_>>(), [2, 3, 4, 5, 6]);
}

#[test]
fn silhouette_with_a_singleton_cluster_matches_scikit_learn() {
    let f = &fixture()["silhouette_small"];
    let x = matrix(&f["x"]);
    let labels: Vec<usize> = ints(&f["labels"]).iter().map(|&l| l as usize).collect();
    assert_abs_diff_eq!(silhouette(&x, &labels).unwrap(), f["score"].as_f64().unwrap(), epsilon = 1e-12);
}

#[test]
fn dbscan_matches_scikit_learn_with_noise() {
    let f = &fixture()["dbscan"];
    let x = matrix(&f["x"]);
    let c = dbscan(&x, f["eps"].as_f64().unwrap(), f["min_samples"].as_u64().unwrap() as usize).unwrap();
    let ours: Vec<i64> = c.labels.iter().map(|l| l.map_or(-1, |v| v as i64)).collect();
    let want = ints(&f["labels"]);
    assert_eq!(ours.iter().map(|&l| l < 0).collect::<Vec<_>>(), want.iter().map(|&l| l < 0).collect::<Vec<_>>());
    assert!(same_partition(&ours, &want));
    assert_eq!(c.clusters, 2);
}
