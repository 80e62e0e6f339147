//! CIU, Conversational Information Utility ("Combining Multiple Metrics for Evaluating
//! Retrieval-Augmented Conversations", §3.2, eq. 1-3):
//!
//! `CIU_i = [ sum over token in d_sent of score(token, utt_i) * gamma / freq(token) ] - E_i`
//!
//! * `d_sent`: the distinct lower-case words of all RAKE keyword phrases of the grounding document
//!   (§3.2: without paragraph annotations RAKE is applied to `d_context`). RAKE phrases contain no
//!   stop words, so `d_sent` is stop-word free; a word shared by several phrases counts once.
//!   Which phrases are used is set by [`CiuOptions::rake`] (default: all of them). Two readings of
//!   the paper are available as options: [`CiuOptions::d_sent`] = [`DSent::Sentences`] takes every
//!   word of every grounding sentence (the paper's choice when the relevant paragraph is annotated),
//!   and [`CiuOptions::count_per_unit`] counts a word once per phrase (or sentence) that holds it
//!   ("the sum of all token-level match score between utt_i and each sentence d_sent").
//! * `score`: binary, 1 if the token occurs in `utt_i`, else 0.
//! * `gamma = max(0, 1 - pos / |utt_i|)` (eq. 2): `pos` is the 0-based index of the token's first
//!   occurrence among the utterance's words, `|utt_i|` the utterance's word count (stop words
//!   included). Position discount off: `gamma = 1`.
//! * `freq`: the token's term frequency in the conversation so far, this turn included: the number of
//!   its occurrences in all earlier turns (any speaker) plus 1 for this turn (repeats inside `utt_i`
//!   do not add, since the score is binary). It is always >= 1. Frequency discount off: `freq = 1`.
//!   For a [`Record`] the earlier turns are its `history` followed by its `query` (the turn the
//!   answer replies to), see [`ciu_record`].
//! * `E_i = C_char * |utt_i|` (eq. 3) with `|utt_i|` the utterance's characters (Unicode scalar
//!   values, surrounding whitespace trimmed) and `C_char = 0.005` (§3.2). Effort off: `E_i = 0`.
//!
//! Words are found by the tokeniser described in [`crate::rake`] (lower case, no stemming); with
//! [`CiuOptions::lang`] = [`Lang::Zh`] they are jieba's words and RAKE uses the Chinese stop words
//! ([`crate::rake::rake_lang`]). With
//! [`CiuOptions::stem`] every word (utterance, earlier turns, `d_sent`) is reduced by the Porter
//! stemmer of [`crate::porter`] before matching (the paper does not mention stemming). Edge cases: an empty
//! utterance scores `0 - 0 = 0`; an empty grounding document scores `0 - E_i`.
//!
//! The measured effect of each discount and option on the USR Topical-Chat ratings is in
//! `docs/ciu-fidelity.md`.

use std::collections::{HashMap, HashSet};

use ragjudge_core::{Metric, MetricError, MetricOutput, Record};
use serde::{Deserialize, Serialize};

use crate::lang::{record_lang, Lang, LangMode};
use crate::porter::PorterStemmer;
use crate::rake::{rake_lang, words_lang, RakeOptions};

/// Which units of the grounding document make up `d_sent` (§3.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum DSent {
    /// The RAKE keyword phrases of the grounding document (stop-word free), selected by
    /// [`CiuOptions::rake`]. The paper's choice when no relevant paragraph is annotated. Default.
    #[default]
    RakePhrases,
    /// The sentences of the grounding document (see [`split_sentences`]), every word included,
    /// stop words too: the paper's choice when the grounding is the annotated relevant paragraph.
    Sentences,
}

