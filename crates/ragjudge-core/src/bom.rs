//! One rule for a UTF-8 byte-order mark at the start of an input file, the same for every
//! reader (records, labels, ratings, scores, qrels): it is accepted and ignored. Spreadsheet
//! programs write one at the start of CSV exports, and it is never part of a column name or of
//! the first JSON value.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

/// The UTF-8 encoding of U+FEFF.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Opens `path` for buffered reading past a leading byte-order mark.
pub fn open(path: &Path) -> std::io::Result<BufReader<File>> {
    let mut reader = BufReader::new(File::open(path)?);
    if reader.fill_buf()?.starts_with(BOM) {
        reader.consume(BOM.len());
    }
    Ok(reader)
}

/// A CSV reader of `path` (with headers) past a leading byte-order mark.
pub fn csv_reader(path: &Path) -> std::io::Result<csv::Reader<BufReader<File>>> {
    Ok(csv::Reader::from_reader(open(path)?))
}

/// `text` without a leading byte-order mark (for files read whole).
pub fn strip(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn a_leading_mark_is_skipped_and_one_elsewhere_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.csv");
        std::fs::write(&p, "\u{feff}id,x\nq1,\u{feff}1\n").unwrap();
        let mut text = String::new();
        open(&p).unwrap().read_to_string(&mut text).unwrap();
        assert_eq!(text, "id,x\nq1,\u{feff}1\n");
        let mut rdr = csv_reader(&p).unwrap();
        assert_eq!(rdr.headers().unwrap().iter().collect::<Vec<_>>(), ["id", "x"]);
        assert_eq!(strip("\u{feff}{}"), "{}");
        assert_eq!(strip("{}"), "{}");
        let empty = dir.path().join("empty");
        std::fs::write(&empty, "").unwrap();
        assert_eq!(open(&empty).unwrap().lines().count(), 0);
    }
}
