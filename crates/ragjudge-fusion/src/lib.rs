//! Learned fusion of many cheap metric scores into one score (the CIU paper's MoE-CIU,
//! sections 3.3, 5.2 and 6; see `docs/papers.md`), with the paper's static baselines: an SVR over
//! features chosen by one of seventeen feature-selection strategies.
//!
//! Data flows one way: a [`dataset::Dataset`] (metric columns joined to human labels) -> a fitted
//! model -> per-record scores (and, for MoE-CIU, per-record gate weights that say which metric
//! drove the score).

pub mod dataset;
pub mod error;
pub mod linear;

pub use error::FusionError;
