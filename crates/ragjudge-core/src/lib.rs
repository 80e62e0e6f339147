//! Records, readers/writers, text utilities and the [`Metric`] trait shared by every ragjudge crate.
//!
//! Data flows one way: records are read here, scored by metric crates, aggregated by
//! `ragjudge-stats`, and reported by the CLI.
#![deny(missing_docs)]
// Library code returns errors instead of panicking (tests may unwrap: clippy.toml).
#![deny(clippy::unwrap_used, clippy::expect_used)]

pub mod bom;
pub mod error;
pub mod metric;
pub mod numeric;
#[cfg(feature = "parquet")]
pub mod parquet_file;
pub mod read;
pub mod record;
pub mod shard;
pub mod table;
pub mod text;

pub use error::InputError;
pub use metric::{Metric, MetricError, MetricOutput};
pub use read::{record_from_json, Duplicate, DuplicateKeys, Format, ReadOptions, RecordReader};
pub use record::{known_relevant, Context, Record, Step, Turn};
pub use shard::{stable_hash, Shard, ShardError};
pub use table::{read_table, Table};
