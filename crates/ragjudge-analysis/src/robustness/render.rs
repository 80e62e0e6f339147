//! The text tables of a robustness report (HCAT §6.1), as `ragjudge robustness` prints them.

use super::RobustnessReport;
use std::fmt::Write as _;

fn num(x: Option<f64>) -> String {
    x.map(|v| format!("{v:.4}")).unwrap_or_else(|| "-".into())
}

/// The report as text tables: per metric the deltas, then out-of-distribution queries and the
/// variants in no pair.
pub fn render(r: &RobustnessReport) -> String {
    let mut out = String::new();
    for metric in &r.metrics {
        let worse = if r.tolerance > 0.0 { format!("delta < -{}", r.tolerance) } else { "delta < 0".into() };
        let _ = writeln!(
            out,
            "{metric}: variant - original, {:.0}% paired bootstrap ({} resamples); worse: {worse}; flips: {}",
            r.level * 100.0,
            r.bootstrap,
            r.correct
                .as_ref()
                .map(|c| format!("correct = {} >= {}", c.column, c.threshold))
                .unwrap_or_else(|| "-".into())
        );
        let _ = writeln!(
            out,
            "  {:<12} {:<12} {:>8} {:>5} {:>9} {:>9} {:>28} {:>7} {:>7} {:>7}",
            "system", "perturbation", "severity", "n", "original", "variant", "delta [CI]", "worse", "lost", "gained"
        );
        for d in r.deltas.iter().filter(|d| &d.metric == metric) {
            let delta = match (d.delta, d.ci_low, d.ci_high) {
                (Some(x), Some(lo), Some(hi)) => format!("{x:+.4} [{lo:+.4}, {hi:+.4}]"),
                _ => "-".into(),
            };
            let empty = if d.empty > 0 { format!(" ({} empty)", d.empty) } else { String::new() };
            let _ = writeln!(
                out,
                "  {:<12} {:<12} {:>8} {:>5} {:>9} {:>9} {:>28} {:>7} {:>7} {:>7}{empty}",
                d.system,
                d.perturbation,
                d.severity,
                d.n,
                num(d.original_mean),
                num(d.variant_mean),
                delta,
                num(d.worse_share),
                num(d.flips.as_ref().map(|f| f.rate)),
                num(d.flips.as_ref().map(|f| f.reverse_rate)),
            );
        }
    }
    for o in &r.ood {
        let a = o.abstention.as_ref().map(|a| format!(", abstained {} ({}/{})", num(a.rate), a.abstained, a.n));
        let h = o.hallucination.as_ref().map(|h| format!(", {} mean {}", h.column, num(h.mean)));
        let _ = writeln!(out, "ood {}: n {}{}{}", o.system, o.n, a.unwrap_or_default(), h.unwrap_or_default());
    }
    if !r.exclusions.is_empty() {
        let ids: Vec<String> = r.exclusions.iter().take(5).map(|e| format!("{} ({:?})", e.id, e.reason)).collect();
        let _ = writeln!(
            out,
            "{} variant records in no pair: {}{}",
            r.exclusions.len(),
            ids.join(", "),
            if r.exclusions.len() > 5 { ", ..." } else { "" }
        );
    }
    out
}
