//! Per-turn metrics of a conversation: whether an answer contradicts what the assistant said in
//! earlier turns, whether it forgets what the user said, and how much of it the assistant already
//! said.
//!
//! - **Contradiction** follows Dialogue NLI (consistency of a dialogue agent posed as natural
//!   language inference between its utterances, see `docs/papers.md`): each answer sentence
//!   is checked against the earlier assistant sentences most like it ([`select_premise`], as the
//!   hallucination metric selects its premises), by an NLI cross-encoder's contradiction label or a
//!   judge asked whether the two can both be true; the turn's value is the largest probability
//!   (one contradicting sentence is enough).
//! - **Knowledge retention** (the conversational metric of that name in deepeval, after its
//!   "knowledge attrition"): a judge reads what the user said in earlier turns and the reply, and is
//!   asked whether the reply asks again for something the user already told or goes against it;
//!   the value is `1 - P(Yes)`. With a cross-encoder, it is `1 -` the largest contradiction
//!   probability of an answer sentence against the earlier user sentences most like it.
//! - **Repetition**: the share of the answer's word trigrams (lower-cased `ragjudge_core::text`
//!   words; a CJK character is a word) that occur in an earlier assistant turn.
//!
//! A turn without earlier assistant turns has no contradiction or repetition value, one without
//! earlier user turns no retention value: they are not applicable, not zero. Citation markers
//! (`[1]`) are removed before any check.

use crate::answer::entailment::{EntailmentModel, ENTAILMENT_LABELS, ENTAILMENT_PREFIX};
use crate::error::TrecError;
use ragjudge_core::text::{split_sentences, words};
use ragjudge_core::{Metric, MetricError, MetricOutput, Record};
use ragjudge_lexical::citations::strip_citations;
use ragjudge_lexical::premise::{select_premise, DEFAULT_PREMISE_SENTENCES};
use ragjudge_models::{Message, Prompt};
use serde::Serialize;
use std::collections::HashSet;

/// Column: the largest probability that an answer sentence contradicts an earlier assistant turn.
pub const CONTRADICTION: &str = "conv_contradiction";
/// Column: `1 - P(the reply forgets what the user said earlier)`.
pub const RETENTION: &str = "conv_retention";
/// Column: the share of the answer's word trigrams the assistant already said.
pub const REPETITION: &str = "conv_repetition";

/// Version of the two judge prompts below; cached calls are keyed on the prompt, so any change of
/// their text needs a new version.
pub const CONVERSATION_PROMPTS_VERSION: &str = "conversation-en-v1";

const CONTRADICTION_SYSTEM: &str =
    "You are a careful fact checker. You decide whether two statements made by the same assistant contradict each other.";
const CONTRADICTION_USER: &str = "Earlier in the conversation the assistant said:\n{premise}\n\nNow the assistant \
says:\n{hypothesis}\n\nDo the two contradict each other, that is, can they not both be true? A statement that only \
adds new information, or is about something else, does not contradict. Answer Yes or No.";

const RETENTION_SYSTEM: &str =
    "You review conversations with an assistant. You decide whether the assistant forgot what the user told it.";
const RETENTION_USER: &str = "Earlier in the conversation the user said:\n{user}\n\nThe user now says:\n{query}\n\n\
The assistant replies:\n{answer}\n\nDoes the reply forget something the user said earlier: does it ask again for \
information the user already gave, or go against it? Answer Yes or No.";

/// The judge's contradiction question for an earlier statement and a new one.
pub fn contradiction_prompt(premise: &str, hypothesis: &str) -> Prompt {
    let user = fill(CONTRADICTION_USER, &[("{premise}", premise), ("{hypothesis}", hypothesis)]);
    judge_prompt(CONTRADICTION_SYSTEM, user)
}

/// The judge's retention question: the earlier user turns (one per line), the current question
/// and the reply.
pub fn retention_prompt(user_turns: &[&str], query: &str, answer: &str) -> Prompt {
    let listed: Vec<String> = user_turns.iter().map(|t| format!("- {}", t.trim())).collect();
    let user = fill(RETENTION_USER, &[("{user}", &listed.join("\n")), ("{query}", query), ("{answer}", answer)]);
    judge_prompt(RETENTION_SYSTEM, user)
}

/// Fills each placeholder once, left to right over the template only, so that a placeholder
/// inside a filled-in text is left as it is.
fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    for (name, value) in values {
        let Some(i) = rest.find(name) else { continue };
        out.push_str(&rest[..i]);
        out.push_str(value);
        rest = &rest[i + name.len()..];
    }
    out.push_str(rest);
    out
}

