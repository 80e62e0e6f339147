//! Test helpers: minimal but valid wheels, written with the `zip` crate.

use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Lower-case hex sha256 of `data`.
pub fn sha256_hex(data: &[u8]) -> String {
    Sha256::digest(data).iter().map(|b| format!("{b:02x}")).collect()
}

/// `n` deterministic pseudo-random bytes (xorshift64*), so that deflate cannot shrink them away.
pub fn noise(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            (x.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 56) as u8
        })
        .collect()
}

/// Unpadded URL-safe base64, as wheel RECORD files use for hashes (PEP 376 / PEP 427).
fn b64_urlsafe_nopad(data: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in data.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..=chunk.len() {
            out.push(A[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

/// Writes `DIST-VERSION-py3-none-any.whl` (dashes of `dist` become underscores) into `dir`, holding
/// `members` (paths relative to the wheel root) plus `METADATA`, `WHEEL` and `RECORD`.
pub fn write_wheel(dir: &Path, dist: &str, version: &str, members: &[(&str, &[u8])]) -> PathBuf {
    let norm = dist.replace('-', "_");
    let info = format!("{norm}-{version}.dist-info");
    let metadata = format!("Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\nSummary: test package\n");
    let wheel = "Wheel-Version: 1.0\nGenerator: ragjudge-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n";
    let mut files: Vec<(String, Vec<u8>)> = members.iter().map(|(p, d)| (p.to_string(), d.to_vec())).collect();
    files.push((format!("{info}/METADATA"), metadata.into_bytes()));
    files.push((format!("{info}/WHEEL"), wheel.as_bytes().to_vec()));
    let mut record = String::new();
    for (p, d) in &files {
        record.push_str(&format!("{p},sha256={},{}\n", b64_urlsafe_nopad(&Sha256::digest(d)), d.len()));
    }
    record.push_str(&format!("{info}/RECORD,,\n"));
    files.push((format!("{info}/RECORD"), record.into_bytes()));

    let path = dir.join(format!("{norm}-{version}-py3-none-any.whl"));
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
    let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (p, d) in &files {
        zip.start_file(p.as_str(), opts).unwrap();
        zip.write_all(d).unwrap();
    }
    zip.finish().unwrap();
    path
}

#[test]
fn base64_matches_rfc4648_vectors() {
    assert_eq!(b64_urlsafe_nopad(b""), "");
    assert_eq!(b64_urlsafe_nopad(b"f"), "Zg");
    assert_eq!(b64_urlsafe_nopad(b"fo"), "Zm8");
    assert_eq!(b64_urlsafe_nopad(b"foo"), "Zm9v");
    assert_eq!(b64_urlsafe_nopad(b"foob"), "Zm9vYg");
    assert_eq!(b64_urlsafe_nopad(&[0xfb, 0xff]), "-_8");
}
