//! AutoNuggetizer (Pradeep et al. 2024, arXiv:2411.09607; Open RAG Eval, "AutoNuggetizer"): nuggets
//! are created from the passages UMBRELA graded >= 1, labelled vital or okay, and assigned to the
//! answer as support (1), partial support (0.5) or not support (0).
//!
//! Steps as in Open RAG Eval 0.3.0 `AutoNuggetMetric`:
//! 1. creation: up to 5 rounds; each round the judge updates the whole list (its answer replaces
//!    the list); stop once it holds 30 nuggets. The list is cut to 30 (Open RAG Eval: "Maximum 30
//!    nuggets"; Open RAG Eval stops but does not cut). The 1-12 word limit is the prompt's
//!    instruction and is not enforced afterwards.
//! 2. importance: batches of 10; a stable sort puts vital before okay; the top 20 are kept.
//! 3. assignment: batches of 10 against the answer text with its `[n]` markers removed (Open RAG
//!    Eval joins the answer parts' texts with spaces).
//!
//! A round of creation that stays unparseable after the retries ends creation with the previous
//! round's list (no list after a failed first round); an unparseable importance or assignment
//! batch leaves every score `None`. Each failure is kept as an [`Invalid`].

use crate::error::ParseError;
use crate::judging::{ask_all, CallOptions, Invalid, Request};
use crate::parse::{parse_labels, parse_string_list, py_list_repr};
use crate::prompts;
use ragjudge_lexical::citations::split_answer;
use ragjudge_models::{Judge, Prompt};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Importance labels.
pub const IMPORTANCE: [&str; 2] = ["vital", "okay"];
/// Assignment labels, with scores 1, 0.5 and 0.
pub const ASSIGNMENT: [&str; 3] = ["support", "partial_support", "not_support"];

/// Options of the AutoNuggetizer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NuggetOptions {
    /// Creation rounds at most. Default 5.
    pub rounds: usize,
    /// Nuggets created at most (also the prompt's `max_nuggets`). Default 30.
    pub max_nuggets: usize,
    /// Nuggets kept after importance sorting. Default 20.
    pub keep: usize,
    /// Nuggets per importance / assignment call. Default 10.
    pub batch: usize,
    /// Open RAG Eval's denominators `max(n, 1)` in every score (so no vital nuggets gives Vital 0
    /// and Weighted divides by `1 + 0.5 * okay`) instead of the documentation's formulas (`None` when a
    /// mean is over no nugget). Default false.
    pub ore_denominators: bool,
}

impl Default for NuggetOptions {
    fn default() -> Self {
        Self { rounds: 5, max_nuggets: 30, keep: 20, batch: 10, ore_denominators: false }
    }
}

/// The six nugget scores (Open RAG Eval, "Scoring Formulas").
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct NuggetScores {
    /// Mean assignment score of all nuggets.
    pub all: Option<f64>,
    /// `all` with only `support` counting (1), others 0.
    pub all_strict: Option<f64>,
    /// Mean assignment score of the vital nuggets.
    pub vital: Option<f64>,
    /// `vital`, strict.
    pub vital_strict: Option<f64>,
    /// `(sum vital + 0.5 sum okay) / (n_vital + 0.5 n_okay)`.
    pub weighted: Option<f64>,
    /// `weighted`, strict.
    pub weighted_strict: Option<f64>,
}

/// Score of an assignment label: support 1, partial_support 0.5, not_support 0.
pub fn assignment_score(label: &str) -> Option<f64> {
    match label {
        "support" => Some(1.0),
        "partial_support" => Some(0.5),
        "not_support" => Some(0.0),
        _ => None,
    }
}

/// The nugget scores from importance `labels` and assignment labels, nugget by nugget.
///
/// Seed 002: All = mean of all scores; Vital = mean of the vital nuggets' scores; Weighted =
/// `(sum_vital + 0.5 sum_okay) / (n_vital + 0.5 n_okay)`; Strict = the same with support 1 and
/// everything else 0. A mean over no nugget is `None` unless `ore_denominators`.
pub fn nugget_scores(labels: &[String], assignments: &[String], ore_denominators: bool) -> NuggetScores {
    let mut sums = [[0.0f64; 2]; 2]; // [vital, okay][lenient, strict]
    let mut counts = [0usize; 2];
    for (label, a) in labels.iter().zip(assignments) {
        let idx = match label.as_str() {
            "vital" => 0,
            "okay" => 1,
            _ => continue,
        };
        counts[idx] += 1;
        sums[idx][0] += assignment_score(a).unwrap_or(0.0);
        sums[idx][1] += if a == "support" { 1.0 } else { 0.0 };
    }
    let n = labels.len().min(assignments.len());
    let denom = |c: usize| -> Option<f64> {
        match (c, ore_denominators) {
            (0, false) => None,
            (c, _) => Some(c.max(1) as f64),
        }
    };
    let (nv, no) = (counts[0] as f64, counts[1] as f64);
    let weighted_denom =
        if ore_denominators { Some(nv.max(1.0) + 0.5 * no.max(1.0)) } else { Some(nv + 0.5 * no).filter(|d| *d > 0.0) };
    let mut out = NuggetScores::default();
    for (s, (&v, &o)) in sums[0].iter().zip(&sums[1]).enumerate() {
        let all = denom(n).map(|d| (v + o) / d);
        let vital = denom(counts[0]).map(|d| v / d);
        let weighted = weighted_denom.map(|d| (v + 0.5 * o) / d);
        if s == 0 {
            (out.all, out.vital, out.weighted) = (all, vital, weighted);
        } else {
            (out.all_strict, out.vital_strict, out.weighted_strict) = (all, vital, weighted);
        }
    }
    out
}

