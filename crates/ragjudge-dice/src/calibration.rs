//! Label-prior bias correction of the verdict probabilities, after contextual calibration
//! (Zhao et al. 2021, "Calibrate Before Use", section 5): the judge's prior over the labels
//! `A`, `B`, `C` is estimated from content-free inputs, then divided out,
//! `q_i = (p_i / prior_i) / sum_j (p_j / prior_j)`. This is the diagonal-W form of their
//! `W p + b` with `W = diag(prior)^-1`, `b = 0`.
//!
//! Small judges answer "A" for almost any pair (measured on public pairwise sets; see the README);
//! the correction removes the part of that preference that does not depend on content. The
//! prior is a property of label positions, so it is applied in presentation order, before the
//! swapped order is mapped back.

use std::sync::Arc;

use ragjudge_core::text::Lang;
use ragjudge_core::Record;
use ragjudge_models::{Judge, ModelError};
use serde::{Deserialize, Serialize};

use crate::judgement::{JudgeOptions, PairwiseJudge};

/// Content-free answers (Zhao et al. 2021 use "N/A", "" and "\[MASK\]").
pub const CONTENT_FREE: [&str; 3] = ["N/A", "[MASK]", ""];

/// Smallest prior probability divided by, so that a label the judge never says cannot blow up.
pub const PRIOR_FLOOR: f64 = 1e-6;

/// The judge's prior over the verdict labels `[A, B, C]` in presentation order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LabelPrior {
    /// Mean label probabilities over the content-free prompts; sums to 1.
    pub probs: [f64; 3],
    /// Number of content-free verdicts averaged.
    pub n: usize,
}

/// `probs` with the prior divided out and renormalised. Returns `probs` unchanged when the
/// result would be undefined (all zero).
pub fn apply(prior: &LabelPrior, probs: [f64; 3]) -> [f64; 3] {
    let q: Vec<f64> = probs.iter().zip(prior.probs).map(|(p, r)| p / r.max(PRIOR_FLOOR)).collect();
    let s: f64 = q.iter().sum();
    if !(s.is_finite() && s > 0.0) {
        return probs;
    }
    [q[0] / s, q[1] / s, q[2] / s]
}

/// Estimates the prior of `judge` with the default options in language `lang` (reasoning on).
pub fn estimate(judge: Arc<dyn Judge>, lang: Lang) -> Result<LabelPrior, ModelError> {
    estimate_with(judge, &JudgeOptions { lang: Some(lang), ..JudgeOptions::default() })
}

/// Estimates the prior with the reasoning mode, language and token budget of `opts` (use the
/// options the real judgements will use): every ordered pair of [`CONTENT_FREE`] answers, with
/// the question `N/A`, no reference and no evidence, is judged once; the prior is the mean of
/// the raw label probabilities. `opts.bias` and `opts.swap` are ignored (the ordered pairs
/// already cover both orders). The language defaults to English.
pub fn estimate_with(judge: Arc<dyn Judge>, opts: &JudgeOptions) -> Result<LabelPrior, ModelError> {
    let opts = JudgeOptions { swap: false, bias: None, lang: Some(opts.lang.unwrap_or(Lang::En)), ..opts.clone() };
    let pj = PairwiseJudge::new(judge, opts);
    let records: Vec<Record> = CONTENT_FREE
        .iter()
        .enumerate()
        .map(|(i, a)| Record {
            id: "content-free".into(),
            system: format!("content-free-{i}"),
            query: "N/A".into(),
            answer: a.to_string(),
            ..Record::default()
        })
        .collect();
    let pairs: Vec<(&Record, &Record)> = records.iter().flat_map(|a| records.iter().map(move |b| (a, b))).collect();
    let mut sum = [0.0; 3];
    let mut n = 0;
    for judged in pj.judge_pairs_many(&pairs) {
        for o in judged?.orders {
            for (s, p) in sum.iter_mut().zip(&o.label_probs.probs) {
                *s += p;
            }
            n += 1;
        }
    }
    if n == 0 {
        return Err(ModelError::Inference("no content-free verdicts".into()));
    }
    let total: f64 = sum.iter().sum();
    Ok(LabelPrior { probs: [sum[0] / total, sum[1] / total, sum[2] / total], n })
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_abs_diff_eq;

    #[test]
    fn uniform_prior_changes_nothing() {
        let prior = LabelPrior { probs: [1.0 / 3.0; 3], n: 1 };
        let q = apply(&prior, [0.7, 0.2, 0.1]);
        for (a, b) in q.iter().zip([0.7, 0.2, 0.1]) {
            assert_abs_diff_eq!(*a, b, epsilon = 1e-12);
        }
    }

    #[test]
    fn a_biased_prior_by_hand() {
        // prior (0.8, 0.1, 0.1), p (0.6, 0.3, 0.1):
        // p / prior = (0.75, 3, 1), sum 4.75 -> (0.157894..., 0.631578..., 0.210526...).
        let prior = LabelPrior { probs: [0.8, 0.1, 0.1], n: 6 };
        let q = apply(&prior, [0.6, 0.3, 0.1]);
        assert_abs_diff_eq!(q[0], 0.75 / 4.75, epsilon = 1e-12);
        assert_abs_diff_eq!(q[1], 3.0 / 4.75, epsilon = 1e-12);
        assert_abs_diff_eq!(q[2], 1.0 / 4.75, epsilon = 1e-12);
        // Output equal to the prior becomes uniform.
        let u = apply(&prior, [0.8, 0.1, 0.1]);
        for x in u {
            assert_abs_diff_eq!(x, 1.0 / 3.0, epsilon = 1e-12);
        }
    }

    #[test]
    fn zero_prior_is_floored_and_zero_probs_kept() {
        let prior = LabelPrior { probs: [1.0, 0.0, 0.0], n: 1 };
        let q = apply(&prior, [0.5, 0.5, 0.0]);
        // 0.5 / 1 vs 0.5 / 1e-6: B takes almost everything.
        assert!(q[1] > 0.999 && q.iter().all(|x| x.is_finite()));
        assert_eq!(apply(&prior, [0.0, 0.0, 0.0]), [0.0, 0.0, 0.0]);
    }
}
