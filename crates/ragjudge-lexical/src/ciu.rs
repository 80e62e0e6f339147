//! CIU, Conversational Information Utility (CIU §3.2, eq. 1-3):
//!
//! `CIU_i = [ sum over token in d_sent of score(token, utt_i) * gamma / freq(token) ] - E_i`
//!
//! * `d_sent`: the distinct lower-case words of all RAKE keyword phrases of the grounding document
//!   (§3.2: without paragraph annotations RAKE is applied to `d_context`). RAKE phrases contain no
//!   stop words, so `d_sent` is stop-word free; a word shared by several phrases counts once.
//!   Which phrases are used is set by [`CiuOptions::rake`] (default: all of them).
//! * `score`: binary, 1 if the token occurs in `utt_i`, else 0.
//! * `gamma = max(0, 1 - pos / |utt_i|)` (eq. 2): `pos` is the 0-based index of the token's first
//!   occurrence among the utterance's words, `|utt_i|` the utterance's word count (stop words
//!   included). Position discount off: `gamma = 1`.
//! * `freq`: the token's term frequency in the conversation so far, this turn included: the number of
//!   its occurrences in all earlier turns (any speaker) plus 1 for this turn (repeats inside `utt_i`
//!   do not add, since the score is binary). It is always >= 1. Frequency discount off: `freq = 1`.
//! * `E_i = C_char * |utt_i|` (eq. 3) with `|utt_i|` the utterance's characters (Unicode scalar
//!   values, surrounding whitespace trimmed) and `C_char = 0.005` (§3.2). Effort off: `E_i = 0`.
//!
//! Words are found by the tokeniser described in [`crate::rake`]. Edge cases: an empty utterance
//! scores `0 - 0 = 0`; an empty grounding document scores `0 - E_i`.

use std::collections::{HashMap, HashSet};

use ragjudge_core::{Metric, MetricError, MetricOutput, Record};
use serde::{Deserialize, Serialize};

use crate::rake::{rake, words, RakeOptions};

/// Options of [`ciu`]; the defaults are the paper's full metric.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CiuOptions {
    /// Reading cost per character, `C_char` of eq. 3. Default 0.005.
    pub c_char: f64,
    /// Apply the position discount `gamma` (eq. 2). Default true.
    pub position_discount: bool,
    /// Divide by the conversation term frequency. Default true.
    pub frequency_discount: bool,
    /// Subtract the effort term `E_i` (eq. 3). Default true.
    pub effort: bool,
    /// How keyword phrases are extracted from the grounding document.
    pub rake: RakeOptions,
}

impl Default for CiuOptions {
    fn default() -> Self {
        Self {
            c_char: 0.005,
            position_discount: true,
            frequency_discount: true,
            effort: true,
            rake: RakeOptions::default(),
        }
    }
}

/// The CIU of one utterance with the evidence behind it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CiuResult {
    /// `gain - effort`.
    pub value: f64,
    /// How the value was reached.
    pub detail: CiuDetail,
}

/// Evidence behind a CIU value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct CiuDetail {
    /// The bracketed sum of eq. 1.
    pub gain: f64,
    /// `E_i` (0 when the effort term is off).
    pub effort: f64,
    /// `|utt_i|` in words (the denominator of `gamma`).
    pub utterance_tokens: usize,
    /// `|utt_i|` in characters (the factor of `E_i`).
    pub utterance_chars: usize,
    /// Number of distinct `d_sent` tokens taken from the grounding document.
    pub d_sent_tokens: usize,
    /// The `d_sent` tokens found in the utterance, by position.
    pub matches: Vec<CiuMatch>,
}

/// One `d_sent` token found in the utterance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CiuMatch {
    /// The lower-case token.
    pub token: String,
    /// 0-based word index of its first occurrence in the utterance.
    pub pos: usize,
    /// Position discount (1 when off).
    pub gamma: f64,
    /// Term frequency in the conversation including this turn (1 when off).
    pub freq: f64,
    /// `gamma / freq`.
    pub contribution: f64,
    /// 0-based index of the grounding sentence where the token first appears.
    pub sentence: usize,
}

