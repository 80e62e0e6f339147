//! Dequantisation of the weight formats found in quantised ONNX exports.
//!
//! - `MatMulNBits` (ONNX Runtime contrib operator, domain `com.microsoft`): `Y = A · B` where `B`
//!   (logically `[K, N]`) is stored transposed and block-quantised along K. `B` is UINT8
//!   `[N, n_blocks, blob]` with `n_blocks = ceil(K / block_size)` and `blob = block_size · bits / 8`;
//!   values are packed least-significant bits first. `scales` holds `N · n_blocks` floats;
//!   `zero_points` is optional: packed UINT8 (`ceil(n_blocks · bits / 8)` bytes per row) or floats
//!   shaped like `scales`; without it the zero point is `2^(bits-1)` (8 for 4 bits). Each weight is
//!   `(q - zero_point) · scale` of its block.
//! - `DequantizeLinear` (ONNX operator): `y = (x - zero_point) · scale`, per tensor or per axis.

/// Zero points of a `MatMulNBits` weight.
#[derive(Debug, Clone, PartialEq)]
pub enum ZeroPoints {
    /// None given: `2^(bits-1)` for every block.
    Default,
    /// Packed unsigned integers, `ceil(n_blocks · bits / 8)` bytes per output row.
    Packed(Vec<u8>),
    /// One float per block (`N · n_blocks`).
    Float(Vec<f32>),
}

/// The attributes and tensors of one `MatMulNBits` weight.
#[derive(Debug, Clone, PartialEq)]
pub struct NBitsWeight {
    /// Input features (rows of the logical `[K, N]` weight).
    pub k: usize,
    /// Output features.
    pub n: usize,
    /// Bits per value: 2, 4 or 8.
    pub bits: usize,
    /// Values per block along K.
    pub block_size: usize,
    /// Packed values, `N · n_blocks · blob` bytes.
    pub packed: Vec<u8>,
    /// One scale per (output row, block).
    pub scales: Vec<f32>,
    /// Zero points.
    pub zero_points: ZeroPoints,
}

impl NBitsWeight {
    /// Blocks per output row: `ceil(K / block_size)`.
    pub fn n_blocks(&self) -> usize {
        self.k.div_ceil(self.block_size)
    }

    /// Dequantises to the row-major `[N, K]` matrix, the layout of a Hugging Face / PyTorch
    /// `Linear.weight` (`y = x Wᵀ`), i.e. the transpose of the operator's logical `B`.
    pub fn dequantize(&self) -> Result<Vec<f32>, String> {
        let (k, n, bits, bs) = (self.k, self.n, self.bits, self.block_size);
        if !matches!(bits, 2 | 4 | 8) {
            return Err(format!("bits = {bits} is not supported (2, 4 or 8)"));
        }
        if bs == 0 || (bs * bits) % 8 != 0 {
            return Err(format!("block_size {bs} does not fill whole bytes at {bits} bits"));
        }
        let n_blocks = self.n_blocks();
        let blob = bs * bits / 8;
        if self.packed.len() != n * n_blocks * blob {
            return Err(format!("B has {} bytes, expected N·n_blocks·blob = {n}·{n_blocks}·{blob}", self.packed.len()));
        }
        if self.scales.len() != n * n_blocks {
            return Err(format!("{} scales, expected N·n_blocks = {n}·{n_blocks}", self.scales.len()));
        }
        let zp_row_bytes = (n_blocks * bits).div_ceil(8);
        match &self.zero_points {
            ZeroPoints::Packed(z) if z.len() != n * zp_row_bytes => {
                return Err(format!("{} zero-point bytes, expected {}", z.len(), n * zp_row_bytes));
            }
            ZeroPoints::Float(z) if z.len() != n * n_blocks => {
                return Err(format!("{} zero points, expected {}", z.len(), n * n_blocks));
            }
            _ => {}
        }
        let mask = (1u32 << bits) - 1;
        let unpack = |bytes: &[u8], i: usize| -> u32 { (u32::from(bytes[i * bits / 8]) >> ((i * bits) % 8)) & mask };
        let default_zp = (1u32 << (bits - 1)) as f32;
        let mut out = vec![0f32; n * k];
        for row in 0..n {
            for b in 0..n_blocks {
                let scale = self.scales[row * n_blocks + b];
                let zp = match &self.zero_points {
                    ZeroPoints::Default => default_zp,
                    ZeroPoints::Packed(z) => unpack(&z[row * zp_row_bytes..(row + 1) * zp_row_bytes], b) as f32,
                    ZeroPoints::Float(z) => z[row * n_blocks + b],
                };
                let block = &self.packed[(row * n_blocks + b) * blob..(row * n_blocks + b + 1) * blob];
                // The last block may be padded past K.
                for j in 0..bs.min(k - b * bs) {
                    out[row * k + b * bs + j] = (unpack(block, j) as f32 - zp) * scale;
                }
            }
        }
        Ok(out)
    }
}