fn judge_prompt(system: &str, user: String) -> Prompt {
    debug_assert_eq!(ENTAILMENT_LABELS, ["Yes", "No"]);
    Prompt {
        messages: vec![Message::new("system", system), Message::new("user", user)],
        assistant_prefix: Some(ENTAILMENT_PREFIX.to_string()),
    }
}

/// One answer sentence's check against earlier statements.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SentenceCheck {
    /// The answer sentence.
    pub sentence: String,
    /// The earlier sentences it was checked against.
    pub premise: String,
    /// P(contradiction).
    pub p: f64,
}

/// What the three columns of one turn rest on.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TurnScore {
    /// The conversation, when the record names one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conversation: Option<String>,
    /// The turn's number (`Record::turn`).
    pub turn: u64,
    /// Largest P(contradiction) against earlier assistant turns; `None` without any.
    pub contradiction: Option<f64>,
    /// Each answer sentence against the earlier assistant turns.
    pub sentences: Vec<SentenceCheck>,
    /// `1 - P(forgets)`; `None` without earlier user turns.
    pub retention: Option<f64>,
    /// Share of answer trigrams said before; `None` without earlier assistant turns or with fewer
    /// than three answer words.
    pub repetition: Option<f64>,
    /// Answer trigrams, and how many of them were said before.
    pub trigrams: (usize, usize),
    /// The model behind contradiction and retention.
    pub model: String,
}

/// The per-turn conversation metric: columns `conv_contradiction`, `conv_retention`,
/// `conv_repetition`.
#[derive(Debug, Clone)]
pub struct ConversationMetric {
    model: EntailmentModel,
    premise_sentences: usize,
}

/// The model calls one record needs, before they are made.
struct Plan {
    answer: String,
    sentences: Vec<String>,
    /// One premise per answer sentence (empty without earlier assistant turns).
    premises: Vec<String>,
    /// Retention: (premise, hypothesis) pairs and, for a judge, their prompts.
    retention_pairs: Vec<(String, String)>,
    retention_prompts: Vec<Prompt>,
    has_user_turns: bool,
    repetition: Option<f64>,
    trigrams: (usize, usize),
}

impl ConversationMetric {
    /// A metric reading contradiction probabilities from `model`.
    pub fn new(model: EntailmentModel) -> Self {
        Self { model, premise_sentences: DEFAULT_PREMISE_SENTENCES }
    }

    fn plan(&self, record: &Record) -> Plan {
        let answer = strip_citations(&record.answer).trim().to_string();
        let said: Vec<String> = turns_of(record, "assistant").map(strip_citations).collect();
        let told: Vec<&str> = turns_of(record, "user").collect();
        let sentences: Vec<String> = split_sentences(&answer).into_iter().map(str::to_string).collect();
        let earlier: Vec<&str> = said.iter().flat_map(|t| split_sentences(t)).collect();
        let premises = if earlier.is_empty() {
            Vec::new()
        } else {
            sentences.iter().map(|s| select_premise(s, &earlier, self.premise_sentences).join(" ")).collect()
        };
        let (mut retention_pairs, mut retention_prompts) = (Vec::new(), Vec::new());
        if !told.is_empty() && !answer.is_empty() {
            match &self.model {
                EntailmentModel::Judge(_) => {
                    retention_pairs.push((told.join("\n"), answer.clone()));
                    retention_prompts.push(retention_prompt(&told, &record.query, &answer));
                }
                EntailmentModel::CrossEncoder(_) => {
                    let user_sentences: Vec<&str> = told.iter().flat_map(|t| split_sentences(t)).collect();
                    for s in &sentences {
                        let premise = select_premise(s, &user_sentences, self.premise_sentences).join(" ");
                        retention_pairs.push((premise, s.clone()));
                    }
                }
            }
        }
        let (repetition, trigrams) = repetition(&answer, &said);
        Plan {
            answer,
            sentences,
            premises,
            retention_pairs,
            retention_prompts,
            has_user_turns: !told.is_empty(),
            repetition,
            trigrams,
        }
    }

