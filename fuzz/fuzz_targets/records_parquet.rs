#![no_main]
//! Parquet records (`records.parquet`), read from a file as `RecordReader::open` does.

use libfuzzer_sys::fuzz_target;
use ragjudge_core::{ReadOptions, RecordReader};

fuzz_target!(|data: &[u8]| {
    let path = ragjudge_fuzz::scratch("records.parquet", data);
    let opts = ReadOptions { max_line_bytes: ragjudge_fuzz::MAX_LINE, ..ReadOptions::default() };
    match RecordReader::open(&path, &opts) {
        Ok(reader) => ragjudge_fuzz::drain(reader),
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