/// `DequantizeLinear` of a whole tensor `x` of shape `shape`: `(x - zero_point) · scale`, with
/// one scale (per tensor) or one per index of `axis` (per axis; negative axes count from the end).
pub fn dequantize_linear(
    x: &[i32],
    shape: &[usize],
    scale: &[f32],
    zero_point: Option<&[i32]>,
    axis: i64,
) -> Result<Vec<f32>, String> {
    if let Some(z) = zero_point {
        if z.len() != scale.len() {
            return Err(format!("{} zero points for {} scales", z.len(), scale.len()));
        }
    }
    let zp = |i: usize| zero_point.map_or(0, |z| z[i]) as f32;
    if scale.len() == 1 {
        let (s, z) = (scale[0], zp(0));
        return Ok(x.iter().map(|&v| (v as f32 - z) * s).collect());
    }
    let rank = shape.len() as i64;
    let ax = if axis < 0 { axis + rank } else { axis };
    if !(0..rank).contains(&ax) {
        return Err(format!("axis {axis} out of range for rank {rank}"));
    }
    let ax = ax as usize;
    if shape[ax] != scale.len() {
        return Err(format!("{} scales for axis {ax} of length {}", scale.len(), shape[ax]));
    }
    let inner: usize = shape[ax + 1..].iter().product();
    Ok(x.iter()
        .enumerate()
        .map(|(i, &v)| {
            let c = (i / inner) % shape[ax];
            (v as f32 - zp(c)) * scale[c]
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_bit_blocks_unpack_low_nibble_first() {
        // K = 4, N = 1, block_size 2: two blocks of one byte each.
        // Byte 0x21 -> values 1 (low nibble), 2; byte 0xF0 -> 0, 15.
        // Default zero point 8: block 0 (scale 0.5): (1-8)·0.5 = -3.5, (2-8)·0.5 = -3;
        // block 1 (scale 2): (0-8)·2 = -16, (15-8)·2 = 14.
        let w = NBitsWeight {
            k: 4,
            n: 1,
            bits: 4,
            block_size: 2,
            packed: vec![0x21, 0xF0],
            scales: vec![0.5, 2.0],
            zero_points: ZeroPoints::Default,
        };
        assert_eq!(w.dequantize().unwrap(), [-3.5, -3.0, -16.0, 14.0]);
        // Packed zero points for the one row: byte 0x31 -> block 0 zp 1, block 1 zp 3.
        // (1-1)·0.5 = 0, (2-1)·0.5 = 0.5, (0-3)·2 = -6, (15-3)·2 = 24.
        let w = NBitsWeight { zero_points: ZeroPoints::Packed(vec![0x31]), ..w };
        assert_eq!(w.dequantize().unwrap(), [0.0, 0.5, -6.0, 24.0]);
    }

    #[test]
    fn padded_last_block_and_eight_bits() {
        // K = 3 with block_size 2: the second block holds one real value and one pad.
        // 8 bits, default zero point 128: 130 -> 2, 126 -> -2, 128 -> 0 (times scale 0.25).
        let w = NBitsWeight {
            k: 3,
            n: 1,
            bits: 8,
            block_size: 2,
            packed: vec![130, 126, 128, 255],
            scales: vec![0.25, 0.25],
            zero_points: ZeroPoints::Default,
        };
        assert_eq!(w.dequantize().unwrap(), [0.5, -0.5, 0.0]);
        assert!(NBitsWeight { packed: vec![0; 3], ..w.clone() }.dequantize().is_err());
        assert!(NBitsWeight { bits: 3, ..w }.dequantize().is_err());
    }

    #[test]
    fn dequantize_linear_per_tensor_and_per_axis() {
        // Per tensor: (x - 128) · 0.1 for x = 128, 138, 118 -> 0, 1, -1.
        let y = dequantize_linear(&[128, 138, 118], &[3], &[0.1], Some(&[128]), 1).unwrap();
        let want = [0.0, 1.0, -1.0];
        assert!(y.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-6), "{y:?}");
        // Per axis 0 of a [2, 2] tensor: row 0 scale 1 zp 0, row 1 scale 2 zp 1.
        // [[3, 4], [3, 4]] -> [[3, 4], [4, 6]].
        let y = dequantize_linear(&[3, 4, 3, 4], &[2, 2], &[1.0, 2.0], Some(&[0, 1]), 0).unwrap();
        assert_eq!(y, [3.0, 4.0, 4.0, 6.0]);
        // Axis -1 (columns): column 0 scale 1, column 1 scale 2, no zero point.
        let y = dequantize_linear(&[3, 4, 3, 4], &[2, 2], &[1.0, 2.0], None, -1).unwrap();
        assert_eq!(y, [3.0, 8.0, 3.0, 8.0]);
        assert!(dequantize_linear(&[1, 2], &[2], &[1.0, 2.0, 3.0], None, 0).is_err());
    }
}
