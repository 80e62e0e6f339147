//! Records, readers/writers, text utilities and the [`Metric`] trait shared by every ragjudge crate.
//!
//! Data flows one way: records are read here, scored by metric crates, aggregated by
//! `ragjudge-stats`, and reported by the CLI.
#![deny(missing_docs)]

pub mod metric;
pub mod record;

pub use metric::{Metric, MetricOutput};
pub use record::{Context, Record, Turn};
