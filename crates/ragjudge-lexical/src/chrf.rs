//! chrF (Popović 2015, "chrF: character n-gram F-score for automatic MT evaluation") computed
//! exactly as `sacrebleu` 2.6.0's `CHRF()` with its defaults.
//!
//! Defaults: character n-grams of orders 1..=6 over the text with all whitespace removed
//! (Python `''.join(s.split())`), no word n-grams, `beta = 2`, case kept, and
//! `eps_smoothing=False`: precision and recall are averaged over the orders for which both the
//! hypothesis and the reference have n-grams (the "effective order", sacreBLEU < 2.0 style), then
//! `F = (1 + b^2) P R / (b^2 P + R)`. With several references the one with the best F wins
//! (first on ties). Scores are on the 0-100 scale in [`ChrfScore::score`]; [`ChrfScore::unit`]
//! gives 0-1.

use crate::bleu::{is_py_space, FxHashMap};
use crate::corpus::{Corpus, SegmentStats};

/// Character n-gram order (sacrebleu's `CHRF.CHAR_ORDER`).
pub const CHAR_ORDER: usize = 6;
/// Recall weight (sacrebleu's `CHRF.BETA`).
pub const BETA: u32 = 2;

/// Per-order `[hyp, ref, match]` n-gram counts (sacrebleu's flattened segment statistics).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ChrfStats {
    /// `[hyp_count, ref_count, match_count]` for orders 1..=6.
    pub orders: [[u64; 3]; CHAR_ORDER],
}

impl SegmentStats for ChrfStats {
    fn add(&mut self, o: &ChrfStats) {
        for (a, b) in self.orders.iter_mut().zip(o.orders.iter()) {
            for k in 0..3 {
                a[k] += b[k];
            }
        }
    }
}

impl ChrfStats {
    /// `CHRF._compute_f_score` with `eps_smoothing=False`, on the 0-100 scale.
    pub fn f_score(&self) -> f64 {
        const EPS: f64 = 1e-16;
        let factor = f64::from(BETA * BETA);
        let (mut avg_prec, mut avg_rec) = (0.0f64, 0.0f64);
        let mut effective_order = 0u32;
        for &[n_hyp, n_ref, n_match] in &self.orders {
            let prec = if n_hyp > 0 { n_match as f64 / n_hyp as f64 } else { EPS };
            let rec = if n_ref > 0 { n_match as f64 / n_ref as f64 } else { EPS };
            if n_hyp > 0 && n_ref > 0 {
                avg_prec += prec;
                avg_rec += rec;
                effective_order += 1;
            }
        }
        if effective_order == 0 {
            avg_prec = 0.0;
            avg_rec = 0.0;
        } else {
            avg_prec /= f64::from(effective_order);
            avg_rec /= f64::from(effective_order);
        }
        if avg_prec + avg_rec != 0.0 {
            let mut score = (1.0 + factor) * avg_prec * avg_rec;
            score /= factor * avg_prec + avg_rec;
            100.0 * score
        } else {
            0.0
        }
    }
}

/// A chrF score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChrfScore {
    /// chrF on sacrebleu's 0-100 scale.
    pub score: f64,
    /// The statistics it was computed from.
    pub stats: ChrfStats,
}

impl ChrfScore {
    /// chrF on the 0-1 scale (`score / 100`).
    pub fn unit(&self) -> f64 {
        self.score / 100.0
    }
}

/// The characters of `s` without Python whitespace, as code points.
fn chars_no_space(s: &str) -> Vec<u32> {
    s.chars().filter(|&c| !is_py_space(c)).map(u32::from).collect()
}

/// An n-gram key packing up to [`CHAR_ORDER`] symbols of `bits` bits each (symbols are >= 1).
trait NgramKey: Copy + Eq + std::hash::Hash {
    fn pack(w: &[u32], bits: u32) -> Self;
}

impl NgramKey for u64 {
    #[inline]
    fn pack(w: &[u32], bits: u32) -> Self {
        w.iter().fold(0u64, |k, &c| (k << bits) | u64::from(c))
    }
}

impl NgramKey for u128 {
    #[inline]
    fn pack(w: &[u32], bits: u32) -> Self {
        w.iter().fold(0u128, |k, &c| (k << bits) | u128::from(c))
    }
}

