//! BLEU (Papineni et al., 2002, "BLEU: a Method for Automatic Evaluation of Machine Translation")
//! computed exactly as `sacrebleu` 2.6.0 does with its defaults.
//!
//! * Tokenizer `13a` (`sacrebleu/tokenizers/tokenizer_13a.py` + `tokenizer_re.py`, itself the
//!   tokenizer of `mteval-v13a.pl`), applied after Python's `str.rstrip()`; case is kept. The
//!   `*_with` functions take a [`BleuTokenizer`] instead: sacrebleu's `zh` (`tokenizer_zh.py`:
//!   Chinese characters split off, then `tokenizer_re.py`) or `char` (`tokenizer_char.py`).
//! * N-gram orders 1..=4, hypothesis n-gram counts clipped by the maximum count over references,
//!   closest reference length (ties go to the shorter one) for the brevity penalty
//!   `BP = exp(1 - r/c)` when `c < r`.
//! * Smoothing `exp` (method 3 of Chen & Cherry 2014, the NIST mteval smoothing): the k-th order
//!   with zero matches gets precision `1 / (2^k * total)`.
//! * [`sentence_bleu`] uses `effective_order=True` (as `sacrebleu.sentence_bleu`), [`CorpusBleu`]
//!   uses `effective_order=False` (as `sacrebleu.corpus_bleu`).
//!
//! Scores are kept on sacrebleu's 0-100 scale in [`BleuScore::score`]; [`BleuScore::bleu_unit`]
//! gives the same value on the 0-1 scale, which is what ragjudge reports in its `bleu` column.

use crate::corpus::{Corpus, SegmentStats};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Maximum n-gram order (sacrebleu's `MAX_NGRAM_ORDER`).
pub const MAX_NGRAM_ORDER: usize = 4;

/// Multiply-rotate hasher (the "Fx" hash used by rustc) for small integer keys.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct FxHasher {
    hash: u64,
}

const FX_SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    #[inline]
    fn add(&mut self, w: u64) {
        self.hash = (self.hash.rotate_left(5) ^ w).wrapping_mul(FX_SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut buf = [0u8; 8];
            buf.copy_from_slice(c);
            self.add(u64::from_le_bytes(buf));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut buf = [0u8; 8];
            buf[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(buf) ^ ((rest.len() as u64) << 59));
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    #[inline]
    fn write_u128(&mut self, i: u128) {
        self.add(i as u64);
        self.add((i >> 64) as u64);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.hash.rotate_left(26)
    }
}

/// Hash map with [`FxHasher`].
pub(crate) type FxHashMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// Python's `str.isspace()`: Rust's White_Space set plus the separators U+001C..U+001F.
#[inline]
pub(crate) fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `str.split()` with no argument.
pub(crate) fn py_split(s: &str) -> impl Iterator<Item = &str> {
    s.split(is_py_space).filter(|t| !t.is_empty())
}

/// Python's `str.rstrip()` with no argument.
pub(crate) fn py_rstrip(s: &str) -> &str {
    s.trim_end_matches(is_py_space)
}

/// Bytes of the first substitution of `tokenizer_re.py`:
/// `[\{-\~\[-\` -\&\(-\+\:-\@\/]` (ASCII symbols and space) gets a space on each side.
#[inline]
fn is_13a_symbol(b: u8) -> bool {
    matches!(b, 0x7B..=0x7E | 0x5B..=0x60 | 0x20..=0x26 | 0x28..=0x2B | 0x3A..=0x40 | b'/')
}

/// Applies Python `re.sub` semantics (leftmost, non-overlapping, left to right) for a pattern of
/// exactly two characters where the character classes only single out ASCII bytes; any other
/// byte of a multi-byte UTF-8 character falls in the negated class `[^0-9]`, just as the whole
/// character does in Python, so byte-wise scanning yields the same string.
fn sub_pairs(src: &[u8], out: &mut Vec<u8>, matches: impl Fn(u8, u8) -> bool, emit: impl Fn(u8, u8, &mut Vec<u8>)) {
    out.clear();
    let mut i = 0;
    while i < src.len() {
        if i + 1 < src.len() && matches(src[i], src[i + 1]) {
            emit(src[i], src[i + 1], out);
            i += 2;
        } else {
            out.push(src[i]);
            i += 1;
        }
    }
}

/// Replaces `pat` only when present (saves a copy in the common case).
fn replace_if(s: String, pat: &str, to: &str) -> String {
    if s.contains(pat) {
        s.replace(pat, to)
    } else {
        s
    }
}

/// sacrebleu's `13a` tokenizer output: tokens joined by single spaces.
///
/// The caller is responsible for the `rstrip()` done by `BLEU._preprocess_segment`.
pub fn tokenize_13a_string(line: &str) -> String {
    let mut line = replace_if(line.to_owned(), "<skipped>", "");
    line = replace_if(line, "-\n", "");
    line = replace_if(line, "\n", " ");
    if line.contains('&') {
        line = line.replace("&quot;", "\"").replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">");
    }
    tokenize_re(line.as_bytes(), true)
}

