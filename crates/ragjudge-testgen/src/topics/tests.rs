use super::*;

#[test]
fn class_tfidf_by_hand() {
    // Counts: apple 2, pear 2, plum 1; 5 terms over 2 classes, A = 2.5.
    // a: apple 2/3 * ln(1 + 2.5/2), pear 1/3 * ln(2.25); b: plum 1/2 * ln(3.5), pear 1/2 * ln(2.25).
    let classes = vec![
        ("a".to_string(), vec!["apple".to_string(), "apple".to_string(), "pear".to_string()]),
        ("b".to_string(), vec!["pear".to_string(), "plum".to_string()]),
    ];
    let out = class_tfidf(&classes, 5);
    let a: Vec<(&str, f64)> = out[0].terms.iter().map(|(t, w)| (t.as_str(), *w)).collect();
    let b: Vec<(&str, f64)> = out[1].terms.iter().map(|(t, w)| (t.as_str(), *w)).collect();
    assert_eq!(a.iter().map(|x| x.0).collect::<Vec<_>>(), ["apple", "pear"]);
    approx::assert_abs_diff_eq!(a[0].1, 2.0 / 3.0 * 2.25f64.ln(), epsilon = 1e-12);
    approx::assert_abs_diff_eq!(a[1].1, 1.0 / 3.0 * 2.25f64.ln(), epsilon = 1e-12);
    assert_eq!(b.iter().map(|x| x.0).collect::<Vec<_>>(), ["plum", "pear"]);
    approx::assert_abs_diff_eq!(b[0].1, 0.5 * 3.5f64.ln(), epsilon = 1e-12);
    assert_eq!(class_tfidf(&classes, 1)[0].terms.len(), 1);
}

#[test]
fn terms_drop_stop_words_and_digits_and_pair_chinese_characters() {
    assert_eq!(terms("The 2 volcanoes of Iceland are a risk"), ["volcanoes", "iceland", "risk"]);
    assert_eq!(terms("水循环 rain"), ["水循", "循环", "rain"]);
}
