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

/// jieba's words of `text` with their part-of-speech tags (`jieba.posseg.cut(text)`: the ICTCLAS
/// tag set of jieba's dictionary, `nr` person, `ns` place, `nt` organisation, `nz` other proper
/// noun, `m` numeral, `eng` Latin letters; a word not in the dictionary gets the tag of jieba's
/// part-of-speech HMM), with whether the dictionary has the word. Without the `zh` feature every
/// token of [`jieba_cut`] has the tag `x` and is not known.
pub fn jieba_tag(text: &str) -> Vec<Tagged<'_>> {
    imp::tag(text)
}

/// A word of [`jieba_tag`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tagged<'a> {
    /// The word, a slice of the text.
    pub word: &'a str,
    /// Its part-of-speech tag.
    pub tag: &'a str,
    /// Whether jieba's dictionary has the word (a word found by the HMM is not known).
    pub known: bool,
}

/// Name of the segmenter in use: `jieba` (jieba-rs) or `cjk-chars` (the fallback).
pub fn segmenter_name() -> &'static str {
    if JIEBA {
        "jieba"
    } else {
        "cjk-chars"
    }
}
