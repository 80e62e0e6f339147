//! How far a judge's verdicts can be trusted, from the judgements alone (no gold labels): the
//! judge-trust report every DICE run prints.
//!
//! - **Order consistency**: share of pairs whose two presentation orders pick the same winner
//!   (DICE §3.3: position bias).
//! - **First-position rate**: share of judged orders whose verdict is the answer shown first. A
//!   judge without position bias sits near the share of non-tie verdicts divided by two.
//! - **Label mass**: probability the verdict labels hold in the judge's full next-token
//!   distribution. Low mass means the judge wanted to say something else, so the three-way
//!   softmax (DICE §3.2) is renormalising noise.
//! - **Margins**: distribution of `p_max - p_second` of the pair probabilities; the share at or
//!   above tau is the share scored hard.
//! - **Length agreement**: among pairs with a winner and answers of different length, the share
//!   won by the longer answer. Near 1 the verdicts are explained by length alone.

use serde::{Deserialize, Serialize};

use crate::judgement::{Order, PairJudgement, Probs};
use crate::scoring::MARGIN_TOLERANCE;

/// Order consistency below which the report warns.
pub const WARN_ORDER_CONSISTENCY: f64 = 0.6;
/// Median label mass below which the report warns.
pub const WARN_LABEL_MASS: f64 = 0.5;
/// Length agreement at or above which the report warns.
pub const WARN_LENGTH_AGREEMENT: f64 = 0.9;
/// First-position rate at or above which (or at or below one minus which) the report warns.
pub const WARN_POSITION_RATE: f64 = 0.8;

/// Upper edges of the margin histogram bins (the last bin ends at 1).
pub const MARGIN_EDGES: [f64; 4] = [0.1, 0.3, 0.6, 1.0];

/// One judged pair as the trust report needs it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrustItem<'a> {
    /// The judgement.
    pub judgement: &'a PairJudgement,
    /// Characters of A's answer.
    pub len_a: usize,
    /// Characters of B's answer.
    pub len_b: usize,
}

/// Summary statistics of a set of values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Spread {
    /// Number of values.
    pub n: usize,
    /// Mean.
    pub mean: f64,
    /// Smallest value.
    pub min: f64,
    /// Median (mean of the two middle values for even n).
    pub median: f64,
    /// Largest value.
    pub max: f64,
}

impl Spread {
    /// `None` for no values.
    pub fn of(values: &[f64]) -> Option<Spread> {
        if values.is_empty() {
            return None;
        }
        let mut v = values.to_vec();
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 };
        Some(Spread { n, mean: v.iter().sum::<f64>() / n as f64, min: v[0], median, max: v[n - 1] })
    }
}

/// The judge-trust report of a set of pairwise judgements.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TrustReport {
    /// Pairs judged.
    pub pairs: usize,
    /// Presentation orders judged.
    pub orders: usize,
    /// Share of pairs judged in two orders whose orders agree on the winner; `None` without swap.
    pub order_consistency: Option<f64>,
    /// Share of orders whose verdict (argmax) is the answer shown first.
    pub first_position_rate: Option<f64>,
    /// Share of orders whose verdict is the tie label.
    pub tie_rate: Option<f64>,
    /// Label mass in the full next-token distribution over all orders, when the backend knows it.
    pub label_mass: Option<Spread>,
    /// Margin `p_max - p_second` of the pairs' (order-averaged) probabilities.
    pub margin: Option<Spread>,
    /// Pairs per margin bin `[0, 0.1)`, `[0.1, 0.3)`, `[0.3, 0.6)`, `[0.6, 1]`.
    pub margin_histogram: [usize; 4],
    /// Share of pairs scored hard (margin at or above tau).
    pub hard_rate: Option<f64>,
    /// Among pairs with a winner and answers of different length, the share won by the longer.
    pub length_agreement: Option<f64>,
    /// Pairs counted in `length_agreement`.
    pub length_pairs: usize,
    /// Plain-language warnings, empty when nothing looks wrong.
    pub warnings: Vec<String>,
}

/// Index of the largest of the three probabilities (first on ties, as [`Probs::argmax`]).
fn winner(p: Probs) -> usize {
    p.argmax()
}

fn margin(p: Probs) -> f64 {
    let mut v = p.to_array();
    v.sort_by(|a, b| b.total_cmp(a));
    v[0] - v[1]
}

fn share(hits: usize, n: usize) -> Option<f64> {
    (n > 0).then(|| hits as f64 / n as f64)
}

