//! Judging protocols, each turning a [`Pair`] into a score of its first output in `[0, 1]`
//! (0.5: even) and an outcome, so that they are measured the same way:
//!
//! - `dice`: DICE's three-label verdict (A, B, C = tie) without the reasoning stage, both orders
//!   averaged (DICE §3.2); `dice-reasoning` with stage I.
//! - `two-label`: a forced choice between `a` and `b` after LLMBar's vanilla prompt (Zeng et al.
//!   2024), the letter probabilities of both orders averaged; the tie comes from the margin: a
//!   score within `tie_margin` of 0.5 is a tie (DICE's hard scoring with that threshold, and the
//!   averaged score itself is DICE's soft score).
//! - `pointwise`: each output graded alone on 1-5, the grade the expectation over the digit
//!   probabilities (G-Eval, Liu et al. 2023, §2.3); the pair's score is `0.5 + (g1 - g2) / 8`.
//!   One call per output, no order to average, so a tournament needs half the calls.
//! - `claims`: each output checked sentence by sentence against the reference answer, scored
//!   on CRAG's truthfulness scale (`crate::claims`); needs a reference. Each output is graded once.
//! - `ragchecker`: RAGChecker's overall checks of each output against the whole reference and
//!   back, combined with ROUGE-L against the reference, declining on CRAG's scale
//!   (`crate::ragchecker`); needs a reference. Each output is graded once.
//! - `ensemble`: the mean of the `two-label` and `pointwise` scores (both prompt formats, both
//!   orders; calls shared with those protocols through the cache), tie from the margin.

use std::sync::{Arc, OnceLock};

use ragjudge_core::text::Lang;
use ragjudge_core::{Context, Record};
use ragjudge_models::{Judge, LabelProbs, Message, ModelError, Prompt};
use serde::{Deserialize, Serialize};

use crate::claims::{check_answers, label_probs_unique, ClaimCheck, Graded};
use crate::judgement::{JudgeOptions, PairwiseJudge, Probs};
use crate::pair::{Outcome, Pair, Side};
use crate::prompts::{fill, section, sections};

/// A judging protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Protocol {
    /// DICE's three-label verdict, no reasoning, both orders.
    Dice,
    /// DICE with its reasoning stage, both orders.
    DiceReasoning,
    /// Two labels, both orders, tie from the margin.
    TwoLabel,
    /// Each output graded 1-5 alone; expected grades compared.
    Pointwise,
    /// Mean of the two-label and pointwise scores.
    Ensemble,
    /// Claim-by-claim checks against the reference, CRAG utilities compared.
    Claims,
    /// RAGChecker's overall checks combined with ROUGE-L against the reference.
    #[serde(rename = "ragchecker")]
    RagChecker,
}

impl Protocol {
    /// Every protocol.
    pub const ALL: [Protocol; 7] = [
        Protocol::Dice,
        Protocol::DiceReasoning,
        Protocol::TwoLabel,
        Protocol::Pointwise,
        Protocol::Ensemble,
        Protocol::Claims,
        Protocol::RagChecker,
    ];

    /// The name used on the command line and in tables.
    pub fn name(self) -> &'static str {
        match self {
            Protocol::Dice => "dice",
            Protocol::DiceReasoning => "dice-reasoning",
            Protocol::TwoLabel => "two-label",
            Protocol::Pointwise => "pointwise",
            Protocol::Ensemble => "ensemble",
            Protocol::Claims => "claims",
            Protocol::RagChecker => "ragchecker",
        }
    }

    /// Whether it needs a reference answer.
    pub fn needs_reference(self) -> bool {
        matches!(self, Protocol::Claims | Protocol::RagChecker)
    }

    /// Whether it grades each output alone (no presentation order).
    pub fn is_pointwise(self) -> bool {
        matches!(self, Protocol::Pointwise | Protocol::Claims | Protocol::RagChecker)
    }

    /// The protocol of a name.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name() == name.trim())
    }

    /// The language of its prompts: English for the protocols for small judges (their prompts
    /// exist in English only); `None` for DICE, whose prompt language follows the question.
    pub fn prompt_lang(self) -> Option<Lang> {
        match self {
            Protocol::Dice | Protocol::DiceReasoning => None,
            Protocol::TwoLabel | Protocol::Pointwise | Protocol::Ensemble | Protocol::Claims | Protocol::RagChecker => {
                Some(Lang::En)
            }
        }
    }

    /// The versions of the prompts it uses.
    pub fn prompt_version(self) -> &'static str {
        match self {
            Protocol::Dice | Protocol::DiceReasoning => crate::prompts::PROMPT_VERSION_EN,
            Protocol::TwoLabel => PAIR2_VERSION,
            Protocol::Pointwise => GRADE_VERSION,
            Protocol::Ensemble => "pair2-en-v1+grade-en-v1",
            Protocol::Claims => crate::claims::CLAIMS_VERSION,
            Protocol::RagChecker => crate::ragchecker::VERSION,
        }
    }
}

