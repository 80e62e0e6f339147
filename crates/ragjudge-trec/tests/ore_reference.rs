//! Agreement with Open RAG Eval 0.3.0's own scoring functions (fixtures/ore_reference.json, made by
//! fixtures/ore_reference.py from the package source).

use ragjudge_lexical::citations::split_answer;
use ragjudge_trec::nuggets::nugget_scores;
use ragjudge_trec::umbrela::scores;
use serde_json::Value;

fn fixture() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/ore_reference.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn close(got: Option<f64>, want: &Value, what: &str) {
    let want = want.as_f64().unwrap_or_else(|| panic!("{what}: no reference value"));
    let got = got.unwrap_or_else(|| panic!("{what}: no value"));
    assert!((got - want).abs() < 1e-12, "{what}: {got} != {want}");
}

#[test]
fn retrieval_metrics_match_open_rag_eval() {
    let f = fixture();
    for case in f["retrieval"].as_array().unwrap() {
        let grades: Vec<Option<u8>> =
            case["grades"].as_array().unwrap().iter().map(|g| g.as_u64().map(|g| g as u8)).collect();
        let s = scores(&grades, &[1, 3, 5], false);
        for a in &s.at_k {
            let key = a.k.to_string();
            match case["precision"].get(&key) {
                // Open RAG Eval leaves out K larger than the list; so do we.
                None => assert_eq!((a.precision, a.ap), (None, None), "{grades:?} K={key}"),
                Some(p) => {
                    close(a.precision, p, &format!("{grades:?} P@{key}"));
                    close(a.ap, &case["ap"][&key], &format!("{grades:?} AP@{key}"));
                }
            }
        }
        close(s.mrr, &case["mrr"], &format!("{grades:?} MRR"));
    }
}

#[test]
fn nugget_scores_match_open_rag_eval_with_its_denominators() {
    let f = fixture();
    let strings =
        |v: &Value| -> Vec<String> { v.as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_string()).collect() };
    for case in f["nuggets"].as_array().unwrap() {
        let (labels, assigned) = (strings(&case["labels"]), strings(&case["assignments"]));
        let s = nugget_scores(&labels, &assigned, true);
        let r = &case["scores"];
        for (got, key) in [
            (s.all, "All"),
            (s.all_strict, "All Strict"),
            (s.vital, "Vital"),
            (s.vital_strict, "Vital Strict"),
            (s.weighted, "Weighted"),
            (s.weighted_strict, "Weighted Strict"),
        ] {
            close(got, &r[key], &format!("{labels:?} {assigned:?} {key}"));
        }
    }
}

#[test]
fn answer_parts_match_open_rag_eval() {
    let f = fixture();
    for case in f["answers"].as_array().unwrap() {
        let parts = split_answer(case["answer"].as_str().unwrap());
        let got = serde_json::to_value(&parts).unwrap();
        assert_eq!(got, case["parts"], "{}", case["answer"]);
    }
}