/// Builds the report; `tau` is the hard-scoring margin threshold.
pub fn trust_report(items: &[TrustItem<'_>], tau: f64) -> TrustReport {
    let mut consistent = (0, 0);
    let (mut first, mut ties, mut orders) = (0, 0, 0);
    let mut masses = Vec::new();
    let mut margins = Vec::new();
    let mut histogram = [0usize; 4];
    let mut hard = 0;
    let (mut longer_wins, mut length_pairs) = (0, 0);
    for item in items {
        let j = item.judgement;
        if j.orders.len() == 2 {
            consistent.1 += 1;
            consistent.0 += usize::from(j.order_consistent);
        }
        for o in &j.orders {
            orders += 1;
            // The verdict in original terms; the answer shown first is A in order `ab`, B in `ba`.
            match (winner(o.final_probs()), o.order) {
                (2, _) => ties += 1,
                (0, Order::Ab) | (1, Order::Ba) => first += 1,
                _ => {}
            }
            if let Some(m) = o.label_mass {
                masses.push(m);
            }
        }
        let m = margin(j.probs);
        margins.push(m);
        let bin = MARGIN_EDGES.iter().position(|&e| m < e).unwrap_or(MARGIN_EDGES.len() - 1);
        histogram[bin] += 1;
        if m >= tau - MARGIN_TOLERANCE {
            hard += 1;
        }
        let w = winner(j.probs);
        if w != 2 && item.len_a != item.len_b {
            length_pairs += 1;
            let a_longer = item.len_a > item.len_b;
            if (w == 0) == a_longer {
                longer_wins += 1;
            }
        }
    }
    let mut report = TrustReport {
        pairs: items.len(),
        orders,
        order_consistency: share(consistent.0, consistent.1),
        first_position_rate: share(first, orders),
        tie_rate: share(ties, orders),
        label_mass: Spread::of(&masses),
        margin: Spread::of(&margins),
        margin_histogram: histogram,
        hard_rate: share(hard, items.len()),
        length_agreement: share(longer_wins, length_pairs),
        length_pairs,
        warnings: Vec::new(),
    };
    report.warnings = warnings(&report);
    report
}

fn warnings(r: &TrustReport) -> Vec<String> {
    let mut w = Vec::new();
    if let Some(c) = r.order_consistency.filter(|&c| c < WARN_ORDER_CONSISTENCY) {
        w.push(format!(
            "order consistency {:.0}%: the judge's verdicts depend on which answer is shown first",
            100.0 * c
        ));
    }
    if let Some(f) = r.first_position_rate.filter(|&f| !(1.0 - WARN_POSITION_RATE..WARN_POSITION_RATE).contains(&f)) {
        w.push(format!("the answer shown first wins {:.0}% of verdicts: strong position bias", 100.0 * f));
    }
    if let Some(m) = r.label_mass.as_ref().filter(|m| m.median < WARN_LABEL_MASS) {
        w.push(format!(
            "median label mass {:.3}: the verdict labels are not what the judge would say next, so its \
             probabilities are renormalised noise",
            m.median
        ));
    }
    if let Some(l) = r.length_agreement.filter(|&l| l >= WARN_LENGTH_AGREEMENT && r.length_pairs >= 5) {
        w.push(format!(
            "the longer answer wins {:.0}% of decided pairs: the verdicts may be no better than a length heuristic",
            100.0 * l
        ));
    }
    w
}

impl TrustReport {
    /// A few readable lines for a terminal.
    pub fn render(&self) -> String {
        let pct = |x: Option<f64>| x.map_or("n/a".to_string(), |v| format!("{:.0}%", 100.0 * v));
        let orders = if self.orders == 0 {
            "each answer graded alone (no presentation order)".to_string()
        } else {
            format!(
                "order consistency {}, first-position wins {}, ties {}",
                pct(self.order_consistency),
                pct(self.first_position_rate),
                pct(self.tie_rate)
            )
        };
        let mut s = format!(
            "judge trust: {orders}, hard-scored {}, longer answer wins {} of {} decided pairs\n",
            pct(self.hard_rate),
            pct(self.length_agreement),
            self.length_pairs
        );
        if let Some(m) = &self.label_mass {
            s.push_str(&format!("label mass: median {:.3} (min {:.3}, max {:.3})\n", m.median, m.min, m.max));
        }
        if let Some(m) = &self.margin {
            let h = self.margin_histogram;
            s.push_str(&format!(
                "margin: median {:.3}; pairs by margin <0.1: {}, 0.1-0.3: {}, 0.3-0.6: {}, >=0.6: {}\n",
                m.median, h[0], h[1], h[2], h[3]
            ));
        }
        for w in &self.warnings {
            s.push_str(&format!("warning: {w}\n"));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{order, pair};

    #[test]
    fn a_pointwise_protocol_has_no_order_to_report() {
        // A verdict without orders (each answer graded alone): pair probabilities 0.7 / 0.3.
        let mut j = pair(vec![order("ab", [0.7, 0.3, 0.0], None)]);
        j.orders.clear();
        let r = trust_report(&[TrustItem { judgement: &j, len_a: 10, len_b: 20 }], 0.1);
        assert_eq!((r.orders, r.order_consistency, r.first_position_rate, r.tie_rate), (0, None, None, None));
        assert!((r.margin.as_ref().unwrap().median - 0.4).abs() < 1e-12);
        let text = r.render();
        assert!(
            text.starts_with("judge trust: each answer graded alone (no presentation order), hard-scored 100%"),
            "{text}"
        );
        assert!(r.warnings.is_empty());
    }

    #[test]
    fn a_judge_that_always_says_first_is_flagged() {
        // Two pairs; in both orders the first-shown answer gets 0.8, so each pair averages to
        // A = (0.8 + 0.1) / 2 = 0.45, B = 0.45, tie 0.1: inconsistent, margin 0.
        let p1 = pair(vec![order("ab", [0.8, 0.1, 0.1], Some(0.2)), order("ba", [0.8, 0.1, 0.1], Some(0.4))]);
        let p2 = pair(vec![order("ab", [0.8, 0.1, 0.1], Some(0.3)), order("ba", [0.8, 0.1, 0.1], Some(0.1))]);
        let items =
            [TrustItem { judgement: &p1, len_a: 10, len_b: 20 }, TrustItem { judgement: &p2, len_a: 10, len_b: 20 }];
        let r = trust_report(&items, 0.1);
        assert_eq!(r.pairs, 2);
        assert_eq!(r.orders, 4);
        assert_eq!(r.order_consistency, Some(0.0));
        assert_eq!(r.first_position_rate, Some(1.0));
        assert_eq!(r.tie_rate, Some(0.0));
        // Masses 0.1, 0.2, 0.3, 0.4: median (0.2 + 0.3) / 2 = 0.25.
        let m = r.label_mass.clone().unwrap();
        assert!((m.median - 0.25).abs() < 1e-12 && (m.mean - 0.25).abs() < 1e-12);
        assert_eq!(r.margin_histogram, [2, 0, 0, 0]);
        assert_eq!(r.hard_rate, Some(0.0));
        // argmax of (0.45, 0.45, 0.1) is A (first on ties): A is shorter, so the longer never wins.
        assert_eq!(r.length_agreement, Some(0.0));
        assert_eq!(r.warnings.len(), 3, "{:?}", r.warnings);
    }

    #[test]
    fn a_consistent_judge_gets_no_warning_and_length_counts_the_longer_winner() {
        // Pair 1: A wins in both orders (shown first in ab, second in ba); A longer.
        let p1 = pair(vec![order("ab", [0.7, 0.2, 0.1], Some(0.9)), order("ba", [0.2, 0.7, 0.1], Some(0.9))]);
        // Pair 2: B wins in both orders; B shorter (so the longer, A, loses).
        let p2 = pair(vec![order("ab", [0.1, 0.8, 0.1], Some(0.8)), order("ba", [0.8, 0.1, 0.1], Some(0.8))]);
        // Pair 3: tie in both orders; not counted for length.
        let p3 = pair(vec![order("ab", [0.2, 0.2, 0.6], Some(0.7)), order("ba", [0.2, 0.2, 0.6], Some(0.7))]);
        let items = [
            TrustItem { judgement: &p1, len_a: 30, len_b: 20 },
            TrustItem { judgement: &p2, len_a: 30, len_b: 20 },
            TrustItem { judgement: &p3, len_a: 30, len_b: 20 },
        ];
        let r = trust_report(&items, 0.1);
        assert_eq!(r.order_consistency, Some(1.0));
        // First-shown wins: p1 ab (A first, A wins) yes, p1 ba (B first, A wins) no, p2 ab no,
        // p2 ba (B first, B wins) yes, p3 ties: 2 of 6.
        assert_eq!(r.first_position_rate, Some(2.0 / 6.0));
        assert_eq!(r.tie_rate, Some(2.0 / 6.0));
        assert_eq!(r.length_pairs, 2);
        assert_eq!(r.length_agreement, Some(0.5));
        // Margins: p1 0.7 - 0.2 = 0.5, p2 0.8 - 0.1 = 0.7, p3 0.6 - 0.2 = 0.4.
        assert_eq!(r.margin_histogram, [0, 0, 2, 1]);
        assert_eq!(r.hard_rate, Some(1.0));
        assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    }

    #[test]
    fn no_items_gives_no_rates_and_no_nan() {
        let r = trust_report(&[], 0.1);
        assert_eq!(r.pairs, 0);
        assert_eq!(r.order_consistency, None);
        assert_eq!(r.margin, None);
        assert!(r.warnings.is_empty());
    }
}
