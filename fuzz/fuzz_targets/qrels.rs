#![no_main]
//! Relevance judgments: a TREC qrels file or a question file (`score --qrels`).

use libfuzzer_sys::fuzz_target;
use ragjudge_lexical::qrels::Qrels;

fuzz_target!(|data: &[u8]| {
    match Qrels::read(data, "qrels.txt", 1.0) {
        Ok(q) => {
            let _ = q.get("q1");
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