/// Everything the AutoNuggetizer found for one record.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct NuggetEval {
    /// Creation rounds run.
    pub rounds: usize,
    /// Nuggets created (before importance sorting).
    pub created: usize,
    /// The kept nuggets, vital first.
    pub nuggets: Vec<String>,
    /// Their importance labels (empty when labelling failed).
    pub labels: Vec<String>,
    /// Their assignment labels (empty when assignment failed or was not run).
    pub assignments: Vec<String>,
    /// Their assignment scores.
    pub assignment_scores: Vec<f64>,
    /// The scores; all `None` when a step failed.
    pub scores: NuggetScores,
    /// Mean assignment score (Open RAG Eval's `mean_nugget_assignment_score`; equals All).
    pub mean_assignment: Option<f64>,
    /// Why the scores are missing, if they are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Token budgets: a list of 30 nuggets of up to 12 words, and a list of 10 labels.
const CREATE_TOKENS: u32 = 1024;
const LABEL_TOKENS: u32 = 256;

/// Labels `nuggets` in batches of `batch`, one prompt per batch (`text` gets the batch as a Python
/// list literal and its length), answers constrained by `schema` and parsed as the `key` list of
/// `allowed` labels. The labels in nugget order, or `None` when a batch stayed invalid (each
/// recorded in `invalid` under the step `nugget_KEY`, item `batch N`).
fn label_batches(
    judge: &dyn Judge,
    call: &CallOptions,
    nuggets: &[String],
    batch: usize,
    text: impl Fn(&str, &str) -> String,
    (schema, key, allowed): (Value, &str, &[&str]),
    invalid: &mut Vec<Invalid>,
) -> Option<Vec<String>> {
    let chunks: Vec<&[String]> = nuggets.chunks(batch).collect();
    let requests: Vec<Request> = chunks
        .iter()
        .map(|c| Request {
            prompt: Prompt::chat(prompts::SYSTEM, text(&py_list_repr(c), &c.len().to_string())),
            max_tokens: LABEL_TOKENS,
            schema: schema.clone(),
        })
        .collect();
    let answers = ask_all(judge, &requests, call, |i, t| parse_labels(t, key, allowed, chunks[i].len()));
    let step = format!("nugget_{key}");
    let mut labels = Vec::with_capacity(nuggets.len());
    let mut complete = true;
    for (i, a) in answers.into_iter().enumerate() {
        invalid.extend(a.invalid(&step, format!("batch {}", i + 1)));
        match a.value {
            Some(l) => labels.extend(l),
            None => complete = false,
        }
    }
    complete.then_some(labels)
}