/// `tokenizer_re.py` (`TokenizerRegexp`), shared by `13a` and `zh`; `pad` wraps the line in one
/// space on each side first, as `Tokenizer13a` does (`f' {line} '`) and `TokenizerZh` does not.
fn tokenize_re(line: &[u8], pad: bool) -> String {
    let mut a: Vec<u8> = Vec::with_capacity(line.len() * 2 + 2);
    if pad {
        a.push(b' ');
    }
    for &b in line {
        if is_13a_symbol(b) {
            a.extend_from_slice(&[b' ', b, b' ']);
        } else {
            a.push(b);
        }
    }
    if pad {
        a.push(b' ');
    }
    let digit = |b: u8| b.is_ascii_digit();
    let mut b = Vec::with_capacity(a.len() + 16);
    // ([^0-9])([\.,]) -> '\1 \2 '
    sub_pairs(
        &a,
        &mut b,
        |x, y| !digit(x) && matches!(y, b'.' | b','),
        |x, y, o| o.extend_from_slice(&[x, b' ', y, b' ']),
    );
    // ([\.,])([^0-9]) -> ' \1 \2'
    sub_pairs(
        &b,
        &mut a,
        |x, y| matches!(x, b'.' | b',') && !digit(y),
        |x, y, o| o.extend_from_slice(&[b' ', x, b' ', y]),
    );
    // ([0-9])(-) -> '\1 \2 '
    sub_pairs(&a, &mut b, |x, y| digit(x) && y == b'-', |x, y, o| o.extend_from_slice(&[x, b' ', y, b' ']));
    // The substitutions only insert ASCII spaces at character boundaries: the bytes stay UTF-8.
    let s = String::from_utf8(b).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    join_py_split(&s)
}

/// `' '.join(s.split())`.
fn join_py_split(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for t in py_split(s) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(t);
    }
    out
}

/// sacrebleu's `13a` tokenizer: the tokens of `line` (see [`tokenize_13a_string`]).
pub fn tokenize_13a(line: &str) -> Vec<String> {
    tokenize_13a_string(line).split(' ').filter(|t| !t.is_empty()).map(str::to_owned).collect()
}

/// `TokenizerZh._is_chinese_char` of sacrebleu 2.6.0 (`tokenizer_zh.py`, by Shujian Huang).
///
/// The table compares one character with the bounds of each range as Python strings. Two of its
/// bounds, written `u'\u20000'`, `u'\u2a6d6'`, `u'\u2f800'` and `u'\u2fa1d'`, are two-character
/// strings (`\u` takes four hex digits), so those ranges really hold U+2001..=U+2A6D (general
/// punctuation, letterlike symbols, arrows, dingbats, ...) and U+2F81..=U+2FA1 (inside the Kangxi
/// radicals anyway), and Extension B is not covered. This function reproduces the effective set.
pub fn is_sacrebleu_chinese_char(c: char) -> bool {
    matches!(c as u32,
        0x3400..=0x4DB5 | 0x4E00..=0x9FA5 | 0x9FA6..=0x9FBB | 0xF900..=0xFA2D | 0xFA30..=0xFA6A
        | 0xFA70..=0xFAD9 | 0x2001..=0x2A6D | 0x2F81..=0x2FA1 | 0xFF00..=0xFFEF | 0x2E80..=0x2EFF
        | 0x3000..=0x303F | 0x31C0..=0x31EF | 0x2F00..=0x2FDF | 0x2FF0..=0x2FFF | 0x3100..=0x312F
        | 0x31A0..=0x31BF | 0xFE10..=0xFE1F | 0xFE30..=0xFE4F | 0x3200..=0x32FF | 0x3300..=0x33FF)
    // The table's U+2600..U+26FF and U+2700..U+27BF lie inside U+2001..=U+2A6D.
}