/// Distinct `d_sent` tokens of a grounding document, in keyword rank order, each with the index of
/// the first sentence (see [`split_sentences`]) that contains it.
pub fn d_sent_tokens(grounding: &str, rake_opts: &RakeOptions) -> Vec<(String, usize)> {
    let mut first_sentence: HashMap<String, usize> = HashMap::new();
    for (i, s) in split_sentences(grounding).iter().enumerate() {
        for w in words(s) {
            first_sentence.entry(w).or_insert(i);
        }
    }
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for kw in rake(grounding, rake_opts) {
        for t in kw.tokens {
            if seen.insert(t.clone()) {
                let s = first_sentence.get(&t).copied().unwrap_or(0);
                out.push((t, s));
            }
        }
    }
    out
}

/// Splits text into sentences: after `.`, `!` or `?` followed by whitespace or the end, after
/// `。`, `！`, `？` anywhere, and at line breaks. Pieces are trimmed; empty pieces are dropped.
///
/// Deliberately simple (abbreviations such as "e.g. x" split too); it only locates evidence.
pub fn split_sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut it = text.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        let next = it.peek().map(|&(_, n)| n);
        let cut = match c {
            '.' | '!' | '?' => next.is_none_or(char::is_whitespace),
            '。' | '！' | '？' | '\n' => true,
            _ => false,
        };
        if cut {
            let end = i + c.len_utf8();
            let s = text[start..end].trim();
            if !s.is_empty() {
                out.push(s);
            }
            start = end;
        }
    }
    let s = text[start..].trim();
    if !s.is_empty() {
        out.push(s);
    }
    out
}

/// CIU scorer that keeps the conversation's term frequencies across turns.
#[derive(Debug, Clone, Default)]
pub struct CiuConversation {
    opts: CiuOptions,
    counts: HashMap<String, usize>,
}

impl CiuConversation {
    /// A conversation with no turns yet.
    pub fn new(opts: CiuOptions) -> Self {
        Self { opts, counts: HashMap::new() }
    }

    /// Records a turn that is not scored (e.g. a user turn): its words count towards `freq`.
    pub fn observe(&mut self, text: &str) {
        for w in words(text) {
            *self.counts.entry(w).or_default() += 1;
        }
    }

    /// Scores `utterance` against `grounding` without recording it.
    pub fn score(&self, utterance: &str, grounding: &str) -> CiuResult {
        let opts = &self.opts;
        let utt_words = words(utterance);
        let n = utt_words.len();
        let mut first_pos: HashMap<&str, usize> = HashMap::new();
        for (i, w) in utt_words.iter().enumerate() {
            first_pos.entry(w.as_str()).or_insert(i);
        }
        let d_sent = d_sent_tokens(grounding, &opts.rake);
        let mut matches: Vec<CiuMatch> = d_sent
            .iter()
            .filter_map(|(token, sentence)| {
                let pos = *first_pos.get(token.as_str())?;
                let gamma = if opts.position_discount { (1.0 - pos as f64 / n as f64).max(0.0) } else { 1.0 };
                let freq = if opts.frequency_discount {
                    (self.counts.get(token).copied().unwrap_or(0) + 1) as f64
                } else {
                    1.0
                };
                Some(CiuMatch {
                    token: token.clone(),
                    pos,
                    gamma,
                    freq,
                    contribution: gamma / freq,
                    sentence: *sentence,
                })
            })
            .collect();
        matches.sort_by_key(|m| m.pos);
        let gain: f64 = matches.iter().map(|m| m.contribution).sum();
        let chars = utterance.trim().chars().count();
        let effort = if opts.effort { opts.c_char * chars as f64 } else { 0.0 };
        CiuResult {
            value: gain - effort,
            detail: CiuDetail {
                gain,
                effort,
                utterance_tokens: n,
                utterance_chars: chars,
                d_sent_tokens: d_sent.len(),
                matches,
            },
        }
    }

