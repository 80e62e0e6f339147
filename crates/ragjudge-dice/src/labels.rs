//! Pairwise labels (A / B / tie) per pair of systems on one question: the `labels.jsonl` a DICE
//! run writes (one line per judged pair), and label files read back to measure agreement with
//! human labels (DICE §4).

use crate::judgement::{PairJudgement, Probs};
use ragjudge_core::InputError;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::BufRead;
use std::path::Path;

/// A pairwise label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
pub enum Label {
    /// The first system's answer is better.
    A,
    /// The second system's answer is better.
    B,
    /// Neither is better.
    #[serde(rename = "tie")]
    Tie,
}

impl Label {
    /// Every label, in confusion-matrix order.
    pub const ALL: [Label; 3] = [Label::A, Label::B, Label::Tie];

    /// `A`, `B` or `tie`.
    pub fn as_str(self) -> &'static str {
        match self {
            Label::A => "A",
            Label::B => "B",
            Label::Tie => "tie",
        }
    }

    /// Reads `A`, `B`, or a tie (`tie`, `C`, `T`, `draw`), case-insensitive.
    pub fn parse(label: &str) -> Option<Self> {
        match label.trim().to_ascii_lowercase().as_str() {
            "a" => Some(Label::A),
            "b" => Some(Label::B),
            "tie" | "c" | "t" | "draw" => Some(Label::Tie),
            _ => None,
        }
    }

    /// The same label for the pair with A and B exchanged.
    pub fn swapped(self) -> Self {
        match self {
            Label::A => Label::B,
            Label::B => Label::A,
            Label::Tie => Label::Tie,
        }
    }

    /// A when `a` exceeds `b` by more than `delta`, B when the reverse, else a tie.
    pub fn from_scores(a: f64, b: f64, delta: f64) -> Self {
        if a - b > delta {
            Label::A
        } else if b - a > delta {
            Label::B
        } else {
            Label::Tie
        }
    }
}

/// One line of a DICE run's `labels.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairLabel {
    /// Question id.
    pub id: String,
    /// First system.
    pub system_a: String,
    /// Second system.
    pub system_b: String,
    /// The argmax of the order-averaged probabilities.
    pub label: Label,
    /// DICE score of A on this question.
    pub s_a: f64,
    /// The order-averaged probabilities.
    pub probs: Probs,
}

impl PairLabel {
    /// The label line of a judged pair with DICE score `s_a`: the argmax of its probabilities,
    /// and a tie when A and B are exactly even (a protocol without a tie label saying "no
    /// preference").
    pub fn of(j: &PairJudgement, s_a: f64) -> Self {
        let even = j.probs.a == j.probs.b && j.probs.tie == 0.0;
        PairLabel {
            id: j.question_id.clone(),
            system_a: j.system_a.clone(),
            system_b: j.system_b.clone(),
            label: if even { Label::Tie } else { Label::ALL[j.probs.argmax()] },
            s_a,
            probs: j.probs,
        }
    }
}

/// Which pair a label is about: question id, first system, second system.
pub type PairKey = (String, String, String);

/// Labels by pair, read from a JSONL file of `{"id", "system_a", "system_b", "label"}`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PairLabels {
    /// One label per pair.
    pub labels: HashMap<PairKey, Label>,
}

#[derive(Deserialize)]
struct LabelLine {
    id: serde_json::Value,
    system_a: String,
    system_b: String,
    label: String,
}

impl PairLabels {
    /// Reads a label file; a malformed line, an unknown label or a pair given twice is an error
    /// naming file and line.
    pub fn read(path: &Path) -> Result<Self, InputError> {
        let name = path.display().to_string();
        let file =
            ragjudge_core::bom::open(path).map_err(|e| InputError::fatal(&name, None, format!("cannot open: {e}")))?;
        let mut labels = HashMap::new();
        for (i, line) in file.lines().enumerate() {
            let n = Some(i as u64 + 1);
            let at = |message: String| InputError::fatal(&name, n, message);
            let line = line.map_err(|e| at(format!("unreadable line (invalid UTF-8?): {e}")))?;
            if line.trim().is_empty() {
                continue;
            }
            let r: LabelLine = serde_json::from_str(&line).map_err(|e| at(format!("invalid pairwise label: {e}")))?;
            let Some(label) = Label::parse(&r.label) else {
                return Err(InputError::new(
                    &name,
                    n,
                    Some("label".into()),
                    format!("expected A, B or tie, found {:.20}", r.label),
                ));
            };
            let id = match r.id {
                serde_json::Value::String(s) => s,
                other => other.to_string(),
            };
            if labels.insert((id, r.system_a, r.system_b), label).is_some() {
                return Err(at("duplicate pair".into()));
            }
        }
        if labels.is_empty() {
            return Err(InputError::fatal(&name, None, "no records"));
        }
        Ok(Self { labels })
    }

    /// The label of `key`, also when it was given for the swapped pair (A and B exchanged).
    pub fn get(&self, key: &PairKey) -> Option<Label> {
        if let Some(l) = self.labels.get(key) {
            return Some(*l);
        }
        let swapped = (key.0.clone(), key.2.clone(), key.1.clone());
        self.labels.get(&swapped).map(|l| l.swapped())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_normalise_and_swap() {
        assert_eq!(Label::parse(" tie "), Some(Label::Tie));
        assert_eq!(Label::parse("C"), Some(Label::Tie));
        assert_eq!(Label::parse("x"), None);
        let mut pred = PairLabels::default();
        pred.labels.insert(("q".to_string(), "s2".to_string(), "s1".to_string()), Label::A);
        assert_eq!(pred.get(&("q".into(), "s1".into(), "s2".into())), Some(Label::B));
    }

    #[test]
    fn score_labels_use_delta() {
        assert_eq!(Label::from_scores(0.50, 0.45, 0.0), Label::A);
        assert_eq!(Label::from_scores(0.50, 0.45, 0.1), Label::Tie);
    }

    #[test]
    fn a_label_line_keeps_its_field_order() {
        let line = PairLabel {
            id: "q1".into(),
            system_a: "x".into(),
            system_b: "y".into(),
            label: Label::Tie,
            s_a: 0.5,
            probs: Probs { a: 0.25, b: 0.25, tie: 0.5 },
        };
        assert_eq!(
            serde_json::to_string(&line).unwrap(),
            r#"{"id":"q1","system_a":"x","system_b":"y","label":"tie","s_a":0.5,"probs":{"a":0.25,"b":0.25,"tie":0.5}}"#
        );
    }
}
