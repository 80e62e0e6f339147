#![no_main]
//! Request bodies of `serve`: `POST /v1/score` and `POST /v1/judge`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = ragjudge_serve::parse_score_request(data).map_err(|e| e.to_string());
    let _ = ragjudge_serve::parse_judge_request(data).map_err(|e| e.to_string());
});
