//! Chinese ROUGE-1, ROUGE-2 and ROUGE-L computed exactly as the `rouge-chinese` package 1.0.3
//! (`rouge_chinese.Rouge().get_scores(hyp, ref)`, defaults) on space-separated tokens: jieba's
//! words (`' '.join(jieba.cut(text))`, see [`crate::segment`]) or single characters
//! (`' '.join(text)`). ROUGE itself is Lin 2004, "ROUGE: A Package for Automatic Evaluation of
//! Summaries", sections 2 and 3.1.
//!
//! What `rouge-chinese` does, and this module repeats:
//! * `cut_sent`: a newline is inserted after `。！？?` (and after six `.` or two `…`) unless a
//!   closing quote `”’` follows, and after such a closing quote unless `，。！？?` follows; the text
//!   is `rstrip()`ped and split at newlines. Pieces of length 0 are dropped, every other piece
//!   becomes `' '.join(piece.split())`, and the words are the pieces' `split(' ')`, flattened (a
//!   whitespace-only piece gives one empty word).
//! * ROUGE-N counts *distinct* n-grams (`exclusive=True`): `P = |H ∩ R| / |H|`,
//!   `R = |H ∩ R| / |R|` over the n-gram sets, 0 for an empty set.
//! * ROUGE-L is the LCS of the two flattened word lists: `P = LCS / |hyp|`, `R = LCS / |ref|`.
//! * `F = 2 * (P * R / (P + R + 1e-8))`, as in the package.
//!
//! `rouge-chinese` raises `ValueError` when a side has no piece (an empty or all-space text);
//! here such a pair scores 0 everywhere.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use crate::bleu::{intern, py_rstrip, py_split, FxHashMap};
use crate::rouge::{lcs_len, PrfScore, RougeScores};
use crate::segment::jieba_cut;

/// How Chinese text is cut into ROUGE tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ZhRougeTokens {
    /// jieba's words (`' '.join(jieba.cut(text))`). Default.
    #[default]
    Jieba,
    /// Characters, no segmenter (`' '.join(text)`): character n-gram ROUGE.
    Char,
}

impl ZhRougeTokens {
    /// The name used in settings and column definitions: `jieba` or `char`.
    pub fn name(self) -> &'static str {
        match self {
            ZhRougeTokens::Jieba => "jieba",
            ZhRougeTokens::Char => "char",
        }
    }

    /// The space-joined text `rouge-chinese` is given.
    pub fn join(self, text: &str) -> String {
        let mut out = String::with_capacity(text.len() * 2);
        let mut push = |t: &str| {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(t);
        };
        match self {
            ZhRougeTokens::Jieba => jieba_cut(text).into_iter().for_each(push),
            ZhRougeTokens::Char => {
                let mut buf = [0u8; 4];
                text.chars().for_each(|c| push(c.encode_utf8(&mut buf)));
            }
        }
        out
    }
}

/// Chinese ROUGE-1/2/L scorer (`rouge-chinese` on jieba words or characters).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ZhRougeScorer {
    /// Tokens ROUGE counts.
    pub tokens: ZhRougeTokens,
}

impl ZhRougeScorer {
    /// A scorer over the given tokens.
    pub fn new(tokens: ZhRougeTokens) -> Self {
        Self { tokens }
    }

    /// Scores `candidate` against `reference`.
    pub fn score(&self, reference: &str, candidate: &str) -> RougeScores {
        rouge_chinese(&self.tokens.join(candidate), &self.tokens.join(reference)).unwrap_or_default()
    }
}

