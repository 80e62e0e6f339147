use super::*;

fn sizes(pairs: &[(&str, usize)]) -> BTreeMap<String, usize> {
    pairs.iter().map(|(s, n)| (s.to_string(), *n)).collect()
}

fn opts(total: usize, allocation: Allocation, min: usize) -> SampleOptions {
    SampleOptions { total, allocation, min_per_stratum: min, seed: 7 }
}

fn counts(m: &BTreeMap<String, usize>) -> Vec<usize> {
    m.values().copied().collect()
}

#[test]
fn proportional_allocation_by_hand() {
    let s = sizes(&[("a", 10), ("b", 30), ("c", 60)]);
    assert_eq!(counts(&allocate(&s, &opts(10, Allocation::Proportional, 0)).unwrap()), [1, 3, 6]);
    // Minimum 2 each (6), the other 4 in proportion 10:30:60 = 0.4, 1.2, 2.4: floors 0, 1, 2 and
    // one more by largest remainder, a tie of 0.4 between a and c broken by name.
    assert_eq!(counts(&allocate(&s, &opts(10, Allocation::Proportional, 2)).unwrap()), [3, 3, 4]);
}

#[test]
fn equal_allocation_moves_what_a_small_stratum_cannot_take() {
    let s = sizes(&[("a", 1), ("b", 10), ("c", 10)]);
    assert_eq!(counts(&allocate(&s, &opts(9, Allocation::Equal, 0)).unwrap()), [1, 4, 4]);
    // More than the collection holds: everything.
    assert_eq!(counts(&allocate(&s, &opts(100, Allocation::Equal, 0)).unwrap()), [1, 10, 10]);
}

#[test]
fn weights_allocation_and_an_impossible_minimum() {
    let s = sizes(&[("a", 10), ("b", 10), ("c", 10)]);
    let w: BTreeMap<String, f64> = [("a".to_string(), 3.0), ("b".to_string(), 1.0)].into_iter().collect();
    assert_eq!(counts(&allocate(&s, &opts(8, Allocation::Weights(w.clone()), 0)).unwrap()), [6, 2, 0]);
    // Minimum 1 each, the other 5 split 3:1 = 3.75, 1.25: floors 3, 1 and one more to a.
    assert_eq!(counts(&allocate(&s, &opts(8, Allocation::Weights(w), 1)).unwrap()), [5, 2, 1]);
    let err = allocate(&s, &opts(2, Allocation::Equal, 1)).unwrap_err().to_string();
    assert!(err.contains("needs 3 chunks, more than the 2 requested"), "{err}");
}

#[test]
fn samples_are_exact_per_stratum_and_seeded() {
    let strata: Vec<String> = (0..100).map(|i| ["x", "y", "z"][i % 3].to_string()).collect();
    let o = opts(30, Allocation::Proportional, 0);
    let a = stratified_sample(&strata, &o).unwrap();
    assert_eq!(a, stratified_sample(&strata, &o).unwrap());
    assert_eq!(a.indices.len(), 30);
    let mut per = BTreeMap::new();
    for &i in &a.indices {
        *per.entry(strata[i].clone()).or_insert(0usize) += 1;
    }
    // 34, 33, 33 items: 10.2, 9.9, 9.9 -> 10, 9, 9 + 2 by remainder (y, z).
    assert_eq!(per.values().copied().collect::<Vec<_>>(), [10, 10, 10]);
    assert_eq!(a.per_stratum["x"], (34, 10));
    let b = stratified_sample(&strata, &SampleOptions { seed: 8, ..o }).unwrap();
    assert_ne!(a.indices, b.indices);
    let mut dedup = a.indices.clone();
    dedup.dedup();
    assert_eq!(dedup.len(), 30);
}
