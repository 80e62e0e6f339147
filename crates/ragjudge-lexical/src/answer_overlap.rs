//! The `lexical` metric family: answer vs reference overlap for one record.
//!
//! Columns: ROUGE-1/2/L precision, recall and F (as `rouge-score`), sentence BLEU and chrF on
//! the 0-1 scale (sacrebleu's value / 100), SQuAD token F1 and exact match. A record without a
//! reference gets no value in any column.

use crate::bleu::sentence_bleu;
use crate::chrf::sentence_chrf;
use crate::rouge::{PrfScore, RougeScorer};
use crate::squad::{exact_match, token_f1};
use ragjudge_core::{Metric, MetricError, MetricOutput, Record};

/// Column names, in output order.
pub const COLUMNS: [&str; 13] = [
    "rouge1_p",
    "rouge1_r",
    "rouge1_f",
    "rouge2_p",
    "rouge2_r",
    "rouge2_f",
    "rougeL_p",
    "rougeL_r",
    "rougeL_f",
    "bleu",
    "chrf",
    "token_f1",
    "exact_match",
];

/// Answer-vs-reference overlap metrics.
#[derive(Debug, Clone, Copy, Default)]
pub struct LexicalMetric {
    /// ROUGE configuration (stemmer on or off).
    pub rouge: RougeScorer,
}

impl LexicalMetric {
    /// The metric, with the Porter stemmer for ROUGE when `use_stemmer`.
    pub fn new(use_stemmer: bool) -> Self {
        Self { rouge: RougeScorer::new(use_stemmer) }
    }

    /// The 13 values for one answer and one reference, in [`COLUMNS`] order.
    pub fn values(&self, answer: &str, reference: &str) -> [f64; 13] {
        let r = self.rouge.score(reference, answer);
        let prf = |s: PrfScore| [s.precision, s.recall, s.fmeasure];
        let [p1, r1, f1] = prf(r.rouge1);
        let [p2, r2, f2] = prf(r.rouge2);
        let [pl, rl, fl] = prf(r.rouge_l);
        [
            p1,
            r1,
            f1,
            p2,
            r2,
            f2,
            pl,
            rl,
            fl,
            sentence_bleu(answer, &[reference]).bleu_unit(),
            sentence_chrf(answer, &[reference]).unit(),
            token_f1(answer, reference),
            exact_match(answer, reference),
        ]
    }
}

impl Metric for LexicalMetric {
    fn name(&self) -> &str {
        "lexical"
    }

    fn columns(&self) -> Vec<String> {
        COLUMNS.iter().map(|c| c.to_string()).collect()
    }

    fn score(&self, record: &Record) -> Result<MetricOutput, MetricError> {
        let values = match &record.reference {
            Some(reference) => self.values(&record.answer, reference).map(Some).to_vec(),
            None => vec![None; COLUMNS.len()],
        };
        Ok(MetricOutput { values, detail: None })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_texts_score_one_everywhere() {
        let m = LexicalMetric::new(false);
        let v = m.values("The cat sat on the mat.", "The cat sat on the mat.");
        for (c, x) in COLUMNS.iter().zip(v) {
            assert!((x - 1.0).abs() < 1e-12, "{c} = {x}");
        }
    }

    #[test]
    fn no_reference_gives_no_values() {
        let r = Record { id: "q".into(), query: "q".into(), answer: "a".into(), ..Record::default() };
        let out = LexicalMetric::new(false).score(&r).unwrap();
        assert_eq!(out.values, vec![None; 13]);
    }

    #[test]
    fn columns_follow_values() {
        // "a b c d" vs "a b x": rouge1 P = 2/3, R = 2/4; exact match 0.
        let v = LexicalMetric::new(false).values("a b x", "a b c d");
        assert!((v[0] - 2.0 / 3.0).abs() < 1e-12);
        assert!((v[1] - 0.5).abs() < 1e-12);
        assert_eq!(v[12], 0.0);
    }
}