/// sacrebleu's `zh` tokenizer (`TokenizerZh`) output, tokens joined by single spaces: Python
/// `strip()`, a space on each side of every Chinese character ([`is_sacrebleu_chinese_char`]),
/// then `TokenizerRegexp` without the padding and without the `13a` replacements (`<skipped>`,
/// `-\n`, `\n`, HTML entities), so e.g. a final `3.` stays one token.
pub fn tokenize_zh_string(line: &str) -> String {
    let line = line.trim_matches(is_py_space);
    let mut spaced = String::with_capacity(line.len() * 2);
    for c in line.chars() {
        if is_sacrebleu_chinese_char(c) {
            spaced.push(' ');
            spaced.push(c);
            spaced.push(' ');
        } else {
            spaced.push(c);
        }
    }
    tokenize_re(spaced.as_bytes(), false)
}

/// sacrebleu's `char` tokenizer (`TokenizerChar`): every character is a token; whitespace
/// characters disappear when BLEU splits the line (`str.split()`).
pub fn tokenize_char_string(line: &str) -> String {
    let mut out = String::with_capacity(line.len() * 2);
    for c in line.chars().filter(|&c| !is_py_space(c)) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

/// Which sacrebleu tokenizer BLEU applies to hypothesis and references (`tokenize=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum BleuTokenizer {
    /// `13a`, sacrebleu's default (mteval-v13a).
    #[default]
    #[serde(rename = "13a")]
    Tokenizer13a,
    /// `zh`: Chinese characters split off one by one, `13a`'s regular expressions on the rest.
    #[serde(rename = "zh")]
    Zh,
    /// `char`: every non-space character is a token.
    #[serde(rename = "char")]
    Char,
}

impl BleuTokenizer {
    /// sacrebleu's name of the tokenizer (`13a`, `zh`, `char`), as in its signature.
    pub fn name(self) -> &'static str {
        match self {
            BleuTokenizer::Tokenizer13a => "13a",
            BleuTokenizer::Zh => "zh",
            BleuTokenizer::Char => "char",
        }
    }

    /// The tokenizer of a sacrebleu name.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "13a" => Some(BleuTokenizer::Tokenizer13a),
            "zh" => Some(BleuTokenizer::Zh),
            "char" => Some(BleuTokenizer::Char),
            _ => None,
        }
    }

    /// `BLEU._preprocess_segment` with default options: `rstrip()`, then this tokenizer; tokens
    /// joined by single spaces.
    pub fn preprocess(self, sent: &str) -> String {
        let sent = py_rstrip(sent);
        match self {
            BleuTokenizer::Tokenizer13a => tokenize_13a_string(sent),
            BleuTokenizer::Zh => tokenize_zh_string(sent),
            BleuTokenizer::Char => tokenize_char_string(sent),
        }
    }
}

/// A BLEU score with its sufficient statistics, as sacrebleu's `BLEUScore`.
#[derive(Debug, Clone, PartialEq)]
pub struct BleuScore {
    /// BLEU on sacrebleu's 0-100 scale.
    pub score: f64,
    /// Clipped n-gram matches for orders 1..=4.
    pub counts: [u64; MAX_NGRAM_ORDER],
    /// Hypothesis n-gram totals for orders 1..=4.
    pub totals: [u64; MAX_NGRAM_ORDER],
    /// Smoothed n-gram precisions on the 0-100 scale.
    pub precisions: [f64; MAX_NGRAM_ORDER],
    /// Brevity penalty.
    pub bp: f64,
    /// Hypothesis length in tokens (summed over the corpus).
    pub sys_len: u64,
    /// Closest reference length in tokens (summed over the corpus).
    pub ref_len: u64,
}

impl BleuScore {
    /// BLEU on the 0-1 scale (`score / 100`); ragjudge's `bleu` column.
    pub fn bleu_unit(&self) -> f64 {
        self.score / 100.0
    }
}

/// sacrebleu's `my_log`: `log`, with `log(0)` floored to `-9999999999`.
fn my_log(x: f64) -> f64 {
    if x == 0.0 {
        -9_999_999_999.0
    } else {
        x.ln()
    }
}

