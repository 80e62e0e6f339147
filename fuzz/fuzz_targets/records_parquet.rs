#![no_main]
//! Parquet records (`records.parquet`), read from a file as `RecordReader::open` does.
//!
//! The reader turns a panic of the Parquet decoder into a read error; libFuzzer's panic hook would
//! abort before that, so it is replaced by one that only prints. A panic that escapes the reader
//! still aborts (libfuzzer-sys catches it around the target) and is reported as a crash.

use libfuzzer_sys::fuzz_target;
use ragjudge_core::{ReadOptions, RecordReader};

fuzz_target!(|data: &[u8]| {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| std::panic::set_hook(Box::new(|info| eprintln!("{info}"))));
    let path = ragjudge_fuzz::scratch("records.parquet", data);
    let opts = ReadOptions { max_line_bytes: ragjudge_fuzz::MAX_LINE, ..ReadOptions::default() };
    match RecordReader::open(&path, &opts) {
        Ok(reader) => ragjudge_fuzz::drain(reader),
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
