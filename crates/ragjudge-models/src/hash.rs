//! Streaming sha256 of files and readers, shared by the model store and the backends.

use crate::error::ModelError;
use sha2::{Digest, Sha256};
use std::fs::File;
use std::io::{self, Read, Write};
use std::path::Path;

const BUF_SIZE: usize = 1 << 20;

/// Writes through to `inner` and hashes what it writes.
pub struct HashingWriter<W: Write> {
    /// Where the bytes go.
    pub inner: W,
    /// The running hash.
    pub hasher: Sha256,
    /// Bytes written so far.
    pub len: u64,
}

impl<W: Write> Write for HashingWriter<W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(data)?;
        self.hasher.update(&data[..n]);
        self.len += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Copies `reader` into `writer` through `buf`; returns the bytes copied.
pub fn copy(reader: &mut impl Read, writer: &mut impl Write, buf: &mut [u8]) -> io::Result<u64> {
    let mut total = 0;
    loop {
        let n = match reader.read(buf) {
            Ok(0) => return Ok(total),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        writer.write_all(&buf[..n])?;
        total += n as u64;
    }
}

/// Streams `reader` through sha256; returns (lower-case hex digest, bytes read).
pub fn hash_reader(mut reader: impl Read) -> io::Result<(String, u64)> {
    let mut w = HashingWriter { inner: io::sink(), hasher: Sha256::new(), len: 0 };
    let mut buf = vec![0u8; BUF_SIZE];
    copy(&mut reader, &mut w, &mut buf)?;
    Ok((hex(&w.hasher.finalize()), w.len))
}

/// The sha256 of a file, streamed, as lower-case hex.
pub fn sha256_file(path: &Path) -> Result<String, ModelError> {
    let file = File::open(path).map_err(|e| io_err(path, e))?;
    hash_reader(file).map(|(h, _)| h).map_err(|e| io_err(path, e))
}

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl<W: Write> HashingWriter<W> {
    /// A writer into `inner` with an empty hash.
    pub fn new(inner: W) -> Self {
        Self { inner, hasher: Sha256::new(), len: 0 }
    }
}

fn io_err(path: &Path, e: io::Error) -> ModelError {
    ModelError::Io(crate::Reason::caused(path.display(), e))
}
