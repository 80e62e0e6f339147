//! RUBER's unreferenced scorer on synthetic embeddings, and the referenced score and blend by hand.

use ragjudge_fusion::ruber::{combined, normalise_referenced, referenced, Blend, RuberParams, RuberUnreferenced};
use ragjudge_fusion::FusionError;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const DIM: usize = 16;
const ENCODER: &str = "synthetic:0000000000000000";

fn gaussian(rng: &mut ChaCha8Rng) -> f64 {
    // Box-Muller.
    let (u, v): (f64, f64) = (rng.gen_range(1e-12..1.0), rng.gen_range(0.0..1.0));
    (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
}

fn unit(v: Vec<f64>) -> Vec<f32> {
    let n = v.iter().map(|x| x * x).sum::<f64>().sqrt();
    v.iter().map(|x| (x / n) as f32).collect()
}

/// A random rotation of R^DIM (Gram-Schmidt on Gaussian rows).
fn rotation(rng: &mut ChaCha8Rng) -> Vec<Vec<f64>> {
    let mut rows: Vec<Vec<f64>> = Vec::new();
    while rows.len() < DIM {
        let mut v: Vec<f64> = (0..DIM).map(|_| gaussian(rng)).collect();
        for u in &rows {
            let d: f64 = v.iter().zip(u).map(|(a, b)| a * b).sum();
            v.iter_mut().zip(u).for_each(|(a, b)| *a -= d * b);
        }
        let n = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        rows.push(v.iter().map(|x| x / n).collect());
    }
    rows
}

/// `n` pairs: q random on the unit sphere, r = unit(R q + 0.7 noise) for one fixed rotation R.
fn pairs(n: usize, rot: &[Vec<f64>], rng: &mut ChaCha8Rng) -> (Vec<Vec<f32>>, Vec<Vec<f32>>) {
    let (mut qs, mut rs) = (Vec::new(), Vec::new());
    for _ in 0..n {
        let q: Vec<f64> = (0..DIM).map(|_| gaussian(rng)).collect();
        let qn = q.iter().map(|x| x * x).sum::<f64>().sqrt();
        let rq: Vec<f64> = rot.iter().map(|row| row.iter().zip(&q).map(|(a, b)| a * b / qn).sum::<f64>()).collect();
        let noise_scale = 0.7 / (DIM as f64).sqrt();
        rs.push(unit(rq.iter().map(|x| x + noise_scale * gaussian(rng)).collect()));
        qs.push(unit(q));
    }
    (qs, rs)
}

fn small_params(seed: u64) -> RuberParams {
    RuberParams { hidden: vec![32, 16], epochs: 60, batch_size: 32, seed, ..RuberParams::default() }
}

/// Area under the ROC curve: the share of (positive, negative) pairs ranked right, ties half.
fn auc(pos: &[f64], neg: &[f64]) -> f64 {
    let mut wins = 0.0;
    for p in pos {
        for n in neg {
            wins += if p > n {
                1.0
            } else if p == n {
                0.5
            } else {
                0.0
            };
        }
    }
    wins / (pos.len() * neg.len()) as f64
}

#[test]
fn true_pairs_outscore_unrelated_pairs_on_held_out_data() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let rot = rotation(&mut rng);
    let (train_q, train_r) = pairs(400, &rot, &mut rng);
    let (test_q, test_r) = pairs(100, &rot, &mut rng);
    let model = RuberUnreferenced::fit(&train_q, &train_r, &small_params(1), ENCODER).unwrap();
    let pos: Vec<f64> = (0..100).map(|i| model.score(&test_q[i], &test_r[i]).unwrap()).collect();
    // Each held-out query with the reply of the held-out pair 37 places on (another record).
    let neg: Vec<f64> = (0..100).map(|i| model.score(&test_q[i], &test_r[(i + 37) % 100]).unwrap()).collect();
    let a = auc(&pos, &neg);
    assert!(a > 0.9, "held-out AUC {a}");
    assert!(pos.iter().chain(&neg).all(|s| (0.0..=1.0).contains(s)));
    assert_eq!(model.training().pairs, 400);
    assert_eq!(model.training().distinct_queries, 400);
    assert!(model.training().final_loss.is_finite());
    // An untrained model (one epoch of a tiny learning rate) is near chance: the test can fail.
    let weak = RuberParams { epochs: 1, learning_rate: 1e-7, ..small_params(1) };
    let untrained = RuberUnreferenced::fit(&train_q, &train_r, &weak, ENCODER).unwrap();
    let pos: Vec<f64> = (0..100).map(|i| untrained.score(&test_q[i], &test_r[i]).unwrap()).collect();
    let neg: Vec<f64> = (0..100).map(|i| untrained.score(&test_q[i], &test_r[(i + 37) % 100]).unwrap()).collect();
    assert!(auc(&pos, &neg) < 0.8, "untrained AUC {}", auc(&pos, &neg));
}

