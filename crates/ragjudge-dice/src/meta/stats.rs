//! The figures of a judge on one labelled set, as AlpacaEval's evaluator leaderboard and LLMBar
//! report them: agreement with the gold, position and length bias, and the baselines.

use ragjudge_stats::{cohen_kappa, wilson, Weights};
use serde::{Deserialize, Serialize};

use crate::meta::items::PairItem;
use crate::pair::Outcome;
use crate::protocol::Verdict;

/// One row of the meta-evaluation table: a protocol on a set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SetStats {
    /// The set.
    pub set: String,
    /// The protocol (or a stored reference row's evaluator).
    pub protocol: String,
    /// Labelled pairs in the set (after `--limit`).
    pub items: usize,
    /// Pairs the judge failed on (recorded, left out of the figures).
    pub failed: usize,
    /// Pairs judged.
    pub judged: usize,
    /// Judged pairs with a decided outcome (not a tie).
    pub decided: usize,
    /// Decided pairs whose outcome is the gold's.
    pub correct: usize,
    /// `correct / decided`.
    pub accuracy_decided: Option<f64>,
    /// 95% Wilson interval of `accuracy_decided`.
    pub ci_low: Option<f64>,
    /// Upper end of that interval.
    pub ci_high: Option<f64>,
    /// Over all judged pairs: 1 for the gold's outcome, 0.5 for a tie where the gold decided
    /// (a coin flip's expectation), 0 otherwise.
    pub accuracy_with_ties: Option<f64>,
    /// Cohen's kappa of outcome against gold (three labels; undefined with one label in common).
    pub kappa: Option<f64>,
    /// Share of pairs judged in both orders whose two orders agree.
    pub order_consistency: Option<f64>,
    /// Share of decided single-order verdicts that picked the output shown first.
    pub first_position: Option<f64>,
    /// Share of decided outcomes (outputs of different length) that picked the longer output.
    pub prefer_longer: Option<f64>,
    /// The same share for the gold labels.
    pub gold_prefer_longer: Option<f64>,
    /// Accuracy of "pick the longer output" (characters; equal lengths count as wrong).
    pub longer_baseline: Option<f64>,
    /// Expected accuracy of a fair coin between the two outputs.
    pub random_baseline: Option<f64>,
    /// Model calls made (cached calls are free and not counted).
    pub calls: u64,
    /// Prompt tokens of those calls.
    pub prompt_tokens: u64,
    /// Wall time, seconds.
    pub seconds: f64,
}

fn share(num: usize, den: usize) -> Option<f64> {
    (den > 0).then(|| num as f64 / den as f64)
}

/// Which output is longer in characters (`None` when equally long).
pub fn longer(item: &PairItem) -> Option<Outcome> {
    let (a, b) = (item.pair.first.answer.chars().count(), item.pair.second.answer.chars().count());
    match a.cmp(&b) {
        std::cmp::Ordering::Greater => Some(Outcome::First),
        std::cmp::Ordering::Less => Some(Outcome::Second),
        std::cmp::Ordering::Equal => None,
    }
}

/// The baselines of a set (no judge needed).
pub fn baselines(items: &[PairItem]) -> (Option<f64>, Option<f64>) {
    let longer_right = items.iter().filter(|i| longer(i) == Some(i.gold)).count();
    let decided_gold = items.iter().filter(|i| i.gold != Outcome::Tie).count();
    (share(longer_right, items.len()), share(decided_gold, items.len()).map(|s| s / 2.0))
}

