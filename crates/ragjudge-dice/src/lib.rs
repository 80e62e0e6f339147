//! DICE (arXiv:2512.22629): pairwise judging of two RAG answers with a reasoning stage and
//! A/B/Tie probabilities, probabilistic scoring, and tournaments (Swiss with Elo, round robin,
//! Bradley-Terry) over many systems.
#![deny(missing_docs)]
// Library code returns errors instead of panicking (tests may unwrap: clippy.toml).
#![deny(clippy::unwrap_used, clippy::expect_used)]
pub mod agreement;
pub mod baseline;
pub mod bradley_terry;
pub mod calibration;
pub mod claims;
pub mod compare;
pub mod elo;
pub mod judgement;
pub mod labels;
pub mod leaderboard;
pub mod length_control;
pub mod meta;
pub mod pair;
pub mod pair_score;
pub mod ppi;
pub mod prompts;
pub mod protocol;
pub mod ragchecker;
pub mod run;
pub mod scoring;
pub mod swiss;
#[cfg(test)]
mod test_support;
pub mod tournament;
pub mod traces;
pub mod trust;
