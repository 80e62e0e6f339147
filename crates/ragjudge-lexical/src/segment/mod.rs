//! Chinese word segmentation: jieba's default cut (`jieba.cut(text)`: accurate mode, HMM for
//! unknown words) through the `jieba-rs` crate and its bundled copy of jieba's dictionary.
//!
//! The dictionary sits behind the `zh` cargo feature (on by default). Without it, [`jieba_cut`]
//! falls back to one token per CJK ideograph and per run of other non-space characters, and
//! [`JIEBA`] is false so that callers can say which segmentation they used.

#[cfg(feature = "zh")]
mod enabled;
#[cfg(feature = "zh")]
use enabled as imp;

#[cfg(not(feature = "zh"))]
mod disabled;
#[cfg(not(feature = "zh"))]
use disabled as imp;

/// Whether jieba segmentation is compiled in (the `zh` feature).
pub const JIEBA: bool = imp::JIEBA;

/// The tokens of `jieba.cut(text)` (jieba 0.42.1, default mode, HMM on): every character of the
/// text is in exactly one token, whitespace and punctuation included, in order.
pub fn jieba_cut(text: &str) -> Vec<&str> {
    imp::cut(text)
}

/// Name of the segmenter in use: `jieba` (jieba-rs) or `cjk-chars` (the fallback).
pub fn segmenter_name() -> &'static str {
    if JIEBA {
        "jieba"
    } else {
        "cjk-chars"
    }
}