/// Options of [`ciu`]; the defaults are the paper's full metric.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CiuOptions {
    /// Reading cost per character, `C_char` of eq. 3. Default 0.005.
    pub c_char: f64,
    /// Apply the position discount `gamma` (eq. 2). Default true.
    pub position_discount: bool,
    /// Divide by the conversation term frequency. Default true.
    pub frequency_discount: bool,
    /// Subtract the effort term `E_i` (eq. 3). Default true.
    pub effort: bool,
    /// How keyword phrases are extracted from the grounding document (used with
    /// [`DSent::RakePhrases`]).
    pub rake: RakeOptions,
    /// Which units of the grounding document form `d_sent`. Default [`DSent::RakePhrases`].
    pub d_sent: DSent,
    /// Count a `d_sent` word once for every unit (phrase or sentence) that contains it, instead of
    /// once per grounding document. Inside one unit a word counts once. Default false.
    pub count_per_unit: bool,
    /// Porter-stem every word before matching and counting (not in the paper). Default false.
    pub stem: bool,
    /// In [`ciu_record`], count the record's `query` as the last earlier turn for `freq` (the turn
    /// the answer replies to is part of the conversation, §3.2). False gives the behaviour of
    /// versions that counted `history` only. Default true.
    pub query_as_turn: bool,
    /// Language of the texts: which tokeniser and stop words find the words. Default English.
    pub lang: Lang,
}

impl Default for CiuOptions {
    fn default() -> Self {
        Self {
            c_char: 0.005,
            position_discount: true,
            frequency_discount: true,
            effort: true,
            rake: RakeOptions::default(),
            d_sent: DSent::RakePhrases,
            count_per_unit: false,
            stem: false,
            query_as_turn: true,
            lang: Lang::En,
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
    /// Number of `d_sent` tokens taken from the grounding document: distinct tokens, or with
    /// [`CiuOptions::count_per_unit`] the sum over units of each unit's distinct tokens.
    pub d_sent_tokens: usize,
    /// The `d_sent` tokens found in the utterance, by position.
    pub matches: Vec<CiuMatch>,
}

/// One `d_sent` token found in the utterance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CiuMatch {
    /// The lower-case token (stemmed when [`CiuOptions::stem`] is on).
    pub token: String,
    /// 0-based word index of its first occurrence in the utterance.
    pub pos: usize,
    /// Position discount (1 when off).
    pub gamma: f64,
    /// Term frequency in the conversation including this turn (1 when off).
    pub freq: f64,
    /// `gamma / freq`.
    pub contribution: f64,
    /// 0-based index of the grounding sentence where the token first appears (with
    /// [`DSent::Sentences`], the sentence of this unit).
    pub sentence: usize,
}

/// Distinct `d_sent` tokens of a grounding document, in keyword rank order, each with the index of
/// the first sentence (see [`split_sentences`]) that contains it.
///
/// This is the default `d_sent` ([`DSent::RakePhrases`], no stemming, one count per document).
pub fn d_sent_tokens(grounding: &str, rake_opts: &RakeOptions) -> Vec<(String, usize)> {
    let opts = CiuOptions { rake: rake_opts.clone(), ..CiuOptions::default() };
    d_sent_entries(grounding, &opts, &Normaliser::new(false, Lang::En))
}

/// Maps a tokeniser word to the form that is matched and counted.
#[derive(Debug, Clone, Default)]
struct Normaliser {
    stemmer: Option<PorterStemmer>,
    lang: Lang,
}

impl Normaliser {
    fn new(stem: bool, lang: Lang) -> Self {
        Self { stemmer: stem.then(PorterStemmer::new), lang }
    }

    fn apply(&self, word: String) -> String {
        match &self.stemmer {
            Some(s) => s.stem(&word),
            None => word,
        }
    }

