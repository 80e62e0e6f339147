#![no_main]
//! A run file as the DICE commands read it (`read_run`: records, a repeated key refused).

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = ragjudge_fuzz::scratch("run.jsonl", data);
    if let Err(e) = ragjudge_dice::run::read_run(&path) {
        let _ = e.to_string();
    }
});
