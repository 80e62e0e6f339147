//! The generated test set (HCAT section 2): what each check of `ragjudge testgen` did, with
//! examples, the multiple-choice answer letters, near-duplicates and coverage per topic, read
//! from the run's `summary.json`.

use super::page::{esc, num, pct, Table};
use super::sections::{summary_table, Ctx};
use crate::inputs::Input;
use std::fmt::Write as _;

/// What each check asks, in the order they run.
const CHECKS: [(&str, &str); 12] = [
    ("format", "the reply is the JSON object asked for (fields, option count, answer letter)"),
    ("self_contained", "the question does not point at the passage or leave \"the film\", \"the reef\" or \"he\" unresolved, nor ask which company or country, or (in Chinese) for a figure, a date, a stake or why a price moved, without naming anything (English and Chinese forms)"),
    ("near_duplicate", "the question is not nearly a question kept before it"),
    ("round_trip", "the question finds its source among the best chunks of the collection (BM25 or embedding)"),
    ("answerable", "the question gives no number of three or more digits its source lacks, and the judge finds the answer in the source"),
    ("grounded", "the reference is close to a sentence of the source and gives no number of three or more digits it lacks"),
    ("reference", "the reference gives what the question asks for and agrees with the judge's own answer from the source; the judge answers yes/no and multiple choice as the reference does"),
    ("unique_answer", "no passage of another document answers the question otherwise, by the judge's own answer from it"),
    ("unanswerable", "no retrieved chunk is nearly the question, the judge finds the answer in none and finds none when asked to answer from the likeliest"),
    ("model_call", "the model and check calls succeeded"),
    ("per_topic", "the topic has room left"),
    ("follow_up", "a follow-up leans on the first turn without pointing at the passage; its standalone rewrite stands on its own and passes the checks of a factual question"),
];

/// One part per test-set summary read.
pub(super) fn test_set(ctx: &mut Ctx<'_>) -> String {
    let mut s = String::new();
    for l in &ctx.inputs.loaded {
        let Input::Figures(f) = &l.input else { continue };
        let Some(t) = &f.test_set else { continue };
        let q = &t.quality;
        let _ = write!(
            s,
            "<p><b>{}</b> questions kept from {} generation tasks ({} replies); {} tasks without a question. <span class=\"muted\"><code>{}</code></span></p>",
            t.questions,
            t.tasks,
            t.attempts,
            t.rejected,
            esc(&l.path.display().to_string())
        );
        s.push_str("<h3>Checks</h3><p class=\"muted\">A reply that fails a check is regenerated within the retry budget, then dropped; a question for a full topic is dropped.</p>");
        let mut table = Table::new(&[
            ("check", false),
            ("what it asks", false),
            ("passed", true),
            ("regenerated", true),
            ("dropped", true),
        ]);
        let mut examples = String::new();
        for (name, asks) in CHECKS {
            let Some(c) = q.checks.get(name) else { continue };
            table.row(vec![
                format!("<code>{name}</code>"),
                esc(asks),
                c.passed.to_string(),
                c.regenerated.to_string(),
                c.dropped.to_string(),
            ]);
            if let Some(list) = q.examples.get(name).filter(|l| !l.is_empty()) {
                let _ = write!(examples, "<li><code>{name}</code><ul>");
                for e in list {
                    let _ = write!(examples, "<li>{}</li>", esc(e));
                }
                examples.push_str("</ul></li>");
            }
        }
        s.push_str(&table.html());
        if let Some(list) = q.examples.get("multi_hop_type") {
            let _ = write!(examples, "<li><code>multi_hop_type</code> (kept as factual)<ul>");
            for e in list {
                let _ = write!(examples, "<li>{}</li>", esc(e));
            }
            examples.push_str("</ul></li>");
        }
        if !examples.is_empty() {
            let _ = write!(s, "<details><summary>Examples of failures</summary><ul>{examples}</ul></details>");
        }
        let letters: Vec<String> = q.answer_letters.iter().map(|(l, n)| format!("{l} {n}")).collect();
        let p = q.answer_letters_p.map_or_else(
            || "too few to test".to_string(),
            |p| {
                format!(
                    "chi-square against uniform p = {}{}",
                    num(Some(p), 3),
                    if p < 0.05 { ": the letter gives the answer away" } else { "" }
                )
            },
        );
        let _ = write!(
            s,
            "<h3>The set</h3><ul><li>Multiple-choice answer letters: {} ({p}).</li><li>Yes/no answers: {}.</li><li>Near-duplicate replies (regenerated): {} of those checked.</li><li>Multi-hop questions kept as factual (one source holds the whole answer): {}.</li><li>Per type: {}.</li></ul>",
            esc(&letters.join(", ")),
            esc(&q.yes_no_answers.iter().map(|(a, n)| format!("{a} {n}")).collect::<Vec<_>>().join(", ")),
            pct(Some(q.near_duplicate_rate)),
            q.retyped,
            esc(&t.per_type.iter().map(|(k, n)| format!("{k} {n}")).collect::<Vec<_>>().join(", "))
        );
        if !q.topics.is_empty() {
            s.push_str("<h3>Coverage per topic</h3>");
            let mut table = Table::new(&[
                ("topic", false),
                ("terms", false),
                ("chunks", true),
                ("sampled", true),
                ("questions", true),
            ]);
            for c in &q.topics {
                let questions = if c.questions == 0 { "<b>0</b>".to_string() } else { c.questions.to_string() };
                table.row(vec![esc(&c.id), esc(&c.label), c.chunks.to_string(), c.sampled.to_string(), questions]);
            }
            s.push_str(&table.html());
        }
        s.push_str("<details><summary>Key figures (what <code>ragjudge gate</code> checks)</summary>");
        s.push_str(&summary_table(&f.table, ["subject", "items", "failed"]));
        s.push_str("</details>");
    }
    s
}