/// `BLEU.compute_bleu` with `smooth_method='exp'` and `max_ngram_order=4`.
fn compute_bleu(stats: &BleuStats, effective_order: bool) -> BleuScore {
    let BleuStats { sys_len, ref_len, correct, total } = *stats;
    let mut bp = 1.0;
    if sys_len < ref_len {
        bp = if sys_len > 0 { (1.0 - ref_len as f64 / sys_len as f64).exp() } else { 0.0 };
    }
    let mut precisions = [0.0; MAX_NGRAM_ORDER];
    let mut out = BleuScore { score: 0.0, counts: correct, totals: total, precisions, bp, sys_len, ref_len };
    if correct.iter().all(|&c| c == 0) {
        return out;
    }
    let mut smooth_mteval = 1.0;
    let mut eff_order = MAX_NGRAM_ORDER;
    for n in 1..=MAX_NGRAM_ORDER {
        if total[n - 1] == 0 {
            break;
        }
        if effective_order {
            eff_order = n;
        }
        if correct[n - 1] == 0 {
            smooth_mteval *= 2.0;
            precisions[n - 1] = 100.0 / (smooth_mteval * total[n - 1] as f64);
        } else {
            precisions[n - 1] = 100.0 * correct[n - 1] as f64 / total[n - 1] as f64;
        }
    }
    let log_sum = precisions[..eff_order].iter().fold(0.0, |acc, &p| acc + my_log(p));
    out.score = bp * (log_sum / eff_order as f64).exp();
    out.precisions = precisions;
    out
}

/// Segment-level sufficient statistics (`[hyp_len, ref_len] + correct + total` in sacrebleu).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BleuStats {
    /// Hypothesis length in tokens.
    pub sys_len: u64,
    /// Closest reference length.
    pub ref_len: u64,
    /// Clipped matches per order.
    pub correct: [u64; MAX_NGRAM_ORDER],
    /// Hypothesis n-grams per order.
    pub total: [u64; MAX_NGRAM_ORDER],
}

impl SegmentStats for BleuStats {
    fn add(&mut self, o: &BleuStats) {
        self.sys_len += o.sys_len;
        self.ref_len += o.ref_len;
        for n in 0..MAX_NGRAM_ORDER {
            self.correct[n] += o.correct[n];
            self.total[n] += o.total[n];
        }
    }
}

/// An n-gram key packing up to four token ids (id + 1, so orders stay distinct).
trait NgramKey: Copy + Eq + std::hash::Hash {
    fn pack(ids: &[u32]) -> Self;
}

impl NgramKey for u64 {
    #[inline]
    fn pack(ids: &[u32]) -> Self {
        ids.iter().fold(0u64, |k, &id| (k << 16) | u64::from(id + 1))
    }
}

impl NgramKey for u128 {
    #[inline]
    fn pack(ids: &[u32]) -> Self {
        ids.iter().fold(0u128, |k, &id| (k << 32) | u128::from(id + 1))
    }
}

/// `BLEU._get_closest_ref_len`: the reference length closest to `hyp_len`, the shorter on ties.
fn closest_ref_len(hyp_len: usize, ref_lens: &[usize]) -> usize {
    let mut best: Option<(usize, usize)> = None;
    for &r in ref_lens {
        let diff = hyp_len.abs_diff(r);
        best = match best {
            None => Some((diff, r)),
            Some((d, l)) if diff < d || (diff == d && r < l) => Some((diff, r)),
            keep => keep,
        };
    }
    best.map_or(0, |(_, l)| l)
}

/// Computes the statistics of one segment (`BLEU._compute_segment_statistics`), tokenizer `13a`.
///
/// With no reference the reference length is taken as 0 (sacrebleu rejects that input).
pub fn segment_stats(hypothesis: &str, references: &[&str]) -> BleuStats {
    segment_stats_with(hypothesis, references, BleuTokenizer::Tokenizer13a)
}

/// [`segment_stats`] with the given tokenizer.
pub fn segment_stats_with(hypothesis: &str, references: &[&str], tokenizer: BleuTokenizer) -> BleuStats {
    let hyp = tokenizer.preprocess(hypothesis);
    let refs: Vec<String> = references.iter().map(|r| tokenizer.preprocess(r)).collect();
    let hyp_toks = split_tokens(&hyp);
    let ref_toks: Vec<Vec<&str>> = refs.iter().map(|r| split_tokens(r)).collect();
    let mut vocab: FxHashMap<&str, u32> = FxHashMap::default();
    vocab.reserve(hyp_toks.len() + ref_toks.first().map_or(0, Vec::len));
    let hyp_ids = intern(&hyp_toks, &mut vocab);
    let ref_ids: Vec<Vec<u32>> = ref_toks.iter().map(|r| intern(r, &mut vocab)).collect();
    let ref_lens: Vec<usize> = ref_ids.iter().map(Vec::len).collect();
    let mut st = BleuStats {
        sys_len: hyp_ids.len() as u64,
        ref_len: closest_ref_len(hyp_ids.len(), &ref_lens) as u64,
        ..BleuStats::default()
    };
    if vocab.len() < (1 << 16) - 1 {
        count_matches::<u64>(&hyp_ids, &ref_ids, &mut st);
    } else {
        count_matches::<u128>(&hyp_ids, &ref_ids, &mut st);
    }
    st
}

