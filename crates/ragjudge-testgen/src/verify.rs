//! Checks of one generated question against its sources and the whole collection (HCAT section
//! 2, step 5), run on every reply that passes its format and wording checks; a reply that fails
//! one is regenerated within the retry budget, like a malformed one.
//!
//! - **Round trip** (Roundtrip §2, the filter of synthetic QA corpora, applied to retrieval): a
//!   question a user can ask without the passage finds its source in the collection. The source
//!   must be among the [`VerifyOptions::round_trip_k`] best chunks for the question by BM25 or by
//!   embedding cosine.
//!   "What is the name of the golf course?" passes the wording rule but finds no particular
//!   chunk in a collection with several golf courses.
//! - **Answerable**: a question other than yes/no gives no number of three or more digits its
//!   sources lack ([`unheld_number`]), and the judge's P(Yes) that the sources contain the answer.
//! - **Grounded**: the free-text reference is close to a sentence of its sources, says more than
//!   its question ([`restates`]), gives no number of three or more digits they lack, and each of
//!   its sentences and longer clauses takes at least half of its new content words from the
//!   sources ([`unsupported_sentence`]), so that a made-up cause added to a copied sentence does
//!   not pass on the copied part.
//! - **Reference**: the judge's P(Yes) that a free-text reference gives what the question asks
//!   for, not a related fact ("men's team" for "What is the name of the team that played ...?");
//!   for yes/no and multiple-choice questions, the judge answers the question from the sources and
//!   must give the reference's answer (the round trip of Roundtrip §2 proper): a model that writes
//!   "A) Hamlet" as the work Gutenberg printed in 1455 does not pass. Free-text and
//!   multiple-choice references then take the round trip in free text: the judge writes its own
//!   short answer from the sources, without seeing the reference or the options, and the two must
//!   agree ([`answer_agreement`]; for multiple choice, the right option must be the one closest to
//!   the judge's answer). A judge shown a reference or four options tends to accept what it is
//!   shown; asked to answer, it does not repeat an answer made up from the source's words.
//! - **Unanswerable** questions are checked against the whole collection, not only against their
//!   source: the best chunks by BM25 and by embeddings (and the source) are retrieved; none may be
//!   nearly the question (an embedding cosine bar and most of its words) and the judge must not
//!   find the answer in any of them. The judge says Yes to most passages on the subject of a question, so the bar on its
//!   P(Yes) sits where answerable questions start, not at one half (docs/testgen.md).
//! - **Multi-hop type**: a multi-hop question needs both sources. Each source must hold a content
//!   word of the reference (not in the question) that the other lacks; otherwise the question is
//!   kept as a factual question on the source that holds most of the answer.

use std::collections::HashSet;

use ndarray::Array2;
use ragjudge_core::numeric::cosine_or_zero;
use ragjudge_core::text::{split_sentences, words};
use ragjudge_lexical::porter::PorterStemmer;
use ragjudge_lexical::stopwords::{is_smart_stopword, is_zh_stopword};
use ragjudge_models::{Embedder, GenParams, Judge, Prompt};
use serde::Serialize;

use crate::bm25::Bm25Index;
use crate::chunk::Chunk;
use crate::error::TestgenError;
use crate::generate::{question_text, reference_answer, right_option, PromptSet, QueryType, LETTERS};
use crate::lists::{co_listed, unnamed_member};
use serde_json::{Map, Value};

/// Most tokens of the judge's own answer in the free-text round trip.
const ANSWER_TOKENS: u32 = 48;

/// Bars of the checks.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct VerifyOptions {
    /// Least P(Yes) that the sources answer an answerable question.
    pub min_answerable: f64,
    /// Least grounding of a free-text reference (cosine with its closest source sentence, or
    /// the share of its words found in the sources).
    pub min_grounding: f64,
    /// Least P(Yes) that a free-text reference gives what its question asks for.
    pub min_reference: f64,
    /// Least [`answer_agreement`] of a free-text reference with the judge's own answer from the
    /// sources: half of the shorter answer's content words found in the other.
    pub min_answer_agreement: f64,
    /// Least share of each free-text reference sentence's new content words (not in the
    /// question) found in the sources ([`unsupported_sentence`]): half, as for the agreement.
    pub min_sentence_support: f64,
    /// Largest rank (BM25 or embedding) at which a question may find its source.
    pub round_trip_k: usize,
    /// Chunks taken from each retriever to check an unanswerable question against.
    pub unanswerable_chunks: usize,
    /// An unanswerable question is dropped when the judge's P(Yes) that a retrieved chunk
    /// answers it reaches this.
    pub max_unanswerable: f64,
    /// An unanswerable question is dropped when its embedding cosine with a retrieved chunk
    /// reaches this and the chunk holds [`Self::min_copied_words`] of its words.
    pub max_chunk_similarity: f64,
    /// See [`Self::max_chunk_similarity`]: both must hold, so that an encoder that does not know
    /// the language (MiniLM on Chinese gives most pairs a high cosine) does not decide alone.
    pub min_copied_words: f64,
    /// Chunks of other documents taken from each retriever to look for another answer to an
    /// answerable question (0, the default: no such check; with the 1.5B default judge most of
    /// its rejections were wrong, docs/testgen.md).
    pub other_answer_chunks: usize,
}

impl Default for VerifyOptions {
    fn default() -> Self {
        Self {
            min_answerable: 0.5,
            min_grounding: 0.45,
            min_reference: 0.65,
            min_answer_agreement: 0.5,
            min_sentence_support: 0.5,
            round_trip_k: 5,
            unanswerable_chunks: 2,
            max_unanswerable: 0.85,
            max_chunk_similarity: 0.75,
            min_copied_words: 0.8,
            other_answer_chunks: 0,
        }
    }
}

/// The figures of the checks one question passed (written to `meta.checks`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CheckValues {
    /// P(Yes) that the sources answer it.
    pub answerable: Option<f64>,
    /// Grounding of a free-text reference.
    pub grounding: Option<f64>,
    /// Free text: P(Yes) that the reference gives what the question asks for; yes/no and
    /// multiple choice: the judge's probability of the reference's answer.
    pub reference: Option<f64>,
    /// Free text and multiple choice: the judge's own short answer from the sources.
    pub judge_answer: Option<String>,
    /// [`answer_agreement`] of the reference (for multiple choice, its option) with the judge's
    /// answer.
    pub answer_agreement: Option<f64>,
    /// Rank of the best source among the chunks by BM25 (none: it shares no word).
    pub bm25_rank: Option<usize>,
    /// Rank of the best source among the chunks by embedding cosine.
    pub embedding_rank: Option<usize>,
    /// Unanswerable: the largest P(Yes) that a retrieved chunk answers it.
    pub collection_answers: Option<f64>,
    /// Unanswerable: the largest embedding cosine with a retrieved chunk.
    pub nearest_chunk: Option<f64>,
    /// Answerable: the largest P(Yes) that a chunk of another document answers it.
    pub elsewhere_answers: Option<f64>,
}

/// A question that passed: its type and sources (a multi-hop question may become factual) and
/// the figures of its checks.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verified {
    /// Type.
    pub query_type: QueryType,
    /// Source chunk indices.
    pub sources: Vec<usize>,
    /// Checks run on it, by name.
    pub applied: Vec<&'static str>,
    /// Why the type changed, when it did.
    pub retyped: Option<String>,
    /// Figures.
    pub values: CheckValues,
}

/// The collection, searchable by BM25 and by embedding.
pub struct Collection<'a> {
    chunks: &'a [Chunk],
    /// The chunks' embeddings as the embedder gives a question's (converted once, not per question).
    vectors: Vec<Vec<f32>>,
    index: Bm25Index,
}

impl std::fmt::Debug for Collection<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Collection").field("chunks", &self.chunks.len()).finish_non_exhaustive()
    }
}

/// Where a question finds its chunks: cosine with each chunk, and the ranks by each retriever.
#[derive(Debug, Clone)]
pub struct Retrieval {
    /// Cosine of the question with every chunk.
    pub cosines: Vec<f64>,
    /// Chunks by descending cosine.
    pub by_embedding: Vec<usize>,
    /// Chunks sharing a word with the question and their BM25 scores, best first.
    pub bm25: Vec<(usize, f32)>,
}

/// The rank of the best-scored of `sources` counting ties against it: the chunks scoring at
/// least as high, itself included (a question that cannot tell its source from four others
/// finds it at rank 5); `None` when no source is scored.
fn rank_with_ties(scores: &[(usize, f64)], sources: &[usize]) -> Option<usize> {
    let best = scores.iter().filter(|(c, _)| sources.contains(c)).map(|&(_, s)| s).max_by(f64::total_cmp)?;
    Some(scores.iter().filter(|&&(_, s)| s >= best).count())
}

