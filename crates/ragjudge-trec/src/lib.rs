//! TREC RAG metrics as in Open RAG Eval: UMBRELA passage grades with Precision@K, AP@K
//! and MRR; the AutoNuggetizer's All, Vital, Weighted and Strict scores; citation support
//! precision, recall and F1; and Open RAG Eval's results CSV layout. Every judgement is a judge
//! call (cached by the judge), parsed tolerantly and retried; an output that stays unparseable is
//! recorded as invalid, never scored as 0.
// Library code returns errors instead of panicking (tests may unwrap: clippy.toml).
#![deny(clippy::unwrap_used, clippy::expect_used)]

pub mod answer;
pub mod citations;
pub mod conversation;
pub mod diagnostics;
pub mod error;
pub mod judging;
pub mod metric;
pub mod nuggets;
pub mod open_rag_csv;
pub mod parse;
pub mod prompts;
pub mod umbrela;

pub use error::{ParseError, TrecError};
pub use metric::{Parts, TrecDetail, TrecMetric, TrecOptions};
pub use open_rag_csv::OpenRagCsvWriter;