fn split_tokens(s: &str) -> Vec<&str> {
    s.split(' ').filter(|t| !t.is_empty()).collect()
}

/// Fills `correct` and `total`: hypothesis n-grams clipped by the maximum reference count.
fn count_matches<K: NgramKey>(hyp_ids: &[u32], ref_ids: &[Vec<u32>], st: &mut BleuStats) {
    let cap = ref_ids.first().map_or(0, |r| r.len() * MAX_NGRAM_ORDER);
    let mut ref_max: FxHashMap<K, u32> = FxHashMap::default();
    ref_max.reserve(cap);
    let mut this: FxHashMap<K, u32> = FxHashMap::default();
    for (k, ids) in ref_ids.iter().enumerate() {
        let target = if k == 0 { &mut ref_max } else { &mut this };
        target.clear();
        for n in 1..=MAX_NGRAM_ORDER {
            for w in ids.windows(n) {
                *target.entry(K::pack(w)).or_insert(0) += 1;
            }
        }
        if k > 0 {
            for (&g, &c) in this.iter() {
                let e = ref_max.entry(g).or_insert(0);
                *e = (*e).max(c);
            }
        }
    }
    // Consuming the reference budget n-gram by n-gram equals
    // sum over distinct n-grams of min(hyp_count, ref_count).
    for n in 1..=MAX_NGRAM_ORDER {
        for w in hyp_ids.windows(n) {
            st.total[n - 1] += 1;
            if let Some(c) = ref_max.get_mut(&K::pack(w)) {
                if *c > 0 {
                    *c -= 1;
                    st.correct[n - 1] += 1;
                }
            }
        }
    }
}

/// Maps tokens to dense ids shared by one hypothesis and its references.
pub(crate) fn intern<'a, S: AsRef<str>>(toks: &'a [S], vocab: &mut FxHashMap<&'a str, u32>) -> Vec<u32> {
    toks.iter()
        .map(|t| {
            let next = vocab.len() as u32;
            *vocab.entry(t.as_ref()).or_insert(next)
        })
        .collect()
}

/// Sentence BLEU as `sacrebleu.sentence_bleu(hypothesis, references)` (smoothing `exp`,
/// `use_effective_order=True`, tokenizer `13a`).
pub fn sentence_bleu(hypothesis: &str, references: &[&str]) -> BleuScore {
    compute_bleu(&segment_stats(hypothesis, references), true)
}

/// [`sentence_bleu`] with the given tokenizer (`sacrebleu.sentence_bleu(..., tokenize=...)`).
pub fn sentence_bleu_with(hypothesis: &str, references: &[&str], tokenizer: BleuTokenizer) -> BleuScore {
    compute_bleu(&segment_stats_with(hypothesis, references, tokenizer), true)
}

/// Streaming corpus BLEU as `sacrebleu.corpus_bleu` (smoothing `exp`, `use_effective_order=False`,
/// tokenizer `13a`): keeps only summed n-gram statistics, so memory does not grow with the corpus.
pub type CorpusBleu = Corpus<BleuStats>;

impl Corpus<BleuStats> {
    /// Adds one hypothesis with its references.
    pub fn add(&mut self, hypothesis: &str, references: &[&str]) {
        self.add_stats(&segment_stats(hypothesis, references));
    }

    /// Adds one hypothesis with its references, tokenized by `tokenizer`
    /// (`sacrebleu.corpus_bleu(..., tokenize=...)` when every segment uses the same one).
    pub fn add_with(&mut self, hypothesis: &str, references: &[&str], tokenizer: BleuTokenizer) {
        self.add_stats(&segment_stats_with(hypothesis, references, tokenizer));
    }