/// Settings shared by the protocols.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProtocolSettings {
    /// A score within this distance of 0.5 is a tie (`two-label`, `pointwise`).
    pub tie_margin: f64,
    /// Most tokens of DICE's reasoning stage.
    pub max_reasoning_tokens: u32,
    /// Sentences shown as the premise of one claim check (`claims`).
    pub premise_sentences: usize,
}

impl Default for ProtocolSettings {
    fn default() -> Self {
        Self { tie_margin: 0.0, max_reasoning_tokens: 384, premise_sentences: crate::claims::DEFAULT_PREMISE_SENTENCES }
    }
}

/// What the judge said about one presentation order, in the pair's terms.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OrderVerdict {
    /// Whether the pair's second output was shown first.
    pub swapped: bool,
    /// The order's score of the pair's first output.
    pub s_first: f64,
    /// The order's outcome (its argmax).
    pub outcome: Outcome,
    /// What the backend returned for the labels, in presentation terms.
    pub label_probs: LabelProbs,
}

impl OrderVerdict {
    /// Whether the order's decided outcome picked the output shown first (`None` for a tie).
    pub fn picked_shown_first(&self) -> Option<bool> {
        match self.outcome {
            Outcome::Tie => None,
            Outcome::First => Some(!self.swapped),
            Outcome::Second => Some(self.swapped),
        }
    }
}

/// A protocol's verdict on one pair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// Score of the pair's first output in `[0, 1]`.
    pub s_first: f64,
    /// The outcome.
    pub outcome: Outcome,
    /// Per presentation order (none for `pointwise`).
    pub orders: Vec<OrderVerdict>,
    /// What the two outputs were compared by: expected grades (`pointwise`), utilities
    /// (`claims`), scores or, when one declines, utilities (`ragchecker`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grades: Option<(f64, f64)>,
    /// The claim checks of the two outputs (`claims`, `ragchecker`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claims: Option<Box<(ClaimCheck, ClaimCheck)>>,
}

/// Prompt version of `two-label`.
pub const PAIR2_VERSION: &str = "pair2-en-v1";
/// Prompt version of `pointwise`.
pub const GRADE_VERSION: &str = "grade-en-v1";
const PAIR2_V1: &str = include_str!("../prompts/pair2-en-v1.txt");
const GRADE_V1: &str = include_str!("../prompts/grade-en-v1.txt");
/// The grades of `pointwise`, as labels.
const GRADES: [&str; 5] = ["1", "2", "3", "4", "5"];

fn pair2() -> &'static [(String, String)] {
    static P: OnceLock<Vec<(String, String)>> = OnceLock::new();
    P.get_or_init(|| sections(PAIR2_V1))
}

fn grade() -> &'static [(String, String)] {
    static P: OnceLock<Vec<(String, String)>> = OnceLock::new();
    P.get_or_init(|| sections(GRADE_V1))
}

/// The `two-label` prompt showing `a` as Output (a) and `b` as Output (b).
pub fn two_label_prompt(item: &Pair, a: &Side, b: &Side) -> Prompt {
    let s = pair2();
    let get = |name: &str| section(s, PAIR2_VERSION, name);
    let mut parts = vec![get("head")];
    if item.reference.is_some() {
        parts.push(get("rag_rules"));
    }
    parts.push(fill(&get("instruction"), &[("query", &item.instruction)]));
    if let Some(r) = &item.reference {
        parts.push(fill(&get("reference"), &[("reference", r)]));
    }
    for (label, side) in [("a", a), ("b", b)] {
        parts.push(fill(&get("output"), &[("label", label), ("answer", &side.answer)]));
    }
    parts.push(get("question"));
    Prompt {
        messages: vec![Message::new("system", get("system")), Message::new("user", parts.join("\n\n"))],
        assistant_prefix: Some(get("prefix")),
    }
}