impl Retrieval {
    /// Rank of the best source by embedding cosine, ties counted against it.
    pub fn embedding_rank(&self, sources: &[usize]) -> Option<usize> {
        let scores: Vec<(usize, f64)> = self.cosines.iter().copied().enumerate().collect();
        rank_with_ties(&scores, sources)
    }

    /// Rank of the best source by BM25, ties counted against it (`None`: it shares no word).
    pub fn bm25_rank(&self, sources: &[usize]) -> Option<usize> {
        let scores: Vec<(usize, f64)> = self.bm25.iter().map(|&(c, s)| (c, f64::from(s))).collect();
        rank_with_ties(&scores, sources)
    }
}

impl<'a> Collection<'a> {
    /// Indexes `chunks`, whose embeddings are the rows of `vectors`.
    pub fn new(chunks: &'a [Chunk], vectors: &'a Array2<f64>) -> Result<Self, TestgenError> {
        if vectors.nrows() != chunks.len() {
            return Err(TestgenError::Settings(format!("{} chunks but {} vectors", chunks.len(), vectors.nrows())));
        }
        let index = Bm25Index::build(chunks.iter().map(|c| c.text.as_str()))?;
        let vectors = vectors.rows().into_iter().map(|row| row.iter().map(|&x| x as f32).collect()).collect();
        Ok(Self { chunks, vectors, index })
    }

    /// Every chunk ranked for `question`, whose embedding is `vector`.
    pub fn retrieve(&self, question: &str, vector: &[f32]) -> Result<Retrieval, TestgenError> {
        let mut cosines = Vec::with_capacity(self.chunks.len());
        for c in &self.vectors {
            cosines.push(cosine_or_zero(vector, c)?);
        }
        let mut by_embedding: Vec<usize> = (0..cosines.len()).collect();
        by_embedding.sort_by(|&a, &b| cosines[b].total_cmp(&cosines[a]).then(a.cmp(&b)));
        let bm25 = self.index.search(question, self.chunks.len())?;
        Ok(Retrieval { cosines, by_embedding, bm25 })
    }
}

/// Runs the checks of one reply.
pub struct Verifier<'a> {
    /// Judge for the probability checks.
    pub judge: &'a dyn Judge,
    /// Embedder of questions and answers.
    pub embedder: &'a dyn Embedder,
    /// The collection.
    pub collection: &'a Collection<'a>,
    /// Bars.
    pub options: VerifyOptions,
}

impl std::fmt::Debug for Verifier<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Verifier").field("options", &self.options).finish_non_exhaustive()
    }
}

/// The judge's probabilities of `labels` after `text`.
fn label_probs(judge: &dyn Judge, text: String, labels: &[&str]) -> Result<Vec<f64>, TestgenError> {
    let labels: Vec<String> = labels.iter().map(|l| l.to_string()).collect();
    let p = judge
        .label_probs(&Prompt::chat("", text), &labels)
        .map_err(|e| TestgenError::Numeric { step: "selection", message: e.to_string() })?;
    Ok(p.probs)
}

fn yes_prob(judge: &dyn Judge, text: String) -> Result<f64, TestgenError> {
    Ok(label_probs(judge, text, &["Yes", "No"])?[0])
}

/// Lower-cased words of `text`.
fn lower_words(text: &str) -> Vec<String> {
    words(text).into_iter().map(str::to_lowercase).collect()
}

/// Share of the answer's words (lower-cased; a CJK character is a word) found in the sources:
/// 1 for an answer copied from them. Grounding takes the larger of this and the embedding
/// cosine, so that an extractive answer passes even where the embedding model does not know the
/// language (MiniLM is English-only).
pub fn word_recall(answer: &str, sources: &[&str]) -> f64 {
    let source: HashSet<String> = sources.iter().flat_map(|s| lower_words(s)).collect();
    let words = lower_words(answer);
    if words.is_empty() {
        return 0.0;
    }
    words.iter().filter(|w| source.contains(*w)).count() as f64 / words.len() as f64
}

/// What the judge answers when the sources do not answer (the `answer_question` prompts).
const NOT_STATED: [&str; 2] = ["not stated", "未提及"];

/// Content words of `text`: lower-cased and stemmed (Porter, a no-op on CJK characters), neither
/// stop words (SMART, stopwords-iso Chinese) nor in `asked`.
fn content_words(text: &str, asked: &HashSet<String>) -> HashSet<String> {
    let stemmer = PorterStemmer::new();
    lower_words(text)
        .into_iter()
        .filter(|w| !is_smart_stopword(w) && !is_zh_stopword(w))
        .map(|w| if w.chars().any(|c| c.is_ascii_digit()) { w.replace(',', "") } else { stemmer.stem(&w) })
        .filter(|w| !asked.contains(w))
        .collect()
}

/// The question's words, lower-cased and stemmed: what an answer's content words leave out.
fn asked_words(question: &str) -> HashSet<String> {
    let stemmer = PorterStemmer::new();
    lower_words(question).iter().map(|w| stemmer.stem(w)).collect()
}

/// How far two answers `a` and `b` to `question` agree: of the content words (stemmed, a CJK
/// character is a word) of the answer with fewer of them, the share the other answer holds.
/// Words of the question do not count, so that two answers repeating the question do not agree
/// by that ("Gutenberg built it in 1440" and "Gutenberg built it in 1450" share none); when that
/// leaves an answer without content words (the answer is named in the question: "Mainz or
/// Paris?"), the question's words count after all. 0 when an answer has no content word; 1 when
/// one answer's content words are all in the other ("1455" and "It was printed by 1455").
/// Numbers decide alone: when both answers hold a number (a word with a digit) and share none,
/// they disagree, however many other words they share ("1505亿元" and "1276亿元").
pub fn answer_agreement(question: &str, a: &str, b: &str) -> f64 {
    let asked = asked_words(question);
    let (mut ca, mut cb) = (content_words(a, &asked), content_words(b, &asked));
    if ca.is_empty() || cb.is_empty() {
        (ca, cb) = (content_words(a, &HashSet::new()), content_words(b, &HashSet::new()));
    }
    let fewer = ca.len().min(cb.len());
    if fewer == 0 {
        return 0.0;
    }
    let numbers = |c: &HashSet<String>| -> HashSet<String> {
        c.iter().filter(|w| w.chars().any(|ch| ch.is_ascii_digit())).cloned().collect()
    };
    let (na, nb) = (numbers(&ca), numbers(&cb));
    if !na.is_empty() && !nb.is_empty() && na.is_disjoint(&nb) {
        return 0.0;
    }
    ca.intersection(&cb).count() as f64 / fewer as f64
}

/// Whether the judge's answer says the sources do not answer.
fn not_stated(answer: &str) -> bool {
    let lower = answer.to_lowercase();
    NOT_STATED.iter().any(|n| lower.contains(n))
}

/// Whether `answer` says nothing beyond `question`: it has no content word (stemmed, not a stop
/// word) the question lacks. "The theory of plate tectonics" restates "What is the name of the
/// theory of plate tectonics?"; so does a judge's "RuBisCO is the most abundant protein on Earth"
/// for "Why is RuBisCO the most abundant protein on Earth?", which finds no reason in its source.
pub fn restates(question: &str, answer: &str) -> bool {
    let asked = asked_words(question);
    content_words(answer, &asked).is_empty()
}

/// The first sentence or clause of a free-text `answer` that says what its `sources` do not,
/// with its support: of its content words not in `question` (stemmed; a CJK character is a word),
/// the share found among the sources' content words, below `min`. A reference that copies a
/// source sentence and adds a made-up cause ("..., and RuBisCO is therefore the most abundant
/// protein on Earth" after "This process is essential for the plant's growth and survival")
/// passes the reference's grounding as a whole; its made-up sentence does not pass this. Each
/// clause of a sentence ([`clauses`]) with at least [`MIN_CLAUSE_WORDS`] such words is judged on
/// its own too, so that a made-up clause does not pass on the copied rest of its sentence
/// ("Apollo 11 was the first mission to land humans on the Moon, which was a significant
/// achievement in space exploration"). Sentences without such words (they repeat the question)
/// are not judged here.
pub fn unsupported_sentence<'a>(question: &str, answer: &'a str, sources: &[&str], min: f64) -> Option<(&'a str, f64)> {
    let asked = asked_words(question);
    let source: HashSet<String> = sources.iter().flat_map(|s| content_words(s, &HashSet::new())).collect();
    let unsupported = |part: &'a str, least: usize| {
        let new = content_words(part, &asked);
        if new.len() < least {
            return None;
        }
        let support = new.iter().filter(|w| source.contains(*w)).count() as f64 / new.len() as f64;
        (support < min).then_some((part, support))
    };
    split_sentences(answer).into_iter().find_map(|sentence| {
        unsupported(sentence, 1).or_else(|| {
            let parts = clauses(sentence);
            if parts.len() < 2 {
                return None;
            }
            parts.into_iter().find_map(|clause| unsupported(clause, MIN_CLAUSE_WORDS))
        })
    })
}

