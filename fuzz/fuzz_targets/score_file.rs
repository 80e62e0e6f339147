#![no_main]
//! Per-record score files as `report`, `gate`, `merge`, `calibrate --apply`, `probes` and
//! `robustness` read them: the same bytes as CSV and as JSONL, and as a `.json` summary for `gate`.

use libfuzzer_sys::fuzz_target;
use ragjudge_core::table::{read_keyed, RepeatedKeys};
use ragjudge_report::summary::{read_summary, Resummarize};

fuzz_target!(|data: &[u8]| {
    let how = Resummarize { bootstrap: 5, seed: 0, level: 0.95 };
    for name in ["scores.csv", "scores.jsonl"] {
        let path = ragjudge_fuzz::scratch(name, data);
        let _ = ragjudge_eval::scores::read_score_file(&path).map_err(|e| e.to_string());
        let _ = ragjudge_eval::read_rows(&path).map_err(|e| e.to_string());
        let _ = read_keyed(&path, &["id", "system"], &["score"], RepeatedKeys::Keep).map_err(|e| e.to_string());
        let _ = read_summary(&path, &how).map_err(|e| e.to_string());
    }
    let path = ragjudge_fuzz::scratch("summary.json", data);
    let _ = read_summary(&path, &how).map_err(|e| e.to_string());
});
