//! The sentence sets of one record (HCAT §3.1: Q = {q_1..q_m}, C = {c_1..c_n}, A = {a_1..a_k}).

use ragjudge_core::text::split_sentences;
use ragjudge_core::Record;

/// One context sentence and the passage it comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextSentence<'a> {
    /// Index of the passage in [`Record::contexts`].
    pub passage: usize,
    /// The sentence.
    pub text: &'a str,
}

/// The query, context and answer of a record, split into sentences.
///
/// Each passage is split on its own, so no sentence spans two passages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordSentences<'a> {
    /// Query sentences `q_1..q_m`.
    pub query: Vec<&'a str>,
    /// Context sentences `c_1..c_n`, passages in rank order.
    pub context: Vec<ContextSentence<'a>>,
    /// Answer sentences `a_1..a_k`.
    pub answer: Vec<&'a str>,
}

impl<'a> RecordSentences<'a> {
    /// Splits the record's query, passages and answer.
    pub fn of(record: &'a Record) -> Self {
        let context = record
            .contexts
            .iter()
            .enumerate()
            .flat_map(|(passage, c)| {
                split_sentences(&c.text).into_iter().map(move |text| ContextSentence { passage, text })
            })
            .collect();
        Self { query: split_sentences(&record.query), context, answer: split_sentences(&record.answer) }
    }

    /// The context sentences' texts.
    pub fn context_texts(&self) -> Vec<&'a str> {
        self.context.iter().map(|c| c.text).collect()
    }

    /// Every sentence of the record: query, then context, then answer.
    pub fn all(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.query.iter().copied().chain(self.context.iter().map(|c| c.text)).chain(self.answer.iter().copied())
    }
}
