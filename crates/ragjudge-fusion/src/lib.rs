//! Learned fusion of many cheap metric scores into one score (the CIU paper's MoE-CIU,
//! sections 3.3, 5.2 and 6; see `docs/papers.md`), with the paper's static baselines: an SVR over
//! features chosen by one of seventeen feature-selection strategies, and least squares.
//!
//! Data flows one way: a [`dataset::Dataset`] (metric columns joined to human labels) -> a fitted
//! [`model::FusedModel`] -> per-record scores (and, for MoE-CIU, the gate's weight on each
//! metric for the record). [`job`] fits and applies a model as the command line and Python do;
//! [`study`] runs the paper's evaluation protocol.
// Library code returns errors instead of panicking (tests may unwrap: clippy.toml).
#![deny(clippy::unwrap_used, clippy::expect_used)]

pub mod bins;
pub mod dataset;
pub mod error;
pub mod job;
pub mod linear;
pub mod model;
pub mod moe;
pub mod nnls;
pub mod ruber;
pub mod select;
pub mod shift;
pub mod shrink;
pub mod study;
pub mod svr;
pub mod transfer;

pub use error::FusionError;