    /// Scores many records with one batched call for contradictions and one for retention.
    pub fn score_many(&self, records: &[Record]) -> Vec<Result<TurnScore, TrecError>> {
        let plans: Vec<Plan> = records.iter().map(|r| self.plan(r)).collect();
        let contradiction_pairs: Vec<(&str, &str)> = plans
            .iter()
            .flat_map(|p| p.premises.iter().zip(&p.sentences).map(|(pr, s)| (pr.as_str(), s.as_str())))
            .collect();
        let mut contradictions = self
            .model
            .contradiction_probs_with(&contradiction_pairs, |i| {
                contradiction_prompt(contradiction_pairs[i].0, contradiction_pairs[i].1)
            })
            .into_iter();
        let retention_pairs: Vec<(&str, &str)> =
            plans.iter().flat_map(|p| p.retention_pairs.iter().map(|(a, b)| (a.as_str(), b.as_str()))).collect();
        let retention_prompts: Vec<&Prompt> = plans.iter().flat_map(|p| &p.retention_prompts).collect();
        let mut forgets =
            self.model.contradiction_probs_with(&retention_pairs, |i| retention_prompts[i].clone()).into_iter();
        records
            .iter()
            .zip(plans)
            .map(|(record, plan)| {
                let mine: Vec<Result<f64, TrecError>> = contradictions.by_ref().take(plan.premises.len()).collect();
                let theirs: Vec<Result<f64, TrecError>> = forgets.by_ref().take(plan.retention_pairs.len()).collect();
                self.finish(record, plan, mine, theirs)
            })
            .collect()
    }

    fn finish(
        &self,
        record: &Record,
        plan: Plan,
        contradictions: Vec<Result<f64, TrecError>>,
        forgets: Vec<Result<f64, TrecError>>,
    ) -> Result<TurnScore, TrecError> {
        let mut sentences = Vec::with_capacity(contradictions.len());
        for ((sentence, premise), p) in plan.sentences.iter().zip(&plan.premises).zip(contradictions) {
            sentences.push(SentenceCheck { sentence: sentence.clone(), premise: premise.clone(), p: p? });
        }
        let forgets: Vec<f64> = forgets.into_iter().collect::<Result<_, _>>()?;
        let retention =
            (plan.has_user_turns && !plan.answer.is_empty()).then(|| 1.0 - forgets.iter().copied().fold(0.0, f64::max));
        Ok(TurnScore {
            conversation: record.conversation(),
            turn: record.turn(),
            contradiction: sentences.iter().map(|s| s.p).reduce(f64::max),
            sentences,
            retention,
            repetition: plan.repetition,
            trigrams: plan.trigrams,
            model: self.model.describe(),
        })
    }
}

/// The texts of a record's earlier turns with this role, oldest first.
fn turns_of<'a>(record: &'a Record, role: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    record.history.iter().filter(move |t| t.role.eq_ignore_ascii_case(role)).map(|t| t.text.as_str())
}

/// Lower-cased word trigrams of `text`.
fn trigrams(text: &str) -> Vec<[String; 3]> {
    let w: Vec<String> = words(text).into_iter().map(str::to_lowercase).collect();
    w.windows(3).map(|t| [t[0].clone(), t[1].clone(), t[2].clone()]).collect()
}

/// The share of `answer`'s trigrams (counted with repeats) found in any of `earlier`, with the
/// counts; `None` without earlier turns or answer trigrams.
fn repetition(answer: &str, earlier: &[String]) -> (Option<f64>, (usize, usize)) {
    let mine = trigrams(answer);
    if earlier.is_empty() || mine.is_empty() {
        return (None, (mine.len(), 0));
    }
    let seen: HashSet<[String; 3]> = earlier.iter().flat_map(|t| trigrams(t)).collect();
    let repeated = mine.iter().filter(|t| seen.contains(*t)).count();
    (Some(repeated as f64 / mine.len() as f64), (mine.len(), repeated))
}

impl Metric for ConversationMetric {
    fn name(&self) -> &str {
        "conversation"
    }

    fn columns(&self) -> Vec<String> {
        vec![CONTRADICTION.into(), RETENTION.into(), REPETITION.into()]
    }

    fn score(&self, record: &Record) -> Result<MetricOutput, MetricError> {
        self.score_batch(std::slice::from_ref(record))
            .pop()
            .unwrap_or_else(|| Err(MetricError::Contract("no result".into())))
    }

