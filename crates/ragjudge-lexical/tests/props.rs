//! Property tests: on any Unicode text every lexical, CIU and retrieval value is a finite number
//! in its range, or empty where the metric's documentation says it does not apply.

use proptest::prelude::*;
use ragjudge_core::{Context, Metric, Record};
use ragjudge_lexical::answer_overlap::LexicalMetric;
use ragjudge_lexical::ciu::{CiuMetric, CiuOptions};
use ragjudge_lexical::meteor::MeteorMetric;
use ragjudge_lexical::retrieval::RetrievalMetric;

/// Any Unicode, or words that overlap often.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![any::<String>(), "(the|cat|sat|on|mat|Mat|北京|é|,|\\.|\\n| ){0,16}"]
}

fn record(answer: String, reference: Option<String>, query: String, contexts: Vec<Context>) -> Record {
    Record { id: "q".into(), system: "s".into(), query, answer, reference, contexts, ..Record::default() }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn lexical_values_are_in_unit_range(answer in text(), reference in prop::option::of(text())) {
        let r = record(answer, reference.clone(), "q".into(), Vec::new());
        for m in [&LexicalMetric::new(false) as &dyn Metric, &LexicalMetric::new(true), &MeteorMetric::default()] {
            let out = m.score(&r).unwrap();
            prop_assert_eq!(out.values.len(), m.columns().len());
            for (c, v) in m.columns().iter().zip(&out.values) {
                match v {
                    Some(v) => prop_assert!(v.is_finite() && (0.0..=1.0).contains(v), "{} = {}", c, v),
                    // Empty only without a reference.
                    None => prop_assert!(reference.is_none(), "{} empty with a reference", c),
                }
            }
        }
    }

    #[test]
    fn ciu_is_finite(answer in text(), query in text(), grounding in prop::collection::vec(text(), 0..3)) {
        let contexts = grounding.into_iter().map(|text| Context { id: None, text, relevance: None }).collect();
        let out = CiuMetric { opts: CiuOptions::default(), ..Default::default() }.score(&record(answer, None, query, contexts)).unwrap();
        prop_assert!(out.values[0].is_some_and(f64::is_finite), "{:?}", out.values);
    }

    #[test]
    fn retrieval_values_are_in_unit_range(grades in prop::collection::vec(prop::option::of(-3.0f64..6.0), 0..8)) {
        let contexts = grades.iter().map(|&relevance| Context { id: None, text: "p".into(), relevance }).collect();
        let m = RetrievalMetric::default();
        let out = m.score(&record("a".into(), None, "q".into(), contexts)).unwrap();
        let judged = grades.iter().any(Option::is_some);
        for (c, v) in m.columns().iter().zip(&out.values) {
            match v {
                Some(v) => prop_assert!(v.is_finite() && (0.0..=1.0).contains(v), "{} = {}", c, v),
                None => {
                    let k = c.split_once('@').and_then(|(_, k)| k.parse::<usize>().ok());
                    let short = k.is_some_and(|k| grades.len() < k);
                    let relevant = grades.iter().any(|g| g.is_some_and(|g| g >= 2.0));
                    let positive = grades.iter().any(|g| g.is_some_and(|g| g > 0.0));
                    let reason = !judged
                        || short
                        || (c.starts_with("recall@") && !relevant)
                        || (c.starts_with("ndcg@") && !positive);
                    prop_assert!(reason, "{} empty on {:?}", c, grades);
                }
            }
        }
    }
}