/// Runs the AutoNuggetizer on one record: `passages` are (text, UMBRELA grade) in rank order.
pub fn evaluate(
    judge: &dyn Judge,
    query: &str,
    passages: &[(&str, Option<u8>)],
    answer: &str,
    opts: &NuggetOptions,
    call: &CallOptions,
    invalid: &mut Vec<Invalid>,
) -> NuggetEval {
    let mut eval = NuggetEval::default();
    // 1. Creation from the passages graded >= 1 (an invalid grade is not >= 1).
    let context: Vec<String> = passages
        .iter()
        .filter(|(_, g)| g.is_some_and(|g| g >= 1))
        .enumerate()
        .map(|(i, (p, _))| format!("[{}] {p}", i + 1))
        .collect();
    let context = context.join("\n");
    let max_nuggets = opts.max_nuggets.to_string();
    let mut nuggets: Vec<String> = Vec::new();
    for round in 1..=opts.rounds {
        let initial = py_list_repr(&nuggets);
        let length = nuggets.len().to_string();
        let text = prompts::fill(
            prompts::NUGGET_CREATION,
            &[
                ("query", query),
                ("context", &context),
                ("initial_nuggets", &initial),
                ("initial_nuggets_length", &length),
                ("max_nuggets", &max_nuggets),
            ],
        );
        let req = [Request {
            prompt: Prompt::chat(prompts::SYSTEM, text),
            max_tokens: CREATE_TOKENS,
            schema: prompts::nuggets_schema(),
        }];
        let mut answers = ask_all(judge, &req, call, |_, t| match parse_string_list(t, "nuggets") {
            Some(l) if !l.is_empty() => Ok(l),
            Some(_) => Err(ParseError::EmptyList("nugget")),
            None => Err(ParseError::NoList("nuggets")),
        });
        let a = answers.remove(0);
        eval.rounds = round;
        invalid.extend(a.invalid("nugget_creation", format!("round {round}")));
        let Some(list) = a.value else { break };
        nuggets = list;
        if nuggets.len() >= opts.max_nuggets {
            nuggets.truncate(opts.max_nuggets);
            break;
        }
    }
    eval.created = nuggets.len();
    if nuggets.is_empty() {
        eval.note = Some("no nuggets were created".into());
        return eval;
    }

    // 2. Importance, in batches.
    let batch = opts.batch.max(1);
    let importance = label_batches(
        judge,
        call,
        &nuggets,
        batch,
        |list, len| {
            prompts::fill(prompts::NUGGET_IMPORTANCE, &[("query", query), ("len_nuggets", len), ("nuggets", list)])
        },
        (prompts::importance_schema(), "importance", &IMPORTANCE),
        invalid,
    );
    let Some(labels) = importance else {
        eval.nuggets = nuggets;
        eval.note = Some("importance labels are missing".into());
        return eval;
    };
    let mut pairs: Vec<(String, String)> = nuggets.into_iter().zip(labels).collect();
    pairs.sort_by_key(|(_, l)| l == "okay");
    pairs.truncate(opts.keep);
    let (nuggets, labels): (Vec<String>, Vec<String>) = pairs.into_iter().unzip();
    eval.nuggets = nuggets;
    eval.labels = labels;

    // 3. Assignment against the answer text without citation markers.
    let passage = split_answer(answer).iter().map(|p| p.text.as_str()).collect::<Vec<_>>().join(" ");
    if passage.trim().is_empty() {
        eval.note = Some("the answer is empty".into());
        return eval;
    }
    let assignment = label_batches(
        judge,
        call,
        &eval.nuggets,
        batch,
        |list, len| {
            prompts::fill(
                prompts::NUGGET_ASSIGNMENT,
                &[("query", query), ("len_nuggets", len), ("nuggets", list), ("generated_passage", &passage)],
            )
        },
        (prompts::assignment_schema(), "assignment", &ASSIGNMENT),
        invalid,
    );
    let Some(assignments) = assignment else {
        eval.note = Some("assignment labels are missing".into());
        return eval;
    };
    eval.assignment_scores = assignments.iter().map(|a| assignment_score(a).unwrap_or(0.0)).collect();
    eval.scores = nugget_scores(&eval.labels, &assignments, opts.ore_denominators);
    eval.mean_assignment = eval.scores.all;
    eval.assignments = assignments;
    eval
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judging::fake::FakeJudge;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn close(a: Option<f64>, b: f64) {
        let a = a.expect("a value");
        assert!((a - b).abs() < 1e-12, "{a} != {b}");
    }

    #[test]
    fn scores_by_hand() {
        // vital: support (1), partial (0.5); okay: partial (0.5), not (0).
        let labels = strings(&["vital", "vital", "okay", "okay"]);
        let assigned = strings(&["support", "partial_support", "partial_support", "not_support"]);
        let s = nugget_scores(&labels, &assigned, false);
        // All = (1 + 0.5 + 0.5 + 0) / 4 = 0.5; strict = 1 / 4.
        close(s.all, 0.5);
        close(s.all_strict, 0.25);
        // Vital = 1.5 / 2; strict = 1 / 2.
        close(s.vital, 0.75);
        close(s.vital_strict, 0.5);
        // Weighted = (1.5 + 0.5 * 0.5) / (2 + 0.5 * 2) = 1.75 / 3; strict = (1 + 0) / 3.
        close(s.weighted, 1.75 / 3.0);
        close(s.weighted_strict, 1.0 / 3.0);
        // Open RAG Eval's max(n, 1) changes nothing when both kinds are present.
        assert_eq!(nugget_scores(&labels, &assigned, true), s);
    }

    #[test]
    fn no_vital_nuggets() {
        let labels = strings(&["okay", "okay"]);
        let assigned = strings(&["support", "support"]);
        let s = nugget_scores(&labels, &assigned, false);
        close(s.all, 1.0);
        assert_eq!(s.vital, None);
        // Seed 002: (0 + 0.5 * 2) / (0 + 0.5 * 2) = 1.
        close(s.weighted, 1.0);
        // Open RAG Eval: Vital = 0 / max(0, 1) = 0; Weighted = (0 + 0.5 * 2) / (1 + 0.5 * 2) = 0.5.
        let o = nugget_scores(&labels, &assigned, true);
        close(o.vital, 0.0);
        close(o.weighted, 0.5);
    }

    #[test]
    fn no_nuggets_at_all() {
        let s = nugget_scores(&[], &[], false);
        assert_eq!(s, NuggetScores::default());
        let o = nugget_scores(&[], &[], true);
        close(o.all, 0.0);
        close(o.weighted, 0.0);
    }

    #[test]
    fn pipeline_filters_passages_sorts_vital_first_and_batches() {
        // Round 1 returns 12 nuggets; round 2 returns the same list, and so on for 5 rounds.
        let judge = FakeJudge::new(|u, _| {
            if u.contains("NuggetizeLLM") {
                let list: Vec<String> = (1..=12).map(|i| format!("\"n{i}\"")).collect();
                format!("{{\"nuggets\": [{}]}}", list.join(", "))
            } else if u.contains("NuggetizeScoreLLM") {
                // Batch 1 (n1..n10): n2 vital, others okay; batch 2 (n11, n12): n12 vital.
                if u.contains("'n1'") {
                    "['okay', 'vital', 'okay', 'okay', 'okay', 'okay', 'okay', 'okay', 'okay', 'okay']".into()
                } else {
                    "['okay', 'vital']".into()
                }
            } else {
                // Assignment: support for n2 and n12, not_support otherwise.
                let nuggets = u.split("Nugget List: ").nth(1).unwrap().split(']').next().unwrap();
                let labels: Vec<&str> = nuggets
                    .split(", ")
                    .map(|n| if n.contains("'n2'") || n.contains("'n12'") { "'support'" } else { "'not_support'" })
                    .collect();
                format!("[{}]", labels.join(", "))
            }
        });
        let passages = [("relevant text", Some(2)), ("unrelated", Some(0)), ("invalid", None), ("related", Some(1))];
        let mut invalid = Vec::new();
        let opts = NuggetOptions { keep: 5, ..NuggetOptions::default() };
        let e = evaluate(&judge, "q", &passages, "Answer [1].", &opts, &CallOptions::default(), &mut invalid);
        assert!(invalid.is_empty(), "{invalid:?}");
        assert_eq!(e.rounds, 5);
        assert_eq!(e.created, 12);
        // Stable sort: n2, n12 (vital), then n1, n3, n4 (okay), cut to 5.
        assert_eq!(e.nuggets, strings(&["n2", "n12", "n1", "n3", "n4"]));
        assert_eq!(e.labels, strings(&["vital", "vital", "okay", "okay", "okay"]));
        assert_eq!(e.assignments, strings(&["support", "support", "not_support", "not_support", "not_support"]));
        // All = 2/5; Vital = 1; Weighted = (2 + 0) / (2 + 1.5) = 4/7.
        close(e.scores.all, 0.4);
        close(e.scores.vital, 1.0);
        close(e.scores.weighted, 4.0 / 7.0);
        // 5 creation calls + 2 importance batches + 1 assignment batch.
        assert_eq!(judge.count(), 8);
        let calls = judge.calls.lock().unwrap().clone();
        // Only passages graded >= 1, renumbered; the answer without its citation marker.
        assert!(calls[0].0.contains("[1] relevant text\n[2] related"));
        assert!(!calls[0].0.contains("unrelated") && !calls[0].0.contains("invalid"));
        assert!(calls[1].0.contains("Initial Nugget List Length: 12"));
        assert!(calls[7].0.contains("Passage: Answer\n"));
    }

    #[test]
    fn creation_stops_at_the_cap_and_garbage_is_invalid_not_zero() {
        let judge = FakeJudge::new(|u, _| {
            if u.contains("NuggetizeLLM") {
                let list: Vec<String> = (1..=35).map(|i| format!("'n{i}'")).collect();
                format!("[{}]", list.join(", "))
            } else {
                "I am not sure.".into()
            }
        });
        let mut invalid = Vec::new();
        let e = evaluate(
            &judge,
            "q",
            &[("p", Some(3))],
            "a",
            &NuggetOptions::default(),
            &CallOptions::default(),
            &mut invalid,
        );
        assert_eq!(e.rounds, 1);
        assert_eq!(e.created, 30);
        assert_eq!(e.scores, NuggetScores::default());
        // 3 importance batches of 10, each tried 3 times.
        assert_eq!(invalid.len(), 3);
        assert!(invalid.iter().all(|i| i.step == "nugget_importance" && i.attempts == 3 && i.raw == "I am not sure."));
        assert_eq!(judge.count(), 1 + 9);
    }
}
