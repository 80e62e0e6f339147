//! Lexical metrics: ROUGE, BLEU, chrF, SQuAD token F1 / exact match, RAKE, CIU and retrieval metrics.
#![deny(missing_docs)]
