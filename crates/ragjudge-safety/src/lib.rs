//! Risk and safety metrics (HCAT §4): PII detection with transparent detectors and an
//! NER model, PII leakage from the answer, toxicity from a judge's label probabilities, and
//! counterfactual bias probes.
//!
//! Data flow: [`scan::PiiScanner`] finds PII in one text; [`metric::SafetyMetric`] scores records
//! into `safety_*` columns; [`probes`] writes demographic-swap variants of records and compares
//! the variants' scores and answers with the originals'.
// Library code returns errors instead of panicking (tests may unwrap: clippy.toml).
#![deny(clippy::unwrap_used, clippy::expect_used)]

pub mod error;
pub mod leakage;
pub mod metric;
pub mod pii;
pub mod probes;
pub mod scan;
pub mod toxicity;

pub use error::SafetyError;
pub use metric::{SafetyMetric, SafetyOptions};
pub use pii::{Finding, PiiType, Validation};
pub use scan::PiiScanner;
