//! Matrix products with `bfloat16` inputs and `f32` accumulation:
//! `C (m x n, f32, row-major) = A (m x k) B (k x n)`, A and B rounded to bfloat16 (round to
//! nearest, ties to even; Kalamkar et al. 2019, "A Study of BFLOAT16 for Deep Learning Training",
//! section 2).
//!
//! On processors with AVX-512 BF16 the inner loop is `VDPBF16PS`, which adds two bfloat16 products
//! into each of 16 `f32` lanes per instruction (twice the multiply-adds of an `f32` FMA). Elsewhere
//! a plain loop gives the same numbers up to the order of the `f32` additions.
//!
//! Layouts: B is packed once ([`PackedB`]) into groups of [`NR`] = 48 columns; within a group, for
//! each pair of rows `(2p, 2p + 1)` of B, three 16-column panels of 32 bfloat16 values
//! `b[2p][j], b[2p + 1][j], b[2p][j + 1], ...` (one 512-bit register each), zero-padded past `k`
//! and `n`. A is packed per product ([`PackedA`]): one `u32` per row and pair of columns, the
//! bfloat16 of `a[i][2p]` in the low half and of `a[i][2p + 1]` in the high half, so that one
//! 32-bit broadcast pairs with the panels.
#![allow(unsafe_code)]

/// Columns of B per packed group: three 16-lane panels.
pub(crate) const NR: usize = 48;
/// Rows of A per register tile of the AVX-512 kernel (8 x 3 accumulators).
const MR: usize = 8;

/// The bits of `x` rounded to bfloat16, ties to even; NaN stays NaN (made quiet), as
/// `half::bf16::from_f32`, but without branches, so that loops over it vectorise.
///
/// Adding `0x7FFF` plus the lowest kept bit to the `f32` bits carries into the kept 16 bits
/// exactly when the dropped half is above `0x8000`, or equal to it with the kept part odd.
#[inline(always)]
pub(crate) fn round_bf16(x: f32) -> u16 {
    let bits = x.to_bits();
    let rounded = bits.wrapping_add(0x7FFF + ((bits >> 16) & 1)) >> 16;
    let quiet_nan = (bits >> 16) | 0x0040;
    (if bits & 0x7FFF_FFFF > 0x7F80_0000 { quiet_nan } else { rounded }) as u16
}

/// The `f32` value of bfloat16 bits (exact).
#[inline(always)]
pub(crate) fn bf16_value(bits: u16) -> f32 {
    f32::from_bits(u32::from(bits) << 16)
}

/// B `(k, n)` rounded to bfloat16 and packed in the layout of the module documentation.
#[derive(Debug, Clone)]
pub(crate) struct PackedB {
    k: usize,
    n: usize,
    /// `(groups, ceil(k / 2), 3 panels, 32)`.
    data: Vec<u16>,
}

impl PackedB {
    /// Packs the row-major `(k, n)` matrix `b`.
    pub(crate) fn new(b: &[f32], k: usize, n: usize) -> Self {
        assert_eq!(b.len(), k * n, "B has {} values for ({k}, {n})", b.len());
        let kp = k.div_ceil(2);
        let groups = n.div_ceil(NR);
        let mut data = vec![0u16; groups * kp * 2 * NR];
        // Row by row of B, so that the reads are sequential.
        for (row, values) in b.chunks_exact(n.max(1)).enumerate().take(k) {
            let (p, e) = (row / 2, row % 2);
            for (g, values) in values.chunks(NR).enumerate() {
                let block = &mut data[(g * kp + p) * 2 * NR..(g * kp + p + 1) * 2 * NR];
                for (pair, &v) in block.chunks_exact_mut(2).zip(values) {
                    pair[e] = round_bf16(v);
                }
            }
        }
        Self { k, n, data }
    }

    /// Rows (the inner dimension of the product).
    pub(crate) fn k(&self) -> usize {
        self.k
    }

    /// Columns.
    pub(crate) fn n(&self) -> usize {
        self.n
    }
}

/// A `(m, k)` rounded to bfloat16, its columns in pairs (see the module documentation).
#[derive(Debug, Clone)]
pub(crate) struct PackedA {
    m: usize,
    k: usize,
    kp: usize,
    /// `(m, kp)`.
    data: Vec<u32>,
}