/// The `pointwise` prompt grading `side` alone.
pub fn grade_prompt(item: &Pair, side: &Side) -> Prompt {
    let s = grade();
    let get = |name: &str| section(s, GRADE_VERSION, name);
    let mut parts = vec![fill(&get("instruction"), &[("query", &item.instruction)])];
    if let Some(r) = &item.reference {
        parts.push(fill(&get("reference"), &[("reference", r)]));
    }
    parts.push(fill(&get("output"), &[("answer", &side.answer)]));
    parts.push(get(if item.reference.is_some() { "rubric_reference" } else { "rubric" }));
    Prompt {
        messages: vec![Message::new("system", get("system")), Message::new("user", parts.join("\n\n"))],
        assistant_prefix: Some(get("prefix")),
    }
}

/// The expected grade (1-5) of the digit probabilities.
pub fn expected_grade(lp: &LabelProbs) -> f64 {
    lp.probs.iter().enumerate().map(|(k, p)| (k + 1) as f64 * p).sum()
}

fn record(item: &Pair, side: &Side, name: &str) -> Record {
    Record {
        id: item.id.clone(),
        system: side.system.clone().unwrap_or_else(|| name.to_string()),
        query: item.instruction.clone(),
        contexts: side.contexts.iter().map(|t| Context { text: t.clone(), ..Context::default() }).collect(),
        answer: side.answer.clone(),
        reference: item.reference.clone(),
        ..Record::default()
    }
}

fn outcome_of(p: Probs) -> Outcome {
    [Outcome::First, Outcome::Second, Outcome::Tie][p.argmax()]
}