    fn score_batch(&self, records: &[Record]) -> Vec<Result<MetricOutput, MetricError>> {
        self.score_many(records)
            .into_iter()
            .map(|r| {
                let s = r?;
                Ok(MetricOutput {
                    values: vec![s.contradiction, s.retention, s.repetition],
                    detail: Some(serde_json::to_value(&s)?),
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::test_support::{FakeCrossEncoder, YesJudge};
    use ragjudge_core::Turn;
    use std::sync::Arc;

    fn turn(role: &str, text: &str) -> Turn {
        Turn { role: role.into(), text: text.into() }
    }

    fn record(history: Vec<Turn>, query: &str, answer: &str) -> Record {
        Record {
            id: "c-2".into(),
            system: "S".into(),
            query: query.into(),
            answer: answer.into(),
            history,
            ..Default::default()
        }
    }

    #[test]
    fn repetition_counts_trigrams_said_before() {
        // Answer words: the warranty lasts two years (5 words, 3 trigrams); earlier: "the
        // warranty lasts one year" holds "the warranty lasts" only: 1 of 3.
        let (r, counts) = repetition("The warranty lasts two years.", &["the warranty lasts one year".into()]);
        assert_eq!(counts, (3, 1));
        assert!((r.unwrap() - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(repetition("Two words", &["two words here".into()]).0, None);
        assert_eq!(repetition("a b c d", &[]).0, None);
    }

    #[test]
    fn placeholders_inside_texts_stay() {
        let p = contradiction_prompt("said {hypothesis} once", "now this");
        let user = &p.messages[1].content;
        assert!(user.contains("said:\nsaid {hypothesis} once\n") && user.contains("says:\nnow this\n"), "{user}");
        let r = retention_prompt(&["I live in {query}", "I am 30"], "Q?", "A.");
        let user = &r.messages[1].content;
        assert!(user.contains("- I live in {query}\n- I am 30\n") && user.contains("now says:\nQ?"), "{user}");
    }

    /// A judge whose contradiction answer is P(Yes) = 0.8 when the new statement says "one year"
    /// and the earlier one "two", else 0.1; whose retention answer is P(Yes) = 0.7 when the reply
    /// asks "which model", else 0.2.
    fn judge() -> YesJudge {
        YesJudge(|prompt: &str| {
            if prompt.contains("Now the assistant says") {
                let (earlier, now) = prompt.split_once("Now the assistant says").unwrap();
                if now.contains("one year") && earlier.contains("two") {
                    0.8
                } else {
                    0.1
                }
            } else if prompt.contains("The assistant replies") {
                if prompt.split_once("The assistant replies").unwrap().1.to_lowercase().contains("which model") {
                    0.7
                } else {
                    0.2
                }
            } else {
                panic!("unexpected prompt {prompt}")
            }
        })
    }

    #[test]
    fn a_turn_is_checked_against_what_was_said_and_told_before() {
        let m = ConversationMetric::new(EntailmentModel::Judge(Arc::new(judge())));
        let r = record(
            vec![turn("user", "My laptop is an X200."), turn("assistant", "The X200 has a two year warranty [1].")],
            "Does it cover the battery?",
            "The battery has a one year warranty [1]. Which model do you have?",
        );
        let out = m.score(&r).unwrap();
        // Sentence 1 contradicts (0.8), sentence 2 does not (0.1): the largest, 0.8. The reply asks
        // "which model" again: retention 1 - 0.7. Trigrams of the answer (without "[1]"): "the
        // battery has", "battery has a", "has a one", "a one year", "one year warranty", "year
        // warranty which", "warranty which model", "which model do", "model do you", "do you have":
        // 10; earlier "the x200 has a two year warranty": none of them.
        assert_eq!(out.values[0], Some(0.8));
        assert!((out.values[1].unwrap() - 0.3).abs() < 1e-12);
        assert_eq!(out.values[2], Some(0.0));
        let d = out.detail.unwrap();
        assert_eq!(d["turn"], 2);
        assert_eq!(d["sentences"][0]["premise"], "The X200 has a two year warranty");
    }

    #[test]
    fn the_first_turn_has_nothing_to_contradict_or_forget() {
        let m = ConversationMetric::new(EntailmentModel::Judge(Arc::new(judge())));
        let out = m.score(&record(Vec::new(), "Q?", "An answer of some words.")).unwrap();
        assert_eq!(out.values, vec![None, None, None]);
        // Only earlier user turns: retention applies, contradiction and repetition do not.
        let out = m.score(&record(vec![turn("user", "Hi, I have an X200.")], "Q?", "Fine.")).unwrap();
        assert_eq!(out.values[0], None);
        assert!((out.values[1].unwrap() - 0.8).abs() < 1e-12);
        assert_eq!(out.values[2], None);
    }

    #[test]
    fn a_cross_encoder_reads_its_contradiction_label() {
        // Fake cross-encoder labels [contradiction, entailment]: P(contradiction) = 1/4 when the
        // sentence's first word is in the premise, else 3/4.
        let m = ConversationMetric::new(EntailmentModel::CrossEncoder(Arc::new(FakeCrossEncoder::default())));
        let r = record(
            vec![turn("user", "Paris is nice."), turn("assistant", "Paris is the capital.")],
            "And Lyon?",
            "Paris is big. Lyon is smaller.",
        );
        let out = m.score(&r).unwrap();
        assert!((out.values[0].unwrap() - 0.75).abs() < 1e-6);
        assert!((out.values[1].unwrap() - 0.25).abs() < 1e-6);
    }
}
