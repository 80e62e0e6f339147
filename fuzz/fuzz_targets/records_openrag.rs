#![no_main]
//! Records read as `--format openrag` from `results_input.csv`.

use libfuzzer_sys::fuzz_target;
use ragjudge_core::Format;

fuzz_target!(|data: &[u8]| {
    ragjudge_fuzz::read_records("results_input.csv", data, Format::OpenRagEval);
});
