//! Parity with NLTK 3.10.4's `nltk.translate.meteor_score` (all three stages, WordNet 3.0).
//! Expected values come from `tests/fixtures/make_meteor_fixture.py` (versions and the WordNet
//! files' sha256 are recorded in the fixture's header), never from this crate's output.

use ragjudge_lexical::meteor::{wordnet, MatchStage, Meteor, MeteorParams};
use ragjudge_lexical::porter::PorterStemmer;
use serde_json::Value;

const TOL: f64 = 1e-6;

fn fixture() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/meteor_reference.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("fixture readable")).expect("fixture is JSON")
}

fn text(v: &Value) -> &str {
    v.as_str().expect("string")
}

fn refs(p: &Value) -> Vec<&str> {
    p["references"].as_array().expect("references").iter().map(text).collect()
}

#[test]
fn header_pins_nltk_and_wordnet() {
    let doc = fixture();
    assert_eq!(doc["header"]["nltk"], "3.10.4");
    assert_eq!(doc["header"]["wordnet"], "3.0");
    assert_eq!(doc["pairs"].as_array().unwrap().len(), 200);
}

#[test]
fn meteor_matches_nltk_on_200_pairs() {
    let doc = fixture();
    let meteor = Meteor::default();
    let (mut max, mut at) = (0.0f64, String::new());
    for p in doc["pairs"].as_array().unwrap() {
        let hyp = text(&p["hypothesis"]);
        let got = meteor.score(hyp, &refs(p)).expect("references").score;
        let want = p["score"].as_f64().unwrap();
        let d = (got - want).abs();
        if d > max || d.is_nan() {
            (max, at) = (if d.is_nan() { f64::INFINITY } else { d }, format!("{hyp:?}: got {got}, want {want}"));
        }
    }
    eprintln!("meteor: max |diff| over 200 pairs = {max:e}");
    assert!(max <= TOL, "max diff {max} at {at}");
}

#[test]
fn single_references_and_details_match_nltk() {
    let doc = fixture();
    let meteor = Meteor::default();
    for p in doc["pairs"].as_array().unwrap() {
        let hyp: Vec<&str> = text(&p["hypothesis"]).split_whitespace().collect();
        for ((r, want), detail) in
            refs(p).iter().zip(p["per_reference"].as_array().unwrap()).zip(p["detail"].as_array().unwrap())
        {
            let r: Vec<&str> = r.split_whitespace().collect();
            let s = meteor.score_tokens(&hyp, &r);
            assert!((s.score - want.as_f64().unwrap()).abs() <= TOL, "{hyp:?} vs {r:?}: {} != {want}", s.score);
            assert_eq!(s.matches as u64, detail["matches"].as_u64().unwrap(), "{hyp:?} vs {r:?}");
            assert_eq!(s.chunks as u64, detail["chunks"].as_u64().unwrap(), "{hyp:?} vs {r:?}");
            let pairs: Vec<[u64; 2]> = s.alignment.iter().map(|a| [a.hypothesis as u64, a.reference as u64]).collect();
            let want_pairs: Vec<[u64; 2]> = detail["alignment"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| [a[0].as_u64().unwrap(), a[1].as_u64().unwrap()])
                .collect();
            assert_eq!(pairs, want_pairs, "{hyp:?} vs {r:?}");
        }
    }
}

#[test]
fn exact_and_stem_stages_alone_match_nltk_without_wordnet() {
    // NLTK called with a stand-in wordnet whose synsets() is empty.
    let doc = fixture();
    let meteor = Meteor::new(MeteorParams { synonyms: false, ..MeteorParams::default() });
    let mut differs = 0;
    for p in doc["pairs"].as_array().unwrap() {
        let hyp = text(&p["hypothesis"]);
        let got = meteor.score(hyp, &refs(p)).unwrap().score;
        let want = p["no_wordnet"].as_f64().unwrap();
        assert!((got - want).abs() <= TOL, "{hyp:?}: {got} != {want}");
        differs += usize::from(p["no_wordnet"] != p["score"]);
    }
    assert!(differs >= 20, "the fixture exercises the synonym stage ({differs} pairs)");
}

#[test]
fn porter_stems_match_nltk() {
    let doc = fixture();
    let stemmer = PorterStemmer::new();
    let stems = doc["stems"].as_object().unwrap();
    assert!(stems.len() > 4000);
    for (word, want) in stems {
        assert_eq!(stemmer.stem(word), text(want), "{word}");
    }
}

#[test]
fn wordnet_synonyms_match_nltk_synsets() {
    let doc = fixture();
    let wn = wordnet();
    let syns = doc["synonyms"].as_object().unwrap();
    assert!(syns.len() > 5000);
    for (word, want) in syns {
        // NLTK's lemma names keep capitals; METEOR compares them with lowercased stems, so the
        // table keeps the lowercase ones.
        let mut want: Vec<&str> =
            want.as_array().unwrap().iter().map(text).filter(|n| n.to_lowercase() == *n).collect();
        want.sort_unstable();
        let mut got: Vec<&str> = wn.synonyms(word).into_iter().collect();
        got.sort_unstable();
        assert_eq!(got, want, "{word}");
    }
}

#[test]
fn synonym_stage_looks_up_stems() {
    // "ran"/"run" (verb exception list) and "fast"/"quick" share WordNet synsets; "car" is not
    // matched with "automobile" because NLTK looks up the Porter stem "automobil" (checked with
    // NLTK 3.10.4). By hand: m = 4, t = r = 5, P = R = 0.8 = Fmean, one chunk,
    // penalty = 0.5 (1/4)^3 = 0.0078125, score = (1 - 0.0078125) 0.8 = 0.79375.
    let s =
        Meteor::default().score_tokens(&["he", "ran", "a", "fast", "car"], &["he", "run", "a", "quick", "automobile"]);
    let stages: Vec<MatchStage> = s.alignment.iter().map(|a| a.stage).collect();
    assert_eq!(stages, [MatchStage::Exact, MatchStage::Synonym, MatchStage::Exact, MatchStage::Synonym]);
    assert_eq!((s.matches, s.chunks), (4, 1));
    assert!((s.penalty - 0.0078125).abs() < 1e-12);
    assert!((s.score - 0.79375).abs() < 1e-12);
}