/// Inserts `\n` after every leftmost, non-overlapping match of `prefix` (of `len` characters)
/// followed by a character accepted by `next` (`re.sub('(prefix)(next)', r'\1\n\2', s)`).
fn newline_after(
    chars: &[char],
    len: usize,
    prefix: impl Fn(&[char]) -> bool,
    next: impl Fn(char) -> bool,
) -> Vec<char> {
    let mut out = Vec::with_capacity(chars.len() + 8);
    let mut i = 0;
    while i < chars.len() {
        if i + len < chars.len() && prefix(&chars[i..i + len]) && next(chars[i + len]) {
            out.extend_from_slice(&chars[i..i + len]);
            out.push('\n');
            out.push(chars[i + len]);
            i += len + 1;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

/// `Rouge.cut_sent` of rouge-chinese 1.0.3.
fn cut_sent(para: &str) -> Vec<String> {
    let end = |c: char| matches!(c, '。' | '！' | '？' | '?');
    let not_close = |c: char| !matches!(c, '”' | '’');
    let chars: Vec<char> = para.chars().collect();
    let chars = newline_after(&chars, 1, |p| end(p[0]), not_close);
    let chars = newline_after(&chars, 6, |p| p.iter().all(|&c| c == '.'), not_close);
    let chars = newline_after(&chars, 2, |p| p.iter().all(|&c| c == '…'), not_close);
    let chars =
        newline_after(&chars, 2, |p| end(p[0]) && !not_close(p[1]), |c| !matches!(c, '，' | '。' | '！' | '？' | '?'));
    let s: String = chars.into_iter().collect();
    py_rstrip(&s).split('\n').map(str::to_owned).collect()
}

/// The flattened words of one side, or `None` when rouge-chinese would raise (no piece).
fn words(text: &str) -> Option<Vec<String>> {
    let pieces: Vec<String> = cut_sent(text)
        .into_iter()
        .filter(|p| !p.is_empty())
        .map(|p| py_split(&p).collect::<Vec<_>>().join(" "))
        .collect();
    if pieces.is_empty() {
        return None;
    }
    Some(pieces.iter().flat_map(|p| p.split(' ').map(str::to_owned)).collect())
}

/// `rouge_score.f_r_p_rouge_n` / `rouge_l_summary_level` of rouge-chinese: `F` with its `1e-8`.
fn prf(precision: f64, recall: f64) -> PrfScore {
    PrfScore { precision, recall, fmeasure: 2.0 * ((precision * recall) / (precision + recall + 1e-8)) }
}

fn rouge_n(hyp: &[u32], reference: &[u32], n: usize) -> PrfScore {
    let grams = |w: &[u32]| -> HashSet<Vec<u32>> { w.windows(n).map(<[u32]>::to_vec).collect() };
    let (h, r) = (grams(hyp), grams(reference));
    let overlap = h.intersection(&r).count() as f64;
    let p = if h.is_empty() { 0.0 } else { overlap / h.len() as f64 };
    let rc = if r.is_empty() { 0.0 } else { overlap / r.len() as f64 };
    prf(p, rc)
}

/// `Rouge().get_scores(hyp, ref)` of rouge-chinese 1.0.3 on already space-separated text, or
/// `None` where the package raises `ValueError` (a side with no piece).
pub fn rouge_chinese(hyp: &str, reference: &str) -> Option<RougeScores> {
    let h = words(hyp)?;
    let r = words(reference)?;
    let mut vocab: FxHashMap<&str, u32> = FxHashMap::default();
    let hi = intern(&h, &mut vocab);
    let ri = intern(&r, &mut vocab);
    let lcs = lcs_len(&ri, &hi) as f64;
    Some(RougeScores {
        rouge1: rouge_n(&hi, &ri, 1),
        rouge2: rouge_n(&hi, &ri, 2),
        rouge_l: prf(lcs / hi.len() as f64, lcs / ri.len() as f64),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentence_cutting() {
        // re.sub rules of rouge-chinese: a newline after 。 unless ” follows, after 。” unless ， follows.
        assert_eq!(cut_sent("好。 坏？ ok"), ["好。", " 坏？", " ok"]);
        assert_eq!(cut_sent("他说：“好。”她说"), ["他说：“好。”", "她说"]);
        assert_eq!(cut_sent("等等........x"), ["等等......", "..x"]);
        assert_eq!(cut_sent("a \n  \n b  "), ["a ", "  ", " b"]);
    }

    /// Hand-computed: hyp words [a, b, a], ref [a, b, c]. Distinct unigrams {a, b} vs {a, b, c}:
    /// P = 2/2, R = 2/3. Bigrams {ab, ba} vs {ab, bc}: P = R = 1/2. LCS("abc", "aba") = 2:
    /// P = 2/3, R = 2/3. F = 2 * (P * R / (P + R + 1e-8)).
    #[test]
    fn distinct_ngrams_and_lcs() {
        let s = rouge_chinese("a b a", "a b c").unwrap();
        let f = |p: f64, r: f64| 2.0 * (p * r / (p + r + 1e-8));
        assert_eq!(s.rouge1, PrfScore { precision: 1.0, recall: 2.0 / 3.0, fmeasure: f(1.0, 2.0 / 3.0) });
        assert_eq!(s.rouge2, PrfScore { precision: 0.5, recall: 0.5, fmeasure: f(0.5, 0.5) });
        assert_eq!(s.rouge_l.precision, 2.0 / 3.0);
        assert!(rouge_chinese("   ", "a").is_none());
        assert!(rouge_chinese("a", "").is_none());
        assert_eq!(ZhRougeScorer::new(ZhRougeTokens::Char).score("", "abc"), RougeScores::default());
    }

    #[test]
    fn char_tokens() {
        assert_eq!(ZhRougeTokens::Char.join("上涨 1%"), "上 涨   1 %");
        // Hand-computed on characters: 上涨 vs 上涨了 -> unigrams 2/2 and 2/3.
        let s = ZhRougeScorer::new(ZhRougeTokens::Char).score("上涨了", "上涨");
        assert_eq!((s.rouge1.precision, s.rouge1.recall), (1.0, 2.0 / 3.0));
    }
}
