//! Element-wise kernels of the packed BERT forward pass, written as plain loops over `f32` slices
//! that the compiler vectorises (all `#[inline(always)]`, so that they take the instruction set of
//! the `pulp` dispatch they are called from): `exp` by range reduction and a polynomial, `erf` by
//! Abramowitz & Stegun 7.1.26, GELU (Hendrycks & Gimpel 2016, eq. 1 and its tanh form), softmax
//! and layer normalisation (Ba et al. 2016, eq. 4).

/// 1.5 * 2^23: adding it rounds an `f32` of magnitude below 2^22 to the nearest integer.
const ROUND_MAGIC: f32 = 12_582_912.0;

/// `e^x` with a relative error below 4e-7 for x in [-87, 88]; inputs outside are clamped there.
///
/// x = n ln2 + r with |r| <= ln2 / 2, `e^r` by its degree-6 Taylor polynomial, `2^n` built
/// in the exponent bits.
#[inline(always)]
pub(crate) fn exp(x: f32) -> f32 {
    let x = x.clamp(-87.0, 88.0);
    let t = x * std::f32::consts::LOG2_E + ROUND_MAGIC;
    let n = t - ROUND_MAGIC;
    // ln 2 split in a part exact in f32 and the rest (Cody & Waite).
    let r = x - n * 0.693_359_4 - n * -2.121_944_4e-4;
    let p = 1.0 + r * (1.0 + r * (0.5 + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0 + r * (1.0 / 720.0))))));
    // t's low mantissa bits hold n: 0x4B40_0000 is the bit pattern of ROUND_MAGIC.
    let n_int = (t.to_bits() as i32).wrapping_sub(0x4B40_0000);
    p * f32::from_bits(((n_int + 127) << 23) as u32)
}

/// `erf(x)` with an absolute error below 5e-7 (Abramowitz & Stegun 7.1.26: 1.5e-7, plus `f32`
/// rounding).
#[inline(always)]
pub(crate) fn erf(x: f32) -> f32 {
    let a = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * a);
    let poly = t * (0.254_829_6 + t * (-0.284_496_74 + t * (1.421_413_7 + t * (-1.453_152_1 + t * 1.061_405_4))));
    (1.0 - poly * exp(-a * a)).copysign(x)
}

/// Exact GELU, `x Φ(x) = x (1 + erf(x / √2)) / 2`, in place.
#[inline(always)]
pub(crate) fn gelu_erf(xs: &mut [f32]) {
    for x in xs {
        *x = 0.5 * *x * (1.0 + erf(*x * std::f32::consts::FRAC_1_SQRT_2));
    }
}

/// GELU's tanh form, `x (1 + tanh(√(2/π) (x + 0.044715 x³))) / 2`, in place.
#[inline(always)]
pub(crate) fn gelu_tanh(xs: &mut [f32]) {
    const SQRT_2_OVER_PI: f32 = 0.797_884_6;
    for x in xs {
        let u = SQRT_2_OVER_PI * (*x + 0.044_715 * *x * *x * *x);
        // tanh(u) = 1 - 2 / (e^{2u} + 1)
        let tanh = 1.0 - 2.0 / (exp(2.0 * u) + 1.0);
        *x = 0.5 * *x * (1.0 + tanh);
    }
}

/// `max(x, 0)` in place.
#[inline(always)]
pub(crate) fn relu(xs: &mut [f32]) {
    for x in xs {
        *x = x.max(0.0);
    }
}

/// Sum with eight independent accumulators, so the loop vectorises.
#[inline(always)]
pub(crate) fn sum(xs: &[f32]) -> f32 {
    let mut acc = [0f32; 8];
    let chunks = xs.chunks_exact(8);
    let rest: f32 = chunks.remainder().iter().sum();
    for c in chunks {
        for (a, v) in acc.iter_mut().zip(c) {
            *a += v;
        }
    }
    acc.iter().sum::<f32>() + rest
}

