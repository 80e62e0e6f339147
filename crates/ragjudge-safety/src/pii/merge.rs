//! One finding per overlapping span: pattern and NER findings of one text are merged here.

use super::{Finding, Validation};

fn rank(v: Validation) -> u8 {
    match v {
        Validation::Valid => 0,
        Validation::Unchecked => 1,
        Validation::Invalid => 2,
    }
}

/// Keeps, greedily, the best finding of every group of overlapping spans, sorted by start.
///
/// Better means: validated before unchecked before invalid; then pattern detectors before NER
/// (a checked shape is more transparent than a model's guess); then the longer span; then the
/// earlier input position. A dropped finding of the same type that overlaps a kept one adds its
/// detector to the kept one's `confirmed_by`.
pub fn dedupe(findings: Vec<Finding>) -> Vec<Finding> {
    let mut order: Vec<usize> = (0..findings.len()).collect();
    let is_ner = |f: &Finding| f.score.is_some();
    order.sort_by_key(|&i| {
        let f = &findings[i];
        (rank(f.validation), is_ner(f), std::cmp::Reverse(f.end - f.start), i)
    });
    let mut kept: Vec<Finding> = Vec::new();
    for i in order {
        let f = &findings[i];
        match kept.iter_mut().find(|k| k.start < f.end && f.start < k.end) {
            Some(k) => {
                if k.pii_type == f.pii_type && k.detector != f.detector && !k.confirmed_by.contains(&f.detector) {
                    k.confirmed_by.push(f.detector.clone());
                }
            }
            None => kept.push(f.clone()),
        }
    }
    kept.sort_by_key(|f| (f.start, f.end));
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pii::PiiType;

    fn f(start: usize, end: usize, t: PiiType, det: &str, v: Validation, ner: bool) -> Finding {
        let text = "x".repeat(40);
        let mut f = Finding::new(&text, start, end, t, det, v);
        if ner {
            f.score = Some(0.9);
        }
        f
    }

    #[test]
    fn keeps_best_of_overlaps() {
        let out = dedupe(vec![
            f(0, 10, PiiType::Phone, "phone", Validation::Invalid, false),
            f(0, 19, PiiType::PaymentCard, "payment_card:visa", Validation::Valid, false),
            f(2, 12, PiiType::PaymentCard, "ner:B-BANK", Validation::Unchecked, true),
            f(25, 30, PiiType::Person, "ner:B-GIVEN_NAME", Validation::Unchecked, true),
            f(28, 35, PiiType::Email, "email", Validation::Unchecked, false),
        ]);
        // Card (valid) wins over the invalid phone and the NER span; at 25-35 the e-mail (pattern)
        // wins over the NER name, both unchecked.
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].detector, "payment_card:visa");
        assert_eq!(out[0].confirmed_by, ["ner:B-BANK"]);
        assert_eq!(out[1].detector, "email");
        assert!(out[1].confirmed_by.is_empty());
    }

    #[test]
    fn disjoint_spans_all_kept_in_order() {
        let out = dedupe(vec![
            f(10, 12, PiiType::Email, "email", Validation::Unchecked, false),
            f(0, 10, PiiType::Phone, "phone", Validation::Valid, false),
        ]);
        assert_eq!(out.iter().map(|x| x.start).collect::<Vec<_>>(), [0, 10]);
    }
}