impl PackedA {
    /// Rounds and packs the row-major `(m, k)` matrix `a`.
    pub(crate) fn new(a: &[f32], m: usize, k: usize) -> Self {
        assert_eq!(a.len(), m * k, "A has {} values for ({m}, {k})", a.len());
        let kp = k.div_ceil(2);
        let mut data = vec![0u32; m * kp];
        if m > 0 && k > 0 {
            #[cfg(target_arch = "x86_64")]
            if std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512bw") {
                // SAFETY: the features `pack_rows_avx512` is compiled for were detected just above.
                unsafe { pack_rows_avx512(a, k, &mut data) };
                return Self { m, k, kp, data };
            }
            pack_rows(a, k, &mut data);
        }
        Self { m, k, kp, data }
    }
}

/// The pairs of rows of `a` (`k` columns) into `out` (`ceil(k / 2)` per row). A plain loop that
/// the compiler vectorises for the instruction set of its caller.
#[inline(always)]
fn pack_rows(a: &[f32], k: usize, out: &mut [u32]) {
    let kp = k.div_ceil(2);
    for (row, o) in a.chunks_exact(k).zip(out.chunks_exact_mut(kp)) {
        let (pairs, odd) = row.split_at(k & !1);
        for (o, pair) in o.iter_mut().zip(pairs.chunks_exact(2)) {
            *o = u32::from(round_bf16(pair[0])) | (u32::from(round_bf16(pair[1])) << 16);
        }
        if let Some(&last) = odd.first() {
            o[kp - 1] = u32::from(round_bf16(last));
        }
    }
}

/// [`pack_rows`] compiled for AVX-512.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
fn pack_rows_avx512(a: &[f32], k: usize, out: &mut [u32]) {
    pack_rows(a, k, out);
}

/// Which code computes the products.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kernel {
    /// `VDPBF16PS` (AVX-512 BF16).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    Avx512Bf16,
    /// Plain loops, on any processor.
    Portable,
}

impl Kernel {
    /// The fastest kernel this processor runs.
    pub(crate) fn detect() -> Self {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512bf16") {
            return Self::Avx512Bf16;
        }
        Self::Portable
    }
}

/// `C = A B` into the row-major `(m, n)` slice `c` (overwritten), with `kernel` (which must be
/// [`Kernel::Portable`] or one [`Kernel::detect`] returned).
pub(crate) fn matmul(kernel: Kernel, a: &PackedA, b: &PackedB, c: &mut [f32]) {
    assert_eq!(a.k, b.k, "inner dimensions differ: A has {} columns, B {} rows", a.k, b.k);
    assert_eq!(c.len(), a.m * b.n, "C has {} values for ({}, {})", c.len(), a.m, b.n);
    match kernel {
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx512Bf16 => {
            assert!(
                std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512bf16"),
                "this processor lacks AVX-512 BF16"
            );
            // SAFETY: the features `avx512::matmul` is compiled for were detected just above; the
            // dimensions of `a`, `b` and `c` were checked to agree.
            unsafe { avx512::matmul(a, b, c) }
        }
        _ => matmul_portable(a, b, c),
    }
}

