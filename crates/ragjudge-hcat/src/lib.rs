//! HCAT functionality metrics (HCAT §3): context relevancy, groundedness (embedding and
//! NLI), completeness with the Wasserstein distance, answer relevancy and a RAGAS-like mean.
//!
//! Every metric works on sentences ([`ragjudge_core::text::split_sentences`]) and their embeddings:
//! for each sentence of one side, `S_max` is its best cosine similarity to any sentence of the other
//! side, and the per-sentence `S_max` are aggregated by a mean, a weighted mean or a minimum.
//! [`HcatMetric`] computes them all in one pass, embedding every sentence of a batch in one call.
//!
//! Choices the paper leaves open are documented where they are made: the weights of the weighted
//! means ([`similarity::word_weights`]), the signed distance of an NLI model
//! ([`nli::distance_from_logits`]) and of a judge ([`nli::distance_from_label_probs`]), and the
//! premise of NLI ([`Premise`]).
// Library code returns errors instead of panicking (tests may unwrap: clippy.toml).
#![deny(clippy::unwrap_used, clippy::expect_used)]

pub mod error;
pub mod metric;
pub mod nli;
pub mod sentences;
pub mod similarity;
pub mod wasserstein;

pub use error::HcatError;
pub use metric::{HcatMetric, COLUMNS};
pub use nli::{Entailment, NliSource, Premise};
pub use sentences::RecordSentences;
pub use similarity::{Aggregates, MaxMatch, SimMatrix};
pub use wasserstein::{exact_uniform, mean_pairwise, Transport};