/// Fewest digits of a number [`unheld_number`] looks for: "3" may be spelled "three" or 三 in a
/// source, a year or an amount is written in digits.
pub const MIN_NUMBER_DIGITS: usize = 3;

/// The first number of at least [`MIN_NUMBER_DIGITS`] digits in `text` that none of `sources`
/// holds, thousands separators left out on both sides ("18,908" is held by "18908辆"). A model
/// that writes "扬州棒杰哪一年被临时停工停产？" from a source that says 今年3月1日 answers "2020年3月1
/// 日"; one that asks "在2019年5月，极氪品牌的销量是多少？" from May 2025 sales asks about a year
/// its source does not give. The word rule of [`unsupported_sentence`] counts such a number as
/// one word among many.
pub fn unheld_number(text: &str, sources: &[&str]) -> Option<String> {
    static NUMBER: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let number = NUMBER
        .get_or_init(|| regex::Regex::new(r"\d(?:[\d,]*\d)?").unwrap_or_else(|e| unreachable!("a fixed pattern: {e}")));
    let plain = |t: &str| number.replace_all(t, |c: &regex::Captures| c[0].replace(',', "")).into_owned();
    let held: Vec<String> = sources.iter().map(|s| plain(s)).collect();
    number
        .find_iter(text)
        .map(|m| m.as_str().replace(',', ""))
        .find(|n| n.len() >= MIN_NUMBER_DIGITS && !held.iter().any(|s| s.contains(n.as_str())))
}

/// Why a reference `answer` says nothing beyond `question` ([`restates`]), gives a number its
/// `sources` do not ([`unheld_number`]) or says what they do not ([`unsupported_sentence`] with
/// the bar `min`), if it does.
fn unsaid(question: &str, answer: &str, sources: &[&str], min: f64) -> Option<String> {
    if let Some(n) = unheld_number(answer, sources) {
        return Some(format!(
            "the reference answer is not grounded in the source: it gives {n}, which the source does not"
        ));
    }
    if restates(question, answer) {
        return Some("the reference answer is not grounded in the source: it only repeats the question's words".into());
    }
    if defines_for_why(question, answer) {
        return Some(
            "the reference does not answer the question: it asks why and the reference says what something is".into(),
        );
    }
    unsupported_sentence(question, answer, sources, min).map(|(sentence, support)| {
        format!("the reference answer is not grounded in the source: {sentence:?} says what the source does not (support {support:.2})")
    })
}

/// Whether `question` asks why and `answer` opens with a definition instead of a reason: "Why
/// does evaporation occur?" answered "Evaporation is the process by which water changes from
/// liquid to gas", or 为什么 answered "X是指...". A definition starts within the answer's first
/// five words with "is/are/was/were a/an/the", "refers to" or "means" (是指, 指的是, 是一种, 是一个 within
/// its first twelve characters), and the answer gives no reason word (because, due to, since, so
/// that, in order to, reason, result, cause; 因为, 由于, 为了, 因此, 所以, 导致, 原因) anywhere.
pub fn defines_for_why(question: &str, answer: &str) -> bool {
    static RULES: std::sync::OnceLock<[regex::Regex; 4]> = std::sync::OnceLock::new();
    let [why, define, define_zh, reason] = RULES.get_or_init(|| {
        let re = |s: &str| regex::Regex::new(s).unwrap_or_else(|e| unreachable!("a fixed pattern: {e}"));
        [
            re(r"(?i)\bwhy\b|为什么|为何|什么原因|原因是什么"),
            re(r"(?i)^\s*(?:\S+\s+){0,4}?(?:(?:is|are|was|were)\s+(?:a|an|the)|refers\s+to|means)\b"),
            re(r"^\s*.{0,12}?(?:是指|指的是|是一种|是一个)"),
            re(r"(?i)\b(?:because|due\s+to|since|so\s+that|in\s+order\s+to|reasons?|results?|caused?|causes)\b|因为|由于|为了|因此|所以|导致|原因"),
        ]
    });
    why.is_match(question) && (define.is_match(answer) || define_zh.is_match(answer)) && !reason.is_match(answer)
}

/// Whether the judge's answer `said` to `question` from `passage` is an answer that passage
/// gives: not "not stated", not a restatement of the question, and each sentence supported by
/// the passage ([`unsupported_sentence`] with the bar `min`).
fn supports(passage: &str, question: &str, said: &str, min: f64) -> bool {
    !not_stated(said) && !restates(question, said) && unsupported_sentence(question, said, &[passage], min).is_none()
}

/// Fewest new content words of a clause judged on its own by [`unsupported_sentence`]: a clause
/// of one word ("In 1455,") says too little to judge.
pub const MIN_CLAUSE_WORDS: usize = 2;

/// The clauses of a sentence: cut after a comma, semicolon or colon (ASCII or full-width, and
/// the Chinese enumeration comma; not a comma or colon between digits, as in "10,100,000" or
/// "9:30"), and before "which", "while" and "whereas" (any case).
pub fn clauses(sentence: &str) -> Vec<&str> {
    const MARKS: [char; 7] = [',', ';', ':', '，', '；', '：', '、'];
    const WORDS: [&str; 3] = [" which ", " while ", " whereas "];
    let bytes = sentence.as_bytes();
    let digit_at = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_digit);
    let mut cuts: Vec<usize> = sentence
        .char_indices()
        .filter(|&(i, c)| MARKS.contains(&c) && !(i > 0 && digit_at(i - 1) && digit_at(i + 1)))
        .map(|(i, c)| i + c.len_utf8())
        .collect();
    for w in WORDS {
        let w = w.as_bytes();
        cuts.extend(
            (0..bytes.len().saturating_sub(w.len() - 1))
                .filter(|&i| bytes[i..i + w.len()].eq_ignore_ascii_case(w))
                .map(|i| i + 1),
        );
    }
    cuts.sort_unstable();
    cuts.dedup();
    let mut out = Vec::new();
    let mut start = 0;
    for cut in cuts.into_iter().chain([sentence.len()]) {
        let part = sentence[start..cut].trim();
        if !part.is_empty() {
            out.push(part);
        }
        start = cut;
    }
    out
}

/// Whether each source carries part of a multi-hop answer: `Ok` when every source holds a
/// content word of `answer` (not a stop word, not in `question`) that no other source holds;
/// otherwise the position of the source holding most of those words (the first on a tie).
pub fn multi_hop_parts(question: &str, answer: &str, sources: &[&str]) -> Result<(), usize> {
    let asked: HashSet<String> = lower_words(question).into_iter().collect();
    let content: HashSet<String> =
        lower_words(answer).into_iter().filter(|w| !asked.contains(w) && !is_smart_stopword(w)).collect();
    let held: Vec<HashSet<&String>> = sources
        .iter()
        .map(|s| {
            let words: HashSet<String> = lower_words(s).into_iter().collect();
            content.iter().filter(|w| words.contains(*w)).collect()
        })
        .collect();
    let own = |k: usize| held[k].iter().any(|w| held.iter().enumerate().all(|(j, h)| j == k || !h.contains(w)));
    if sources.len() >= 2 && (0..sources.len()).all(own) {
        return Ok(());
    }
    let most = (0..held.len()).rev().max_by_key(|&k| held[k].len()).unwrap_or(0);
    Err(most)
}