    /// Scores `utterance`, then records it as a turn of the conversation.
    pub fn score_turn(&mut self, utterance: &str, grounding: &str) -> CiuResult {
        let r = self.score(utterance, grounding);
        self.observe(utterance);
        r
    }
}

/// CIU of `utterance` given the earlier turns (`history`, oldest first) and the grounding document.
pub fn ciu(utterance: &str, history: &[&str], grounding: &str, opts: &CiuOptions) -> CiuResult {
    let mut conv = CiuConversation::new(opts.clone());
    for h in history {
        conv.observe(h);
    }
    conv.score(utterance, grounding)
}

/// CIU of every turn of a conversation, term frequencies carried from turn to turn.
///
/// `groundings` holds either one document shared by all turns or one per turn; a turn beyond the
/// end of a longer-than-one list gets an empty grounding (so it scores `-E_i`).
pub fn ciu_conversation_detailed(turns: &[&str], groundings: &[&str], opts: &CiuOptions) -> Vec<CiuResult> {
    let mut conv = CiuConversation::new(opts.clone());
    turns
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let g = if groundings.len() == 1 { groundings[0] } else { groundings.get(i).copied().unwrap_or("") };
            conv.score_turn(t, g)
        })
        .collect()
}

/// The values of [`ciu_conversation_detailed`].
pub fn ciu_conversation(turns: &[&str], groundings: &[&str], opts: &CiuOptions) -> Vec<f64> {
    ciu_conversation_detailed(turns, groundings, opts).into_iter().map(|r| r.value).collect()
}

/// CIU of a record: its `answer`, with `history` as the earlier turns and
/// [`Record::grounding`] (reference, else the joined contexts) as the grounding document.
pub fn ciu_record(record: &Record, opts: &CiuOptions) -> CiuResult {
    let history: Vec<&str> = record.history.iter().map(|t| t.text.as_str()).collect();
    ciu(&record.answer, &history, &record.grounding(), opts)
}

/// [`Metric`] wrapper of [`ciu_record`]: one column `ciu`, the [`CiuDetail`] as detail.
#[derive(Debug, Clone, Default)]
pub struct CiuMetric {
    /// Options used for every record.
    pub opts: CiuOptions,
}

impl Metric for CiuMetric {
    fn name(&self) -> &str {
        "ciu"
    }

    fn columns(&self) -> Vec<String> {
        vec!["ciu".to_string()]
    }

    fn score(&self, record: &Record) -> Result<MetricOutput, MetricError> {
        let r = ciu_record(record, &self.opts);
        if !r.value.is_finite() {
            return Err(MetricError::Contract(format!("ciu is not finite ({}); check c_char", r.value)));
        }
        let detail = serde_json::to_value(&r.detail)?;
        Ok(MetricOutput { values: vec![Some(r.value)], detail: Some(detail) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences() {
        assert_eq!(
            split_sentences("It costs 3.5 dollars. Why? Yes!\nNext line 北京。好"),
            ["It costs 3.5 dollars.", "Why?", "Yes!", "Next line 北京。", "好"]
        );
        assert!(split_sentences("  ").is_empty());
    }

    #[test]
    fn d_sent_records_first_sentence() {
        // RAKE phrases: "red apples" (sentence 0), "green apples" (sentence 1).
        let d = d_sent_tokens("Red apples. Green apples.", &RakeOptions::default());
        let got: Vec<(&str, usize)> = d.iter().map(|(t, s)| (t.as_str(), *s)).collect();
        // Scores: red 2/1=2, apples 4/2=2, green 2 -> both phrases 4, first occurrence first.
        assert_eq!(got, vec![("red", 0), ("apples", 0), ("green", 1)]);
    }
}