/// Judges `items` (pairs, or labelled pairs) with `protocol`; one result per item, in order.
/// Calls go to the backend in one batch (`label_probs_many`), so concurrent backends run them in
/// parallel; one item's failure does not stop the others.
pub fn judge_items<P: AsRef<Pair>>(
    judge: &Arc<dyn Judge>,
    protocol: Protocol,
    items: &[P],
    settings: &ProtocolSettings,
) -> Vec<Result<Verdict, ModelError>> {
    let items: Vec<&Pair> = items.iter().map(AsRef::as_ref).collect();
    match protocol {
        Protocol::Dice | Protocol::DiceReasoning => {
            let opts = JudgeOptions {
                reasoning: protocol == Protocol::DiceReasoning,
                swap: true,
                lang: None,
                max_reasoning_tokens: settings.max_reasoning_tokens,
                bias: None,
            };
            let pj = PairwiseJudge::new(judge.clone(), opts);
            let records: Vec<(Record, Record)> =
                items.iter().map(|i| (record(i, &i.first, "first"), record(i, &i.second, "second"))).collect();
            let pairs: Vec<(&Record, &Record)> = records.iter().map(|(a, b)| (a, b)).collect();
            pj.judge_pairs_many(&pairs)
                .into_iter()
                .map(|r| {
                    let j = r?;
                    let orders = j
                        .orders
                        .iter()
                        .map(|o| {
                            let p = o.final_probs();
                            OrderVerdict {
                                swapped: o.order.is_swapped(),
                                s_first: p.a + p.tie / 2.0,
                                outcome: outcome_of(p),
                                label_probs: o.label_probs.clone(),
                            }
                        })
                        .collect();
                    Ok(Verdict {
                        s_first: j.probs.a + j.probs.tie / 2.0,
                        outcome: outcome_of(j.probs),
                        orders,
                        grades: None,
                        claims: None,
                    })
                })
                .collect()
        }
        Protocol::TwoLabel => {
            let labels = vec!["a".to_string(), "b".to_string()];
            let requests: Vec<(Prompt, Vec<String>)> = items
                .iter()
                .flat_map(|i| {
                    [two_label_prompt(i, &i.first, &i.second), two_label_prompt(i, &i.second, &i.first)]
                        .map(|p| (p, labels.clone()))
                })
                .collect();
            let mut replies = judge.label_probs_many(&requests).into_iter();
            items
                .iter()
                .map(|_| {
                    // Both orders are taken before either is checked, so that a failed one
                    // leaves the next item's replies in place.
                    let mut reply = || replies.next().unwrap_or_else(|| Err(ModelError::missing("reply")));
                    let (ab, ba) = (reply(), reply());
                    let (ab, ba) = (ab?, ba?);
                    let order = |swapped: bool, lp: LabelProbs| {
                        let s_first = if swapped { 1.0 - lp.probs[0] } else { lp.probs[0] };
                        OrderVerdict { swapped, s_first, outcome: Outcome::of_score(s_first, 0.0), label_probs: lp }
                    };
                    let orders = vec![order(false, ab), order(true, ba)];
                    let s_first = (orders[0].s_first + orders[1].s_first) / 2.0;
                    Ok(Verdict {
                        s_first,
                        outcome: Outcome::of_score(s_first, settings.tie_margin),
                        orders,
                        grades: None,
                        claims: None,
                    })
                })
                .collect()
        }
        Protocol::Ensemble => {
            let two = judge_items(judge, Protocol::TwoLabel, &items, settings);
            let point = judge_items(judge, Protocol::Pointwise, &items, settings);
            two.into_iter()
                .zip(point)
                .map(|(t, p)| {
                    let (t, p) = (t?, p?);
                    let s_first = (t.s_first + p.s_first) / 2.0;
                    Ok(Verdict {
                        s_first,
                        outcome: Outcome::of_score(s_first, settings.tie_margin),
                        orders: t.orders,
                        grades: p.grades,
                        claims: None,
                    })
                })
                .collect()
        }
        Protocol::Pointwise | Protocol::Claims | Protocol::RagChecker => {
            let sides: Vec<(&Pair, &Side)> = items.iter().flat_map(|&i| [(i, &i.first), (i, &i.second)]).collect();
            let mut grades = grade_sides(judge, protocol, &sides, settings).into_iter();
            items
                .iter()
                .map(|_| {
                    // Both sides are taken before either is checked (a failed first grade must
                    // not shift the next item's grades).
                    let mut grade = || grades.next().unwrap_or_else(|| Err(ModelError::missing("grade")));
                    let (a, b) = (grade(), grade());
                    let (a, b) = (a?, b?);
                    Ok(verdict_of_grades(a, b, settings.tie_margin))
                })
                .collect()
        }
    }
}

/// One output graded alone (`pointwise`, `claims`, `ragchecker`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerGrade {
    /// The expected 1-5 grade (`pointwise`).
    Expected(f64),
    /// The claim checks against the reference (`claims`, `ragchecker`).
    Claims(ClaimCheck),
}

impl AnswerGrade {
    /// The model calls the grade took: one for `pointwise`, one per check made for `claims`
    /// and `ragchecker`.
    pub fn calls(&self) -> usize {
        match self {
            AnswerGrade::Expected(_) => 1,
            AnswerGrade::Claims(c) => (c.support.len() + c.coverage.len()).saturating_sub(c.skipped),
        }
    }

    /// The values two grades are compared by, and the width of their difference's range:
    /// grades (1-5: 8), combined scores when both outputs have one (`ragchecker`, in `[0, 1]`:
    /// 2), else CRAG utilities (in `[-1, 1]`: 4).
    fn compared(&self, other: &AnswerGrade) -> (f64, f64, f64) {
        match (self, other) {
            (AnswerGrade::Claims(x), AnswerGrade::Claims(y)) => match (x.score, y.score) {
                (Some(a), Some(b)) => (a, b, 2.0),
                _ => (x.utility, y.utility, 4.0),
            },
            (AnswerGrade::Expected(a), AnswerGrade::Expected(b)) => (*a, *b, 8.0),
            // Grades of two protocols never meet; read a check as its utility on the 1-5 scale.
            (AnswerGrade::Expected(a), AnswerGrade::Claims(y)) => (*a, 3.0 + 2.0 * y.utility, 8.0),
            (AnswerGrade::Claims(x), AnswerGrade::Expected(b)) => (3.0 + 2.0 * x.utility, *b, 8.0),
        }
    }

