//! A 50 MB JSONL line is reported and skipped without being held in memory.
//!
//! Kept in its own test binary so that the process's peak memory reflects this test only.

use ragjudge_core::{ReadOptions, RecordReader};
use std::io::{BufWriter, Write};

/// Peak resident memory of this process in KiB (Linux), if known.
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn fifty_megabyte_line_is_skipped_with_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.jsonl");
    {
        let mut w = BufWriter::new(std::fs::File::create(&path).unwrap());
        writeln!(w, "{{\"id\":\"a\",\"query\":\"q\",\"answer\":\"x\"}}").unwrap();
        w.write_all(b"{\"id\":\"b\",\"query\":\"").unwrap();
        let chunk = vec![b'y'; 1 << 20];
        for _ in 0..50 {
            w.write_all(&chunk).unwrap();
        }
        w.write_all(b"\",\"answer\":\"z\"}\n").unwrap();
        writeln!(w, "{{\"id\":\"c\",\"query\":\"q\",\"answer\":\"x\"}}").unwrap();
    }
    let name = path.display().to_string();

    let items: Vec<_> = RecordReader::open(&path, &ReadOptions::default()).unwrap().collect();
    assert_eq!(items.len(), 3);
    assert_eq!(items[0].as_ref().unwrap().id, "a");
    let e = items[1].as_ref().unwrap_err();
    assert_eq!(e.to_string(), format!("{name}:2: line is longer than the 16 MiB limit"));
    assert!(!e.fatal);
    assert_eq!(items[2].as_ref().unwrap().id, "c");

    let opts = ReadOptions { max_line_bytes: 4096, ..ReadOptions::default() };
    let items: Vec<_> = RecordReader::open(&path, &opts).unwrap().collect();
    assert_eq!(items.len(), 3);
    assert_eq!(items[1].as_ref().unwrap_err().to_string(), format!("{name}:2: line is longer than the 4 KiB limit"));
    assert_eq!(items[2].as_ref().unwrap().id, "c");

    // Holding the 50 MiB line would push the peak well past 50 MiB; the bounded reader keeps
    // at most the 16 MiB limit plus buffers.
    if let Some(kib) = peak_rss_kib() {
        assert!(kib < 40 * 1024, "peak RSS {kib} KiB");
    }
}
