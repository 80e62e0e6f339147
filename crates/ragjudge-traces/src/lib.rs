//! Production traces read into evaluation records.
//!
//! Data flows one way: a trace file is decoded into spans ([`otlp`], [`langfuse`]), each span is
//! read through the attribute conventions it follows into one neutral [`Span`] ([`convention`]:
//! OpenTelemetry GenAI, OpenInference, OpenLLMetry's flat prompt attributes), and the spans of a
//! trace become one [`ragjudge_core::Record`] ([`group`]): the question, the answer, the passages
//! retrieved, the agent's steps, earlier turns of its conversation, and `meta` with the trace and
//! session ids, model, latency, token counts and cost. [`job`] is `ragjudge import`.
//!
//! A span that cannot be read is reported with its trace and span id and left out; the rest of
//! its trace is still read. A trace without a question or an answer is reported and skipped.
#![deny(missing_docs)]
// Library code returns errors instead of panicking (tests may unwrap: clippy.toml).
#![deny(clippy::unwrap_used, clippy::expect_used)]

pub mod assemble;
pub mod convention;
mod error;
pub mod group;
pub mod job;
pub mod langfuse;
pub mod monitor;
pub mod otlp;
pub mod span;

pub use error::{Issue, TraceError};
pub use group::{records_from_spans, records_with_sessions, Grouped, Sessions};
pub use job::{import, read_spans, ImportSettings, ImportSummary, TraceFormat};
pub use span::{Document, Message, Span, SpanKind};