/// The portable product: per group of [`NR`] columns and row of A, the pairs in order, each adding
/// the product of the odd element and then of the even one, as `VDPBF16PS` specifies.
fn matmul_portable(a: &PackedA, b: &PackedB, c: &mut [f32]) {
    let (kp, n) = (a.kp, b.n);
    if kp == 0 {
        c.fill(0.0);
        return;
    }
    for (g, group) in b.data.chunks_exact(kp * 2 * NR).enumerate() {
        let cols = NR.min(n - g * NR);
        for (a_row, c_row) in a.data.chunks_exact(kp).zip(c.chunks_exact_mut(n)) {
            let mut acc = [0f32; NR];
            for (&pair, block) in a_row.iter().zip(group.chunks_exact(2 * NR)) {
                let lo = bf16_value(pair as u16);
                let hi = bf16_value((pair >> 16) as u16);
                for (acc, bs) in acc.iter_mut().zip(block.chunks_exact(2)) {
                    *acc += hi * bf16_value(bs[1]);
                    *acc += lo * bf16_value(bs[0]);
                }
            }
            c_row[g * NR..g * NR + cols].copy_from_slice(&acc[..cols]);
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;

    use super::{PackedA, PackedB, MR, NR};

    /// `C = A B` by register tiles of [`MR`] rows x [`NR`] columns: the B block of a column group
    /// stays in cache while the row tiles of A pass over it.
    ///
    /// # Safety
    /// The processor must have AVX-512 F and BF16; `c.len() == a.m * b.n` and `a.k == b.k`.
    #[target_feature(enable = "avx512f,avx512bf16")]
    pub(super) unsafe fn matmul(a: &PackedA, b: &PackedB, c: &mut [f32]) {
        let (m, n, kp) = (a.m, b.n, a.kp);
        if m == 0 || n == 0 {
            return;
        }
        if kp == 0 {
            c.fill(0.0);
            return;
        }
        let a_ptr = a.data.as_ptr();
        let c_ptr = c.as_mut_ptr();
        for g in 0..n.div_ceil(NR) {
            let cols = NR.min(n - g * NR);
            // SAFETY: group `g` of B starts `g * kp * 2 * NR` values in and holds `kp * 2 * NR`.
            let b_ptr = unsafe { b.data.as_ptr().add(g * kp * 2 * NR) };
            let mut i = 0;
            while i < m {
                let rows = MR.min(m - i);
                // SAFETY: rows `i .. i + rows` of A (`kp` values each) and of C (`n` each) lie in
                // their buffers; columns `g * NR .. g * NR + cols` lie within a row of C.
                unsafe {
                    let a_tile = a_ptr.add(i * kp);
                    let c_tile = c_ptr.add(i * n + g * NR);
                    match rows {
                        8 => tile::<8>(a_tile, kp, b_ptr, c_tile, n, cols),
                        7 => tile::<7>(a_tile, kp, b_ptr, c_tile, n, cols),
                        6 => tile::<6>(a_tile, kp, b_ptr, c_tile, n, cols),
                        5 => tile::<5>(a_tile, kp, b_ptr, c_tile, n, cols),
                        4 => tile::<4>(a_tile, kp, b_ptr, c_tile, n, cols),
                        3 => tile::<3>(a_tile, kp, b_ptr, c_tile, n, cols),
                        2 => tile::<2>(a_tile, kp, b_ptr, c_tile, n, cols),
                        _ => tile::<1>(a_tile, kp, b_ptr, c_tile, n, cols),
                    }
                }
                i += rows;
            }
        }
    }

    /// One `R x NR` tile of C: `R` rows of A from `a` (row stride `kp`), the `kp x 3` panels of one
    /// column group of B from `b`; the first `cols` columns are written to `c` (row stride `ldc`).
    ///
    /// # Safety
    /// AVX-512 F and BF16; `a` readable for `R` rows of `kp`, `b` for `kp * 2 * NR` values, `c`
    /// writable for `R` rows of `cols`.
    #[target_feature(enable = "avx512f,avx512bf16")]
    #[inline]
    unsafe fn tile<const R: usize>(a: *const u32, kp: usize, b: *const u16, c: *mut f32, ldc: usize, cols: usize) {
        let mut acc = [[_mm512_setzero_ps(); 3]; R];
        for p in 0..kp {
            // SAFETY: pair `p` of the group holds 3 panels of 32 values (64 bytes each), and
            // `p < kp` rows of A are readable, as the caller guarantees.
            unsafe {
                let bp = b.add(p * 2 * NR);
                let b0: __m512bh = std::mem::transmute(_mm512_loadu_si512(bp.cast()));
                let b1: __m512bh = std::mem::transmute(_mm512_loadu_si512(bp.add(32).cast()));
                let b2: __m512bh = std::mem::transmute(_mm512_loadu_si512(bp.add(64).cast()));
                for (r, acc) in acc.iter_mut().enumerate() {
                    let pair: __m512bh = std::mem::transmute(_mm512_set1_epi32(*a.add(r * kp + p) as i32));
                    acc[0] = _mm512_dpbf16_ps(acc[0], pair, b0);
                    acc[1] = _mm512_dpbf16_ps(acc[1], pair, b1);
                    acc[2] = _mm512_dpbf16_ps(acc[2], pair, b2);
                }
            }
        }
        for (r, acc) in acc.iter().enumerate() {
            for (q, &v) in acc.iter().enumerate() {
                let start = q * 16;
                if start >= cols {
                    break;
                }
                // SAFETY: row `r` of the tile is writable for `cols` values; the mask keeps the
                // store to the columns `start .. min(start + 16, cols)`.
                unsafe {
                    let dst = c.add(r * ldc + start);
                    if start + 16 <= cols {
                        _mm512_storeu_ps(dst, v);
                    } else {
                        let mask: __mmask16 = (1u16 << (cols - start)) - 1;
                        _mm512_mask_storeu_ps(dst, mask, v);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic values in [-1, 1) from a 64-bit linear congruential generator (Knuth's MMIX
    /// constants), so that the tests need no random-number crate.
    fn values(len: usize, seed: u64) -> Vec<f32> {
        let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..len)
            .map(|_| {
                s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                ((s >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
            })
            .collect()
    }

    /// `C` in `f64` from the bfloat16-rounded inputs, and the absolute sum of each entry's terms.
    fn reference(a: &[f32], b: &[f32], m: usize, k: usize, n: usize) -> (Vec<f64>, Vec<f64>) {
        let r = |x: f32| f64::from(bf16_value(round_bf16(x)));
        let (ra, rb): (Vec<f64>, Vec<f64>) = (a.iter().map(|&x| r(x)).collect(), b.iter().map(|&x| r(x)).collect());
        let (mut c, mut abs) = (vec![0f64; m * n], vec![0f64; m * n]);
        for i in 0..m {
            for l in 0..k {
                let x = ra[i * k + l];
                for j in 0..n {
                    let t = x * rb[l * n + j];
                    c[i * n + j] += t;
                    abs[i * n + j] += t.abs();
                }
            }
        }
        (c, abs)
    }

    /// Largest `|got - want| / abs-sum` over the entries (`abs-sum` 0 only where both are 0).
    fn worst(got: &[f32], want: &[f64], abs: &[f64]) -> f64 {
        got.iter()
            .zip(want)
            .zip(abs)
            .map(|((&g, &w), &s)| if s == 0.0 { f64::from(g).abs() } else { (f64::from(g) - w).abs() / s })
            .fold(0.0, f64::max)
    }

    const MS: [usize; 4] = [1, 7, 9, 33];
    const NS: [usize; 5] = [1, 15, 17, 384, 1152];
    const KS: [usize; 4] = [1, 3, 384, 1536];

    /// Every shape of `MS x KS x NS` (edges of the 8-row tile, the 16-column panel and the
    /// 48-column group, odd k) against the `f64` reference: only the order of the `f32` additions
    /// differs, so the error stays far below 1e-5 of the terms' absolute sum (bfloat16 rounding of
    /// the inputs alone would give about 4e-3).
    fn check_kernel(kernel: Kernel) {
        for (si, &m) in MS.iter().enumerate() {
            for (sk, &k) in KS.iter().enumerate() {
                for (sn, &n) in NS.iter().enumerate() {
                    let a = values(m * k, (si * 100 + sk * 10 + sn) as u64);
                    let b = values(k * n, (1000 + sk * 10 + sn) as u64);
                    let (pa, pb) = (PackedA::new(&a, m, k), PackedB::new(&b, k, n));
                    let mut c = vec![f32::NAN; m * n];
                    matmul(kernel, &pa, &pb, &mut c);
                    let (want, abs) = reference(&a, &b, m, k, n);
                    let e = worst(&c, &want, &abs);
                    assert!(e < 1e-5, "{kernel:?} ({m} x {k}) ({k} x {n}): relative error {e}");
                }
            }
        }
    }

    #[test]
    fn portable_kernel_matches_f64_reference() {
        check_kernel(Kernel::Portable);
    }

    #[test]
    fn detected_kernel_matches_f64_reference_and_portable() {
        let kernel = Kernel::detect();
        eprintln!("kernel: {kernel:?}");
        check_kernel(kernel);
        // The two kernels on one MiniLM-sized product, entry by entry.
        let (m, k, n) = (33, 1536, 384);
        let (a, b) = (values(m * k, 7), values(k * n, 8));
        let (pa, pb) = (PackedA::new(&a, m, k), PackedB::new(&b, k, n));
        let (mut c1, mut c2) = (vec![0f32; m * n], vec![0f32; m * n]);
        matmul(kernel, &pa, &pb, &mut c1);
        matmul(Kernel::Portable, &pa, &pb, &mut c2);
        let (_, abs) = reference(&a, &b, m, k, n);
        let e = c1.iter().zip(&c2).zip(&abs).map(|((&x, &y), &s)| f64::from((x - y).abs()) / s).fold(0.0, f64::max);
        assert!(e < 1e-5, "kernel vs portable: {e}");
    }

    #[test]
    fn inputs_are_rounded_to_bf16_before_the_product() {
        // 1 + 3 * 2^-9 rounds up to 1 + 2^-7 (see `rounding_hand_cases`): 1 x (1 + 2^-7) with
        // k = 1 is exactly 1.0078125 in f32, where the f32 product would be 1.005859375.
        let x = 1.0 + 3.0 * 2f32.powi(-9);
        for kernel in [Kernel::Portable, Kernel::detect()] {
            let mut c = [0f32; 1];
            matmul(kernel, &PackedA::new(&[x], 1, 1), &PackedB::new(&[1.0], 1, 1), &mut c);
            assert_eq!(c[0], 1.007_812_5, "{kernel:?}");
        }
    }

    #[test]
    fn empty_inner_dimension_gives_zeros() {
        for kernel in [Kernel::Portable, Kernel::detect()] {
            let mut c = [1.0f32; 2];
            matmul(kernel, &PackedA::new(&[], 2, 0), &PackedB::new(&[], 0, 1), &mut c);
            assert_eq!(c, [0.0, 0.0], "{kernel:?}");
        }
    }

    #[test]
    fn rounding_agrees_with_half() {
        // Every upper half of the bit pattern (both signs, NaNs, infinities, subnormals), each
        // with the lower halves at the ends and around the tie.
        for hi in 0..=0xFFFFu32 {
            for lo in [0u32, 1, 0x7FFF, 0x8000, 0x8001, 0xFFFF] {
                let x = f32::from_bits((hi << 16) | lo);
                assert_eq!(round_bf16(x), half::bf16::from_f32(x).to_bits(), "{:#x}", x.to_bits());
            }
        }
    }

    #[test]
    fn rounding_hand_cases() {
        // 1.0 = 0x3F80_0000: exact.
        assert_eq!(round_bf16(1.0), 0x3F80);
        // 1 + 2^-8 = 0x3F80_8000: exactly halfway between 0x3F80 and 0x3F81; ties to even 0x3F80.
        assert_eq!(round_bf16(1.0 + 2f32.powi(-8)), 0x3F80);
        // 1 + 3 * 2^-8 = 0x3F81_8000: halfway between 0x3F81 and 0x3F82; ties to even 0x3F82.
        assert_eq!(round_bf16(1.0 + 3.0 * 2f32.powi(-8)), 0x3F82);
        // 1 + 3 * 2^-9 = 0x3F80_C000: above halfway, up to 0x3F81 = 1 + 2^-7.
        assert_eq!(round_bf16(1.0 + 3.0 * 2f32.powi(-9)), 0x3F81);
        assert_eq!(bf16_value(0x3F81), 1.0 + 2f32.powi(-7));
        // Sign is kept: -(1 + 3 * 2^-9) -> 0xBF81.
        assert_eq!(round_bf16(-(1.0 + 3.0 * 2f32.powi(-9))), 0xBF81);
        // f32::MAX = 0x7F7F_FFFF rounds up past the largest bfloat16 (0x7F7F) to +inf 0x7F80.
        assert_eq!(round_bf16(f32::MAX), 0x7F80);
        assert_eq!(round_bf16(f32::NEG_INFINITY), 0xFF80);
        // Subnormals: 0x0001_8000 is halfway between 0x0001 and 0x0002 -> 0x0002; the smallest
        // f32 subnormal (0x0000_0001) rounds to +0.
        assert_eq!(round_bf16(f32::from_bits(0x0001_8000)), 0x0002);
        assert_eq!(round_bf16(f32::from_bits(1)), 0x0000);
        // NaN stays NaN (quiet), also one whose payload lies only in the dropped low bits.
        assert!(bf16_value(round_bf16(f32::NAN)).is_nan());
        assert!(bf16_value(round_bf16(f32::from_bits(0x7F80_0001))).is_nan());
    }

    #[test]
    fn packed_rows_round_each_value() {
        // k = 3: pairs (a0, a1) and (a2, 0); low half first.
        let a = [1.0, -2.0, 1.0 + 3.0 * 2f32.powi(-9), 0.5, 0.25, -0.125];
        let pa = PackedA::new(&a, 2, 3);
        assert_eq!(pa.data, vec![0xC000_3F80, 0x0000_3F81, 0x3E80_3F00, 0x0000_BE00]);
    }
}
