#![no_main]
//! A RUBER model file (`score --ruber-model`), read, checked and applied to one pair of vectors.

use libfuzzer_sys::fuzz_target;
use ragjudge_fusion::ruber::RuberUnreferenced;

fuzz_target!(|data: &[u8]| {
    let path = ragjudge_fuzz::scratch("ruber.json", data);
    match RuberUnreferenced::load(&path) {
        Ok(model) => {
            let dim = model.dim();
            if dim <= 4096 {
                let v = vec![0.25f32; dim];
                let _ = model.score(&v, &v);
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
