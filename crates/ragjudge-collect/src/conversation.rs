//! Conversations in a question set. Questions that share `meta.session_id` (or
//! `meta.conversation_id`) are the turns of one conversation: they are asked in `meta.turn`
//! order, each once the answer to the turn before it is back, and the history sent with a turn is
//! the first turn's own `history`, then each earlier turn's question and the target's own answer
//! to it. That is what a deployed assistant sees: its own earlier answers, not the references.

use crate::questions::{turn_number, Question};
use ragjudge_core::Turn;
use std::collections::HashMap;

/// Questions asked one after another by one worker: an independent question, or the turns of
/// one conversation in turn order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    /// The conversation (`None` for an independent question).
    pub conversation: Option<String>,
    /// Indices into the question set, in the order they are asked.
    pub questions: Vec<usize>,
}

/// The units of a question set, in the order of their first question in the set. The turns of a
/// conversation are ordered by `meta.turn` ([`crate::questions::read_questions`] refuses a
/// conversation question without one, and a turn given twice); a turn without a number goes
/// after the numbered ones, and equal numbers keep their order in the set.
pub fn units(questions: &[Question]) -> Vec<Unit> {
    let mut out: Vec<Unit> = Vec::new();
    let mut unit_of: HashMap<String, usize> = HashMap::new();
    for (i, q) in questions.iter().enumerate() {
        match q.record.conversation() {
            Some(c) => match unit_of.get(&c) {
                Some(&u) => out[u].questions.push(i),
                None => {
                    unit_of.insert(c.clone(), out.len());
                    out.push(Unit { conversation: Some(c), questions: vec![i] });
                }
            },
            None => out.push(Unit { conversation: None, questions: vec![i] }),
        }
    }
    for unit in &mut out {
        unit.questions.sort_by_key(|&i| turn_number(&questions[i].record).unwrap_or(u64::MAX));
    }
    out
}

/// The conversation so far, as the next turn is to receive it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Transcript {
    history: Vec<Turn>,
}

impl Transcript {
    /// A conversation that opens with `first`: its own `history` comes before every turn.
    pub fn starting(first: &Question) -> Self {
        Self { history: first.record.history.clone() }
    }

    /// `q` as it is sent: with the history of the conversation so far in place of its own.
    pub fn sent(&self, q: &Question) -> Question {
        let mut sent = q.clone();
        sent.record.history = self.history.clone();
        sent
    }

    /// Adds a turn: the user's question and the target's answer to it.
    pub fn answered(&mut self, query: &str, answer: &str) {
        self.history.push(Turn { role: "user".into(), text: query.to_string() });
        self.history.push(Turn { role: "assistant".into(), text: answer.to_string() });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::questions::question_from_json;
    use serde_json::json;

    fn q(v: serde_json::Value) -> Question {
        question_from_json(v, "q.jsonl", 1).unwrap()
    }

    #[test]
    fn turns_are_grouped_by_conversation_and_ordered_by_turn() {
        let qs = [
            q(json!({"id": "a2", "query": "a2?", "meta": {"session_id": "a", "turn": 2}})),
            q(json!({"id": "x", "query": "x?"})),
            q(json!({"id": "b1", "query": "b1?", "meta": {"conversation_id": "b", "turn": 1}})),
            q(json!({"id": "a1", "query": "a1?", "meta": {"session_id": "a", "turn": 1}})),
            q(json!({"id": "a10", "query": "a10?", "meta": {"session_id": "a", "turn": 10}})),
        ];
        let u = units(&qs);
        let shown: Vec<(Option<&str>, &[usize])> =
            u.iter().map(|u| (u.conversation.as_deref(), u.questions.as_slice())).collect();
        // By hand: `a` first appears at index 0 and is asked a1 (3), a2 (0), a10 (4); then x (1),
        // then `b` (2).
        assert_eq!(shown, [(Some("a"), &[3, 0, 4][..]), (None, &[1][..]), (Some("b"), &[2][..])]);
    }

    #[test]
    fn a_transcript_keeps_the_opening_history_then_the_targets_answers() {
        let opening = vec![Turn { role: "user".into(), text: "hello".into() }];
        let first = q(json!({"id": "t1", "query": "q1?", "history": opening, "meta": {"session_id": "c", "turn": 1}}));
        let second = q(json!({"id": "t2", "query": "q2?", "history": [{"role": "user", "text": "stale"}],
                              "meta": {"session_id": "c", "turn": 2}}));
        let mut t = Transcript::starting(&first);
        assert_eq!(t.sent(&first).record.history, opening);
        t.answered("q1?", "a1");
        let sent = t.sent(&second);
        let turns: Vec<(&str, &str)> = sent.record.history.iter().map(|t| (t.role.as_str(), t.text.as_str())).collect();
        // The file's own history of a later turn is replaced by what was said.
        assert_eq!(turns, [("user", "hello"), ("user", "q1?"), ("assistant", "a1")]);
        assert_eq!(sent.record.query, "q2?");
    }
}
