//! ROUGE-1, ROUGE-2 and ROUGE-L (Lin 2004, "ROUGE: A Package for Automatic Evaluation of
//! Summaries", sections 2 and 3.1) computed exactly as Google's `rouge-score` 0.1.2
//! (`rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=...)`).
//!
//! Tokenizer (`rouge_score/tokenize.py`): Python `lower()`, every run of characters outside
//! `[a-z0-9]` becomes a space, split; with the stemmer, tokens longer than 3 characters go
//! through NLTK's Porter stemmer ([`crate::porter`]). Non-ASCII letters are therefore dropped,
//! except where lowercasing yields ASCII (`İ` -> `i` + U+0307, the Kelvin sign -> `k`).
//! ROUGE-N uses clipped n-gram counts, `P = overlap / max(|cand n-grams|, 1)`,
//! `R = overlap / max(|ref n-grams|, 1)`; ROUGE-L uses the LCS over the whole text (not
//! `rougeLsum`) and is 0 when either side has no token. `F = 2PR / (P + R)`, 0 when `P + R = 0`.

use crate::bleu::{intern, FxHashMap};
use crate::porter::PorterStemmer;

/// Precision, recall and F-measure of one ROUGE variant.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PrfScore {
    /// Overlap over the candidate's size.
    pub precision: f64,
    /// Overlap over the reference's size.
    pub recall: f64,
    /// Harmonic mean of precision and recall.
    pub fmeasure: f64,
}

impl PrfScore {
    fn new(precision: f64, recall: f64) -> Self {
        PrfScore { precision, recall, fmeasure: fmeasure(precision, recall) }
    }
}

/// `rouge_score.scoring.fmeasure`.
fn fmeasure(precision: f64, recall: f64) -> f64 {
    if precision + recall > 0.0 {
        2.0 * precision * recall / (precision + recall)
    } else {
        0.0
    }
}

/// ROUGE-1, ROUGE-2 and ROUGE-L of one candidate against one reference.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RougeScores {
    /// Unigram overlap.
    pub rouge1: PrfScore,
    /// Bigram overlap.
    pub rouge2: PrfScore,
    /// Longest common subsequence.
    pub rouge_l: PrfScore,
}

/// Scorer for ROUGE-1/2/L, configured like `rouge_score.rouge_scorer.RougeScorer`.
#[derive(Debug, Clone, Copy, Default)]
pub struct RougeScorer {
    /// Apply NLTK's Porter stemmer to tokens longer than 3 characters (`use_stemmer=True`).
    pub use_stemmer: bool,
}

/// `rouge_score.tokenize.tokenize` with the default tokenizer.
pub fn tokenize(text: &str, use_stemmer: bool) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut cur = String::new();
    let flush = |cur: &mut String, tokens: &mut Vec<String>| {
        if !cur.is_empty() {
            let t = std::mem::take(cur);
            tokens.push(if use_stemmer && t.len() > 3 { PorterStemmer.stem(&t) } else { t });
        }
    };
    for c in text.chars() {
        if c.is_ascii() {
            let l = c.to_ascii_lowercase();
            if l.is_ascii_lowercase() || l.is_ascii_digit() {
                cur.push(l);
            } else {
                flush(&mut cur, &mut tokens);
            }
        } else {
            for l in c.to_lowercase() {
                if l.is_ascii_lowercase() || l.is_ascii_digit() {
                    cur.push(l);
                } else {
                    flush(&mut cur, &mut tokens);
                }
            }
        }
    }
    flush(&mut cur, &mut tokens);
    tokens
}

/// Clipped n-gram overlap and both n-gram totals (`n` is 1 or 2).
fn ngram_overlap(target: &[u32], prediction: &[u32], n: usize, vocab_len: usize) -> (u64, u64, u64) {
    let t_total = target.len().saturating_sub(n - 1) as u64;
    let p_total = prediction.len().saturating_sub(n - 1) as u64;
    let mut overlap = 0u64;
    if n == 1 {
        let mut budget = vec![0u32; vocab_len];
        for &t in target {
            budget[t as usize] += 1;
        }
        for &p in prediction {
            let b = &mut budget[p as usize];
            if *b > 0 {
                *b -= 1;
                overlap += 1;
            }
        }
    } else {
        debug_assert!(n == 2, "two 32-bit ids per key");
        let key = |w: &[u32]| (u64::from(w[0]) << 32) | u64::from(w[1]);
        let mut budget: FxHashMap<u64, u32> = FxHashMap::default();
        budget.reserve(t_total as usize);
        for w in target.windows(n) {
            *budget.entry(key(w)).or_insert(0) += 1;
        }
        for w in prediction.windows(n) {
            if let Some(b) = budget.get_mut(&key(w)) {
                if *b > 0 {
                    *b -= 1;
                    overlap += 1;
                }
            }
        }
    }
    (overlap, t_total, p_total)
}

fn rouge_n(target: &[u32], prediction: &[u32], n: usize, vocab_len: usize) -> PrfScore {
    let (overlap, t_total, p_total) = ngram_overlap(target, prediction, n, vocab_len);
    let precision = overlap as f64 / p_total.max(1) as f64;
    let recall = overlap as f64 / t_total.max(1) as f64;
    PrfScore::new(precision, recall)
}

