#![no_main]
//! Records read as `--format jsonl` from `records.jsonl`.

use libfuzzer_sys::fuzz_target;
use ragjudge_core::Format;

fuzz_target!(|data: &[u8]| {
    ragjudge_fuzz::read_records("records.jsonl", data, Format::Jsonl);
});
