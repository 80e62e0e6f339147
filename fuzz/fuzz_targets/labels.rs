#![no_main]
//! Pairwise labels (`agree --gold`, `compare --labels`, `judge-eval --labels`).

use libfuzzer_sys::fuzz_target;
use ragjudge_dice::labels::PairLabels;

fuzz_target!(|data: &[u8]| {
    let path = ragjudge_fuzz::scratch("labels.jsonl", data);
    match PairLabels::read(&path) {
        Ok(labels) => {
            for key in labels.labels.keys() {
                let _ = labels.get(&(key.0.clone(), key.2.clone(), key.1.clone()));
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
