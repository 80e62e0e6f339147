//! NER path with a fake token classifier: B-/I- merging, subword continuation, threshold, label
//! mapping, adjacency joins, chunk offsets, and merging with pattern findings.

use ragjudge_models::{ModelError, TokenClassifier, TokenPrediction};
use ragjudge_safety::pii::ner::{findings, merge_tokens};
use ragjudge_safety::{PiiScanner, PiiType, Validation};

fn tp(text: &str, token: &str, start: usize, label: &str, score: f32) -> TokenPrediction {
    let word = token.trim_start_matches("##");
    assert_eq!(&text[start..start + word.len()], word, "fixture offsets");
    TokenPrediction { token: token.into(), start, end: start + word.len(), label: label.into(), score }
}

#[test]
fn b_i_tokens_merge_into_entities() {
    //         0         1         2         3         4
    //         0123456789012345678901234567890123456789012345
    let t = "Ask Johanna Smith at 221B Baker Street today";
    let preds = vec![
        tp(t, "Ask", 0, "O", 0.99),
        tp(t, "Jo", 4, "B-GIVEN_NAME", 0.9),
        tp(t, "##hanna", 6, "I-SURNAME", 0.5), // continuation: joins the open entity whatever its label
        tp(t, "Smith", 12, "B-SURNAME", 0.8),
        tp(t, "at", 18, "O", 0.99),
        tp(t, "221", 21, "B-BUILDING_NUMBER", 0.7),
        tp(t, "##B", 24, "I-BUILDING_NUMBER", 0.9),
        tp(t, "Baker", 26, "B-STREET_NAME", 0.6),
        tp(t, "Street", 32, "I-STREET_NAME", 0.8),
        tp(t, "today", 39, "O", 0.99),
    ];
    let e = merge_tokens(&preds);
    let spans: Vec<(&str, &str)> = e.iter().map(|e| (e.label.as_str(), &t[e.start..e.end])).collect();
    assert_eq!(
        spans,
        [("GIVEN_NAME", "Johanna"), ("SURNAME", "Smith"), ("BUILDING_NUMBER", "221B"), ("STREET_NAME", "Baker Street")]
    );
    // Mean token scores: (0.9 + 0.5) / 2 = 0.7; 0.8; (0.7 + 0.9) / 2 = 0.8; (0.6 + 0.8) / 2 = 0.7.
    let scores: Vec<f32> = e.iter().map(|e| e.score).collect();
    for (s, want) in scores.iter().zip([0.7, 0.8, 0.8, 0.7]) {
        assert!((s - want).abs() < 1e-6, "{scores:?}");
    }
    // Findings: adjacent person parts join into one name, address parts into one address.
    let f = findings(t, &preds, 0.5);
    let got: Vec<(PiiType, &str)> = f.iter().map(|f| (f.pii_type, f.text.as_str())).collect();
    assert_eq!(got, [(PiiType::Person, "Johanna Smith"), (PiiType::Address, "221B Baker Street")]);
    // Joined score weighted by byte length: (0.7 * 7 + 0.8 * 5) / 12 = 8.9 / 12.
    assert!((f[0].score.unwrap() - 8.9 / 12.0).abs() < 1e-6);
    assert!(f.iter().all(|f| f.validation == Validation::Unchecked));
    // Threshold 0.75 drops both 0.7 entities: Smith (0.8) and 221B (0.8) remain, no longer adjacent
    // to a same-type entity.
    let f = findings(t, &preds, 0.75);
    let got: Vec<&str> = f.iter().map(|f| f.text.as_str()).collect();
    assert_eq!(got, ["Smith", "221B"]);
}

#[test]
fn i_after_other_type_opens_new_entity_and_o_closes() {
    let t = "a b c d";
    let preds = vec![
        tp(t, "a", 0, "I-EMAIL", 0.9), // I- with nothing open: opens
        tp(t, "b", 2, "I-PHONE", 0.9), // different type: opens another
        tp(t, "c", 4, "O", 0.9),
        tp(t, "d", 6, "I-PHONE", 0.9), // after O: new entity
    ];
    let e = merge_tokens(&preds);
    let labels: Vec<(&str, usize, usize)> = e.iter().map(|e| (e.label.as_str(), e.start, e.end)).collect();
    assert_eq!(labels, [("EMAIL", 0, 1), ("PHONE", 2, 3), ("PHONE", 6, 7)]);
    // URL entities are not PII by themselves.
    let f = findings("x.io", &[tp("x.io", "x", 0, "B-URL", 0.99)], 0.5);
    assert!(f.is_empty());
}

/// Labels every token of the words it is told about; everything else `O`. Splits on spaces.
struct FakeNer {
    entities: Vec<(&'static str, &'static str)>, // (word, label)
}

impl TokenClassifier for FakeNer {
    fn identity(&self) -> String {
        "fake-ner".into()
    }
    fn labels(&self) -> Vec<String> {
        vec!["O".into(), "B-GIVEN_NAME".into(), "B-EMAIL".into()]
    }
    fn classify(&self, texts: &[&str]) -> Result<Vec<Vec<TokenPrediction>>, ModelError> {
        Ok(texts
            .iter()
            .map(|t| {
                let base = t.as_ptr() as usize;
                t.split(' ')
                    .filter(|w| !w.is_empty())
                    .map(|w| {
                        let start = w.as_ptr() as usize - base;
                        let word = w.trim_end_matches(['.', ',']);
                        let label = self.entities.iter().find(|(x, _)| *x == word).map(|(_, l)| *l).unwrap_or("O");
                        TokenPrediction {
                            token: word.into(),
                            start,
                            end: start + word.len(),
                            label: label.into(),
                            score: 0.9,
                        }
                    })
                    .collect()
            })
            .collect())
    }
}

#[test]
fn scanner_merges_ner_with_patterns_across_chunks() {
    let model = FakeNer { entities: vec![("Johanna", "B-GIVEN_NAME"), ("jo@bank.example", "B-EMAIL")] };
    let scanner = PiiScanner { ner_chunk_bytes: 30, ..PiiScanner::default() };
    let text = "First sentence is filler. Then Johanna wrote. Mail jo@bank.example now.";
    let ner = scanner.ner_findings(&model, &[text]).unwrap();
    // Offsets are shifted back from the window into the whole text.
    let spans: Vec<&str> = ner[0].iter().map(|f| &text[f.start..f.end]).collect();
    assert_eq!(spans, ["Johanna", "jo@bank.example"]);
    let all = scanner.scan(text, ner.into_iter().next().unwrap());
    assert_eq!(all.len(), 2);
    assert_eq!((all[0].pii_type, all[0].detector.as_str()), (PiiType::Person, "ner:GIVEN_NAME"));
    // The e-mail is found by both: the pattern detector wins, confirmed by the model.
    assert_eq!(all[1].detector, "email");
    assert_eq!(all[1].confirmed_by, ["ner:EMAIL"]);
}
