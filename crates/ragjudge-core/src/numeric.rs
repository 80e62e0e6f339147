//! Cosine similarity of embeddings, the one definition every metric and command uses.
//!
//! Vectors of different lengths are an error ([`CosineError::LengthMismatch`]), never truncated;
//! a vector with zero norm has no direction ([`CosineError::ZeroNorm`]), which [`cosine_or_zero`]
//! scores 0 as Open RAG Eval does.

/// Why two vectors have no cosine similarity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum CosineError {
    /// The vectors differ in length (embeddings of different models).
    #[error("vectors differ in length: {left} vs {right}")]
    LengthMismatch {
        /// Length of the first vector.
        left: usize,
        /// Length of the second vector.
        right: usize,
    },
    /// A vector holds NaN or an infinity.
    #[error("a vector holds a value that is not finite")]
    NotFinite,
    /// A vector is all zeros: it has no direction.
    #[error("a vector has zero norm; cosine similarity is undefined")]
    ZeroNorm,
}

/// Cosine similarity `a.b / (|a| |b|)`, summed in f64 and clamped to `[-1, 1]` against rounding.
pub fn cosine(a: &[f32], b: &[f32]) -> Result<f64, CosineError> {
    if a.len() != b.len() {
        return Err(CosineError::LengthMismatch { left: a.len(), right: b.len() });
    }
    let (mut dot, mut na, mut nb) = (0.0f64, 0.0f64, 0.0f64);
    for (&x, &y) in a.iter().zip(b) {
        if !(x.is_finite() && y.is_finite()) {
            return Err(CosineError::NotFinite);
        }
        let (x, y) = (f64::from(x), f64::from(y));
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    let denom = (na * nb).sqrt();
    if denom == 0.0 {
        return Err(CosineError::ZeroNorm);
    }
    if !(denom.is_finite() && dot.is_finite()) {
        return Err(CosineError::NotFinite);
    }
    Ok((dot / denom).clamp(-1.0, 1.0))
}

/// [`cosine`], with 0 for a vector of zero norm (Open RAG Eval's convention: an empty
/// embedding matches nothing); other errors as [`cosine`].
pub fn cosine_or_zero(a: &[f32], b: &[f32]) -> Result<f64, CosineError> {
    match cosine(a, b) {
        Err(CosineError::ZeroNorm) => Ok(0.0),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cosine_by_hand() {
        // (1,2).(2,1) = 4; |.| = sqrt 5 each: 4/5.
        assert!((cosine(&[1.0, 2.0], &[2.0, 1.0]).unwrap() - 0.8).abs() < 1e-12);
        // (1,0).(1,1) / (1 * sqrt 2).
        assert!((cosine(&[1.0, 0.0], &[1.0, 1.0]).unwrap() - 1.0 / 2f64.sqrt()).abs() < 1e-12);
        // Opposite and orthogonal vectors; norms need not be 1.
        assert_eq!(cosine(&[3.0, 0.0], &[-2.0, 0.0]), Ok(-1.0));
        assert_eq!(cosine(&[0.0, 5.0], &[7.0, 0.0]), Ok(0.0));
    }

    #[test]
    fn length_mismatch_zero_norm_and_non_finite_are_errors() {
        assert_eq!(cosine(&[1.0], &[1.0, 0.0]), Err(CosineError::LengthMismatch { left: 1, right: 2 }));
        assert_eq!(cosine_or_zero(&[1.0], &[1.0, 0.0]), Err(CosineError::LengthMismatch { left: 1, right: 2 }));
        assert_eq!(cosine(&[0.0, 0.0], &[1.0, 0.0]), Err(CosineError::ZeroNorm));
        assert_eq!(cosine_or_zero(&[0.0, 0.0], &[1.0, 0.0]), Ok(0.0));
        assert_eq!(cosine(&[f32::NAN, 0.0], &[1.0, 0.0]), Err(CosineError::NotFinite));
        assert_eq!(cosine_or_zero(&[1.0, f32::INFINITY], &[1.0, 0.0]), Err(CosineError::NotFinite));
    }
}