/// Length of the longest common subsequence, in `O(min(n, m))` memory.
///
/// When the shorter side has at most 64 tokens the bit-parallel algorithm of Allison & Dix (1986)
/// / Hyyrö (2004) is used (`O(n)` words), otherwise the classic dynamic programme over one row.
pub fn lcs_len(a: &[u32], b: &[u32]) -> usize {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if short.is_empty() {
        return 0;
    }
    if short.len() <= 64 {
        // Match masks: bit i of masks[s] is set when short[i] == s.
        let mut masks: FxHashMap<u32, u64> = FxHashMap::default();
        for (i, &s) in short.iter().enumerate() {
            *masks.entry(s).or_insert(0) |= 1u64 << i;
        }
        let full = if short.len() == 64 { u64::MAX } else { (1u64 << short.len()) - 1 };
        let mut v = full;
        for &c in long {
            if let Some(&m) = masks.get(&c) {
                let u = v & m;
                v = (v.wrapping_add(u) | (v - u)) & full;
            }
        }
        return short.len() - v.count_ones() as usize;
    }
    let mut row = vec![0u32; short.len() + 1];
    for &c in long {
        let mut diag = 0u32;
        for j in 1..=short.len() {
            let up = row[j];
            row[j] = if short[j - 1] == c { diag + 1 } else { up.max(row[j - 1]) };
            diag = up;
        }
    }
    row[short.len()] as usize
}

impl RougeScorer {
    /// A scorer; `use_stemmer` as in `RougeScorer(..., use_stemmer=...)`.
    pub fn new(use_stemmer: bool) -> Self {
        RougeScorer { use_stemmer }
    }

    /// Scores `candidate` against `reference` (`RougeScorer.score(target, prediction)`).
    pub fn score(&self, reference: &str, candidate: &str) -> RougeScores {
        let t_tokens = tokenize(reference, self.use_stemmer);
        let p_tokens = tokenize(candidate, self.use_stemmer);
        let mut vocab: FxHashMap<&str, u32> = FxHashMap::default();
        vocab.reserve(t_tokens.len() + p_tokens.len());
        let t = intern(&t_tokens, &mut vocab);
        let p = intern(&p_tokens, &mut vocab);
        let vocab_len = vocab.len();
        let rouge_l = if t.is_empty() || p.is_empty() {
            PrfScore::default()
        } else {
            let lcs = lcs_len(&t, &p) as f64;
            PrfScore::new(lcs / p.len() as f64, lcs / t.len() as f64)
        };
        RougeScores { rouge1: rouge_n(&t, &p, 1, vocab_len), rouge2: rouge_n(&t, &p, 2, vocab_len), rouge_l }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand-computed: reference "a b c d", candidate "a b d c": bigrams {ab, bc, cd} vs
    /// {ab, bd, dc} share one, so P = R = F = 1/3; unigrams all match; LCS = 3 ("a b c").
    #[test]
    fn four_token_rouge2() {
        let s = RougeScorer::new(false).score("a b c d", "a b d c");
        assert_eq!(s.rouge1, PrfScore { precision: 1.0, recall: 1.0, fmeasure: 1.0 });
        assert!((s.rouge2.precision - 1.0 / 3.0).abs() < 1e-15);
        assert!((s.rouge2.recall - 1.0 / 3.0).abs() < 1e-15);
        assert!((s.rouge2.fmeasure - 1.0 / 3.0).abs() < 1e-15);
        assert!((s.rouge_l.fmeasure - 0.75).abs() < 1e-15);
    }

    #[test]
    fn tokenizer_matches_rouge_score() {
        // rouge-score 0.1.2: tokenize("Hello, World! It's 2024-06-01 ÉTÉ İx", None)
        assert_eq!(
            tokenize("Hello, World! It's 2024-06-01 ÉTÉ İx", false),
            ["hello", "world", "it", "s", "2024", "06", "01", "t", "i", "x"]
        );
        assert_eq!(tokenize("running runs ran ponies", true), ["run", "run", "ran", "poni"]);
    }

    #[test]
    fn lcs_paths_agree() {
        let a: Vec<u32> = (0..200).map(|i| (i * 7 % 13) as u32).collect();
        let b: Vec<u32> = (0..150).map(|i| (i * 5 % 11) as u32).collect();
        let dp = |x: &[u32], y: &[u32]| {
            let mut t = vec![vec![0usize; y.len() + 1]; x.len() + 1];
            for i in 1..=x.len() {
                for j in 1..=y.len() {
                    t[i][j] = if x[i - 1] == y[j - 1] { t[i - 1][j - 1] + 1 } else { t[i - 1][j].max(t[i][j - 1]) };
                }
            }
            t[x.len()][y.len()]
        };
        for (la, lb) in [(10, 150), (64, 150), (65, 150), (200, 150), (1, 1), (64, 64)] {
            assert_eq!(lcs_len(&a[..la], &b[..lb]), dp(&a[..la], &b[..lb]), "{la}x{lb}");
        }
    }

    #[test]
    fn empty_sides() {
        let s = RougeScorer::new(true).score("", "some text");
        assert_eq!(s, RougeScores::default());
        let s = RougeScorer::new(false).score("!!!", "");
        assert_eq!(s, RougeScores::default());
    }
}
