//! Analyses of scored runs: where a system fails, and whether the difference is real
//! (HCAT §6.2, weakness identification).
#![deny(missing_docs)]

pub mod perturb;
pub mod weakness;

pub use weakness::{analyse, CellReport, SliceReport, WeaknessError, WeaknessReport, WeaknessRow, WeaknessSettings};