    /// Corpus BLEU over everything added so far.
    pub fn score(&self) -> BleuScore {
        compute_bleu(self.stats(), false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> String {
        tokenize_13a(s).join(" ")
    }

    /// Expected strings from sacrebleu 2.6.0 `Tokenizer13a()(s)`.
    #[test]
    fn tokenizer_13a_quirks() {
        assert_eq!(toks("Hello, world."), "Hello , world .");
        assert_eq!(toks("3.14 and 1,000"), "3.14 and 1,000");
        assert_eq!(toks("a..b"), "a . . b");
        assert_eq!(toks("1-2 x-y"), "1 - 2 x-y");
        assert_eq!(toks("&quot;hi&quot; &amp;lt;"), "\" hi \" <");
        assert_eq!(toks("don't"), "don't");
        assert_eq!(toks("a\u{1c}b"), "a b");
    }

    /// Expected strings from sacrebleu 2.6.0 `TokenizerZh()(s)` and `TokenizerChar()(s)`.
    #[test]
    fn tokenizer_zh_and_char() {
        let zh = tokenize_zh_string;
        assert_eq!(zh("收盘上涨1.25%。"), "收 盘 上 涨 1.25 % 。");
        assert_eq!(zh("他说：“好。”"), "他 说 ： “ 好 。 ”");
        // No `13a` replacements, no padding: `&amp;` is split, a final "3." and a leading ".5" stay.
        assert_eq!(zh("  Apple公司 iPhone-16 &amp; "), "Apple 公 司 iPhone-16 & amp ;");
        assert_eq!(zh("增长3."), "增 长 3.");
        assert_eq!(zh(".5亿"), ".5 亿");
        // U+2014, U+2026, U+2192, U+2460 fall in the effective U+2001..=U+2A6D range.
        assert_eq!(zh("—…→①"), "— … → ①");
        assert_eq!(tokenize_char_string("中文 ab."), "中 文 a b .");
        assert!(!is_sacrebleu_chinese_char('\u{2000}'));
        assert!(is_sacrebleu_chinese_char('\u{2a6d}'));
        assert!(!is_sacrebleu_chinese_char('\u{2a6e}'));
        assert!(!is_sacrebleu_chinese_char('\u{20001}'));
        assert_eq!(BleuTokenizer::from_name("zh"), Some(BleuTokenizer::Zh));
        assert_eq!(BleuTokenizer::default().name(), "13a");
    }

    /// Hand-computed: hypothesis "the cat" (2 tokens) vs reference "the cat sat on the mat"
    /// (6 tokens): p1 = 2/2, p2 = 1/1, no 3- or 4-grams, so with the effective order 2 the
    /// geometric mean is 100 and BP = exp(1 - 6/2) = exp(-2).
    #[test]
    fn brevity_penalty() {
        let s = sentence_bleu("the cat", &["the cat sat on the mat"]);
        assert_eq!(s.sys_len, 2);
        assert_eq!(s.ref_len, 6);
        assert!((s.bp - (-2.0f64).exp()).abs() < 1e-15);
        assert!((s.score - 100.0 * (-2.0f64).exp()).abs() < 1e-12);
        assert!((s.bleu_unit() - (-2.0f64).exp()).abs() < 1e-14);
    }

    #[test]
    fn closest_reference_prefers_shorter_on_ties() {
        assert_eq!(closest_ref_len(4, &[6, 2, 5]), 5);
        assert_eq!(closest_ref_len(4, &[6, 2]), 2);
    }

    #[test]
    fn identical_is_100_and_empty_is_0() {
        let t = "The quick brown fox jumps over the lazy dog.";
        assert!((sentence_bleu(t, &[t]).score - 100.0).abs() < 1e-12);
        assert_eq!(sentence_bleu("", &[t]).score, 0.0);
        assert_eq!(sentence_bleu(t, &[""]).score, 0.0);
    }

    #[test]
    fn corpus_merge_equals_sequential_add() {
        let data = [("a b c d", "a b c e"), ("the cat sat", "a cat sat down"), ("x", "y z")];
        let mut all = CorpusBleu::new();
        let (mut left, mut right) = (CorpusBleu::new(), CorpusBleu::new());
        for (i, (h, r)) in data.iter().enumerate() {
            all.add(h, &[r]);
            if i == 0 {
                left.add(h, &[r])
            } else {
                right.add(h, &[r])
            }
        }
        left.merge(&right);
        assert_eq!(left.score(), all.score());
        assert_eq!(all.len(), 3);
    }
}
