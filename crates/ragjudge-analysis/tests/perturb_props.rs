//! Property tests of the seeded input variations: the same input and seed always give the same
//! variants, and each kind edits only what it says it edits (HCAT (Sudjianto et al.), §6.1).

use proptest::prelude::*;
use ragjudge_analysis::adversarial::{context_variants, ContextPerturbation};
use ragjudge_analysis::ood::ood_questions;
use ragjudge_analysis::perturb::{perturb, question_variants, Perturbation};
use serde_json::{json, Value};

fn kind() -> impl Strategy<Value = Perturbation> {
    prop::sample::select(Perturbation::ALL.to_vec())
}

/// Any Unicode text, with enough ASCII letters, marks and spaces to be edited.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![any::<String>(), "[a-zA-Z ,.!?'é北]{0,60}"]
}

/// A few records with passages, some shared between questions (for distractors).
fn records() -> impl Strategy<Value = Vec<Value>> {
    let passage = prop_oneof![Just("alpha".to_string()), Just("beta".to_string()), "[a-z ]{1,12}", any::<String>()];
    prop::collection::vec((prop::collection::vec(passage, 0..5), 0u8..3), 1..6).prop_map(|rows| {
        rows.into_iter()
            .enumerate()
            .map(|(i, (ctx, topic))| {
                json!({"id": format!("q{i}"), "system": "s", "contexts": ctx, "meta": {"topic": topic}})
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn perturb_is_deterministic_for_a_seed(t in text(), k in kind(), rate in 0.0f64..=1.0, seed in any::<u64>()) {
        let a = perturb(&t, k, rate, seed);
        prop_assert_eq!(&a, &perturb(&t, k, rate, seed));
        prop_assert!(a.edits <= a.candidates);
    }

    #[test]
    fn perturb_at_rate_zero_changes_nothing(t in text(), k in kind(), seed in any::<u64>()) {
        let v = perturb(&t, k, 0.0, seed);
        prop_assert_eq!(v.text, t);
        prop_assert_eq!(v.edits, 0);
    }

    #[test]
    fn punctuation_and_whitespace_edit_only_their_characters(t in text(), rate in 0.0f64..=1.0, seed in any::<u64>()) {
        // Dropping marks leaves every other character in order; so does doubling or dropping spaces.
        let keep = |s: &str, f: fn(char) -> bool| s.chars().filter(|&c| !f(c)).collect::<String>();
        let p = perturb(&t, Perturbation::Punctuation, rate, seed);
        prop_assert_eq!(keep(&p.text, |c| c.is_ascii_punctuation()), keep(&t, |c| c.is_ascii_punctuation()));
        prop_assert_eq!(t.chars().count() - p.text.chars().count(), p.edits);
        let w = perturb(&t, Perturbation::Whitespace, rate, seed);
        prop_assert_eq!(keep(&w.text, |c| c == ' '), keep(&t, |c| c == ' '));
    }

    #[test]
    fn question_variants_are_deterministic_for_a_seed(t in text(), id in any::<String>(), rate in 0.0f64..=1.0, seed in any::<u64>()) {
        let q = json!({"id": id, "question": t});
        let a = question_variants(&q, "question", &Perturbation::ALL, rate, seed).unwrap();
        prop_assert_eq!(&a, &question_variants(&q, "question", &Perturbation::ALL, rate, seed).unwrap());
        for v in &a {
            prop_assert_eq!(&v["meta"]["variant_of"], &q["id"]);
            prop_assert_ne!(&v["question"], &q["question"]);
        }
    }

    #[test]
    fn context_variants_are_deterministic_and_independent_of_record_order(recs in records(), n in 1usize..3, seed in any::<u64>()) {
        let kinds = [ContextPerturbation::Shuffle, ContextPerturbation::Distractor];
        let a = context_variants(&recs, &kinds, n, seed).unwrap();
        let b = context_variants(&recs, &kinds, n, seed).unwrap();
        prop_assert_eq!(&a.variants, &b.variants);
        let mut reversed = recs.clone();
        reversed.reverse();
        let r = context_variants(&reversed, &kinds, n, seed).unwrap();
        let sorted = |mut v: Vec<Value>| {
            v.sort_by_key(|x| x.to_string());
            v
        };
        prop_assert_eq!(sorted(a.variants), sorted(r.variants));
    }

    #[test]
    fn ood_choice_is_deterministic_for_a_seed(texts in prop::collection::vec(any::<String>(), 0..4), n in 0usize..20, seed in any::<u64>()) {
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let a = ood_questions(&refs, n, 0.5, seed);
        let b = ood_questions(&refs, n, 0.5, seed);
        let idx = |c: &ragjudge_analysis::ood::OodChoice| c.questions.iter().map(|q| q.index).collect::<Vec<_>>();
        prop_assert_eq!(idx(&a), idx(&b));
        prop_assert_eq!(a.records("question", seed), b.records("question", seed));
        prop_assert!(a.questions.len() <= n);
    }
}