#[test]
fn same_seed_same_weights_other_seed_other_weights() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let rot = rotation(&mut rng);
    let (q, r) = pairs(60, &rot, &mut rng);
    let params = RuberParams { epochs: 5, ..small_params(11) };
    let a = RuberUnreferenced::fit(&q, &r, &params, ENCODER).unwrap();
    let b = RuberUnreferenced::fit(&q, &r, &params, ENCODER).unwrap();
    assert_eq!(a, b);
    let c = RuberUnreferenced::fit(&q, &r, &RuberParams { seed: 12, ..params }, ENCODER).unwrap();
    assert_ne!(a, c);
}

#[test]
fn save_and_load_round_trip_and_bad_files() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let rot = rotation(&mut rng);
    let (q, r) = pairs(40, &rot, &mut rng);
    let model = RuberUnreferenced::fit(&q, &r, &RuberParams { epochs: 3, ..small_params(2) }, ENCODER).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ruber.json");
    model.save(&path).unwrap();
    let back = RuberUnreferenced::load(&path).unwrap();
    assert_eq!(back, model);
    assert_eq!(back.encoder(), ENCODER);
    assert_eq!(back.dim(), DIM);
    assert_eq!(back.params().seed, 2);
    for i in 0..5 {
        assert_eq!(back.score(&q[i], &r[i]).unwrap(), model.score(&q[i], &r[i]).unwrap());
    }

    // Not JSON, another kind, a truncated weight matrix: one line naming the file.
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{ not json").unwrap();
    let e = RuberUnreferenced::load(&bad).unwrap_err().to_string();
    assert!(e.starts_with(&bad.display().to_string()) && e.contains("not a RUBER model") && !e.contains('\n'), "{e}");
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    v["kind"] = "svr".into();
    std::fs::write(&bad, v.to_string()).unwrap();
    assert!(RuberUnreferenced::load(&bad).unwrap_err().to_string().contains("kind `svr`"));
    v["kind"] = "ruber_unreferenced".into();
    v["bilinear"].as_array_mut().unwrap().pop();
    std::fs::write(&bad, v.to_string()).unwrap();
    assert!(RuberUnreferenced::load(&bad).unwrap_err().to_string().contains("`bilinear` has 255 values"));
    let missing = dir.path().join("missing.json");
    assert!(matches!(RuberUnreferenced::load(&missing), Err(FusionError::Model(_))));
}

#[test]
fn bad_input_is_refused_with_one_line() {
    let v = |x: f32| vec![x, 1.0, 0.5];
    let qs: Vec<Vec<f32>> = (0..4).map(|i| v(i as f32)).collect();
    let rs: Vec<Vec<f32>> = (0..4).map(|i| v(-(i as f32))).collect();
    let p = RuberParams { hidden: vec![4], epochs: 2, ..RuberParams::default() };
    let err = |q: &[Vec<f32>], r: &[Vec<f32>], p: &RuberParams, enc: &str| {
        RuberUnreferenced::fit(q, r, p, enc).map(|_| ()).unwrap_err()
    };
    // Mismatched counts, empty input, ragged and non-finite vectors: data errors.
    let e = err(&qs, &rs[..3], &p, ENCODER);
    assert!(matches!(&e, FusionError::Data(m) if m == "RUBER: 4 query vectors but 3 reply vectors"), "{e}");
    assert!(matches!(err(&[], &[], &p, ENCODER), FusionError::Data(_)));
    let mut ragged = rs.clone();
    ragged[2] = vec![1.0, 2.0];
    let e = err(&qs, &ragged, &p, ENCODER);
    assert!(matches!(&e, FusionError::Data(m) if m == "RUBER: reply vector 2 has 2 values, expected 3"), "{e}");
    let mut nan = qs.clone();
    nan[1][0] = f32::NAN;
    assert!(matches!(err(&nan, &rs, &p, ENCODER), FusionError::Data(m) if m.contains("query vector 1")));
    // One distinct query: no negative can be drawn.
    let same: Vec<Vec<f32>> = vec![v(1.0); 4];
    assert!(matches!(err(&same, &rs, &p, ENCODER), FusionError::Data(m) if m.contains("same query")));
    // Parameters out of range, an empty encoder name.
    assert!(matches!(err(&qs, &rs, &RuberParams { epochs: 0, ..p.clone() }, ENCODER), FusionError::Params(_)));
    assert!(matches!(err(&qs, &rs, &RuberParams { hidden: vec![0], ..p.clone() }, ENCODER), FusionError::Params(_)));
    assert!(matches!(
        err(&qs, &rs, &RuberParams { learning_rate: -1.0, ..p.clone() }, ENCODER),
        FusionError::Params(_)
    ));
    assert!(matches!(err(&qs, &rs, &p, " "), FusionError::Params(_)));

    // Scoring vectors of another dimension, or non-finite ones, is refused.
    let model = RuberUnreferenced::fit(&qs, &rs, &p, ENCODER).unwrap();
    let e = model.score(&[1.0, 2.0], &v(0.0)).unwrap_err().to_string();
    assert!(e.contains("query vector has 2 values") && e.contains("3-dimensional") && e.contains(ENCODER), "{e}");
    assert!(model.score(&v(0.0), &[f32::INFINITY, 0.0, 0.0]).is_err());
    assert!(model.score(&v(0.0), &v(1.0)).is_ok());
    // Another encoder (or dimension) is refused, the training one accepted.
    assert!(model.check_encoder(ENCODER, 3).is_ok());
    let e = model.check_encoder("other:1111111111111111", 3).unwrap_err();
    assert!(
        matches!(&e, FusionError::Model(m) if m.contains("`other:1111111111111111`") && m.contains(ENCODER)),
        "{e}"
    );
    assert!(model.check_encoder(ENCODER, 4).is_err());
}

