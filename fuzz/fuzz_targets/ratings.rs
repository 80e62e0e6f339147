#![no_main]
//! Human ratings joined with scores, as `correlate`, `fuse fit` and `score --ppi-labels` read them:
//! the same bytes as the CSV and the JSONL layout, each as both sides of the join.

use libfuzzer_sys::fuzz_target;
use ragjudge_core::table::{join_numbers, read_table};

fuzz_target!(|data: &[u8]| {
    let keys = ["id", "system"];
    for name in ["ratings.csv", "ratings.jsonl"] {
        let path = ragjudge_fuzz::scratch(name, data);
        if let Ok(t) = read_table(&path, &["id", "system", "rating"]) {
            for i in 0..t.rows.len() {
                let _ = t.key(i, 2);
                let _ = t.number(i, 2, "rating");
            }
        }
        let _ = join_numbers(&path, &["score"], &path, "rating", &keys);
        let keys: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
        let inputs = vec!["score".to_string()];
        if let Err(e) = ragjudge_fusion::dataset::load(&path, &inputs, &path, "rating", &keys) {
            let _ = e.to_string();
        }
    }
});
