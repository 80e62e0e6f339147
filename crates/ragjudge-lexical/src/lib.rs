//! Lexical metrics: ROUGE, BLEU, chrF, METEOR, SQuAD token F1 / exact match, RAKE, CIU and retrieval metrics (graded contexts and qrels).
#![deny(missing_docs)]

pub mod answer_overlap;
pub mod bleu;
pub mod chrf;
pub mod ciu;
pub mod corpus;
pub mod meteor;
pub mod porter;
pub mod qrels;
pub mod rake;
pub mod retrieval;
pub mod rouge;
pub mod squad;
pub mod stopwords;
