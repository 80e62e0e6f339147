#![no_main]
//! Records read as `--format ragas` from `ragas.csv`.

use libfuzzer_sys::fuzz_target;
use ragjudge_core::Format;

fuzz_target!(|data: &[u8]| {
    ragjudge_fuzz::read_records("ragas.csv", data, Format::Ragas);
});
