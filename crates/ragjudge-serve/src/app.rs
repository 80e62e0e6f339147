//! The router: routes, limits and the request pipeline of the job routes.

use crate::admission::{Admission, Load};
use crate::error::{ApiError, ServeError};
use crate::judge::{parse_judge_request, JudgeService};
use crate::metrics::ServerMetrics;
use crate::score::{parse_score_request, Scorer};
use crate::traces::{TraceIngest, TraceSettings};
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use serde::Serialize;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The OpenAPI 3 document of every route, served at `GET /openapi.json`.
pub const OPENAPI: &str = include_str!("openapi.json");

/// Route names as the metrics label them.
const SCORE: &str = "/v1/score";
const JUDGE: &str = "/v1/judge";
const TRACES: &str = "/v1/traces";

/// The server's bounds.
#[derive(Debug, Clone, PartialEq)]
pub struct Limits {
    /// Largest request body, in bytes (larger: 413).
    pub max_body: usize,
    /// Jobs running at once per job route.
    pub max_inflight: usize,
    /// Requests waiting for a slot per job route; beyond: 429.
    pub queue: usize,
    /// Deadline of a request, waiting included (past it: 503).
    pub timeout: Duration,
    /// Seconds a refused client is told to wait (`Retry-After`).
    pub retry_after: u64,
    /// Time a connection may take to send a request's header, counted from when the connection
    /// opens or its previous answer was sent (so it is also the idle keep-alive timeout); past
    /// it the connection is closed.
    pub header_timeout: Duration,
    /// Time a job route waits for the whole request body (past it: 408 and the connection closes).
    pub body_timeout: Duration,
    /// Connections open at once; more wait, unaccepted, until one closes.
    pub max_connections: usize,
    /// On shutdown, how long the requests in flight may take before the server exits anyway.
    pub shutdown_grace: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_body: 8 << 20,
            max_inflight: 4,
            queue: 64,
            timeout: Duration::from_secs(30),
            retry_after: 1,
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(15),
            max_connections: 512,
            shutdown_grace: Duration::from_secs(10),
        }
    }
}

impl Limits {
    /// Fails on a bound that would refuse every request or never let go.
    pub fn check(&self) -> Result<(), ServeError> {
        if self.max_body == 0 {
            return Err(ServeError::Settings("--max-body must be at least 1 byte".into()));
        }
        if self.max_inflight == 0 {
            return Err(ServeError::Settings("--max-inflight must be at least 1".into()));
        }
        if self.max_connections == 0 {
            return Err(ServeError::Settings("--max-connections must be at least 1".into()));
        }
        for (flag, value) in [
            ("--timeout", self.timeout),
            ("--header-timeout", self.header_timeout),
            ("--body-timeout", self.body_timeout),
            ("--shutdown-grace", self.shutdown_grace),
        ] {
            if value.is_zero() {
                return Err(ServeError::Settings(format!("{flag} must be positive")));
            }
        }
        Ok(())
    }
}

/// What every request shares: the scorer, the judge, the bounds and the counters.
#[derive(Debug)]
pub struct App {
    scorer: Arc<Scorer>,
    judge: Option<Arc<JudgeService>>,
    limits: Limits,
    score_gate: Admission,
    judge_gate: Admission,
    metrics: ServerMetrics,
    traces: Option<TraceIngest>,
}

impl App {
    /// An app scoring with `scorer` and judging with `judge` (`None`: `/v1/judge` answers 501).
    pub fn new(scorer: Scorer, judge: Option<JudgeService>, limits: Limits) -> Result<Arc<Self>, ServeError> {
        Self::with_traces(scorer, judge, limits, None)
    }

    /// As [`App::new`], receiving traces on `/v1/traces` when `traces` is given (else 501).
    pub fn with_traces(
        scorer: Scorer,
        judge: Option<JudgeService>,
        limits: Limits,
        traces: Option<TraceSettings>,
    ) -> Result<Arc<Self>, ServeError> {
        limits.check()?;
        let scorer = Arc::new(scorer);
        let traces = traces.map(|t| TraceIngest::start(scorer.clone(), t)).transpose().map_err(ServeError::Settings)?;
        Ok(Arc::new(App {
            traces,
            scorer,
            judge: judge.map(Arc::new),
            score_gate: Admission::new(limits.max_inflight, limits.queue),
            judge_gate: Admission::new(limits.max_inflight, limits.queue),
            limits,
            metrics: ServerMetrics::default(),
        }))
    }

    /// The bounds.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The counters.
    pub fn metrics(&self) -> &ServerMetrics {
        &self.metrics
    }

