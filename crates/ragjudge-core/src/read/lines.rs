//! Reading lines with a bounded buffer, so that one enormous line cannot exhaust memory.

use std::io::{self, BufRead, ErrorKind};

/// What [`read_line_bounded`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LineRead {
    /// End of input: no more bytes.
    Eof,
    /// A whole line is in the buffer, without its `\n` or `\r\n`.
    Line,
    /// The line was longer than the limit; it was read and discarded, the buffer is empty.
    TooLong,
}

/// Reads one line into `buf` (cleared first), keeping at most `max` bytes of it.
///
/// A longer line is consumed to its end in buffer-sized chunks and reported as
/// [`LineRead::TooLong`], so memory stays bounded by `max` plus the reader's buffer.
pub(crate) fn read_line_bounded(r: &mut dyn BufRead, max: usize, buf: &mut Vec<u8>) -> io::Result<LineRead> {
    buf.clear();
    let mut too_long = false;
    let mut any = false;
    loop {
        let avail = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if avail.is_empty() {
            if !any {
                return Ok(LineRead::Eof);
            }
            break;
        }
        any = true;
        let (chunk, used, found) = match avail.iter().position(|&b| b == b'\n') {
            Some(i) => (&avail[..i], i + 1, true),
            None => (avail, avail.len(), false),
        };
        if !too_long {
            // One extra byte is allowed for a `\r` that is stripped below.
            if buf.len() + chunk.len() > max.saturating_add(1) {
                too_long = true;
                buf.clear();
            } else {
                buf.extend_from_slice(chunk);
            }
        }
        r.consume(used);
        if found {
            break;
        }
    }
    if too_long {
        return Ok(LineRead::TooLong);
    }
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    if buf.len() > max {
        buf.clear();
        return Ok(LineRead::TooLong);
    }
    Ok(LineRead::Line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::BufReader;

    fn lines(input: &[u8], max: usize, cap: usize) -> Vec<(LineRead, Vec<u8>)> {
        let mut r = BufReader::with_capacity(cap, input);
        let mut buf = Vec::new();
        let mut out = Vec::new();
        loop {
            let s = read_line_bounded(&mut r, max, &mut buf).unwrap();
            if s == LineRead::Eof {
                return out;
            }
            out.push((s, buf.clone()));
        }
    }

    #[test]
    fn splits_lines_and_strips_crlf() {
        let got = lines(b"ab\r\ncd\n\nef", 10, 3);
        assert_eq!(
            got,
            vec![
                (LineRead::Line, b"ab".to_vec()),
                (LineRead::Line, b"cd".to_vec()),
                (LineRead::Line, b"".to_vec()),
                (LineRead::Line, b"ef".to_vec()),
            ]
        );
    }

    #[test]
    fn long_line_is_discarded_and_reading_resumes() {
        let got = lines(b"0123456789abc\nok\r\n12345\r\n", 5, 4);
        assert_eq!(
            got,
            vec![(LineRead::TooLong, vec![]), (LineRead::Line, b"ok".to_vec()), (LineRead::Line, b"12345".to_vec()),]
        );
    }
}