/// The figures of `verdicts` (one per item, `None` where the judge failed) against the gold.
pub fn set_stats(set: &str, protocol: &str, items: &[PairItem], verdicts: &[Option<&Verdict>]) -> SetStats {
    let judged: Vec<(&PairItem, &Verdict)> =
        items.iter().zip(verdicts).filter_map(|(i, v)| v.map(|v| (i, v))).collect();
    let decided: Vec<_> = judged.iter().filter(|(_, v)| v.outcome != Outcome::Tie).collect();
    let correct = decided.iter().filter(|(i, v)| v.outcome == i.gold).count();
    let with_ties: f64 = judged
        .iter()
        .map(|(i, v)| match (v.outcome, i.gold) {
            (o, g) if o == g => 1.0,
            (Outcome::Tie, _) => 0.5,
            _ => 0.0,
        })
        .sum();
    let gold: Vec<&str> = judged.iter().map(|(i, _)| i.gold.as_str()).collect();
    let pred: Vec<&str> = judged.iter().map(|(_, v)| v.outcome.as_str()).collect();
    let kappa = cohen_kappa(&gold, &pred, Weights::None).ok().flatten();
    let two: Vec<_> = judged.iter().filter(|(_, v)| v.orders.len() == 2).collect();
    let consistent = two.iter().filter(|(_, v)| v.orders[0].outcome == v.orders[1].outcome).count();
    let picks: Vec<bool> =
        judged.iter().flat_map(|(_, v)| v.orders.iter().filter_map(|o| o.picked_shown_first())).collect();
    let with_length: Vec<_> = decided.iter().filter_map(|(i, v)| longer(i).map(|l| v.outcome == l)).collect();
    let gold_length: Vec<_> =
        items.iter().filter(|i| i.gold != Outcome::Tie).filter_map(|i| longer(i).map(|l| i.gold == l)).collect();
    let ci = wilson(correct as u64, decided.len() as u64, 0.95);
    let (longer_baseline, random_baseline) = baselines(items);
    SetStats {
        set: set.to_string(),
        protocol: protocol.to_string(),
        items: items.len(),
        failed: items.len() - judged.len(),
        judged: judged.len(),
        decided: decided.len(),
        correct,
        accuracy_decided: share(correct, decided.len()),
        ci_low: ci.map(|c| c.0),
        ci_high: ci.map(|c| c.1),
        accuracy_with_ties: (!judged.is_empty()).then(|| with_ties / judged.len() as f64),
        kappa,
        order_consistency: share(consistent, two.len()),
        first_position: share(picks.iter().filter(|&&p| p).count(), picks.len()),
        prefer_longer: share(with_length.iter().filter(|&&l| l).count(), with_length.len()),
        gold_prefer_longer: share(gold_length.iter().filter(|&&l| l).count(), gold_length.len()),
        longer_baseline,
        random_baseline,
        calls: 0,
        prompt_tokens: 0,
        seconds: 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pair::{Pair, Side};
    use crate::protocol::OrderVerdict;

    fn item(a: &str, b: &str, gold: Outcome) -> PairItem {
        let side = |s: &str| Side { answer: s.into(), contexts: Vec::new(), system: None };
        let pair = Pair { id: "0".into(), instruction: "q".into(), reference: None, first: side(a), second: side(b) };
        PairItem { set: "t".into(), pair, gold }
    }

    fn verdict(outcome: Outcome, orders: &[(bool, Outcome)]) -> Verdict {
        Verdict {
            s_first: 0.5,
            outcome,
            orders: orders
                .iter()
                .map(|&(swapped, outcome)| OrderVerdict {
                    swapped,
                    s_first: 0.5,
                    outcome,
                    label_probs: ragjudge_models::LabelProbs {
                        labels: vec!["a".into(), "b".into()],
                        probs: vec![0.5, 0.5],
                        logits: vec![0.0; 2],
                        label_mass: None,
                        source: ragjudge_models::ProbSource::Logits,
                    },
                })
                .collect(),
            grades: None,
            claims: None,
        }
    }

    /// Four pairs worked by hand.
    /// 1. gold first, judged first (both orders first): correct, consistent, picks shown-first once
    ///    (ab: first = shown first; ba: first = shown second).
    /// 2. gold second, judged first (ab first, ba first): wrong, consistent.
    /// 3. gold first, judged tie (ab first, ba second): tie, inconsistent; both orders picked
    ///    the output shown first.
    /// 4. gold second, the judge failed.
    #[test]
    fn figures_by_hand() {
        use Outcome::*;
        let items = vec![
            item("long answer", "short", First),
            item("longer one", "tiny", Second),
            item("a", "bb", First),
            item("x", "y", Second),
        ];
        let v = [
            verdict(First, &[(false, First), (true, First)]),
            verdict(First, &[(false, First), (true, First)]),
            verdict(Tie, &[(false, First), (true, Second)]),
        ];
        let verdicts = [Some(&v[0]), Some(&v[1]), Some(&v[2]), None];
        let s = set_stats("t", "p", &items, &verdicts);
        assert_eq!((s.items, s.failed, s.judged, s.decided, s.correct), (4, 1, 3, 2, 1));
        assert_eq!(s.accuracy_decided, Some(0.5));
        assert_eq!(s.accuracy_with_ties, Some(1.5 / 3.0));
        assert_eq!(s.order_consistency, Some(2.0 / 3.0));
        // Decided order verdicts: ab First (shown first), ba First (shown second), twice; ab
        // First (shown first), ba Second (shown first): 4 of 6.
        assert_eq!(s.first_position, Some(4.0 / 6.0));
        // Decided outcomes: pair 1 picked the longer, pair 2 the longer: 2 of 2.
        assert_eq!(s.prefer_longer, Some(1.0));
        // Gold: pair 1 longer, pair 2 shorter, pair 3 shorter, pair 4 equal (left out): 1 of 3.
        assert_eq!(s.gold_prefer_longer, Some(1.0 / 3.0));
        // Longer baseline over all 4 (pair 4 equal length counts as wrong): pair 1 only.
        assert_eq!(s.longer_baseline, Some(0.25));
        assert_eq!(s.random_baseline, Some(0.5));
        // kappa of gold (first, second, first) vs pred (first, first, tie), by hand:
        // p_o = 1/3; marginals gold first 2/3, second 1/3; pred first 2/3, tie 1/3;
        // p_e = 2/3 * 2/3 = 4/9; kappa = (1/3 - 4/9) / (1 - 4/9) = -1/5.
        assert!((s.kappa.unwrap() + 0.2).abs() < 1e-12);
        let (lo, hi) = (s.ci_low.unwrap(), s.ci_high.unwrap());
        assert!(lo < 0.5 && hi > 0.5);
    }
}