    /// The trace pipeline, when traces are received.
    pub fn traces(&self) -> Option<&TraceIngest> {
        self.traces.as_ref()
    }

    /// Stops the trace pipeline after scoring what it holds (call after [`crate::serve`] returns).
    pub fn finish_traces(&self) {
        if let Some(t) = &self.traces {
            t.finish();
        }
    }

    /// Jobs running and waiting on `/v1/score`.
    pub fn score_load(&self) -> Load {
        self.score_gate.load()
    }

    /// Jobs running and waiting on `/v1/judge`.
    pub fn judge_load(&self) -> Load {
        self.judge_gate.load()
    }
}

/// The router of `app`: every route, the request counters and a JSON 404 for anything else.
pub fn router(app: Arc<App>) -> Router {
    Router::new()
        .route(SCORE, post(score))
        .route(JUDGE, post(judge))
        .route(TRACES, post(traces))
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics_text))
        .route("/openapi.json", get(openapi))
        .fallback(not_found)
        .layer(middleware::from_fn_with_state(app.clone(), count))
        .with_state(app)
}

/// Counts every answer by route and status, with its latency.
async fn count(State(app): State<Arc<App>>, req: Request, next: Next) -> Response {
    let route = match req.uri().path() {
        SCORE => SCORE,
        JUDGE => JUDGE,
        TRACES => TRACES,
        "/healthz" => "/healthz",
        "/metrics" => "/metrics",
        "/openapi.json" => "/openapi.json",
        _ => "other",
    };
    let start = Instant::now();
    let response = next.run(req).await;
    app.metrics.request(route, response.status().as_u16(), start.elapsed());
    response
}

/// Reads the body, at most `limit` bytes (413 beyond, checked on `Content-Length` first) within
/// `patience` (408 past it).
async fn read_body(body: Body, declared: Option<u64>, limit: usize, patience: Duration) -> Result<Bytes, ApiError> {
    let too_large =
        || ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, format!("request body larger than the limit of {limit} bytes"));
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(too_large());
    }
    match tokio::time::timeout(patience, Limited::new(body, limit).collect()).await {
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
        Ok(Err(e)) if e.downcast_ref::<LengthLimitError>().is_some() => Err(too_large()),
        Ok(Err(e)) => Err(ApiError::bad_request(format!("cannot read the request body: {e}"))),
        Err(_) => Err(ApiError::new(
            StatusCode::REQUEST_TIMEOUT,
            format!("request body not received within the body timeout of {} s", patience.as_secs_f64()),
        )),
    }
}

fn content_length(req: &Request) -> Option<u64> {
    req.headers().get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse().ok())
}

/// The pipeline of a job route: admission (429 when full), body (413), parse (400 / 422), a slot
/// (waiting in the queue), the work on the blocking pool, all under the request's deadline (503).
async fn run_job<P, T, W, R>(
    app: &Arc<App>,
    route: &'static str,
    gate: &Admission,
    req: Request,
    parse: P,
    work: W,
) -> Result<Json<R>, ApiError>
where
    P: FnOnce(&[u8]) -> Result<T, ApiError>,
    T: Send + 'static,
    W: FnOnce(T) -> Result<R, ApiError> + Send + 'static,
    R: Serialize + Send + 'static,
{
    let Some(ticket) = gate.try_admit() else {
        app.metrics.rejected(route);
        let message = format!(
            "server busy: {} requests running and {} waiting; retry after {} s",
            gate.max_inflight(),
            gate.queue(),
            app.limits.retry_after
        );
        return Err(ApiError::new(StatusCode::TOO_MANY_REQUESTS, message).with_retry_after(app.limits.retry_after));
    };
    let limit = app.limits.max_body;
    let deadline = app.limits.timeout;
    let patience = app.limits.body_timeout;
    let pipeline = async move {
        let declared = content_length(&req);
        let body = read_body(req.into_body(), declared, limit, patience).await?;
        let input = parse(&body)?;
        drop(body);
        let job = gate.start(ticket).await;
        let handle = tokio::task::spawn_blocking(move || {
            // The slot is held until the work ends, even when the request has timed out.
            let _job = job;
            work(input)
        });
        match handle.await {
            Ok(result) => result,
            Err(e) if e.is_panic() => {
                Err(ApiError::internal("the job failed unexpectedly (panic); see the server log"))
            }
            Err(e) => Err(ApiError::internal(format!("the job was cancelled: {e}"))),
        }
    };
    match tokio::time::timeout(deadline, pipeline).await {
        Ok(result) => result.map(Json),
        Err(_) => {
            app.metrics.timed_out(route);
            Err(ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                format!("request not answered within the timeout of {} s", deadline.as_secs_f64()),
            ))
        }
    }
}

