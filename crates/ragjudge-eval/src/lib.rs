//! The evaluation engine of ragjudge: one place that the command-line tool, the Python package
//! and the scoring server call.
//!
//! Data flows one way: records are read ([`ragjudge_core::RecordReader`]), scored by the metrics
//! of the chosen [`families`] into one row per record, each row goes to a [`RowSink`] (CSV, JSONL,
//! memory) and to the cross-record [`stages`] (consistency across repeated runs, the Open RAG
//! Eval CSV), and every row is folded into per-system [`summary`] statistics with bootstrap
//! confidence intervals.
//!
//! ```no_run
//! use ragjudge_eval::{EvalSettings, Evaluator, MemorySink, NoProgress};
//! use ragjudge_eval::families::{build_metrics, MetricSettings};
//! use ragjudge_eval::models::{ModelSet, ModelSettings};
//!
//! let models = ModelSet::new(ModelSettings::default());
//! let metrics = build_metrics(&["lexical", "ciu"], &MetricSettings::default(), &models)?;
//! let evaluator = Evaluator::new(metrics, EvalSettings::default())?;
//! let mut rows = MemorySink::default();
//! let report = evaluator.evaluate_files(&["runs.jsonl".into()], Some(&mut rows), Vec::new(), &NoProgress)?;
//! println!("{} records, first row {:?}", report.summary.records, rows.rows.first());
//! # Ok::<(), ragjudge_eval::EvalError>(())
//! ```
#![deny(missing_docs)]
// Library code returns errors instead of panicking (tests may unwrap: clippy.toml).
#![deny(clippy::unwrap_used, clippy::expect_used)]

#[cfg(feature = "parquet")]
pub mod batches;
pub mod conversations;
pub mod error;
pub mod evaluator;
pub mod families;
pub mod merge;
pub mod models;
pub mod parquet;
pub mod ppi;
pub mod progress;
pub mod scores;
pub mod sink;
pub mod stages;
pub mod summary;

/// The repository's CONTRIBUTING.md, whose worked example (a new metric family) is compiled and
/// run as a doc-test.
#[cfg(doctest)]
#[doc = include_str!("../../../CONTRIBUTING.md")]
pub struct ContributingGuide;

pub use error::EvalError;
pub use evaluator::{EvalReport, EvalRun, EvalSettings, Evaluator};
pub use families::fit_ruber;
pub use merge::{merge_shards, read_rows, MergeReport, RowTable, ShardManifest};
pub use progress::{NoProgress, Progress};
pub use sink::{commit_output, create_file_sink, row_object, CsvSink, JsonlSink, MemorySink, OwnedRow, Row, RowSink};
pub use stages::{Stage, StageReport};
pub use summary::{render_table, ColumnReport, Summarizer, SummaryReport, SummaryState, SystemReport};
