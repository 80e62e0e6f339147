//! BERTScore with greedy matching on contextual token embeddings (Zhang et al. 2020,
//! "BERTScore: Evaluating Text Generation with BERT", section 3, equations for R_BERT, P_BERT,
//! F_BERT and the idf weighting), as the `bert-score` package's `greedy_cos_idf`.
//!
//! Token vectors are L2-normalised; every candidate token is matched to its most similar
//! reference token and vice versa. Special tokens (`[CLS]`, `[SEP]`) get weight 0, as
//! `bert-score` gives them idf 0, but they stay available as matches for the other side's tokens,
//! as there. `P = sum_i w_i max_j cos(x_i, y_j) / sum_i w_i` over candidate tokens, `R` the same
//! over reference tokens, `F = 2PR / (P + R)` (0 when `P + R = 0`, as `bert-score` masks NaN).
//!
//! Differences from Open RAG Eval's consistency BERTScore (torchmetrics `BERTScore` on
//! `xlm-roberta-large`, `rescale_with_baseline=True`, no idf): the vectors come from whatever
//! [`ragjudge_models::TokenEmbedder`] is given (its last layer, e.g. MiniLM's layer 6), so the
//! absolute values differ. Raw BERTScores of large models sit in a narrow high band, which
//! baseline rescaling `(F - b) / (1 - b)` ([`rescale`]) spreads out; MiniLM's last layer already
//! spreads them (all-MiniLM-L6-v2 token vectors, greedy F1: a paraphrase 0.971, five unrelated
//! sentence pairs 0.03 to 0.07). A baseline `b` must be measured for the model and layer used, so
//! it is left to the caller (`None` = raw scores). Open RAG Eval also truncates each answer to
//! 512 tokens; here the embedder's own `max_length` applies.

use std::collections::{HashMap, HashSet};

use ragjudge_models::TokenEmbedding;
use serde::Serialize;

/// BERTScore precision, recall and F1.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BertScore {
    /// Candidate tokens' best matches, weighted.
    pub precision: f64,
    /// Reference tokens' best matches, weighted.
    pub recall: f64,
    /// Harmonic mean.
    pub f1: f64,
}

/// Inverse document frequencies of token ids over a set of texts, as `bert-score`'s
/// `get_idf_dict`: `idf(t) = ln((M + 1) / (df(t) + 1))` with `M` texts and `df(t)` the texts
/// containing `t`; an id in no text gets `ln(M + 1)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Idf {
    docs: usize,
    df: HashMap<u32, usize>,
}

impl Idf {
    /// Document frequencies over `texts`.
    pub fn new(texts: &[&TokenEmbedding]) -> Self {
        let mut df: HashMap<u32, usize> = HashMap::new();
        for t in texts {
            for id in t.ids.iter().copied().collect::<HashSet<u32>>() {
                *df.entry(id).or_default() += 1;
            }
        }
        Self { docs: texts.len(), df }
    }

    /// The idf of token `id`.
    pub fn weight(&self, id: u32) -> f64 {
        let df = self.df.get(&id).copied().unwrap_or(0);
        ((self.docs + 1) as f64 / (df + 1) as f64).ln()
    }
}

/// Token weights: 0 for special tokens, else the idf (or 1 without idf).
fn weights(t: &TokenEmbedding, idf: Option<&Idf>) -> Vec<f64> {
    t.ids
        .iter()
        .zip(&t.special)
        .map(|(&id, &special)| if special { 0.0 } else { idf.map_or(1.0, |w| w.weight(id)) })
        .collect()
}

fn normalised(t: &TokenEmbedding) -> Option<Vec<Vec<f64>>> {
    t.vectors
        .iter()
        .map(|v| {
            let n = v.iter().map(|&x| f64::from(x).powi(2)).sum::<f64>().sqrt();
            (n > 0.0 && n.is_finite()).then(|| v.iter().map(|&x| f64::from(x) / n).collect())
        })
        .collect()
}