async fn score(State(app): State<Arc<App>>, req: Request) -> Response {
    let scorer = app.scorer.clone();
    let counters = app.clone();
    let parse = |body: &[u8]| {
        let request = parse_score_request(body)?;
        // An unknown metric is refused before the request waits for a slot.
        let selection = request.metrics.as_deref().map(|names| app.scorer.select(names)).transpose()?;
        Ok::<_, ApiError>((request, selection))
    };
    let result = run_job(&app, SCORE, &app.score_gate, req, parse, move |(r, selection)| {
        let response = scorer
            .score_selected(r.records, r.detail, selection.as_ref())
            .map_err(|e| ApiError::internal(format!("scoring failed: {e}")))?;
        counters.metrics.scored(response.records as u64, response.failed as u64);
        Ok(response)
    })
    .await;
    result.into_response()
}

async fn judge(State(app): State<Arc<App>>, req: Request) -> Response {
    let Some(service) = app.judge.clone() else {
        return ApiError::new(
            StatusCode::NOT_IMPLEMENTED,
            "no judge configured: start the server with --judge local:MODEL or --judge openai:MODEL",
        )
        .into_response();
    };
    let counters = app.clone();
    let result = run_job(&app, JUDGE, &app.judge_gate, req, parse_judge_request, move |r| {
        let response = service.judge(&r)?;
        counters.metrics.judged();
        Ok(response)
    })
    .await;
    result.into_response()
}

/// OTLP/HTTP trace export: decoded and queued at once (never waits for scoring); protobuf unless
/// the body is JSON; `Content-Encoding: gzip` accepted.
async fn traces(State(app): State<Arc<App>>, req: Request) -> Response {
    let Some(ingest) = app.traces.as_ref() else {
        return ApiError::new(StatusCode::NOT_IMPLEMENTED, "traces are not received: start the server with --traces")
            .into_response();
    };
    // Read before the body is awaited: a borrowed request (its body is not Sync) must not be held
    // across an await.
    let (json, encoding) = {
        let header_str =
            |name| req.headers().get(name).and_then(|v| v.to_str().ok()).unwrap_or_default().to_ascii_lowercase();
        (header_str(header::CONTENT_TYPE).starts_with("application/json"), header_str(header::CONTENT_ENCODING))
    };
    let limit = app.limits.max_body;
    let declared = content_length(&req);
    let body = match read_body(req.into_body(), declared, limit, app.limits.body_timeout).await {
        Ok(b) => b,
        Err(e) => return e.into_response(),
    };
    let body = match encoding.as_str() {
        "" | "identity" => body.to_vec(),
        // Inflated bodies may be larger than sent ones: OTLP batches compress about tenfold.
        "gzip" => match ragjudge_traces::otlp::gunzip(&body, limit.saturating_mul(16)) {
            Ok(b) => b,
            Err(e) => return ApiError::bad_request(e).into_response(),
        },
        other => {
            return ApiError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                format!("Content-Encoding {other} is not supported: send identity or gzip"),
            )
            .into_response()
        }
    };
    match ingest.accept(&body, json) {
        Ok(a) => {
            let bytes = ragjudge_traces::otlp::export_response(a.rejected, a.message.as_deref(), json);
            let kind = if json { "application/json" } else { "application/x-protobuf" };
            ([(header::CONTENT_TYPE, kind)], bytes).into_response()
        }
        Err(e) => ApiError::bad_request(e).into_response(),
    }
}

async fn healthz(State(app): State<Arc<App>>) -> Response {
    let body = serde_json::json!({
        "status": "ok",
        "columns": app.scorer.columns(),
        "judge": app.judge.as_ref().map(|j| j.identity()),
        "protocol": app.judge.as_ref().map(|j| j.protocol().name()),
    });
    Json(body).into_response()
}

async fn metrics_text(State(app): State<Arc<App>>) -> Response {
    let mut text = app.metrics.render(&[(SCORE, app.score_gate.load()), (JUDGE, app.judge_gate.load())]);
    if let Some(t) = &app.traces {
        t.render(&mut text);
    }
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")], text).into_response()
}

async fn openapi() -> Response {
    ([(header::CONTENT_TYPE, "application/json")], OPENAPI).into_response()
}

async fn not_found(req: Request) -> Response {
    ApiError::new(StatusCode::NOT_FOUND, format!("no route {} {}", req.method(), req.uri().path())).into_response()
}
