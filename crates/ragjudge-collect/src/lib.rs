//! Running the system under test on a question set (HCAT section 2, the step between test
//! generation and scoring): [`run::collect`] asks a [`Target`] every question with bounded
//! concurrency, per-call timeouts and retries, stores every answer in the call cache as soon as
//! it arrives (a killed run resumes without asking a question twice) and records every failed
//! question with its reason. The turns of a conversation ([`conversation`]) are asked in order,
//! each with the history of the conversation so far, the target's own answers included.
//!
//! Targets: an HTTP endpoint ([`http`]), a program ([`command`]), and the built-in reference
//! RAG ([`rag`]: BM25 through tantivy, an optional embedding re-rank, an answer with `[n]`
//! citations from a judge model), which with [`reference`] also gives the three baseline tiers
//! of DICE's baseline mode.
#![deny(missing_docs)]
// Library code returns errors instead of panicking (tests may unwrap: clippy.toml).
#![deny(clippy::unwrap_used, clippy::expect_used)]

pub use ragjudge_testgen::bm25;
pub mod command;
pub mod conversation;
pub mod error;
pub mod http;
pub mod job;
pub mod questions;
pub mod rag;
pub mod reference;
pub mod run;
pub mod target;
pub mod template;

pub use error::CollectError;
pub use target::{Answer, CallError, Target};