/// Weighted mean over `from`'s tokens of their best cosine with any token of `to`.
fn greedy(from: &[Vec<f64>], w: &[f64], to: &[Vec<f64>]) -> Option<f64> {
    let total: f64 = w.iter().sum();
    if total <= 0.0 || to.is_empty() {
        return None;
    }
    let mut s = 0.0;
    for (x, &wx) in from.iter().zip(w) {
        let best =
            to.iter().map(|y| x.iter().zip(y).map(|(a, b)| a * b).sum::<f64>()).fold(f64::NEG_INFINITY, f64::max);
        s += wx * best;
    }
    Some(s / total)
}

/// BERTScore of `candidate` against `reference`, optionally idf-weighted.
///
/// `None` when the embedding is malformed (lengths differ, a zero vector), the dimensions differ,
/// or a side has no weighted token (only special tokens, or every token with idf 0, as when all
/// texts of the idf set are identical; `bert-score` would divide by zero there).
pub fn bert_score(candidate: &TokenEmbedding, reference: &TokenEmbedding, idf: Option<&Idf>) -> Option<BertScore> {
    for t in [candidate, reference] {
        if t.vectors.len() != t.ids.len() || t.special.len() != t.ids.len() {
            return None;
        }
    }
    let (c, r) = (normalised(candidate)?, normalised(reference)?);
    let dim = c.first().map(Vec::len)?;
    if c.iter().chain(&r).any(|v| v.len() != dim) {
        return None;
    }
    let precision = greedy(&c, &weights(candidate, idf), &r)?;
    let recall = greedy(&r, &weights(reference, idf), &c)?;
    let f1 = if precision + recall != 0.0 { 2.0 * precision * recall / (precision + recall) } else { 0.0 };
    f1.is_finite().then_some(BertScore { precision, recall, f1 })
}

