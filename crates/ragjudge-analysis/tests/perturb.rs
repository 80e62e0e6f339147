//! Input variations: edit rates over many seeded draws, and variants that map back to their question.

use ragjudge_analysis::perturb::{perturb, question_variants, Perturbation};
use serde_json::json;

const TEXT: &str = "How does the Great Barrier Reef protect the coast of Queensland from waves?";

#[test]
fn edit_rates_match_the_requested_rate_over_ten_thousand_draws() {
    for kind in Perturbation::ALL {
        for rate in [0.05, 0.2] {
            let (mut edits, mut candidates) = (0usize, 0usize);
            for seed in 0..10_000 {
                let v = perturb(TEXT, kind, rate, seed);
                edits += v.edits;
                candidates += v.candidates;
            }
            // Each candidate is hit with probability `rate`: the observed share lies within four
            // binomial standard deviations of it.
            let share = edits as f64 / candidates as f64;
            let sd = (rate * (1.0 - rate) / candidates as f64).sqrt();
            assert!((share - rate).abs() < 4.0 * sd, "{kind:?} at {rate}: {share} over {candidates} candidates");
        }
    }
}

#[test]
fn a_typo_changes_the_text_by_one_letter_at_a_time() {
    // At a rate that makes one edit likely, a variant with one edit differs from the original by a
    // neighbour substitution (same length), a deletion (one shorter) or a transposition.
    for seed in 0..200 {
        let v = perturb("photosynthesis", Perturbation::Typo, 0.07, seed);
        if v.edits != 1 {
            continue;
        }
        let (a, b): (Vec<char>, Vec<char>) = ("photosynthesis".chars().collect(), v.text.chars().collect());
        let diff = a.iter().zip(&b).filter(|(x, y)| x != y).count();
        assert!(b.len() == a.len() - 1 || (b.len() == a.len() && (diff == 1 || diff == 2)), "{}", v.text);
    }
}

#[test]
fn every_variant_maps_back_to_its_question() {
    let q = json!({"id": "q07", "query": TEXT, "reference": "It absorbs wave energy.", "meta": {"topic": "reef"}});
    let kinds = Perturbation::ALL;
    // At rate 1 every kind edits every candidate, so each gives a variant.
    let vs = question_variants(&q, "query", &kinds, 1.0, 0).unwrap();
    assert_eq!(vs.len(), 4);
    for (v, kind) in vs.iter().zip(kinds) {
        assert_eq!(v["id"], format!("q07~{}", kind.name()));
        assert_eq!(v["meta"]["variant_of"], "q07");
        assert_eq!(v["meta"]["perturbation"], kind.name());
        assert_eq!(v["meta"]["severity"], 1.0);
        assert_eq!(v["meta"]["topic"], "reef");
        assert_eq!(v["reference"], "It absorbs wave energy.");
        assert_ne!(v["query"], TEXT);
    }
    // The same question and seed give the same variants, whatever else is in the file.
    assert_eq!(question_variants(&q, "query", &kinds, 1.0, 0).unwrap(), vs);
    // A text without punctuation gives no punctuation variant.
    let plain = json!({"id": "q1", "query": "no marks here"});
    assert!(question_variants(&plain, "query", &[Perturbation::Punctuation], 1.0, 0).unwrap().is_empty());
    assert!(question_variants(&json!({"id": "x"}), "query", &kinds, 0.2, 0).is_none());
}
