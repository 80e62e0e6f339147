//! Equal-frequency bins: hand-computed edges, `numpy.digitize` semantics, merged ties, errors,
//! and bit-for-bit agreement with numpy 2.4.6 (`tests/fixtures/bins/make_numpy_bins.py`).

use ragjudge_fusion::bins::Bins;
use ragjudge_fusion::FusionError;
use serde::Deserialize;

fn column(values: &[f64]) -> Vec<Vec<f64>> {
    values.iter().map(|&v| vec![v]).collect()
}

#[test]
fn edges_of_one_to_ten_with_five_bins() {
    // Values 1..=10, n = 10, N = 5: quantile q sits at h = (n - 1) q = 9 q of the sorted column
    // (0-based), interpolated linearly between v[floor h] and v[floor h + 1]:
    //   q = 0.2: h = 1.8 -> v[1] + 0.8 (v[2] - v[1]) = 2 + 0.8 = 2.8
    //   q = 0.4: h = 3.6 -> 4 + 0.6 = 4.6
    //   q = 0.6: h = 5.4 -> 6 + 0.4 = 6.4
    //   q = 0.8: h = 7.2 -> 8 + 0.2 = 8.2
    // (numpy.quantile(np.arange(1, 11), [0.2, 0.4, 0.6, 0.8]) gives the same.)
    let x = column(&[7.0, 1.0, 10.0, 2.0, 9.0, 3.0, 8.0, 4.0, 6.0, 5.0]); // order must not matter
    let b = Bins::fit(&x, 5).unwrap();
    assert_eq!(b.n_bins(), 5);
    assert_eq!(b.n_metrics(), 1);
    assert_eq!(b.bins_of(0), 5);
    let expected = [2.8, 4.6, 6.4, 8.2];
    assert_eq!(b.edges(0).len(), 4);
    for (got, want) in b.edges(0).iter().zip(expected) {
        assert!((got - want).abs() < 1e-12, "{got} vs {want}");
    }
    // digitize: 1, 2 < 2.8 -> 0; 3, 4 -> 1; 5, 6 -> 2; 7, 8 -> 3; 9, 10 -> 4
    let bins: Vec<usize> = (1..=10).map(|v| b.bin(&[f64::from(v)])[0]).collect();
    assert_eq!(bins, vec![0, 0, 1, 1, 2, 2, 3, 3, 4, 4]);
}