#[test]
fn negatives_never_share_the_query_of_their_pair() {
    // Two queries, each with three replies pointing its own way: q_a = (1, 0), q_b = (0, 1), replies
    // equal to their query. Negatives must pair a query with a reply of the other query; were
    // same-query replies drawn as negatives, the labels would contradict each other and the model
    // could not separate the pairs (each reply appears as both a 1 and a 0 for the same query).
    let qa = vec![1.0f32, 0.0];
    let qb = vec![0.0f32, 1.0];
    let qs = vec![qa.clone(), qa.clone(), qa.clone(), qb.clone(), qb.clone(), qb.clone()];
    let rs = qs.clone();
    let p = RuberParams { hidden: vec![8], epochs: 300, batch_size: 12, learning_rate: 1e-2, ..RuberParams::default() };
    let model = RuberUnreferenced::fit(&qs, &rs, &p, ENCODER).unwrap();
    assert_eq!(model.training().distinct_queries, 2);
    let (good_a, good_b) = (model.score(&qa, &qa).unwrap(), model.score(&qb, &qb).unwrap());
    let (bad_a, bad_b) = (model.score(&qa, &qb).unwrap(), model.score(&qb, &qa).unwrap());
    assert!(good_a > 0.9 && good_b > 0.9 && bad_a < 0.1 && bad_b < 0.1, "{good_a} {good_b} {bad_a} {bad_b}");
}

#[test]
fn cosine_and_blends_by_hand() {
    // (1, 2, 2) . (2, 0, 1) = 4; |(1, 2, 2)| = 3, |(2, 0, 1)| = sqrt 5: cos = 4 / (3 sqrt 5) = 0.59628.
    let c = referenced(&[1.0, 2.0, 2.0], &[2.0, 0.0, 1.0]).unwrap();
    assert!((c - 4.0 / (3.0 * 5f64.sqrt())).abs() < 1e-12, "{c}");
    assert!((referenced(&[3.0, 4.0], &[3.0, 4.0]).unwrap() - 1.0).abs() < 1e-12);
    // Opposite vectors: -1, normalised to 0.
    let opp = referenced(&[1.0, 0.0], &[-2.0, 0.0]).unwrap();
    assert!((opp + 1.0).abs() < 1e-12);
    assert_eq!(normalise_referenced(opp), 0.0);
    assert_eq!(normalise_referenced(0.25), 0.25);
    assert!(referenced(&[0.0, 0.0], &[1.0, 0.0]).is_err());
    assert!(referenced(&[1.0], &[1.0, 0.0]).is_err());
    assert!(referenced(&[], &[]).is_err());
    // Blends of a = 0.25, b = 0.64: min 0.25, max 0.64, geometric sqrt(0.16) = 0.4, arithmetic 0.445.
    assert_eq!(Blend::Min.apply(0.25, 0.64), 0.25);
    assert_eq!(Blend::Max.apply(0.25, 0.64), 0.64);
    assert!((Blend::Geometric.apply(0.25, 0.64) - 0.4).abs() < 1e-12);
    assert!((Blend::Arithmetic.apply(0.25, 0.64) - 0.445).abs() < 1e-12);
    // combined(cos 0.5, unreferenced 0.9) = (0.5 + 0.9) / 2 = 0.7; a negative cosine counts as 0:
    // combined(-0.3, 0.8) = (0 + 0.8) / 2 = 0.4.
    assert!((combined(0.5, 0.9) - 0.7).abs() < 1e-12);
    assert!((combined(-0.3, 0.8) - 0.4).abs() < 1e-12);
}
