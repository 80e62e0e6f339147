//! The meta-evaluation tables as Markdown (`judge-eval.md`): one row per set and protocol with
//! LLMBar's stored rows of the same sets, then the consistency scorers.

use crate::meta::stats::SetStats;
use crate::meta::{ConsistencyStats, STORED};

/// A share as a percentage with one decimal, `-` when undefined.
pub fn pct(x: Option<f64>) -> String {
    x.map_or("-".into(), |v| format!("{:.1}", 100.0 * v))
}

/// A number with three decimals, `-` when undefined.
pub fn num(x: Option<f64>) -> String {
    x.map_or("-".into(), |v| format!("{v:.3}"))
}

/// The pairwise table: one row per set and protocol, then the stored rows of the same sets.
pub fn markdown(rows: &[SetStats]) -> String {
    let mut out = String::from(
        "| set | protocol | pairs | judged | accuracy % (decided) [95% CI] | accuracy % (ties half) | kappa | order consistency % | first position % | prefers longer % (gold) | longer % | random % | calls | s |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in rows {
        let ci = match (r.ci_low, r.ci_high) {
            (Some(l), Some(h)) => format!(" [{:.1}, {:.1}]", 100.0 * l, 100.0 * h),
            _ => String::new(),
        };
        out += &format!(
            "| {} | {} | {} | {} | {}{} | {} | {} | {} | {} | {} ({}) | {} | {} | {} | {:.0} |\n",
            r.set,
            r.protocol,
            r.items,
            r.judged,
            pct(r.accuracy_decided),
            ci,
            pct(r.accuracy_with_ties),
            num(r.kappa),
            pct(r.order_consistency),
            pct(r.first_position),
            pct(r.prefer_longer),
            pct(r.gold_prefer_longer),
            pct(r.longer_baseline),
            pct(r.random_baseline),
            r.calls,
            r.seconds
        );
    }
    let mut sets: Vec<&str> = rows.iter().map(|r| r.set.as_str()).collect();
    sets.dedup();
    for s in STORED.iter().filter(|s| sets.contains(&s.set.as_ref())) {
        out += &format!("| {} | {} (stored) | | | {:.1} | | | | | | | | | |\n", s.set, s.evaluator, 100.0 * s.accuracy);
    }
    out
}

/// The consistency table.
pub fn consistency_markdown(rows: &[ConsistencyStats]) -> String {
    let mut out = String::from(
        "\n| set | scorer | summaries | failed | Spearman | ROC AUC | balanced accuracy (>= 0.5) | s per sentence |\n|---|---|---|---|---|---|---|---|\n",
    );
    for r in rows {
        out += &format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} |\n",
            r.set,
            r.scorer,
            r.items,
            r.failed,
            num(r.spearman),
            num(r.auc),
            num(r.balanced_accuracy),
            r.seconds_per_sentence.map_or("-".into(), |s| format!("{s:.2}"))
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn undefined_figures_are_dashes_and_shares_percentages() {
        assert_eq!((pct(None), pct(Some(0.1234))), ("-".to_string(), "12.3".to_string()));
        assert_eq!((num(None), num(Some(0.5))), ("-".to_string(), "0.500".to_string()));
    }

    #[test]
    fn a_consistency_row_is_one_table_line() {
        let row = ConsistencyStats {
            set: "qags".into(),
            scorer: "s".into(),
            items: 3,
            failed: 1,
            spearman: Some(1.0),
            auc: None,
            balanced_accuracy: Some(0.5),
            sentences: 4,
            seconds_per_sentence: Some(0.25),
        };
        let md = consistency_markdown(&[row]);
        assert!(md.ends_with("| qags | s | 3 | 1 | 1.000 | - | 0.500 | 0.25 |\n"), "{md}");
    }
}
