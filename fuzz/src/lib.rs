//! Helpers shared by the fuzz targets: scratch files for readers that take a path, and a full
//! drain of a record reader.

use ragjudge_core::{DuplicateKeys, Format, ReadOptions, RecordReader};
use std::path::PathBuf;
use std::sync::OnceLock;

/// Writes `data` to a scratch file named `name` in this process's own folder and returns its
/// path; the same name is overwritten by the next input.
pub fn scratch(name: &str, data: &[u8]) -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    let dir = DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("ragjudge-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&d).expect("scratch folder");
        d
    });
    let path = dir.join(name);
    std::fs::write(&path, data).expect("scratch file");
    path
}

/// Line limit for the record readers: small, so that the skipping of long lines is reached.
pub const MAX_LINE: usize = 512;

/// Reads every item of `reader` as a command would (duplicate keys checked), so that a panic
/// anywhere in the reader is found.
pub fn drain(mut reader: RecordReader) {
    let mut keys = DuplicateKeys::default();
    while let Some(item) = reader.next() {
        let line = reader.last_line();
        match item {
            Ok(record) => {
                let _ = keys.check(&record, line);
            }
            Err(e) => {
                let _ = e.to_string();
            }
        }
    }
    let _ = reader.format();
}

/// Reads `data` as the named file in `format` from memory.
pub fn read_records(name: &str, data: &[u8], format: Format) {
    let opts = ReadOptions { format, max_line_bytes: MAX_LINE, default_system: None };
    match RecordReader::from_reader(name, std::io::Cursor::new(data.to_vec()), &opts) {
        Ok(reader) => drain(reader),
        Err(e) => {
            let _ = e.to_string();
        }
    }
}