    fn words(&self, text: &str) -> Vec<String> {
        words_lang(text, self.lang).into_iter().map(|w| self.apply(w)).collect()
    }
}

/// The `d_sent` entries `(token, sentence index)` under `opts`: units in order (RAKE phrases by
/// rank, or sentences in text order), distinct tokens inside a unit, and across units too unless
/// `opts.count_per_unit`.
fn d_sent_entries(grounding: &str, opts: &CiuOptions, norm: &Normaliser) -> Vec<(String, usize)> {
    let sentences = split_sentences(grounding);
    let units: Vec<Vec<(String, usize)>> = match opts.d_sent {
        DSent::RakePhrases => {
            let mut first_sentence: HashMap<String, usize> = HashMap::new();
            for (i, s) in sentences.iter().enumerate() {
                for w in words_lang(s, opts.lang) {
                    first_sentence.entry(w).or_insert(i);
                }
            }
            rake_lang(grounding, &opts.rake, opts.lang)
                .into_iter()
                .map(|kw| {
                    kw.tokens
                        .into_iter()
                        .map(|t| {
                            let s = first_sentence.get(&t).copied().unwrap_or(0);
                            (norm.apply(t), s)
                        })
                        .collect()
                })
                .collect()
        }
        DSent::Sentences => {
            sentences.iter().enumerate().map(|(i, s)| norm.words(s).into_iter().map(|w| (w, i)).collect()).collect()
        }
    };
    let mut seen_doc: HashSet<String> = HashSet::new();
    let mut out = Vec::new();
    for unit in units {
        let mut seen_unit: HashSet<String> = HashSet::new();
        for (t, s) in unit {
            if !seen_unit.insert(t.clone()) {
                continue;
            }
            if opts.count_per_unit || seen_doc.insert(t.clone()) {
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
    norm: Normaliser,
    counts: HashMap<String, usize>,
}

impl CiuConversation {
    /// A conversation with no turns yet.
    pub fn new(opts: CiuOptions) -> Self {
        let norm = Normaliser::new(opts.stem, opts.lang);
        Self { opts, norm, counts: HashMap::new() }
    }

    /// Records a turn that is not scored (e.g. a user turn): its words count towards `freq`.
    pub fn observe(&mut self, text: &str) {
        for w in self.norm.words(text) {
            *self.counts.entry(w).or_default() += 1;
        }
    }

    /// Scores `utterance` against `grounding` without recording it.
    pub fn score(&self, utterance: &str, grounding: &str) -> CiuResult {
        let opts = &self.opts;
        let utt_words = self.norm.words(utterance);
        let n = utt_words.len();
        let mut first_pos: HashMap<&str, usize> = HashMap::new();
        for (i, w) in utt_words.iter().enumerate() {
            first_pos.entry(w.as_str()).or_insert(i);
        }
        let d_sent = d_sent_entries(grounding, opts, &self.norm);
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

/// CIU of a record: its `answer`, with [`record_turns`] as the earlier turns and
/// [`Record::grounding`] (reference, else the joined contexts) as the grounding document.
pub fn ciu_record(record: &Record, opts: &CiuOptions) -> CiuResult {
    ciu(&record.answer, &record_turns(record, opts), &record.grounding(), opts)
}

/// The earlier turns of a record's conversation, oldest first: the `history` turns, then the
/// `query` (the turn the answer replies to) when [`CiuOptions::query_as_turn`] is on. A query that
/// is empty, or equal (surrounding whitespace ignored) to the last history turn, is not added a
/// second time.
pub fn record_turns<'a>(record: &'a Record, opts: &CiuOptions) -> Vec<&'a str> {
    let mut turns: Vec<&str> = record.history.iter().map(|t| t.text.as_str()).collect();
    let query = record.query.trim();
    if opts.query_as_turn && !query.is_empty() && turns.last().map(|t| t.trim()) != Some(query) {
        turns.push(record.query.as_str());
    }
    turns
}

/// [`Metric`] wrapper of [`ciu_record`]: one column `ciu`, the [`CiuDetail`] as detail.
///
/// With a `lang` other than [`LangMode::En`], each record's language ([`record_lang`]) replaces
/// `opts.lang` and the detail gains a `lang` field.
#[derive(Debug, Clone, Default)]
pub struct CiuMetric {
    /// Options used for every record.
    pub opts: CiuOptions,
    /// How each record's language is chosen. Default English (`opts.lang` as given).
    pub lang: LangMode,
}

impl Metric for CiuMetric {
    fn name(&self) -> &str {
        "ciu"
    }

    fn columns(&self) -> Vec<String> {
        vec!["ciu".to_string()]
    }

    fn score(&self, record: &Record) -> Result<MetricOutput, MetricError> {
        let lang = (self.lang != LangMode::En).then(|| record_lang(record, self.lang));
        let r = match lang {
            Some(lang) => ciu_record(record, &CiuOptions { lang, ..self.opts.clone() }),
            None => ciu_record(record, &self.opts),
        };
        if !r.value.is_finite() {
            return Err(MetricError::Contract(format!("ciu is not finite ({}); check c_char", r.value)));
        }
        let mut detail = serde_json::to_value(&r.detail)?;
        if let (Some(lang), Some(map)) = (lang, detail.as_object_mut()) {
            map.insert("lang".into(), lang.code().into());
        }
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

    const EPS: f64 = 1e-9;
    // Utterance words: curie(0) won(1) the(2) nobel(3) prize(4) twice(5) -> |utt| = 6, so
    // gamma = 1 - pos/6 = 6/6, 5/6, 4/6, 3/6, 2/6, 1/6. Characters 31 -> E = 0.005 * 31 = 0.155.
    const UTT: &str = "Curie won the Nobel prize twice";
    // Sentences: s0 = curie won the nobel prize, s1 = the prize was shared.
    // SMART stop words: the, was. RAKE candidates: [curie won] [nobel prize] [prize] [shared].
    // deg/freq: curie 2/1, won 2/1, nobel 2/1, prize (2+1)/2 = 1.5, shared 1/1 -> phrase scores
    // curie won 4, nobel prize 3.5, prize 1.5, shared 1.
    const DOC2: &str = "Curie won the Nobel prize. The prize was shared.";

    fn record(history: &[&str], query: &str) -> Record {
        Record {
            query: query.into(),
            history: history.iter().map(|t| ragjudge_core::Turn { role: "user".into(), text: t.to_string() }).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn rake_phrases_distinct_vs_per_unit() {
        // Distinct d_sent {curie, won, nobel, prize, shared}: matches curie 6/6, won 5/6, nobel 3/6,
        // prize 2/6 -> gain 16/6 = 8/3; CIU = 8/3 - 0.155.
        let r = ciu(UTT, &[], DOC2, &CiuOptions::default());
        assert_eq!(r.detail.d_sent_tokens, 5);
        assert!((r.detail.gain - 8.0 / 3.0).abs() < EPS);
        assert!((r.value - (8.0 / 3.0 - 0.155)).abs() < EPS);
        // Per unit: prize is in [nobel prize] and [prize] -> counted twice: 8/3 + 2/6 = 3.
        // Entries: curie, won, nobel, prize, prize, shared = 6.
        let o = CiuOptions { count_per_unit: true, ..Default::default() };
        let r = ciu(UTT, &[], DOC2, &o);
        assert_eq!(r.detail.d_sent_tokens, 6);
        assert!((r.detail.gain - 3.0).abs() < EPS);
        assert_eq!(r.detail.matches.iter().filter(|m| m.token == "prize").count(), 2);
    }

    #[test]
    fn sentences_keep_stop_words() {
        // d_sent = every word of each sentence, distinct: curie won the nobel prize was shared (7).
        // Matches curie 6/6, won 5/6, the 4/6, nobel 3/6, prize 2/6 -> gain 20/6 = 10/3.
        let o = CiuOptions { d_sent: DSent::Sentences, ..Default::default() };
        let r = ciu(UTT, &[], DOC2, &o);
        assert_eq!(r.detail.d_sent_tokens, 7);
        assert!((r.detail.gain - 10.0 / 3.0).abs() < EPS);
        assert!((r.value - (10.0 / 3.0 - 0.155)).abs() < EPS);
        // Per unit: s1 adds the (4/6) and prize (2/6) again -> 20/6 + 6/6 = 13/3; 5 + 4 entries.
        let o = CiuOptions { d_sent: DSent::Sentences, count_per_unit: true, ..Default::default() };
        let r = ciu(UTT, &[], DOC2, &o);
        assert_eq!(r.detail.d_sent_tokens, 9);
        assert!((r.detail.gain - 13.0 / 3.0).abs() < EPS);
        let sentences: Vec<usize> = r.detail.matches.iter().filter(|m| m.token == "the").map(|m| m.sentence).collect();
        assert_eq!(sentences, [0, 1]);
    }

    #[test]
    fn stemming_matches_inflections_everywhere() {
        // DOC d_sent {marie, curie, won, nobel, prizes}. Unstemmed, "prize" != "prizes": matches
        // curie 6/6, won 5/6, nobel 3/6 -> 7/3. Porter (NLTK): prizes -> prize (step 1a drops the
        // s; step 5a keeps the e of "prize" since m("priz") = 1 and "riz" is *o), prize -> prize,
        // so prize (pos 4) matches too: gain 7/3 + 2/6 = 8/3.
        const DOC: &str = "Marie Curie won two Nobel prizes.";
        let plain = ciu(UTT, &[], DOC, &CiuOptions::default());
        assert!((plain.detail.gain - 7.0 / 3.0).abs() < EPS);
        let o = CiuOptions { stem: true, ..Default::default() };
        let r = ciu(UTT, &[], DOC, &o);
        assert!((r.detail.gain - 8.0 / 3.0).abs() < EPS);
        assert!((r.value - (8.0 / 3.0 - 0.155)).abs() < EPS);
        assert_eq!(r.detail.matches[3].token, "prize");
        // Earlier turns are stemmed too: "The prizes!" -> prize seen once -> freq 2, so its
        // contribution halves: 1 + 5/6 + 3/6 + (2/6)/2 = 2.5.
        let r = ciu(UTT, &["The prizes!"], DOC, &o);
        assert!((r.detail.gain - 2.5).abs() < EPS);
    }

    /// Hand-computed: jieba cuts the utterance 央行宣布下调利率 into 央行 宣布 下调 利率 (|utt| = 4),
    /// the grounding's RAKE phrases are [央行 下调 利率] [银行 股 上涨]. Matches 央行 (pos 0, gamma
    /// 1), 下调 (pos 2, 1/2), 利率 (pos 3, 1/4): gain 1.75; 8 characters -> E = 0.04.
    #[cfg(feature = "zh")]
    #[test]
    fn chinese_words() {
        let o = CiuOptions { lang: Lang::Zh, ..Default::default() };
        let r = ciu("央行宣布下调利率", &[], "央行下调利率，银行股上涨。", &o);
        assert_eq!(r.detail.utterance_tokens, 4);
        assert_eq!(r.detail.d_sent_tokens, 6);
        assert!((r.detail.gain - 1.75).abs() < EPS);
        assert!((r.value - 1.71).abs() < EPS);
        // The metric picks the language per record and says which.
        let rec = Record {
            answer: "央行宣布下调利率".into(),
            reference: Some("央行下调利率，银行股上涨。".into()),
            ..Default::default()
        };
        let out = CiuMetric { lang: LangMode::Auto, ..Default::default() }.score(&rec).unwrap();
        assert!((out.values[0].unwrap() - 1.71).abs() < EPS);
        assert_eq!(out.detail.unwrap()["lang"], "zh");
        let en = CiuMetric::default().score(&rec).unwrap();
        assert!(en.detail.unwrap().get("lang").is_none());
    }

    #[test]
    fn record_turns_append_the_query_once() {
        let o = CiuOptions::default();
        assert_eq!(record_turns(&record(&["a b", "c d"], "e f"), &o), ["a b", "c d", "e f"]);
        // Already the last history turn (whitespace aside): not added twice.
        assert_eq!(record_turns(&record(&["a b", "e f"], " e f "), &o), ["a b", "e f"]);
        // Empty query: nothing added.
        assert_eq!(record_turns(&record(&["a b"], "  "), &o), ["a b"]);
        assert_eq!(record_turns(&record(&[], "e f"), &o), ["e f"]);
        let off = CiuOptions { query_as_turn: false, ..Default::default() };
        assert_eq!(record_turns(&record(&["a b"], "e f"), &off), ["a b"]);
    }

    #[test]
    fn options_deserialise_with_defaults() {
        let o: CiuOptions = serde_json::from_str(r#"{"c_char": 0.01, "effort": false}"#).unwrap();
        assert_eq!(o, CiuOptions { c_char: 0.01, effort: false, ..Default::default() });
        let d: CiuOptions = serde_json::from_str("{}").unwrap();
        assert_eq!(d, CiuOptions::default());
    }
}
