//! A small stacker fitted on a few labelled pairs: logistic regression over the protocols' scores
//! and metric differences (ridge-penalised, `ragjudge_stats::logistic`), measured by grouped
//! cross-validation (all pairs of a question in the same fold, so that no question is seen in
//! training and test) and by a learning curve (accuracy against the number of labelled questions).

use std::collections::BTreeMap;

use ragjudge_lexical::squad::token_f1;
use ragjudge_stats::logistic::Logistic;
use serde::{Deserialize, Serialize};

use crate::meta::items::PairItem;
use crate::pair::Outcome;

/// Ridge of the stacker's weights.
pub const RIDGE: f64 = 1.0;

/// The question a pair belongs to: the id before the first `:` (`QID:SYS_A:SYS_B` for runs),
/// else the whole id.
pub fn group_of(item: &PairItem) -> &str {
    item.pair.id.split(':').next().unwrap_or(&item.pair.id)
}

/// Metric features of a pair: token F1 against the reference of the first output minus the
/// second's (0 without a reference), and `tanh` of the length difference in hundreds of characters.
pub fn metric_features(item: &PairItem) -> Vec<f64> {
    let f1 = |a: &str| item.pair.reference.as_deref().map_or(0.0, |r| token_f1(a, r));
    let len = |a: &str| a.chars().count() as f64;
    vec![
        f1(&item.pair.first.answer) - f1(&item.pair.second.answer),
        ((len(&item.pair.first.answer) - len(&item.pair.second.answer)) / 100.0).tanh(),
    ]
}

/// The target of a pair: 1 when the first output is better, 0 when the second, 1/2 for a tie.
pub fn target(gold: Outcome) -> f64 {
    match gold {
        Outcome::First => 1.0,
        Outcome::Second => 0.0,
        Outcome::Tie => 0.5,
    }
}

/// Held-out predictions and the learning curve of a stacker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StackResult {
    /// Feature names.
    pub features: Vec<String>,
    /// Per item, the held-out score of its first output (grouped cross-validation).
    pub held_out: Vec<f64>,
    /// Folds used.
    pub folds: usize,
    /// (labelled questions, accuracy on the pairs of the other questions).
    pub learning_curve: Vec<(usize, f64)>,
    /// Weights fitted on every labelled pair (features, then the intercept).
    pub coef: Vec<f64>,
}

fn accuracy(items: &[&PairItem], scores: &[f64], margin: f64) -> f64 {
    let right = items.iter().zip(scores).filter(|(i, s)| Outcome::of_score(**s, margin) == i.gold).count();
    right as f64 / items.len().max(1) as f64
}

/// Cross-validates a stacker over `x` (one feature row per item) with `folds` groups of
/// questions (questions dealt to folds in order of first appearance); `None` when fewer than two
/// questions or a fit fails.
pub fn cross_validate(
    items: &[PairItem],
    x: &[Vec<f64>],
    features: Vec<String>,
    folds: usize,
    margin: f64,
) -> Option<StackResult> {
    let mut groups: BTreeMap<&str, usize> = BTreeMap::new();
    let mut order = Vec::new();
    for it in items {
        let g = group_of(it);
        if !groups.contains_key(g) {
            groups.insert(g, order.len());
            order.push(g);
        }
    }
    let n_groups = order.len();
    if n_groups < 2 {
        return None;
    }
    let folds = folds.clamp(2, n_groups);
    let fold_of = |it: &PairItem| groups[group_of(it)] % folds;
    let y: Vec<f64> = items.iter().map(|i| target(i.gold)).collect();
    let mut held_out = vec![0.5; items.len()];
    for f in 0..folds {
        let train: Vec<usize> = (0..items.len()).filter(|&i| fold_of(&items[i]) != f).collect();
        let fit = Logistic::fit(
            &train.iter().map(|&i| x[i].clone()).collect::<Vec<_>>(),
            &train.iter().map(|&i| y[i]).collect::<Vec<_>>(),
            RIDGE,
        )
        .ok()?;
        for i in (0..items.len()).filter(|&i| fold_of(&items[i]) == f) {
            held_out[i] = fit.predict(&x[i]);
        }
    }
    let mut learning_curve = Vec::new();
    for m in (1..n_groups).filter(|m| m % 2 == 0 || *m == 1) {
        let (train, test): (Vec<usize>, Vec<usize>) = (0..items.len()).partition(|&i| groups[group_of(&items[i])] < m);
        let Ok(fit) = Logistic::fit(
            &train.iter().map(|&i| x[i].clone()).collect::<Vec<_>>(),
            &train.iter().map(|&i| y[i]).collect::<Vec<_>>(),
            RIDGE,
        ) else {
            continue;
        };
        let test_items: Vec<&PairItem> = test.iter().map(|&i| &items[i]).collect();
        let scores: Vec<f64> = test.iter().map(|&i| fit.predict(&x[i])).collect();
        learning_curve.push((m, accuracy(&test_items, &scores, margin)));
    }
    let coef = Logistic::fit(x, &y, RIDGE).ok()?.coef;
    Some(StackResult { features, held_out, folds, learning_curve, coef })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pair::{Pair, Side};

    fn item(q: usize, a: &str, b: &str, gold: Outcome) -> PairItem {
        let side = |s: &str| Side { answer: s.into(), contexts: Vec::new(), system: None };
        let pair = Pair {
            id: format!("q{q}:x:y"),
            instruction: "q".into(),
            reference: Some("paris is the capital".into()),
            first: side(a),
            second: side(b),
        };
        PairItem { set: "t".into(), pair, gold }
    }

    #[test]
    fn a_feature_that_carries_the_label_is_learned_across_questions() {
        // Feature = +1 when the first output is better, -1 otherwise: held-out accuracy 1.
        let mut items = Vec::new();
        let mut x = Vec::new();
        for q in 0..6 {
            for k in 0..4 {
                let first = (q + k) % 2 == 0;
                items.push(item(q, "a", "b", if first { Outcome::First } else { Outcome::Second }));
                x.push(vec![if first { 1.0 } else { -1.0 }]);
            }
        }
        let r = cross_validate(&items, &x, vec!["s".into()], 3, 0.0).unwrap();
        assert_eq!(r.folds, 3);
        assert!(items.iter().zip(&r.held_out).all(|(i, s)| Outcome::of_score(*s, 0.0) == i.gold));
        assert!(r.learning_curve.iter().all(|(_, a)| *a == 1.0), "{:?}", r.learning_curve);
        assert!(r.coef[0] > 0.0);
    }

    #[test]
    fn metric_features_are_f1_and_length_differences() {
        let i = item(0, "paris is the capital", "lyon", Outcome::First);
        let f = metric_features(&i);
        assert!((f[0] - 1.0).abs() < 1e-12);
        // 20 - 4 = 16 characters: tanh(0.16).
        assert!((f[1] - 0.16f64.tanh()).abs() < 1e-12);
        assert_eq!(group_of(&i), "q0");
    }
}
