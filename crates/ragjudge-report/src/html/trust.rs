//! Trust: which scorer agrees with the user's own labels, on held-out questions, beside the
//! trivial baselines and the agreement between annotators, and the estimates it powers (read
//! from `validate`'s and `annotate export`'s artifacts).

use super::page::{esc, num, warnings, Table};
use super::sections::Ctx;
use crate::charts::trust_charts;
use crate::figures::Trust;
use crate::inputs::Input;
use std::fmt::Write as _;

/// One part per validation and per agreement read.
pub(super) fn trust(ctx: &mut Ctx<'_>) -> String {
    let mut s = String::new();
    let loaded: Vec<(String, Trust)> = ctx
        .inputs
        .loaded
        .iter()
        .filter_map(|l| match &l.input {
            Input::Figures(f) => f.trust.clone().map(|t| (l.path.display().to_string(), t)),
            _ => None,
        })
        .collect();
    for (path, t) in loaded {
        match t {
            Trust::Validation(v) => {
                let _ = write!(
                    s,
                    "<p><b>{}</b> labelled {} tasks on {} questions. <span class=\"muted\"><code>{}</code></span></p>",
                    v.labels,
                    esc(v.view.as_str()),
                    v.questions,
                    esc(&path)
                );
                if v.beats_baselines {
                    let _ = write!(s, "<p class=\"verdict\">{}</p>", esc(&v.verdict));
                } else {
                    s.push_str(&warnings("No scorer is validated on these labels", std::slice::from_ref(&v.verdict)));
                }
                if let Some(c) = &v.ceiling {
                    let _ = write!(
                        s,
                        "<p>Human ceiling: {} annotators, {} tasks labelled by two or more; they agree with each other at Spearman {} (Krippendorff's alpha {}).</p>",
                        c.annotators,
                        c.shared_tasks,
                        num(c.spearman, 2),
                        num(c.alpha, 2)
                    );
                }
                for chart in trust_charts(&v) {
                    s.push_str(&ctx.figure(&chart));
                }
                let mut table = Table::new(&[
                    ("scorer", false),
                    ("kind", false),
                    ("labels", true),
                    ("Spearman", true),
                    ("95% interval", false),
                    ("cross-validated", true),
                    ("pair accuracy", true),
                ]);
                for c in &v.candidates {
                    let mut name = esc(&c.name);
                    if v.picked.as_deref() == Some(c.name.as_str()) {
                        name = format!("<b>{name}</b> (picked)");
                    }
                    if c.reversed {
                        name.push_str(" <span class=\"muted\">lower is better</span>");
                    }
                    let kind = c.source.as_str();
                    table.row(vec![
                        name,
                        kind.into(),
                        c.n.to_string(),
                        num(c.spearman, 3),
                        format!("[{}, {}]", num(c.low, 2), num(c.high, 2)),
                        num(c.cv_spearman, 3),
                        num(c.accuracy, 3),
                    ]);
                }
                if !v.consensus.is_empty() {
                    let members: Vec<String> =
                        v.consensus.iter().map(|(m, w)| format!("{} ({:.0}%)", esc(m), 100.0 * w)).collect();
                    let _ = write!(
                        s,
                        "<p>The pick is the <b>consensus</b> of the {} scorers that agree with the labels significantly, each turned the labels' way and weighted by its agreement: {}.</p>",
                        members.len(),
                        members.join(", ")
                    );
                }
                let _ = write!(
                    s,
                    "<p class=\"muted\">Spearman of each scorer with the labels{}; its direction is read from the labels. Cross-validated: by question over {} folds, the direction read from the other folds; the pick itself, chosen on the other folds each time: {}.</p>",
                    if v.view == ragjudge_human::task::View::Pairwise { " (for pairs, the score difference against the preference)" } else { "" },
                    v.settings.folds,
                    num(v.picked_cv, 3)
                );
                s.push_str(&table.html());
                if !v.estimates.is_empty() {
                    let mut table = Table::new(&[
                        ("group", false),
                        ("PPI estimate", true),
                        ("interval", false),
                        ("labels alone", true),
                        ("interval", false),
                        ("labelled", true),
                        ("unlabelled", true),
                        ("λ", true),
                    ]);
                    for e in &v.estimates {
                        let (p, c) = (&e.ppi.ppi, &e.ppi.classical);
                        table.row(vec![
                            esc(&e.group),
                            num(Some(p.estimate), 3),
                            format!("[{:.3}, {:.3}]", p.low, p.high),
                            num(Some(c.estimate), 3),
                            format!("[{:.3}, {:.3}]", c.low, c.high),
                            e.ppi.n.to_string(),
                            e.ppi.unlabelled.to_string(),
                            num(Some(e.ppi.lambda), 2),
                        ]);
                    }
                    s.push_str("<h3>Estimates with the picked scorer</h3>");
                    s.push_str(&table.html());
                }
            }
            Trust::Agreement(a) => {
                let _ = write!(
                    s,
                    "<h3>Agreement between annotators</h3><p>{} annotators ({}), {} tasks, {} labelled by two or more. <span class=\"muted\"><code>{}</code></span></p>",
                    a.annotators.len(),
                    esc(&a.annotators.join(", ")),
                    a.tasks,
                    a.shared_tasks,
                    esc(&path)
                );
                let mut table = Table::new(&[
                    ("measure", false),
                    ("Krippendorff's alpha", true),
                    ("level", false),
                    ("mean Cohen's kappa", true),
                    ("pairs of annotators", true),
                ]);
                for m in &a.measures {
                    table.row(vec![
                        esc(&m.name),
                        num(m.alpha.alpha, 3),
                        format!("{:?}", m.alpha.level).to_lowercase(),
                        num(m.mean_kappa, 3),
                        m.pairs.len().to_string(),
                    ]);
                }
                s.push_str(&table.html());
            }
        }
    }
    s
}
