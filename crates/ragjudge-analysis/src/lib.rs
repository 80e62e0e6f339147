//! Analyses of scored runs: where a system fails, and whether the difference is real
//! (HCAT §6.2, weakness identification), and how robust it is to input variations, adversarial
//! contexts and out-of-distribution queries (HCAT §6.1).
#![deny(missing_docs)]
// Library code returns errors instead of panicking (tests may unwrap: clippy.toml).
#![deny(clippy::unwrap_used, clippy::expect_used)]

pub mod adversarial;
pub mod contradiction;
mod files_error;
pub mod ood;
pub mod paraphrase;
pub mod perturb;
pub mod robustness;
#[cfg(test)]
mod test_support;
pub mod weakness;

pub use weakness::{
    analyse, analyse_table, CellReport, SliceReport, StrataTable, WeaknessError, WeaknessReport, WeaknessRow,
    WeaknessSettings,
};
