//! Model-backed metric families of `score`, one module each: their options and construction.

pub mod hcat;
pub mod safety;
pub mod trec;
