#![no_main]
//! Records of a file without an extension, the layout detected from its first bytes.

use libfuzzer_sys::fuzz_target;
use ragjudge_core::Format;

fuzz_target!(|data: &[u8]| {
    ragjudge_fuzz::read_records("records", data, Format::Auto);
});
