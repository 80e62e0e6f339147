//! Parquet input that a corrupt file cannot hold: readers that fail at the end of the file instead
//! of returning nothing, and a record-batch reader that decodes no more rows than the file declares.
//!
//! arrow-rs's page-header decoder skips unknown Thrift fields by copying bytes to a sink, and a
//! copy that meets the end of a [`File`] simply stops. A corrupt header can declare a list of
//! two billion eight-byte fields; each skip then "succeeds" on zero bytes and the decoder spins
//! for minutes on a file of two kilobytes (found by fuzzing the records reader). Every read
//! here that asks for bytes past the end gets [`std::io::ErrorKind::UnexpectedEof`], which ends
//! such a loop at its first step. A valid file never reads past its end: page data is fetched
//! by exact ranges and page headers lie inside their column chunk.

use bytes::Bytes;
use parquet::arrow::arrow_reader::{ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder};
use parquet::errors::Result;
use parquet::file::reader::{ChunkReader, Length};
use std::fs::File;
use std::io::{self, BufReader, Read};

/// Record batches of at most `batch_rows` rows from `file`, through [`ParquetFile`], stopping at
/// the number of rows the file's metadata declares. A corrupt page can make arrow-rs's decoder
/// produce rows without end (found by fuzzing: a 2,781-byte file grew past 20 GiB); with the
/// limit it stops at the declared count, and the first row past the data is a decoding error.
pub fn read_batches(file: File, batch_rows: usize) -> Result<ParquetRecordBatchReader> {
    let builder = ParquetRecordBatchReaderBuilder::try_new(ParquetFile::new(file))?;
    let declared = usize::try_from(builder.metadata().file_metadata().num_rows()).unwrap_or(0);
    builder.with_batch_size(batch_rows).with_limit(declared).build()
}

/// A Parquet file for [`parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder`].
pub struct ParquetFile(File);

impl ParquetFile {
    /// Wraps an open file.
    pub fn new(file: File) -> Self {
        Self(file)
    }
}

impl Length for ParquetFile {
    fn len(&self) -> u64 {
        self.0.len()
    }
}

impl ChunkReader for ParquetFile {
    type T = EofIsAnError<BufReader<File>>;

    fn get_read(&self, start: u64) -> Result<Self::T> {
        self.0.get_read(start).map(EofIsAnError)
    }

    fn get_bytes(&self, start: u64, length: usize) -> Result<Bytes> {
        self.0.get_bytes(start, length)
    }
}

/// A reader for which the end of its input, when bytes are asked for, is an error.
pub struct EofIsAnError<R>(R);

impl<R: Read> Read for EofIsAnError<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.0.read(buf)? {
            0 if !buf.is_empty() => {
                Err(io::Error::new(io::ErrorKind::UnexpectedEof, "a page header reads past the end of the file"))
            }
            n => Ok(n),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn reading_at_the_end_is_an_error_and_before_it_is_not() {
        let mut tmp = tempfile::NamedTempFile::new().unwrap();
        tmp.write_all(b"abcdef").unwrap();
        let file = ParquetFile::new(File::open(tmp.path()).unwrap());
        let mut read = file.get_read(4).unwrap();
        let mut buf = [0u8; 8];
        assert_eq!(read.read(&mut buf).unwrap(), 2);
        assert_eq!(&buf[..2], b"ef");
        let err = read.read(&mut buf).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
        // An empty buffer asks for nothing: not an error.
        assert_eq!(read.read(&mut []).unwrap(), 0);
        // A bounded copy that meets the end now fails instead of stopping short: the loop
        // that spun on a corrupt header ends at its first step.
        let mut read = file.get_read(5).unwrap();
        let copied = io::copy(&mut (&mut read).take(8), &mut io::sink());
        assert_eq!(copied.unwrap_err().kind(), io::ErrorKind::UnexpectedEof);
        assert_eq!(file.get_bytes(1, 3).unwrap().as_ref(), b"bcd");
        assert!(file.get_bytes(4, 3).is_err());
    }
}
