//! A scoring server over the ragjudge engine (`ragjudge serve`).
//!
//! Routes: `POST /v1/score` (records in, one row per record out, the columns `ragjudge score`
//! writes), `POST /v1/judge` (one DICE pairwise judgement through the configured judge),
//! `GET /healthz`, `GET /metrics` (Prometheus text) and `GET /openapi.json`; with traces on,
//! `POST /v1/traces` (OTLP/HTTP, protobuf or JSON), scored in the background with drift alerts.
//!
//! Metrics and models are chosen and loaded once, when the [`App`] is built; scoring and judging
//! run on the blocking thread pool (the engine's own worker pool inside), never on the async
//! executor threads. Every job route is bounded: at most `max_inflight` jobs run and at most
//! `queue` more wait; a request beyond that is answered 429 with `Retry-After` at once. Bodies
//! over `max_body` bytes get 413, malformed or mistyped JSON 400 / 422 with a one-line
//! `{"error": ...}` naming the record index and field (an unknown metric in `"metrics"` too), a
//! body not received within `body_timeout` 408, a request past its deadline 503. A failure on
//! one record is reported in that record's row, never as a 500.
//!
//! Connections are bounded too ([`serve`]): at most `max_connections` open, each closed when it
//! does not send a request header within `header_timeout`, and shutdown waits for the requests in
//! flight at most `shutdown_grace`.
//!
//! ```no_run
//! use ragjudge_serve::{App, Limits, Scorer};
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let scorer = Scorer::from_names(&["lexical", "ciu"], Default::default(), Default::default(), None)?;
//! let app = App::new(scorer, None, Limits::default())?;
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! ragjudge_serve::serve(listener, app, ragjudge_serve::shutdown_signal()).await?;
//! # Ok(()) }
//! ```
#![deny(missing_docs)]
// Library code returns errors instead of panicking (tests may unwrap: clippy.toml).
#![deny(clippy::unwrap_used, clippy::expect_used)]

mod admission;
pub mod annotate;
mod app;
mod error;
mod judge;
mod metrics;
mod score;
mod server;
mod traces;

pub use admission::{Admission, Load};
pub use app::{router, App, Limits, OPENAPI};
pub use error::{ApiError, ServeError};
pub use judge::{parse_judge_request, JudgeRequest, JudgeResponse, JudgeService, JudgeSettings};
pub use metrics::{set_heap_probe, HeapProbe, ServerMetrics};
pub use score::{parse_score_request, ScoreRequest, ScoreResponse, Scorer, Selection};
pub use server::{serve, serve_router, shutdown_signal};
pub use traces::{group_of, Accepted, TraceIngest, TraceSettings};