/// Statistics of `hyp` against one reference (`CHRF._get_match_statistics` for every order).
fn match_stats<K: NgramKey>(hyp: &[u32], reference: &[u32], bits: u32, counts: &mut FxHashMap<K, u32>) -> ChrfStats {
    let mut st = ChrfStats::default();
    for n in 1..=CHAR_ORDER {
        counts.clear();
        let n_ref = reference.len().saturating_sub(n - 1) as u64;
        for w in reference.windows(n) {
            *counts.entry(K::pack(w, bits)).or_insert(0) += 1;
        }
        // Consuming the reference budget n-gram by n-gram gives
        // sum over distinct n-grams of min(hyp_count, ref_count).
        let mut n_match = 0u64;
        if !counts.is_empty() {
            for w in hyp.windows(n) {
                if let Some(c) = counts.get_mut(&K::pack(w, bits)) {
                    if *c > 0 {
                        *c -= 1;
                        n_match += 1;
                    }
                }
            }
        }
        let n_hyp = hyp.len().saturating_sub(n - 1) as u64;
        // sacrebleu: "Don't count hits if no reference exists for that n-gram".
        st.orders[n - 1] = [if n_ref > 0 { n_hyp } else { 0 }, n_ref, n_match];
    }
    st
}

/// Best-reference statistics of one segment (`CHRF._compute_segment_statistics`).
///
/// With no reference all counts are zero (sacrebleu rejects that input).
pub fn segment_stats(hypothesis: &str, references: &[&str]) -> ChrfStats {
    let mut texts: Vec<Vec<u32>> = Vec::with_capacity(references.len() + 1);
    texts.push(chars_no_space(hypothesis));
    texts.extend(references.iter().map(|r| chars_no_space(r)));
    // Renumber characters densely (1, 2, ...) so that 6-grams usually fit in a u64 key.
    let mut ascii = [0u32; 128];
    let mut other: FxHashMap<u32, u32> = FxHashMap::default();
    let mut next = 0u32;
    for t in texts.iter_mut() {
        for c in t.iter_mut() {
            let slot = if *c < 128 { &mut ascii[*c as usize] } else { other.entry(*c).or_insert(0) };
            if *slot == 0 {
                next += 1;
                *slot = next;
            }
            *c = *slot;
        }
    }
    let Some((hyp, refs)) = texts.split_first() else { return ChrfStats::default() };
    let mut best = ChrfStats::default();
    let mut best_f = -1.0;
    let cap = refs.iter().map(Vec::len).max().unwrap_or(0);
    let mut small: FxHashMap<u64, u32> = FxHashMap::default();
    let mut large: FxHashMap<u128, u32> = FxHashMap::default();
    if next < 1 << 10 {
        small.reserve(cap);
    } else {
        large.reserve(cap);
    }
    for r in refs {
        let st = if next < 1 << 10 { match_stats(hyp, r, 10, &mut small) } else { match_stats(hyp, r, 21, &mut large) };
        let f = st.f_score();
        if f > best_f {
            best_f = f;
            best = st;
        }
    }
    best
}

/// Sentence chrF as `sacrebleu.sentence_chrf(hypothesis, references)`.
pub fn sentence_chrf(hypothesis: &str, references: &[&str]) -> ChrfScore {
    let stats = segment_stats(hypothesis, references);
    ChrfScore { score: stats.f_score(), stats }
}

/// Streaming corpus chrF as `sacrebleu.corpus_chrf`: sums segment statistics, constant memory.
pub type CorpusChrf = Corpus<ChrfStats>;

impl Corpus<ChrfStats> {
    /// Adds one hypothesis with its references.
    pub fn add(&mut self, hypothesis: &str, references: &[&str]) {
        self.add_stats(&segment_stats(hypothesis, references));
    }

    /// Corpus chrF over everything added so far.
    pub fn score(&self) -> ChrfScore {
        ChrfScore { score: self.stats().f_score(), stats: *self.stats() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_is_100() {
        let s = sentence_chrf("a cat sat", &["a  cat\tsat"]);
        assert!((s.score - 100.0).abs() < 1e-12);
        assert!((s.unit() - 1.0).abs() < 1e-14);
    }

    /// Hand-computed: "ab" vs "ac": order 1 P = R = 1/2, order 2 has one n-gram each and no
    /// match (P = R = 0); orders 3..6 have no n-grams and are left out. Average P = R = 1/4,
    /// F2 = 5 * (1/4)^2 / (4/4 + 1/4) = 1/4.
    #[test]
    fn effective_order_average() {
        let s = sentence_chrf("ab", &["ac"]);
        assert!((s.score - 25.0).abs() < 1e-12, "{}", s.score);
    }

    #[test]
    fn empty_sides_score_zero() {
        assert_eq!(sentence_chrf("", &["abc"]).score, 0.0);
        assert_eq!(sentence_chrf("abc", &[""]).score, 0.0);
    }
}
