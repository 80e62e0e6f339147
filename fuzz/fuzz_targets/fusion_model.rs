#![no_main]
//! A fusion model file (`fuse apply --model`), read, checked and applied to one row.

use libfuzzer_sys::fuzz_target;
use ragjudge_fusion::model::FusedModel;

fuzz_target!(|data: &[u8]| {
    let path = ragjudge_fuzz::scratch("model.json", data);
    match FusedModel::load(&path) {
        Ok(model) => {
            let n = model.input_names().len();
            let _ = model.predict(&vec![0.5; n]);
            let _ = model.predict(&vec![1e300; n]);
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