    /// The score of this output against `other` in `[0, 1]`: `0.5 + (v1 - v2) / range` with the
    /// values compared and their range (see `compared`).
    pub fn score_against(&self, other: &AnswerGrade) -> f64 {
        let (a, b, range) = self.compared(other);
        0.5 + (a - b) / range
    }
}

/// The verdict of two graded outputs.
pub fn verdict_of_grades(a: AnswerGrade, b: AnswerGrade, tie_margin: f64) -> Verdict {
    let (va, vb, _) = a.compared(&b);
    let s_first = a.score_against(&b);
    let claims = match (&a, &b) {
        (AnswerGrade::Claims(x), AnswerGrade::Claims(y)) => Some(Box::new((x.clone(), y.clone()))),
        _ => None,
    };
    Verdict {
        s_first,
        outcome: Outcome::of_score(s_first, tie_margin),
        orders: Vec::new(),
        grades: Some((va, vb)),
        claims,
    }
}

/// Grades each output alone with a pointwise protocol (`pointwise` or `claims`), in one batch of
/// distinct calls (an output repeated across pairs is graded once); in order.
///
/// # Panics
/// For a pairwise protocol.
pub fn grade_sides(
    judge: &Arc<dyn Judge>,
    protocol: Protocol,
    sides: &[(&Pair, &Side)],
    settings: &ProtocolSettings,
) -> Vec<Result<AnswerGrade, ModelError>> {
    match protocol {
        Protocol::Pointwise => {
            let labels: Vec<String> = GRADES.iter().map(|g| g.to_string()).collect();
            let requests = sides.iter().map(|(i, s)| (grade_prompt(i, s), labels.clone())).collect();
            label_probs_unique(judge, requests)
                .into_iter()
                .map(|r| r.map(|lp| AnswerGrade::Expected(expected_grade(&lp))))
                .collect()
        }
        Protocol::Claims | Protocol::RagChecker => {
            let answers: Vec<Graded<'_>> = sides
                .iter()
                .filter_map(|(i, s)| {
                    i.reference.as_deref().map(|reference| Graded {
                        query: &i.instruction,
                        answer: &s.answer,
                        reference,
                    })
                })
                .collect();
            let checks = match protocol {
                Protocol::Claims => check_answers(judge, &answers, settings.premise_sentences),
                _ => crate::ragchecker::grade_answers(judge, &answers),
            };
            let mut checks = checks.into_iter();
            sides
                .iter()
                .map(|(i, _)| match i.reference {
                    Some(_) => checks
                        .next()
                        .unwrap_or_else(|| Err(ModelError::missing("claim check")))
                        .map(AnswerGrade::Claims),
                    None => Err(ModelError::Inference(
                        format!("the {} protocol needs a reference answer", protocol.name()).into(),
                    )),
                })
                .collect()
        }
        other => panic!("{} is not a pointwise protocol", other.name()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(reference: Option<&str>) -> Pair {
        let side = |a: &str| Side { answer: a.into(), contexts: Vec::new(), system: None };
        Pair {
            id: "0".into(),
            instruction: "Name a {colour}.".into(),
            reference: reference.map(String::from),
            first: side("red"),
            second: side("blue"),
        }
    }

    #[test]
    fn two_label_prompt_shows_both_outputs_in_order_and_ends_at_the_letter() {
        let i = item(None);
        let p = two_label_prompt(&i, &i.second, &i.first);
        let user = &p.messages[1].content;
        let (a, b) = (user.find("# Output (a):\nblue").unwrap(), user.find("# Output (b):\nred").unwrap());
        assert!(a < b);
        assert!(user.contains("Name a {colour}.")); // braces in values are kept as they are
        assert!(!user.contains("Reference answer"));
        assert_eq!(p.assistant_prefix.as_deref(), Some("Output ("));
        let r = item(Some("crimson"));
        let user = two_label_prompt(&r, &r.first, &r.second).messages[1].content.clone();
        assert!(user.contains("# Reference answer:\ncrimson") && user.contains("honestly says"));
    }

    #[test]
    fn grade_prompt_uses_the_reference_rubric_only_with_a_reference() {
        let i = item(None);
        let p = grade_prompt(&i, &i.first);
        assert!(p.messages[1].content.contains("Grade the output against the instruction"));
        assert_eq!(p.assistant_prefix.as_deref(), Some("Grade:"));
        let r = item(Some("crimson"));
        assert!(grade_prompt(&r, &r.first).messages[1].content.contains("against the reference answer"));
    }

    #[test]
    fn expected_grade_is_the_probability_weighted_digit() {
        let lp = LabelProbs {
            labels: GRADES.iter().map(|g| g.to_string()).collect(),
            probs: vec![0.1, 0.0, 0.2, 0.3, 0.4],
            logits: vec![0.0; 5],
            label_mass: None,
            source: ragjudge_models::ProbSource::Logits,
        };
        // 0.1 + 0.6 + 1.2 + 2.0
        assert!((expected_grade(&lp) - 3.9).abs() < 1e-12);
    }

    #[test]
    fn graded_outputs_compare_over_the_range_of_their_scale() {
        // Grades 4.5 and 2.5 of 1-5: 0.5 + 2 / 8. Utilities 0.5 and -1 of [-1, 1]: 0.5 + 1.5 / 4.
        let v = verdict_of_grades(AnswerGrade::Expected(4.5), AnswerGrade::Expected(2.5), 0.0);
        assert_eq!((v.s_first, v.outcome, v.grades), (0.75, Outcome::First, Some((4.5, 2.5))));
        let check = |utility| ClaimCheck {
            claims: Vec::new(),
            support: Vec::new(),
            declined: Vec::new(),
            reference: Vec::new(),
            reference_declines: false,
            coverage: Vec::new(),
            precision: None,
            recall: None,
            utility,
            skipped: 0,
            overlap: None,
            score: None,
        };
        let v = verdict_of_grades(AnswerGrade::Claims(check(-1.0)), AnswerGrade::Claims(check(0.5)), 0.3);
        assert_eq!((v.s_first, v.outcome), (0.125, Outcome::Second));
        assert_eq!(v.claims.unwrap().1.utility, 0.5);
        // Within the tie margin.
        let v = verdict_of_grades(AnswerGrade::Claims(check(0.1)), AnswerGrade::Claims(check(0.0)), 0.1);
        assert_eq!(v.outcome, Outcome::Tie);
        // `ragchecker`: scores in [0, 1] when both outputs have one, 0.5 + (0.7 - 0.4) / 2 = 0.65,
        // whatever their utilities; else utilities, -0.2 against a decline's 0: 0.5 - 0.2 / 4.
        let scored = |utility, score| AnswerGrade::Claims(ClaimCheck { score, ..check(utility) });
        let v = verdict_of_grades(scored(-0.2, Some(0.7)), scored(0.4, Some(0.4)), 0.0);
        assert!((v.s_first - 0.65).abs() < 1e-12 && v.outcome == Outcome::First, "{v:?}");
        assert_eq!(v.grades, Some((0.7, 0.4)));
        let v = verdict_of_grades(scored(-0.2, Some(0.7)), scored(0.0, None), 0.0);
        assert!((v.s_first - 0.45).abs() < 1e-12 && v.outcome == Outcome::Second, "{v:?}");
        assert_eq!(v.grades, Some((-0.2, 0.0)));
    }

    #[test]
    fn a_shown_first_pick_is_read_in_presentation_terms() {
        let lp = LabelProbs {
            labels: vec!["a".into(), "b".into()],
            probs: vec![0.5, 0.5],
            logits: vec![0.0; 2],
            label_mass: None,
            source: ragjudge_models::ProbSource::Logits,
        };
        let o = |swapped, outcome| OrderVerdict { swapped, s_first: 0.0, outcome, label_probs: lp.clone() };
        assert_eq!(o(false, Outcome::First).picked_shown_first(), Some(true));
        assert_eq!(o(true, Outcome::First).picked_shown_first(), Some(false));
        assert_eq!(o(true, Outcome::Second).picked_shown_first(), Some(true));
        assert_eq!(o(true, Outcome::Tie).picked_shown_first(), None);
    }
}