/// Baseline rescaling `(x - b) / (1 - b)` (Zhang et al. 2020, section 3, "Baseline Rescaling");
/// `None` when `b >= 1` or a value is not finite.
pub fn rescale(x: f64, baseline: f64) -> Option<f64> {
    let v = (x - baseline) / (1.0 - baseline);
    (baseline < 1.0 && v.is_finite()).then_some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn emb(tokens: &[(u32, bool, [f32; 2])]) -> TokenEmbedding {
        TokenEmbedding {
            tokens: tokens.iter().map(|t| t.0.to_string()).collect(),
            ids: tokens.iter().map(|t| t.0).collect(),
            special: tokens.iter().map(|t| t.1).collect(),
            vectors: tokens.iter().map(|t| t.2.to_vec()).collect(),
        }
    }

    const S: f32 = std::f32::consts::FRAC_1_SQRT_2;

    #[test]
    fn hand_computed_greedy_matching() {
        // Special tokens point to (-1,-1)/sqrt2 and never win for the tokens below.
        // Candidate x1 = (1,0), x2 = (0,2); reference y1 = (3,0), y2 = (1,1).
        // P: x1 -> max(1, 1/sqrt2) = 1; x2 -> max(0, 1/sqrt2) = 0.70711; P = 0.85355.
        // R: y1 -> max(1, 0) = 1; y2 -> max(1/sqrt2, 1/sqrt2) = 0.70711; R = 0.85355.
        let cls = (101, true, [-S, -S]);
        let sep = (102, true, [-S, -S]);
        let c = emb(&[cls, (1, false, [1.0, 0.0]), (2, false, [0.0, 2.0]), sep]);
        let r = emb(&[cls, (3, false, [3.0, 0.0]), (4, false, [1.0, 1.0]), sep]);
        let s = bert_score(&c, &r, None).unwrap();
        let want = (1.0 + 0.5f64.sqrt()) / 2.0;
        assert!((s.precision - want).abs() < 1e-7 && (s.recall - want).abs() < 1e-7 && (s.f1 - want).abs() < 1e-7);

        // Reference y = (0,1) only: P over x1, x2 = (0 + 1) / 2 = 0.5; R = y -> max(0, 1) = 1;
        // F = 2 (0.5)(1) / 1.5 = 2/3.
        let r2 = emb(&[cls, (5, false, [0.0, 1.0]), sep]);
        let s = bert_score(&c, &r2, None).unwrap();
        assert!((s.precision - 0.5).abs() < 1e-7 && (s.recall - 1.0).abs() < 1e-7);
        assert!((s.f1 - 2.0 / 3.0).abs() < 1e-7);
    }

    #[test]
    fn special_tokens_of_the_other_side_are_eligible_matches() {
        // Candidate z = (-1, 0); reference [CLS] = (-1,-1)/sqrt2, y = (1, 0), [SEP] = (0, -1).
        // z's best match is [CLS] with cosine 1/sqrt2 (y gives -1, [SEP] 0): P = 0.70711.
        // R over y only, against the candidate's [CLS] (0,-1), z and [SEP] (0,-1):
        // max(0, -1, 0) = 0.
        let c = emb(&[(101, true, [0.0, -1.0]), (7, false, [-1.0, 0.0]), (102, true, [0.0, -1.0])]);
        let r = emb(&[(101, true, [-S, -S]), (8, false, [1.0, 0.0]), (102, true, [0.0, -1.0])]);
        let s = bert_score(&c, &r, None).unwrap();
        assert!((s.precision - 0.5f64.sqrt()).abs() < 1e-7, "{s:?}");
        assert!(s.recall.abs() < 1e-7, "{s:?}");
        // P + R > 0 with R = 0: F = 0.
        assert!(s.f1.abs() < 1e-7);
    }

    #[test]
    fn idf_weights_by_hand() {
        // Texts A = [CLS] 5 6 [SEP], B = [CLS] 5 7 [SEP], M = 2.
        // idf(5) = ln(3/3) = 0; idf(6) = idf(7) = ln(3/2); unseen ln 3.
        let a =
            emb(&[(101, true, [0.0, 1.0]), (5, false, [1.0, 0.0]), (6, false, [1.0, 1.0]), (102, true, [0.0, 1.0])]);
        let b =
            emb(&[(101, true, [0.0, 1.0]), (5, false, [1.0, 0.0]), (7, false, [1.0, 0.0]), (102, true, [0.0, 1.0])]);
        let idf = Idf::new(&[&a, &b]);
        assert_eq!(idf.weight(5), 0.0);
        assert!((idf.weight(6) - 1.5f64.ln()).abs() < 1e-15);
        assert!((idf.weight(9) - 3f64.ln()).abs() < 1e-15);
        // With idf only token 6 (A) and 7 (B) count. P(A vs B): 6 = (1,1) -> best over B's
        // [CLS] (0,1), 5, 7 (1,0), [SEP] = 1/sqrt2. R: 7 = (1,0) -> best over A: 5 = (1,0) -> 1.
        // F = 2 (0.70711)(1) / 1.70711 = 0.82843.
        let s = bert_score(&a, &b, Some(&idf)).unwrap();
        assert!((s.precision - 0.5f64.sqrt()).abs() < 1e-7);
        assert!((s.recall - 1.0).abs() < 1e-7);
        assert!((s.f1 - 2.0 * 0.5f64.sqrt() / (1.0 + 0.5f64.sqrt())).abs() < 1e-7);
        // Identical texts: every idf is 0, nothing is weighted.
        let idf_same = Idf::new(&[&a, &a]);
        assert_eq!(bert_score(&a, &a, Some(&idf_same)), None);
        // Without idf identical texts score 1.
        assert!((bert_score(&a, &a, None).unwrap().f1 - 1.0).abs() < 1e-12);
    }

    #[test]
    fn malformed_inputs_and_rescaling() {
        let only_special = emb(&[(101, true, [1.0, 0.0]), (102, true, [1.0, 0.0])]);
        let x = emb(&[(1, false, [1.0, 0.0])]);
        assert_eq!(bert_score(&only_special, &x, None), None);
        let zero = emb(&[(1, false, [0.0, 0.0])]);
        assert_eq!(bert_score(&zero, &x, None), None);
        // (0.9 - 0.8) / (1 - 0.8) = 0.5
        assert!((rescale(0.9, 0.8).unwrap() - 0.5).abs() < 1e-12);
        assert_eq!(rescale(0.9, 1.0), None);
    }
}