#[test]
fn digitize_semantics_at_and_beyond_the_edges() {
    // Values 0..=8, n = 9, N = 4: h = 8 q = 2, 4, 6 exactly, so the edges are exactly [2, 4, 6].
    let x = column(&[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
    let b = Bins::fit(&x, 4).unwrap();
    assert_eq!(b.edges(0), &[2.0, 4.0, 6.0]);
    let bin = |v: f64| b.bin(&[v])[0];
    // numpy.digitize(v, [2, 4, 6], right=False): a value equal to an edge goes up
    assert_eq!(bin(2.0), 1);
    assert_eq!(bin(4.0), 2);
    assert_eq!(bin(6.0), 3);
    assert_eq!(bin(1.999_999), 0);
    assert_eq!(bin(5.999_999), 2);
    // out of the training range: first or last bin
    assert_eq!(bin(-1e9), 0);
    assert_eq!(bin(f64::NEG_INFINITY), 0);
    assert_eq!(bin(1e9), 3);
    assert_eq!(bin(f64::INFINITY), 3);
    // numpy.digitize(nan, edges) == len(edges)
    assert_eq!(bin(f64::NAN), 3);
}

#[test]
fn bins_each_column_with_its_own_edges() {
    let x: Vec<Vec<f64>> = (0..9).map(|i| vec![f64::from(i), 100.0 - 10.0 * f64::from(i)]).collect();
    let b = Bins::fit(&x, 4).unwrap();
    assert_eq!(b.n_metrics(), 2);
    assert_eq!(b.edges(0), &[2.0, 4.0, 6.0]);
    assert_eq!(b.edges(1), &[40.0, 60.0, 80.0]);
    assert_eq!(b.bin(&[4.0, 40.0]), vec![2, 1]);
    assert_eq!(b.bin(&[0.0, 100.0]), vec![0, 3]);
}

#[test]
fn tied_edges_merge_into_fewer_bins() {
    // A BLEU-like column: six zeros, then 1, 2, 3, 4 (n = 10, N = 5, h = 9 q):
    //   q = 0.2: h = 1.8 -> 0 + 0.8 (0 - 0) = 0
    //   q = 0.4: h = 3.6 -> 0
    //   q = 0.6: h = 5.4 -> v[5] + 0.4 (v[6] - v[5]) = 0 + 0.4 (1 - 0) = 0.4
    //   q = 0.8: h = 7.2 -> v[7] + 0.2 (v[8] - v[7]) = 2 + 0.2 = 2.2
    // Edges [0, 0, 0.4, 2.2] merge to [0, 0.4, 2.2]: 4 bins, and the zeros sit in bin 1 (0 >= 0).
    let x = column(&[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 4.0]);
    let b = Bins::fit(&x, 5).unwrap();
    assert_eq!(b.n_bins(), 5);
    assert_eq!(b.bins_of(0), 4);
    assert_eq!(b.edges(0).len(), 3);
    assert_eq!(b.edges(0)[0], 0.0);
    assert!((b.edges(0)[1] - 0.4).abs() < 1e-12);
    assert!((b.edges(0)[2] - 2.2).abs() < 1e-12);
    assert_eq!(b.bin(&[0.0]), vec![1]);
    assert_eq!(b.bin(&[-0.1]), vec![0]);
    assert_eq!(b.bin(&[1.0]), vec![2]);
    assert_eq!(b.bin(&[4.0]), vec![3]);
}

#[test]
fn a_constant_column_keeps_one_edge() {
    let x = column(&[3.0; 12]);
    let b = Bins::fit(&x, 5).unwrap();
    assert_eq!(b.edges(0), &[3.0]);
    assert_eq!(b.bins_of(0), 2);
    assert_eq!(b.bin(&[3.0]), vec![1]);
    assert_eq!(b.bin(&[2.0]), vec![0]);
}

#[test]
fn fit_errors() {
    let good = column(&[1.0, 2.0, 3.0, 4.0]);
    assert!(matches!(Bins::fit(&good, 1), Err(FusionError::Params(_))));
    assert!(matches!(Bins::fit(&good, 0), Err(FusionError::Params(_))));
    assert!(matches!(Bins::fit(&[], 5), Err(FusionError::Data(_))));
    assert!(matches!(Bins::fit(&[vec![], vec![]], 5), Err(FusionError::Data(_))));
    let ragged = vec![vec![1.0, 2.0], vec![3.0]];
    let err = Bins::fit(&ragged, 2).unwrap_err();
    assert!(matches!(err, FusionError::Data(_)));
    assert!(err.to_string().contains("row 1"), "{err}");
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let x = vec![vec![1.0, 2.0], vec![3.0, bad], vec![5.0, 6.0]];
        let err = Bins::fit(&x, 2).unwrap_err();
        assert!(matches!(err, FusionError::Data(_)));
        assert!(err.to_string().contains("row 1, metric 1"), "{err}");
    }
}

#[test]
#[should_panic(expected = "Bins::bin")]
fn bin_panics_on_a_row_of_the_wrong_length() {
    let b = Bins::fit(&column(&[1.0, 2.0, 3.0, 4.0]), 2).unwrap();
    let _ = b.bin(&[1.0, 2.0]);
}

#[test]
fn serde_round_trip_and_checks_on_load() {
    let x: Vec<Vec<f64>> = (0..20).map(|i| vec![f64::from(i) * 0.37, f64::from(i % 7)]).collect();
    let b = Bins::fit(&x, 5).unwrap();
    let json = serde_json::to_string(&b).unwrap();
    let back: Bins = serde_json::from_str(&json).unwrap();
    assert_eq!(back, b);
    for bad in [
        r#"{"n_bins":5,"edges":[[2.0,1.0]]}"#, // not ascending
        r#"{"n_bins":5,"edges":[[1.0,1.0]]}"#, // not distinct
        r#"{"n_bins":2,"edges":[[1.0,2.0]]}"#, // more edges than N - 1
        r#"{"n_bins":5,"edges":[[]]}"#,        // no edge
        r#"{"n_bins":5,"edges":[]}"#,          // no metric
        r#"{"n_bins":1,"edges":[[1.0]]}"#,     // N < 2
    ] {
        assert!(serde_json::from_str::<Bins>(bad).is_err(), "{bad} was accepted");
    }
}

#[derive(Deserialize)]
struct Fixture {
    numpy: String,
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    name: String,
    n_bins: usize,
    x: Vec<Vec<f64>>,
    edges: Vec<Vec<f64>>,
    probes: Vec<Vec<f64>>,
    bins: Vec<Vec<usize>>,
}

#[test]
fn matches_numpy_quantile_and_digitize_bit_for_bit() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/bins/numpy_bins.json");
    let fixture: Fixture = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(fixture.numpy, "2.4.6");
    assert_eq!(fixture.cases.len(), 4);
    for case in &fixture.cases {
        let b = Bins::fit(&case.x, case.n_bins).unwrap();
        assert_eq!(b.n_metrics(), case.edges.len(), "{}", case.name);
        for (m, want) in case.edges.iter().enumerate() {
            let got: Vec<u64> = b.edges(m).iter().map(|v| v.to_bits()).collect();
            let want_bits: Vec<u64> = want.iter().map(|v| v.to_bits()).collect();
            assert_eq!(got, want_bits, "{} metric {m}: {:?} vs numpy {want:?}", case.name, b.edges(m));
        }
        for m in 0..b.n_metrics() {
            for (&v, &want) in case.probes[m].iter().zip(&case.bins[m]) {
                let mut row = vec![0.0; b.n_metrics()];
                row[m] = v;
                assert_eq!(b.bin(&row)[m], want, "{} metric {m} value {v}", case.name);
            }
        }
    }
    // the tie case really merges edges
    let ties = &fixture.cases[1];
    assert!(ties.edges.iter().any(|e| e.len() < ties.n_bins - 1));
}
