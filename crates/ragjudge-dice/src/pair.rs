//! A judged pair as every protocol sees it: two answers to one question (DICE §3.2), with the
//! question, its reference answer when there is one, and the two answers in the pair's order.
//! DICE runs ([`crate::run`]), the scoring server and judge meta-evaluation ([`crate::meta`],
//! which adds the set and the human label) all hand protocols this one type.

use ragjudge_core::Record;
use serde::{Deserialize, Serialize};

/// Which output of a pair is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// The pair's first output.
    First,
    /// The pair's second output.
    Second,
    /// Neither.
    Tie,
}

impl Outcome {
    /// `first`, `second` or `tie`.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::First => "first",
            Outcome::Second => "second",
            Outcome::Tie => "tie",
        }
    }

    /// The outcome of a score of the first output in `[0, 1]` (0.5: even): a tie when it lies
    /// within `margin` of 0.5 (DICE's hard scoring with threshold `margin`).
    pub fn of_score(s_first: f64, margin: f64) -> Self {
        if (s_first - 0.5).abs() <= margin {
            Outcome::Tie
        } else if s_first > 0.5 {
            Outcome::First
        } else {
            Outcome::Second
        }
    }
}

/// One output of a pair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Side {
    /// The answer.
    pub answer: String,
    /// Passages it was given (empty for instruction-following sets).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub contexts: Vec<String>,
    /// The system that wrote it, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
}

impl Side {
    /// A record's answer, with its passages and system.
    pub fn of_record(r: &Record) -> Self {
        Side {
            answer: r.answer.clone(),
            contexts: r.contexts.iter().map(|c| c.text.clone()).collect(),
            system: Some(r.system.clone()),
        }
    }
}

/// Two outputs for one instruction or question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pair {
    /// The pair's id (the question id for a DICE run's pair).
    pub id: String,
    /// The instruction or question.
    pub instruction: String,
    /// A reference answer, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// The first output.
    pub first: Side,
    /// The second output.
    pub second: Side,
}

impl Pair {
    /// Two records of one question, `a` first: the question and id from `a`, the reference
    /// from either.
    pub fn of_records(a: &Record, b: &Record) -> Self {
        Pair {
            id: a.id.clone(),
            instruction: a.query.clone(),
            reference: a.reference.clone().or_else(|| b.reference.clone()),
            first: Side::of_record(a),
            second: Side::of_record(b),
        }
    }
}

impl AsRef<Pair> for Pair {
    fn as_ref(&self) -> &Pair {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ragjudge_core::Context;

    #[test]
    fn a_score_within_the_margin_is_a_tie() {
        assert_eq!(Outcome::of_score(0.54, 0.05), Outcome::Tie);
        assert_eq!(Outcome::of_score(0.56, 0.05), Outcome::First);
        assert_eq!(Outcome::of_score(0.2, 0.05), Outcome::Second);
        assert_eq!(Outcome::of_score(0.5, 0.0), Outcome::Tie);
    }

    #[test]
    fn a_pair_of_records_takes_the_question_from_the_first_and_a_reference_from_either() {
        let r = |system: &str, reference: Option<&str>| Record {
            id: "q1".into(),
            system: system.into(),
            query: "Why?".into(),
            answer: format!("{system} says"),
            contexts: vec![Context { text: "passage".into(), ..Context::default() }],
            reference: reference.map(String::from),
            ..Record::default()
        };
        let p = Pair::of_records(&r("a", None), &r("b", Some("because")));
        assert_eq!((p.id.as_str(), p.instruction.as_str()), ("q1", "Why?"));
        assert_eq!(p.reference.as_deref(), Some("because"));
        assert_eq!((p.first.answer.as_str(), p.second.system.as_deref()), ("a says", Some("b")));
        assert_eq!(p.first.contexts, vec!["passage".to_string()]);
    }
}
