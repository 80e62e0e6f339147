//! Reports of ragjudge: run summaries read back from the files the commands write
//! ([`summary`]), and the gate that CI runs on them ([`gate`], with [`junit`] XML).
#![deny(missing_docs)]

pub mod gate;
pub mod junit;
pub mod summary;

pub use gate::{Check, CheckOutcome, Gate, GateError, GateReport, Statistic};
pub use summary::{read_summary, Summary};
