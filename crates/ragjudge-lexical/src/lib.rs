//! Lexical metrics: ROUGE, BLEU, chrF, METEOR, SQuAD token F1 / exact match, RAKE, CIU and retrieval metrics (graded contexts and qrels),
//! with Chinese tokenisers (jieba, sacrebleu `zh`, CMRC 2018) chosen per text by [`lang`].
#![deny(missing_docs)]
// Library code returns errors instead of panicking (tests may unwrap: clippy.toml).
#![deny(clippy::unwrap_used, clippy::expect_used)]

pub mod answer_overlap;
pub mod bleu;
pub mod chrf;
pub mod citations;
pub mod ciu;
pub mod cmrc;
pub mod corpus;
pub mod lang;
pub mod meteor;
pub mod porter;
pub mod premise;
pub mod qrels;
pub mod rake;
pub mod refusal;
pub mod retrieval;
pub mod rouge;
pub mod rouge_zh;
pub mod segment;
pub mod squad;
pub mod stopwords;
pub mod trajectory;