/// Sum of squared deviations from `mean`, vectorised like [`sum`].
#[inline(always)]
fn sum_sq_dev(xs: &[f32], mean: f32) -> f32 {
    let mut acc = [0f32; 8];
    let chunks = xs.chunks_exact(8);
    let rest: f32 = chunks.remainder().iter().map(|v| (v - mean) * (v - mean)).sum();
    for c in chunks {
        for (a, v) in acc.iter_mut().zip(c) {
            *a += (v - mean) * (v - mean);
        }
    }
    acc.iter().sum::<f32>() + rest
}

/// Softmax of one row in place; the row must not be empty.
#[inline(always)]
pub(crate) fn softmax(row: &mut [f32]) {
    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    for v in row.iter_mut() {
        *v = exp(*v - max);
    }
    let inv = 1.0 / sum(row);
    for v in row.iter_mut() {
        *v *= inv;
    }
}

/// Layer normalisation of every `gamma.len()`-wide row of `xs` in place:
/// `(x - mean) / sqrt(var + eps) * gamma + beta`, with the biased variance as PyTorch uses.
#[inline(always)]
pub(crate) fn layer_norm_rows(xs: &mut [f32], gamma: &[f32], beta: &[f32], eps: f32) {
    let h = gamma.len();
    for row in xs.chunks_exact_mut(h) {
        let mean = sum(row) / h as f32;
        let var = sum_sq_dev(row, mean) / h as f32;
        let inv = 1.0 / (var + eps).sqrt();
        for ((v, g), b) in row.iter_mut().zip(gamma).zip(beta) {
            *v = (*v - mean) * inv * g + b;
        }
    }
}

/// `rows += bias` for every `bias.len()`-wide row.
#[inline(always)]
pub(crate) fn add_bias_rows(xs: &mut [f32], bias: &[f32]) {
    for row in xs.chunks_exact_mut(bias.len()) {
        for (v, b) in row.iter_mut().zip(bias) {
            *v += b;
        }
    }
}

/// `xs += bias (per row) + residual`, element-wise over `bias.len()`-wide rows.
#[inline(always)]
pub(crate) fn add_bias_residual_rows(xs: &mut [f32], bias: &[f32], residual: &[f32]) {
    for (row, res) in xs.chunks_exact_mut(bias.len()).zip(residual.chunks_exact(bias.len())) {
        for ((v, b), r) in row.iter_mut().zip(bias).zip(res) {
            *v += b + r;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_matches_std_to_4e_7_relative() {
        for i in -8700..=8800 {
            let x = i as f32 / 100.0;
            let (ours, std) = (exp(x), x.exp());
            assert!(((ours - std) / std).abs() < 4e-7, "exp({x}) = {ours}, std {std}");
        }
    }

    #[test]
    fn erf_matches_reference_values() {
        // erf(0.5) = 0.5204998778, erf(1) = 0.8427007929, erf(2) = 0.9953222650 (A&S table 7.1).
        for (x, want) in [(0.0, 0.0), (0.5, 0.520_499_9), (1.0, 0.842_700_8), (2.0, 0.995_322_3), (-1.0, -0.842_700_8)]
        {
            assert!((erf(x) - want).abs() < 5e-7, "erf({x}) = {}", erf(x));
        }
    }

    #[test]
    fn gelu_and_softmax_and_layer_norm_by_hand() {
        // GELU(1) = 0.5 * (1 + erf(1/√2)) = 0.5 * (1 + 0.6826894921) = 0.8413447461.
        let mut g = [1.0f32, 0.0, -1.0];
        gelu_erf(&mut g);
        assert!((g[0] - 0.841_344_7).abs() < 1e-6 && g[1] == 0.0 && (g[2] + 0.158_655_3).abs() < 1e-6);
        // softmax(0, ln 3) = (1/4, 3/4).
        let mut s = [0.0f32, 3f32.ln()];
        softmax(&mut s);
        assert!((s[0] - 0.25).abs() < 1e-6 && (s[1] - 0.75).abs() < 1e-6);
        // Row (1, 3): mean 2, variance 1, so (-1, 1) * gamma + beta.
        let mut r = [1.0f32, 3.0];
        layer_norm_rows(&mut r, &[2.0, 1.0], &[0.5, 0.0], 0.0);
        assert_eq!(r, [-1.5, 1.0]);
    }
}