impl Verifier<'_> {
    /// Checks the question and reference of a well-formed reply `item` of type `query_type`
    /// written from the chunks `sources`; `Ok(Err(reason))` when a check fails, `Err` when a
    /// model call fails.
    pub fn verify(
        &self,
        query_type: QueryType,
        sources: &[usize],
        item: &Map<String, Value>,
    ) -> Result<Result<Verified, String>, TestgenError> {
        let question = item.get("question").and_then(Value::as_str).unwrap_or_default();
        let answer = reference_answer(query_type, item);
        let answer = answer.as_str();
        let chunks = self.collection.chunks;
        let o = &self.options;
        let p = PromptSet::for_lang(chunks[sources[0]].lang);
        let mut v = Verified {
            query_type,
            sources: sources.to_vec(),
            applied: Vec::new(),
            retyped: None,
            values: CheckValues::default(),
        };
        let qvec = self.embedder.embed(&[question])?.pop().unwrap_or_default();
        let found = self.collection.retrieve(question, &qvec)?;
        if query_type == QueryType::Unanswerable {
            return Ok(self.unanswerable(&p, question, sources, &found).map(|values| Verified {
                applied: vec!["unanswerable"],
                values,
                ..v
            }));
        }
        v.applied.push("round_trip");
        let (bm25, dense) = (found.bm25_rank(sources), found.embedding_rank(sources));
        v.values.bm25_rank = bm25;
        v.values.embedding_rank = dense;
        let best = bm25.into_iter().chain(dense).min();
        if best.is_none_or(|r| r > o.round_trip_k) {
            let shown = |r: Option<usize>| r.map_or("none".to_string(), |r| r.to_string());
            return Ok(Err(format!(
                "the question does not find its source in the collection (BM25 rank {}, embedding rank {}; at most {} needed)",
                shown(bm25),
                shown(dense),
                o.round_trip_k
            )));
        }
        if query_type == QueryType::MultiHop {
            let texts: Vec<&str> = sources.iter().map(|&i| chunks[i].text.as_str()).collect();
            if let Err(k) = multi_hop_parts(question, answer, &texts) {
                v.query_type = QueryType::Factual;
                v.sources = vec![sources[k]];
                v.retyped = Some(format!("multi_hop -> factual: {} holds the answer alone", chunks[sources[k]].id));
            }
        }
        let texts: Vec<&str> = v.sources.iter().map(|&i| chunks[i].text.trim()).collect();
        v.applied.push("answerable");
        // A yes/no question may rest on a number its source contradicts: its answer is "no". The
        // sources it was written from count, also one a multi-hop question was retyped without.
        if v.query_type != QueryType::YesNo {
            let given: Vec<&str> = sources.iter().map(|&i| chunks[i].text.as_str()).collect();
            if let Some(n) = unheld_number(question, &given) {
                return Ok(Err(format!(
                    "the source does not answer it: the question says {n}, which the source does not"
                )));
            }
        }
        let ask = p.section("check_answers").replace("{passage}", &texts.join("\n\n")).replace("{question}", question);
        let answerable = yes_prob(self.judge, ask)?;
        v.values.answerable = Some(answerable);
        if answerable < o.min_answerable {
            return Ok(Err(format!("the source does not answer it (P(yes) {answerable:.2})")));
        }
        if v.query_type == QueryType::YesNo {
            v.applied.push("reference");
            let ask =
                p.section("check_yes_no").replace("{passage}", &texts.join("\n\n")).replace("{question}", question);
            let yes = yes_prob(self.judge, ask)?;
            let says = if yes >= 0.5 { "yes" } else { "no" };
            v.values.reference = Some(if answer == "yes" { yes } else { 1.0 - yes });
            if says != answer {
                return Ok(Err(format!(
                    "the reference does not answer the question: the judge answers {says} from the source (P(yes) {yes:.2})"
                )));
            }
        } else if v.query_type == QueryType::MultipleChoice {
            // The right option is the reference's text: the word rules of free-text references
            // hold for it ("Rust" for "What is the name of the language that Rust has used since
            // 2018?" says nothing).
            v.applied.push("grounded");
            let right = right_option(item);
            if let Some(why) = unsaid(question, right, &texts, o.min_sentence_support) {
                return Ok(Err(why));
            }
            v.applied.push("reference");
            let options: Vec<&str> = item
                .get("options")
                .and_then(Value::as_array)
                .map(|o| o.iter().map(|x| x.as_str().unwrap_or_default()).collect())
                .unwrap_or_default();
            if let Some(other) = options.iter().filter(|o| **o != right).find(|o| co_listed(&texts, right, o)) {
                return Ok(Err(format!(
                    "the reference does not answer the question: more than one option is right, the source lists {right:?} together with {other:?}"
                )));
            }
            let ask = p
                .section("check_choice")
                .replace("{passage}", &texts.join("\n\n"))
                .replace("{question}", &question_text(QueryType::MultipleChoice, item));
            let probs = label_probs(self.judge, ask, &LETTERS)?;
            let picked = (0..probs.len()).max_by(|&a, &b| probs[a].total_cmp(&probs[b]).then(b.cmp(&a))).unwrap_or(0);
            let letter = answer.split(')').next().unwrap_or_default();
            let at = LETTERS.iter().position(|l| *l == letter).unwrap_or(0);
            v.values.reference = Some(probs[at]);
            if picked != at {
                return Ok(Err(format!(
                    "the reference does not answer the question: the judge picks {} from the source (P {:.2}; {letter} {:.2})",
                    LETTERS[picked], probs[picked], probs[at]
                )));
            }
            let said = self.judge_answer(&p, &texts, question)?;
            let agreement: Vec<f64> = options.iter().map(|o| answer_agreement(question, &said, o)).collect();
            let own = agreement.get(at).copied().unwrap_or(0.0);
            let closest = (0..agreement.len())
                .filter(|&k| k != at)
                .max_by(|&a, &b| agreement[a].total_cmp(&agreement[b]).then(b.cmp(&a)));
            v.values.answer_agreement = Some(own);
            v.values.judge_answer = Some(said.clone());
            let beaten = closest.filter(|&k| agreement[k] >= own);
            if not_stated(&said) || own == 0.0 || beaten.is_some() {
                let other = beaten.map_or(String::new(), |k| format!("; {} {:.2}", LETTERS[k], agreement[k]));
                return Ok(Err(format!(
                    "the reference does not answer the question: from the source the judge answers {said:?}, which does not pick {letter} ({letter} {own:.2}{other})"
                )));
            }
        } else {
            v.applied.push("grounded");
            let grounding = self.grounding(answer, &texts)?;
            v.values.grounding = Some(grounding);
            if grounding < o.min_grounding {
                return Ok(Err(format!(
                    "the reference answer is not grounded in the source (grounding {grounding:.2})"
                )));
            }
            if let Some(why) = unsaid(question, answer, &texts, o.min_sentence_support) {
                return Ok(Err(why));
            }
            v.applied.push("reference");
            let ask = p.section("check_reference").replace("{question}", question).replace("{answer}", answer);
            let reference = yes_prob(self.judge, ask)?;
            v.values.reference = Some(reference);
            if reference < o.min_reference {
                return Ok(Err(format!("the reference does not answer the question (P(yes) {reference:.2})")));
            }
            let said = self.judge_answer(&p, &texts, question)?;
            let agreement = if not_stated(&said) || restates(question, &said) {
                0.0
            } else {
                answer_agreement(question, &said, answer)
            };
            v.values.answer_agreement = Some(agreement);
            v.values.judge_answer = Some(said.clone());
            if agreement < o.min_answer_agreement {
                return Ok(Err(format!(
                    "the reference does not answer the question: from the source the judge answers {said:?} (agreement {agreement:.2})"
                )));
            }
            if let Some(other) = unnamed_member(&texts, answer, &said) {
                return Ok(Err(format!(
                    "the reference does not answer the question: it gives one of several answers, the source lists {other:?} with it and the judge answers {said:?}"
                )));
            }
        }
        if v.query_type != QueryType::YesNo && o.other_answer_chunks > 0 {
            v.applied.push("unique_answer");
            let reference = if v.query_type == QueryType::MultipleChoice {
                right_option(item).to_string()
            } else {
                answer.to_string()
            };
            let (strongest, other) = self.other_answer(&p, question, &v.sources, &reference, &found)?;
            v.values.elsewhere_answers = Some(strongest);
            if let Some(why) = other {
                return Ok(Err(why));
            }
        }
        Ok(Ok(v))
    }

    /// Another answer to `question` in the collection: the best chunks of other documents than
    /// the `sources`' by each retriever, each that the judge thinks answers it (P(Yes) at least
    /// [`VerifyOptions::max_unanswerable`], where passages that answer start) answered by the
    /// judge from that chunk alone; an answer that the chunk supports and that does not agree
    /// with `reference` ([`answer_agreement`]) means the question does not say which case it asks
    /// about ("哪些公司股价上涨了？" in a collection of market news). With the largest P(Yes).
    fn other_answer(
        &self,
        p: &PromptSet,
        question: &str,
        sources: &[usize],
        reference: &str,
        found: &Retrieval,
    ) -> Result<(f64, Option<String>), TestgenError> {
        let o = &self.options;
        let chunks = self.collection.chunks;
        let docs: Vec<&str> = sources.iter().map(|&i| chunks[i].doc_id.as_str()).collect();
        let elsewhere = |c: &usize| !docs.contains(&chunks[*c].doc_id.as_str());
        let by_bm25 = found.bm25.iter().map(|&(c, _)| c).filter(elsewhere).take(o.other_answer_chunks);
        let mut candidates: Vec<usize> = by_bm25.collect();
        for c in found.by_embedding.iter().copied().filter(elsewhere).take(o.other_answer_chunks) {
            if !candidates.contains(&c) {
                candidates.push(c);
            }
        }
        let mut strongest = 0.0f64;
        for c in candidates {
            let text = chunks[c].text.trim();
            let ask = p.section("check_answers").replace("{passage}", text).replace("{question}", question);
            let yes = yes_prob(self.judge, ask)?;
            strongest = strongest.max(yes);
            if yes < o.max_unanswerable {
                continue;
            }
            let said = self.judge_answer(p, &[text], question)?;
            if supports(text, question, &said, o.min_sentence_support)
                && answer_agreement(question, &said, reference) < o.min_answer_agreement
            {
                let why = format!(
                    "the question has more than one answer in the collection: from {} the judge answers {said:?}",
                    chunks[c].id
                );
                return Ok((strongest, Some(why)));
            }
        }
        Ok((strongest, None))
    }

    /// The judge's own short answer to `question` from the sources (greedy; the first line).
    fn judge_answer(&self, p: &PromptSet, sources: &[&str], question: &str) -> Result<String, TestgenError> {
        let ask =
            p.section("answer_question").replace("{passage}", &sources.join("\n\n")).replace("{question}", question);
        let params = GenParams { max_tokens: ANSWER_TOKENS, temperature: 0.0, ..GenParams::default() };
        let g = self
            .judge
            .generate(&Prompt::chat("", ask), &params)
            .map_err(|e| TestgenError::Numeric { step: "selection", message: e.to_string() })?;
        Ok(g.text.trim().lines().next().unwrap_or_default().trim().to_string())
    }

    /// The larger of the reference's cosine with its closest source sentence and its word recall.
    fn grounding(&self, answer: &str, sources: &[&str]) -> Result<f64, TestgenError> {
        let sentences: Vec<&str> = sources.iter().flat_map(|s| split_sentences(s)).collect();
        let mut texts = vec![answer];
        texts.extend(sentences.iter().copied());
        let v = self.embedder.embed(&texts)?;
        let mut cos = 0.0f64;
        for s in &v[1..] {
            cos = cos.max(cosine_or_zero(&v[0], s)?);
        }
        Ok(cos.max(word_recall(answer, sources)))
    }

    /// An unanswerable question against the best chunks of each retriever and its source.
    fn unanswerable(
        &self,
        p: &PromptSet,
        question: &str,
        sources: &[usize],
        found: &Retrieval,
    ) -> Result<CheckValues, String> {
        let o = &self.options;
        let chunks = self.collection.chunks;
        let mut candidates: Vec<usize> = sources.to_vec();
        let by_bm25 = found.bm25.iter().map(|&(c, _)| c);
        for c in
            by_bm25.take(o.unanswerable_chunks).chain(found.by_embedding.iter().copied().take(o.unanswerable_chunks))
        {
            if !candidates.contains(&c) {
                candidates.push(c);
            }
        }
        let nearest = candidates.iter().map(|&c| found.cosines[c]).fold(f64::NEG_INFINITY, f64::max);
        let mut values = CheckValues { nearest_chunk: Some(nearest), ..CheckValues::default() };
        for &c in &candidates {
            let (cosine, copied) = (found.cosines[c], word_recall(question, &[chunks[c].text.as_str()]));
            if cosine >= o.max_chunk_similarity && copied >= o.min_copied_words {
                return Err(format!(
                    "the collection may answer it: {} is nearly the question (cosine {cosine:.2}, {:.0}% of its words)",
                    chunks[c].id,
                    100.0 * copied
                ));
            }
        }
        let Some(&first) = candidates.first() else {
            return Ok(values);
        };
        let (mut strongest, mut likeliest) = (0.0f64, first);
        for c in candidates {
            let ask =
                p.section("check_answers").replace("{passage}", chunks[c].text.trim()).replace("{question}", question);
            let yes = yes_prob(self.judge, ask).map_err(|e| format!("check failed: {e}"))?;
            if yes > strongest {
                (strongest, likeliest) = (yes, c);
            }
            if yes >= o.max_unanswerable {
                return Err(format!("the collection may answer it: {} does (P(yes) {yes:.2})", chunks[c].id));
            }
        }
        values.collection_answers = Some(strongest);
        // The judge's P(Yes) misses some passages that answer (0.84 for a passage that gives the
        // cause of the 737 MAX crashes): asked to answer from the likeliest one, it must find
        // nothing, or only what that passage does not say.
        let text = chunks[likeliest].text.trim();
        let said = self.judge_answer(p, &[text], question).map_err(|e| format!("check failed: {e}"))?;
        values.judge_answer = Some(said.clone());
        if supports(text, question, &said, o.min_sentence_support) {
            return Err(format!(
                "the collection may answer it: from {} the judge answers {said:?}",
                chunks[likeliest].id
            ));
        }
        Ok(values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use ragjudge_models::{GenParams, Generation, LabelProbs, ModelError, ProbSource, Usage};

    /// Words hashed into 4096 dimensions, L2-normalised.
    struct Hashed;
    impl Embedder for Hashed {
        fn identity(&self) -> String {
            "hash".into()
        }
        fn dim(&self) -> usize {
            4096
        }
        fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, ModelError> {
            Ok(texts
                .iter()
                .map(|t| {
                    let mut v = vec![0f32; 4096];
                    for w in lower_words(t) {
                        let h = w.bytes().fold(7u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)));
                        v[(h % 4096) as usize] += 1.0;
                    }
                    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-6);
                    v.iter().map(|x| x / n).collect()
                })
                .collect())
        }
    }

    /// P(Yes) 0.97 when the passage holds the year the question asks about (1455 for the Bible,
    /// 1440 for the press), 0.7 for any other passage (the judge's lean towards Yes); for a
    /// proposed answer, 0.9 when it holds a digit, 0.3 otherwise. Shown options, it picks A (the
    /// habit of agreeing with the first option shown); asked to answer, it answers as the
    /// passages say.
    struct Judged;
    impl Judge for Judged {
        fn identity(&self) -> String {
            "scripted".into()
        }
        fn generate(&self, prompt: &Prompt, _: &GenParams) -> Result<Generation, ModelError> {
            let user = &prompt.messages[0].content;
            assert!(user.contains("Answer the question from the passage alone"), "{user}");
            let question = user.split("Question: ").nth(1).unwrap_or_default();
            let text = if question.contains("Who built") {
                if user.contains("Haarlem") {
                    "Laurens Coster"
                } else {
                    "Johannes Gutenberg"
                }
            } else if question.contains("printing press") {
                "Around 1440"
            } else if question.contains("printed in Mainz") {
                "The Gutenberg Bible"
            } else if question.contains("landed on the Moon") {
                "Eagle, in July 1969"
            } else if question.contains("Which Apollo mission") {
                "Apollo 11, Apollo 12 and Apollo 14"
            } else if question.contains("Who flew") {
                "Neil Armstrong flew it."
            } else if question.contains("How many books") {
                "About 180 copies"
            } else if question.contains("Neil Armstrong fly") {
                "Eagle\nIt was the lunar module."
            } else {
                "not stated"
            };
            Ok(Generation { text: text.into(), prompt_tokens: 0, completion_tokens: 0, finish_reason: "stop".into() })
        }
        fn label_probs(&self, prompt: &Prompt, labels: &[String]) -> Result<LabelProbs, ModelError> {
            let user = &prompt.messages[0].content;
            if labels.len() == 4 {
                return Ok(LabelProbs {
                    labels: labels.to_vec(),
                    probs: vec![0.7, 0.1, 0.1, 0.1],
                    logits: vec![0.0; 4],
                    label_mass: None,
                    source: ProbSource::Logits,
                });
            }
            let yes = if let Some(answer) = user.split("Proposed answer: ").nth(1) {
                if answer.chars().any(|c| c.is_ascii_digit()) {
                    0.9
                } else {
                    0.3
                }
            } else if (user.contains("Bible") && user.contains("1455"))
                || (user.contains("press?") && user.contains("1440"))
            {
                0.97
            } else {
                0.7
            };
            Ok(LabelProbs {
                labels: labels.to_vec(),
                probs: vec![yes, 1.0 - yes],
                logits: vec![0.0, 0.0],
                label_mass: None,
                source: ProbSource::Logits,
            })
        }
        fn usage(&self) -> Usage {
            Usage::default()
        }
    }

    fn chunk(id: &str, text: &str) -> Chunk {
        Chunk { id: id.into(), doc_id: id.into(), start: 0, end: text.len(), text: text.into(), tokens: 0, lang: "en" }
    }

    fn collection_chunks() -> Vec<Chunk> {
        vec![
            chunk("press", "Johannes Gutenberg built a printing press with movable metal type in Mainz around 1440."),
            chunk(
                "bible",
                "The Gutenberg Bible, printed in Mainz by 1455, was the first major book printed with movable type.",
            ),
            chunk("paper", "Paper making reached Europe through Spain in the twelfth century."),
            chunk("reef", "The Great Barrier Reef lies off the coast of Queensland in Australia."),
            chunk("whales", "Omura's whale was described as a species in 2003 from specimens found in Japan."),
            chunk("moon", "Apollo 11 landed the first humans on the Moon in July 1969."),
            chunk("eagle", "The lunar module of Apollo 11 was called Eagle; Neil Armstrong flew it."),
        ]
    }

    fn verify(
        chunks: &[Chunk],
        query_type: QueryType,
        sources: &[usize],
        question: &str,
        answer: &str,
    ) -> Result<Verified, String> {
        verify_item(chunks, query_type, sources, serde_json::json!({"question": question, "answer": answer}))
    }

    fn verify_item(
        chunks: &[Chunk],
        query_type: QueryType,
        sources: &[usize],
        item: Value,
    ) -> Result<Verified, String> {
        let item = item.as_object().unwrap();
        let texts: Vec<&str> = chunks.iter().map(|c| c.text.as_str()).collect();
        let rows = Hashed.embed(&texts).unwrap();
        let vectors = Array2::from_shape_fn((rows.len(), 4096), |(i, j)| f64::from(rows[i][j]));
        let collection = Collection::new(chunks, &vectors).unwrap();
        // Seven chunks: the source must come first or second.
        let options = VerifyOptions { round_trip_k: 2, other_answer_chunks: 1, ..VerifyOptions::default() };
        let v = Verifier { judge: &Judged, embedder: &Hashed, collection: &collection, options };
        v.verify(query_type, sources, item).unwrap()
    }

    #[test]
    fn an_unanswerable_question_is_checked_against_the_whole_collection() {
        let c = collection_chunks();
        let none = "The documents do not contain this information.";
        // Written from the press chunk, but the Bible chunk answers it: dropped, naming that chunk.
        let why = verify(&c, QueryType::Unanswerable, &[0], "In which year was the Gutenberg Bible printed?", none)
            .unwrap_err();
        assert_eq!(why, "the collection may answer it: bible does (P(yes) 0.97)");
        // No chunk answers (the judge's 0.7 for passages on the subject stays under 0.85): kept.
        let v =
            verify(&c, QueryType::Unanswerable, &[0], "How many books did Gutenberg's workshop sell?", none).unwrap();
        assert_eq!(v.applied, ["unanswerable"]);
        assert_eq!(v.values.collection_answers, Some(0.7));
        assert!(v.values.nearest_chunk.unwrap() < 0.75);
        // Asked to answer from the likeliest chunk (the source, on a tie), the judge makes up a
        // number the passage does not hold: still unanswerable.
        assert_eq!(v.values.judge_answer.as_deref(), Some("About 180 copies"));
        // Under the P(Yes) bar, but the judge answers from the passage with its own words.
        let why =
            verify(&c, QueryType::Unanswerable, &[6], "Who flew the lunar module of Apollo 11?", none).unwrap_err();
        assert_eq!(why, "the collection may answer it: from eagle the judge answers \"Neil Armstrong flew it.\"");
        // A question that nearly repeats a chunk is dropped on similarity alone.
        let why = verify(
            &c,
            QueryType::Unanswerable,
            &[2],
            "Paper making reached Europe through Spain in the twelfth century?",
            none,
        )
        .unwrap_err();
        assert!(why.starts_with("the collection may answer it: paper is nearly the question (cosine"), "{why}");
        assert!(why.ends_with(", 100% of its words)"), "{why}");
    }

    #[test]
    fn a_question_another_document_answers_otherwise_has_more_than_one_answer() {
        // Who built the first printing press, asked of the press chunk and one other chunk.
        let with = |other: Chunk| {
            let press = "Johannes Gutenberg built a printing press with movable metal type in Mainz around 1440.";
            let question = "Who built the first printing press?";
            verify(
                &[chunk("press", press), other],
                QueryType::Factual,
                &[0],
                question,
                "Johannes Gutenberg, around 1440",
            )
        };
        // The judge thinks each passage answers (0.97: "press?" and 1440) and answers from it.
        let coster = chunk("coster", "Laurens Coster built a printing press in Haarlem around 1440, some say.");
        assert_eq!(
            with(coster.clone()).unwrap_err(),
            "the question has more than one answer in the collection: from coster the judge answers \"Laurens Coster\""
        );
        // Another document with the same answer, or another chunk of the source's own document,
        // is no other answer.
        let same = chunk("mainz", "Around 1440, Johannes Gutenberg built a printing press in Mainz.");
        assert_eq!(with(same).unwrap().values.elsewhere_answers, Some(0.97));
        let own = Chunk { doc_id: "press".into(), ..coster };
        assert!(with(own).is_ok());
    }

    #[test]
    fn answerable_questions_must_find_their_source_and_get_a_real_answer() {
        let c = collection_chunks();
        let v = verify(
            &c,
            QueryType::Factual,
            &[0],
            "In which year did Johannes Gutenberg build his printing press?",
            "Around 1440",
        )
        .unwrap();
        assert_eq!(v.applied, ["round_trip", "answerable", "grounded", "reference", "unique_answer"]);
        // The Bible's passage gets 0.97 (it holds "Bible" and 1455) but does not hold the judge's
        // answer from it, "Around 1440": no other answer.
        assert_eq!(v.values.elsewhere_answers, Some(0.97));
        assert_eq!((v.values.bm25_rank, v.values.embedding_rank), (Some(1), Some(1)));
        assert_eq!((v.values.answerable, v.values.reference), (Some(0.97), Some(0.9)));
        assert_eq!((v.values.judge_answer.as_deref(), v.values.answer_agreement), (Some("Around 1440"), Some(1.0)));
        // A year the source does not give passes the judge's P(Yes) (it holds a digit) and the
        // grounding bar ("In" is in the source: half its words), not the number rule.
        let press = "In which year did Johannes Gutenberg build his printing press?";
        let why = verify(&c, QueryType::Factual, &[0], press, "In 1450").unwrap_err();
        assert_eq!(why, "the reference answer is not grounded in the source: it gives 1450, which the source does not");
        // Nor a question that gives one: the source has 1440. A yes/no question may: its answer
        // is then "no".
        let built = "What did Johannes Gutenberg build in Mainz in 1450?";
        let why = verify(&c, QueryType::Factual, &[0], built, "A printing press").unwrap_err();
        assert_eq!(why, "the source does not answer it: the question says 1450, which the source does not");
        let built = "Did Johannes Gutenberg build a printing press in Mainz in 1450?";
        assert!(!verify(&c, QueryType::YesNo, &[0], built, "no").is_err_and(|why| why.contains("1450")));
        // A reference that only names what the question names says nothing.
        let why = verify(&c, QueryType::Factual, &[0], press, "The printing press of Johannes Gutenberg").unwrap_err();
        assert_eq!(why, "the reference answer is not grounded in the source: it only repeats the question's words");
        // A reference taken from the source passes every check the judge is shown it in, not the
        // judge's own answer: this scripted judge finds no year of printing ("not stated").
        let why = verify(&c, QueryType::Factual, &[1], "In which year was the Gutenberg Bible printed?", "By 1455")
            .unwrap_err();
        assert_eq!(
            why,
            "the reference does not answer the question: from the source the judge answers \"not stated\" (agreement 0.00)"
        );
        // A question that names nothing does not find its source: no word in common (BM25), and
        // tied with every chunk at cosine 0 (rank 7).
        let why = verify(&c, QueryType::Factual, &[0], "When did that happen?", "Around 1440").unwrap_err();
        assert_eq!(
            why,
            "the question does not find its source in the collection (BM25 rank none, embedding rank 7; at most 2 needed)"
        );
        // A reference that is a related fact, not the year asked for, fails.
        let why = verify(
            &c,
            QueryType::Factual,
            &[0],
            "In which year did Johannes Gutenberg build his printing press?",
            "In Mainz",
        )
        .unwrap_err();
        assert_eq!(why, "the reference does not answer the question (P(yes) 0.30)");
    }

    #[test]
    fn a_multi_hop_question_one_source_answers_becomes_factual() {
        let c = collection_chunks();
        let v = verify(
            &c,
            QueryType::MultiHop,
            &[5, 6],
            "What was the name of the Apollo 11 lunar module, flown in 1969?",
            "Eagle",
        )
        .unwrap_err();
        // The reference has no digit, so the scripted judge rejects it; with a year it passes.
        assert_eq!(v, "the reference does not answer the question (P(yes) 0.30)");
        let v = verify(
            &c,
            QueryType::MultiHop,
            &[5, 6],
            "Which Apollo 11 lunar module landed on the Moon?",
            "Eagle, in 1969",
        )
        .unwrap();
        assert_eq!((v.query_type, v.retyped.as_deref()), (QueryType::MultiHop, None));
        let v = verify(
            &c,
            QueryType::MultiHop,
            &[5, 6],
            "Which lunar module of Apollo 11 did Neil Armstrong fly?",
            "Eagle 11",
        )
        .unwrap();
        assert_eq!(v.query_type, QueryType::Factual);
        assert_eq!(v.sources, [6]);
        assert_eq!(v.retyped.as_deref(), Some("multi_hop -> factual: eagle holds the answer alone"));
    }

    #[test]
    fn a_multiple_choice_reference_must_be_the_option_closest_to_the_judges_own_answer() {
        let c = collection_chunks();
        let item = |options: [&str; 4], answer: &str| serde_json::json!({"question": "Which book was printed in Mainz by 1455?", "options": options, "answer": answer});
        // The right option at A: the judge picks it when shown the options and names it itself.
        let right = ["The Gutenberg Bible", "Hamlet", "Paradise Lost", "The Odyssey"];
        let v = verify_item(&c, QueryType::MultipleChoice, &[1], item(right, "A")).unwrap();
        assert_eq!(v.applied, ["round_trip", "answerable", "grounded", "reference", "unique_answer"]);
        assert_eq!((v.values.reference, v.values.answer_agreement), (Some(0.7), Some(1.0)));
        // A right option the source does not hold: {hamlet}, not in the source.
        let unsaid = ["Hamlet", "The Gutenberg Bible", "Paradise Lost", "The Odyssey"];
        let why = verify_item(&c, QueryType::MultipleChoice, &[1], item(unsaid, "A")).unwrap_err();
        assert_eq!(
            why,
            "the reference answer is not grounded in the source: \"Hamlet\" says what the source does not (support 0.00)"
        );
        // One that repeats the question: {book, print, mainz, 1455} are all asked.
        let asked = ["A book printed in Mainz", "The Gutenberg Bible", "Paradise Lost", "The Odyssey"];
        let why = verify_item(&c, QueryType::MultipleChoice, &[1], item(asked, "A")).unwrap_err();
        assert!(why.ends_with("it only repeats the question's words"), "{why}");
        // A wrong option at A whose words the source holds ({movabl, type}): the judge shown the
        // options agrees with it, its own answer does not.
        let wrong = ["Movable type", "The Gutenberg Bible", "Paradise Lost", "The Odyssey"];
        let why = verify_item(&c, QueryType::MultipleChoice, &[1], item(wrong, "A")).unwrap_err();
        assert_eq!(
            why,
            "the reference does not answer the question: from the source the judge answers \"The Gutenberg Bible\", which does not pick A (A 0.00; B 1.00)"
        );
        // The right option at B: the judge's pick among the options (A) already fails it.
        let why = verify_item(&c, QueryType::MultipleChoice, &[1], item(wrong, "B")).unwrap_err();
        assert!(why.starts_with("the reference does not answer the question: the judge picks A"), "{why}");
    }

    #[test]
    fn an_answer_the_source_lists_with_others_is_not_the_one_answer() {
        let c = vec![
            chunk(
                "apollo",
                "The missions that landed humans on the Moon included Apollo 11, Apollo 12, and Apollo 14.",
            ),
            chunk("rust", "Rust prevents data races with ownership, borrowing, and lifetimes."),
            chunk("reef", "The Great Barrier Reef lies off the coast of Queensland in Australia."),
        ];
        // The judge names all three listed missions; the reference one of them.
        let why = verify(&c, QueryType::Factual, &[0], "Which Apollo mission landed humans on the Moon?", "Apollo 11")
            .unwrap_err();
        assert_eq!(
            why,
            "the reference does not answer the question: it gives one of several answers, the source lists \"Apollo 12\" with it and the judge answers \"Apollo 11, Apollo 12 and Apollo 14\""
        );
        // A reference naming all three passes.
        let all = "Apollo 11, Apollo 12 and Apollo 14";
        assert!(verify(&c, QueryType::Factual, &[0], "Which Apollo mission landed humans on the Moon?", all).is_ok());
        // A wrong option the source lists with the right one: two options are right.
        let item = |options: [&str; 4]| serde_json::json!({"question": "Which Rust feature prevents data races?", "options": options, "answer": "A"});
        let why =
            verify_item(&c, QueryType::MultipleChoice, &[1], item(["Ownership", "Green threads", "Borrowing", "A GC"]))
                .unwrap_err();
        assert_eq!(
            why,
            "the reference does not answer the question: more than one option is right, the source lists \"Ownership\" together with \"Borrowing\""
        );
        // Distractors the source does not list pass this check (and fail later on the scripted
        // judge's "not stated").
        let why = verify_item(
            &c,
            QueryType::MultipleChoice,
            &[1],
            item(["Ownership", "Green threads", "Reference counting", "A GC"]),
        )
        .unwrap_err();
        assert!(
            why.starts_with(
                "the reference does not answer the question: from the source the judge answers \"not stated\""
            ),
            "{why}"
        );
    }

    #[test]
    fn a_why_question_answered_with_a_definition_is_caught() {
        let why = "Why does evaporation occur?";
        assert!(defines_for_why(why, "Evaporation is the process by which water changes from liquid to gas."));
        assert!(defines_for_why(why, "It refers to water turning into vapour."));
        assert!(!defines_for_why(why, "Because the sun heats the water at the surface."));
        assert!(!defines_for_why(why, "Evaporation is the process that occurs because the sun heats water."));
        assert!(!defines_for_why(why, "Heat from the sun gives water molecules enough energy to escape."));
        assert!(!defines_for_why(why, "The main reason is the heat of the sun."));
        assert!(!defines_for_why("What is evaporation?", "Evaporation is the process by which water changes."));
        let zh = "为什么脑机接口适合高精度控制？";
        assert!(defines_for_why(zh, "侵入式脑机接口是指将电极植入大脑的技术。"));
        assert!(!defines_for_why(zh, "因为侵入式脑机接口是一种信号更清晰的技术。"));
        assert!(!defines_for_why(zh, "电极直接采集神经元信号，精度更高。"));
        assert!(!defines_for_why("什么是脑机接口？", "脑机接口是指连接大脑与设备的技术。"));
    }

    #[test]
    fn answers_agree_by_their_content_words_beyond_the_question() {
        let q = "In which year did Johannes Gutenberg build his printing press?";
        // {1440} against {built, 1440, mainz}: the one word of the shorter is in the longer.
        assert_eq!(answer_agreement(q, "1440", "Gutenberg built it around 1440 in Mainz"), 1.0);
        // Words of the question (stemmed: "built" is not "build", "printing" is "print") do not
        // count: {built, 1450} against {built, 1440} would share "built", but numbers decide.
        assert_eq!(answer_agreement(q, "He built it in 1450", "He built it in 1440"), 0.0);
        assert_eq!(answer_agreement(q, "1,440", "1440"), 1.0);
        // {metal, type} against {movable, metal, type, mainz}: 2 of 2.
        let how = "How did Johannes Gutenberg print books?";
        assert_eq!(answer_agreement(how, "with metal type", "using movable metal type in Mainz"), 1.0);
        // {wooden, block} against {movable, metal, type}: none.
        assert_eq!(answer_agreement(how, "with wooden blocks", "using movable metal type"), 0.0);
        // {print, press, paper} against {press, ink}: 1 of 2 ("printed" stems to "print").
        assert_eq!(answer_agreement("What did he use?", "printed with a press on paper", "a press and ink"), 0.5);
        // The answer is named in the question: the question's words count after all.
        let either = "Was the Gutenberg Bible printed in Mainz or in Paris?";
        assert_eq!(answer_agreement(either, "Mainz", "In Mainz."), 1.0);
        assert_eq!(answer_agreement(either, "Paris", "Mainz"), 0.0);
        assert_eq!(answer_agreement(q, "", "1440"), 0.0);
        // Chinese: a character is a word; 的, 是 and 年 are stop words.
        let zh = "贵州茅台2023年的营业收入是多少？";
        // {1505, 亿, 元} against {约, 1505, 亿, 元}: 3 of 3.
        assert_eq!(answer_agreement(zh, "1505亿元", "约1505亿元"), 1.0);
        // Units shared, numbers not: they disagree.
        assert_eq!(answer_agreement(zh, "1505亿元", "1276亿元"), 0.0);
        // {海} (上 is a stop word) against {北, 京}: none.
        assert_eq!(answer_agreement("茅台的总部在哪里？", "上海", "北京"), 0.0);
        assert!(not_stated("Not stated.") && not_stated("未提及") && !not_stated("1440"));
    }

    #[test]
    fn a_reference_must_say_more_than_its_question_and_each_sentence_what_its_source_says() {
        let why = "Why is RuBisCO described as the most abundant protein on Earth?";
        // Every content word of these is in the question ("described" and "describe" share the
        // stem "describ"; "is", "the", "on" are stop words).
        assert!(restates(why, "RuBisCO is the most abundant protein on Earth."));
        assert!(restates(why, "It is described as the most abundant protein."));
        assert!(!restates(why, "It fixes carbon dioxide in every plant."));
        assert!(restates("什么是营业收入？", "营业收入"));
        assert!(!restates("贵州茅台的营业收入是多少？", "1505亿元"));
        let source = "The enzyme RuBisCO fixes carbon dioxide onto a five-carbon sugar. RuBisCO is often \
                      described as the most abundant protein on Earth.";
        // Sentence 1: new words {enzym, fix, carbon, dioxid} all in the source. Sentence 2: new
        // words {process, essenti, plant's, growth, surviv} ("so" and "most" are stop words), none
        // in the source: support 0 of 5.
        let made_up = "The enzyme fixes carbon dioxide. This process is essential for the plant's growth and \
                       survival, so RuBisCO is the most abundant protein on Earth.";
        let (sentence, support) = unsupported_sentence(why, made_up, &[source], 0.5).unwrap();
        assert!(sentence.starts_with("This process is essential"), "{sentence}");
        assert_eq!(support, 0.0);
        assert_eq!(unsupported_sentence(why, "The enzyme fixes carbon dioxide.", &[source], 0.5), None);
        // {fix, carbon, sugar, quickli}: 3 of 4 in the source, above one half.
        assert_eq!(unsupported_sentence(why, "It quickly fixes carbon onto sugar.", &[source], 0.5), None);
        // {fix, carbon, nitrogen, quickli}: 2 of 4, at the bar: kept; {quickli, slowli, take,
        // nitrogen}: 0 of 4.
        assert_eq!(unsupported_sentence(why, "It quickly fixes carbon and nitrogen.", &[source], 0.5), None);
        assert_eq!(
            unsupported_sentence(why, "Carbon. It quickly and slowly takes nitrogen.", &[source], 0.5),
            Some(("It quickly and slowly takes nitrogen.", 0.0))
        );
        // A sentence that only repeats the question is not judged here (restates does that).
        assert_eq!(unsupported_sentence(why, "RuBisCO is the most abundant protein.", &[source], 0.5), None);
        // A made-up clause after a copied one: {enzym, fix, carbon, dioxid, speed, plant, growth}
        // has 4 of 7 in the source, the sentence passes; the clause "which speeds up plant growth"
        // has {speed, plant, growth}, none in the source.
        let clause = "The enzyme fixes carbon dioxide, which speeds up plant growth.";
        assert_eq!(unsupported_sentence(why, clause, &[source], 0.5), Some(("which speeds up plant growth.", 0.0)));
        // A one-word clause is not judged alone ({1455} is not in the source).
        assert_eq!(unsupported_sentence(why, "In 1455, the enzyme fixes carbon dioxide.", &[source], 0.5), None);
        // Chinese: a character is a word, a number one word.
        let zh_source = "贵州茅台2023年营业收入1505亿元，同比增长18%。";
        let zh_question = "贵州茅台2023年的营业收入是多少？";
        assert_eq!(unsupported_sentence(zh_question, "1505亿元。", &[zh_source], 0.5), None);
        // {1505, 亿, 元} then {利, 润, 翻, 倍}: none of the second in the source.
        assert_eq!(
            unsupported_sentence(zh_question, "1505亿元。利润翻倍。", &[zh_source], 0.5),
            Some(("利润翻倍。", 0.0))
        );
    }

    #[test]
    fn a_number_of_three_digits_or_more_must_be_in_the_sources() {
        // The two made-up years of a Chinese run: the source says 今年3月1日 and 5月.
        assert_eq!(unheld_number("2020年3月1日", &["并于今年3月1日起实施临时停工停产"]), Some("2020".into()));
        assert_eq!(unheld_number("在2019年5月，极氪品牌的销量是多少？", &["极氪5月销量18,908辆"]), Some("2019".into()));
        // Thousands separators on either side; a decimal's parts; two digits are not judged.
        assert_eq!(unheld_number("18,908辆", &["极氪5月销量18908辆"]), None);
        assert_eq!(unheld_number("18908 cars", &["sold 18,908 cars"]), None);
        assert_eq!(unheld_number("146.67%", &["累计最大涨幅为146.67%"]), None);
        assert_eq!(unheld_number("12艘, 99%", &["打造十二艘新的攻击型核潜艇"]), None);
        // The second source may hold it; the first number missing is named.
        assert_eq!(unheld_number("1440 and 1455", &["around 1440", "by 1455"]), None);
        assert_eq!(unheld_number("1440, 1456 and 1457", &["around 1440", "by 1455"]), Some("1456".into()));
    }

    #[test]
    fn clauses_are_cut_at_commas_and_before_which_while_whereas() {
        assert_eq!(
            clauses("It is a transform boundary, also known as a strike-slip fault, where plates slide."),
            ["It is a transform boundary,", "also known as a strike-slip fault,", "where plates slide."]
        );
        assert_eq!(
            clauses("Infiltration soaks into soil While runoff flows; it returns which helps"),
            ["Infiltration soaks into soil", "While runoff flows;", "it returns", "which helps"]
        );
        // Digits around a comma or colon: one number, one time.
        assert_eq!(clauses("10,100,000股"), ["10,100,000股"]);
        assert_eq!(clauses("At 9:30, trading opened."), ["At 9:30,", "trading opened."]);
        assert_eq!(
            clauses("营业收入1505亿元，同比增长18%；利润、现金流均增长。"),
            ["营业收入1505亿元，", "同比增长18%；", "利润、", "现金流均增长。"]
        );
        assert_eq!(clauses("Whichever comes first."), ["Whichever comes first."]);
    }

    #[test]
    fn ranks_count_ties_against_the_source() {
        let scores = [(0, 0.9), (1, 0.5), (2, 0.5), (3, 0.5), (4, 0.1)];
        assert_eq!(rank_with_ties(&scores, &[0]), Some(1));
        // One chunk above it and two tied with it: rank 4, not 2.
        assert_eq!(rank_with_ties(&scores, &[2]), Some(4));
        // The better of two sources counts.
        assert_eq!(rank_with_ties(&scores, &[4, 1]), Some(4));
        assert_eq!(rank_with_ties(&scores, &[7]), None);
    }

    #[test]
    fn word_recall_by_hand() {
        let src = ["毕昇发明了活字印刷术。", "Gutenberg built a press."];
        // 毕 昇: both in the source; "Gutenberg press" 2 of 2; "Gutenberg's wooden press": the
        // apostrophe joins "gutenberg's" (not in the source), so 1 of 3.
        assert_eq!(word_recall("毕昇", &src), 1.0);
        assert_eq!(word_recall("Gutenberg press", &src), 1.0);
        approx::assert_abs_diff_eq!(word_recall("Gutenberg's wooden press", &src), 1.0 / 3.0, epsilon = 1e-12);
        assert_eq!(word_recall("", &src), 0.0);
    }

    #[test]
    fn a_multi_hop_answer_needs_a_part_from_each_source() {
        let moon = "Apollo 11 landed the first humans on the Moon in July 1969.";
        let module = "The lunar module of Apollo 11 was called Eagle; Neil Armstrong flew it.";
        // "Eagle" is only in the second source, "1969" only in the first: both carry a part.
        let q = "In which year did the lunar module Eagle's mission land, and who flew it?";
        assert_eq!(multi_hop_parts(q, "In 1969, flown by Neil Armstrong", &[moon, module]), Ok(()));
        // The answer's words ("eagle") are all in the second source: it stands alone.
        let q = "What was the name of the lunar module that landed on the Moon?";
        assert_eq!(multi_hop_parts(q, "Eagle", &[moon, module]), Err(1));
        // Words both sources hold ("apollo", "11") carry no part; stop words and words of the
        // question do not count either: nothing is left, and the first source is kept.
        assert_eq!(multi_hop_parts("Which mission?", "the Apollo 11", &[moon, module]), Err(0));
        // One source is never multi-hop.
        assert_eq!(multi_hop_parts(q, "Eagle 1969", &[module]), Err(0));
    }

    #[test]
    fn a_chinese_multi_hop_answer_is_split_by_characters() {
        let a = "毕昇在北宋发明了活字印刷术。";
        let b = "活字用胶泥制成，烧硬后使用。";
        // 北 (only in a) and 泥 (only in b) are parts of the answer not in the question.
        assert_eq!(multi_hop_parts("活字印刷术何时发明、活字用什么做？", "北宋，胶泥", &[a, b]), Ok(()));
        assert_eq!(multi_hop_parts("活字印刷术是谁发明的？", "毕昇", &[a, b]), Err(0));
    }
}
