//! The annotation page (`ragjudge annotate`): one self-contained page and a small JSON API over
//! a [`TaskSet`] and a [`LabelStore`]. Each label is written to the label file, atomically, when
//! it is given; the page asks the server where an annotator stands, so a reload or a restart
//! resumes where the annotator stopped.
//!
//! Routes: `GET /` (the page), `GET /api/session`, `GET /api/progress?annotator=`,
//! `GET /api/tasks/{index}?annotator=`, `GET /api/tasks/{index}/verdict`, `POST /api/labels`,
//! `POST /api/export`. Bound to a loopback address, the server answers only requests whose
//! `Host` is a loopback name (no page of another site can reach it through DNS rebinding);
//! `POST` bodies must be JSON, which a cross-site form cannot send.

use crate::error::ApiError;
use axum::extract::{Path as UrlPath, Query, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use ragjudge_human::export::{export, ExportSummary};
use ragjudge_human::store::{HumanLabel, LabelStore, LabelValue};
use ragjudge_human::task::{Scale, TaskSet, TaskView, View};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{SystemTime, UNIX_EPOCH};

/// The page, with its style and script inline.
const PAGE: &str = include_str!("page.html");

/// The page's content security policy: the report's, plus requests to its own server.
pub const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; \
                       img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// What a labelling session serves.
#[derive(Debug)]
pub struct Annotate {
    tasks: TaskSet,
    scale: Scale,
    store: Mutex<LabelStore>,
    export_dir: Option<PathBuf>,
    annotator: Option<String>,
    loopback_only: bool,
}

impl Annotate {
    /// A session over `tasks`, writing to `store`; `export_dir` is where the page's Export button
    /// writes the label files (none: the button says to run `annotate export`); `annotator` is
    /// the id the page proposes.
    pub fn new(
        tasks: TaskSet,
        scale: Scale,
        store: LabelStore,
        export_dir: Option<PathBuf>,
        annotator: Option<String>,
    ) -> Self {
        Annotate { tasks, scale, store: Mutex::new(store), export_dir, annotator, loopback_only: true }
    }

    /// Accepts any `Host` (for a server bound to a non-loopback address on purpose).
    pub fn allow_any_host(mut self) -> Self {
        self.loopback_only = false;
        self
    }

    fn store(&self) -> MutexGuard<'_, LabelStore> {
        // A panic while holding the lock cannot leave the store half-written (writes are
        // atomic), so a poisoned lock is still usable.
        self.store.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The annotation routes.
pub fn annotate_router(app: Arc<Annotate>) -> Router {
    Router::new()
        .route("/", get(page))
        .route("/api/session", get(session))
        .route("/api/progress", get(progress))
        .route("/api/tasks/{index}", get(task))
        .route("/api/tasks/{index}/verdict", get(verdict))
        .route("/api/labels", post(label))
        .route("/api/export", post(export_labels))
        .fallback(|| async { ApiError::new(StatusCode::NOT_FOUND, "no such route") })
        .layer(middleware::from_fn_with_state(app.clone(), guard))
        .with_state(app)
}

/// Refuses a request whose `Host` is not a loopback name while the server is loopback-only,
/// and marks every answer as not to be cached or sniffed.
async fn guard(State(app): State<Arc<Annotate>>, req: Request, next: Next) -> Response {
    if app.loopback_only {
        let host = req.headers().get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("");
        if !is_loopback_host(host) {
            return ApiError::new(StatusCode::FORBIDDEN, format!("host {host:.60} is not this machine"))
                .into_response();
        }
    }
    let mut response = next.run(req).await;
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    response
}

/// Whether `host` (a `Host` header: name and optional port) names this machine's loopback.
fn is_loopback_host(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or(""),
        None => host.rsplit_once(':').map_or(host, |(n, _)| n),
    };
    matches!(name, "localhost" | "::1") || name.parse::<std::net::Ipv4Addr>().is_ok_and(|ip| ip.is_loopback())
}

async fn page() -> Response {
    // `frame-ancestors` works only as a header; a <meta> policy without it avoids a console error.
    let meta = CSP.replace("; frame-ancestors 'none'", "");
    let mut r = ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], PAGE.replace("{{CSP}}", &meta)).into_response();
    r.headers_mut().insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    r
}

#[derive(Serialize)]
struct Session {
    view: View,
    reasons: &'static [&'static str],
    grades: Vec<Grade>,
    total: usize,
    annotator: Option<String>,
    annotators: Vec<String>,
    export: bool,
}

#[derive(Serialize)]
struct Grade {
    value: f64,
    name: &'static str,
}

async fn session(State(app): State<Arc<Annotate>>) -> Json<Session> {
    let annotators = app.store().labels().annotators().into_iter().map(String::from).collect();
    Json(Session {
        view: app.tasks.view(),
        reasons: &ragjudge_human::store::REJECT_REASONS,
        grades: app.scale.grades().iter().map(|&(value, name)| Grade { value, name }).collect(),
        total: app.tasks.len(),
        annotator: app.annotator.clone(),
        annotators,
        export: app.export_dir.is_some(),
    })
}

#[derive(Deserialize)]
struct Who {
    annotator: Option<String>,
}

#[derive(Serialize)]
struct Progress {
    done: usize,
    total: usize,
    /// The first task the annotator has not labelled.
    next: Option<usize>,
    /// Per task, whether the annotator labelled it.
    labelled: Vec<bool>,
}

fn progress_of(app: &Annotate, annotator: &str) -> Progress {
    let store = app.store();
    let labelled: Vec<bool> = app.tasks.keys().map(|k| store.labels().get(annotator, k).is_some()).collect();
    Progress {
        done: labelled.iter().filter(|&&l| l).count(),
        total: labelled.len(),
        next: labelled.iter().position(|&l| !l),
        labelled,
    }
}

fn annotator_of(who: &Who) -> Result<String, ApiError> {
    let a = who.annotator.as_deref().unwrap_or("").trim();
    if a.is_empty() || a.chars().count() > 64 || a.chars().any(char::is_control) {
        return Err(ApiError::unprocessable("annotator: an id of 1 to 64 printable characters is needed"));
    }
    Ok(a.to_string())
}

async fn progress(State(app): State<Arc<Annotate>>, Query(who): Query<Who>) -> Result<Json<Progress>, ApiError> {
    Ok(Json(progress_of(&app, &annotator_of(&who)?)))
}

#[derive(Serialize)]
struct TaskAnswer {
    task: TaskView,
    label: Option<HumanLabel>,
    has_verdict: bool,
}

fn no_task(index: usize, total: usize) -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, format!("no task {index}: the session has {total}"))
}

async fn task(
    State(app): State<Arc<Annotate>>,
    UrlPath(index): UrlPath<usize>,
    Query(who): Query<Who>,
) -> Result<Json<TaskAnswer>, ApiError> {
    let view = app.tasks.view_of(index).ok_or_else(|| no_task(index, app.tasks.len()))?;
    let label = match who.annotator.as_deref() {
        Some(a) => app.store().labels().get(a, &view.key).cloned(),
        None => None,
    };
    Ok(Json(TaskAnswer { has_verdict: app.tasks.verdict(index).is_some(), task: view, label }))
}

async fn verdict(State(app): State<Arc<Annotate>>, UrlPath(index): UrlPath<usize>) -> Result<Response, ApiError> {
    if index >= app.tasks.len() {
        return Err(no_task(index, app.tasks.len()));
    }
    match app.tasks.verdict(index) {
        Some(v) => Ok(Json(v.clone()).into_response()),
        None => Err(ApiError::new(StatusCode::NOT_FOUND, "no machine verdict for this task")),
    }
}

/// A label as the page sends it: the task by its position, so the page cannot name a task the
/// session does not hold.
#[derive(Deserialize)]
struct LabelRequest {
    annotator: Option<String>,
    index: usize,
    value: LabelValue,
    #[serde(default)]
    note: Option<String>,
    #[serde(default)]
    shown_left: Option<String>,
    #[serde(default)]
    verdict_seen: bool,
    #[serde(default)]
    seconds: Option<f64>,
}

async fn label(
    State(app): State<Arc<Annotate>>,
    body: Result<Json<LabelRequest>, axum::extract::rejection::JsonRejection>,
) -> Result<Json<Progress>, ApiError> {
    let Json(req) = body.map_err(|e| ApiError::new(e.status(), e.body_text()))?;
    let annotator = annotator_of(&Who { annotator: req.annotator.clone() })?;
    let key = app.tasks.keys().nth(req.index).cloned().ok_or_else(|| no_task(req.index, app.tasks.len()))?;
    let note = req.note.map(|n| n.trim().to_string()).filter(|n| !n.is_empty());
    let time = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let label = HumanLabel {
        annotator: annotator.clone(),
        task: key,
        value: req.value,
        note,
        shown_left: req.shown_left,
        verdict_seen: req.verdict_seen,
        seconds: req.seconds.filter(|s| s.is_finite() && *s >= 0.0),
        time,
    };
    let app2 = app.clone();
    tokio::task::spawn_blocking(move || app2.store().put(label))
        .await
        .map_err(|e| ApiError::internal(format!("the label was not saved: {e}")))?
        .map_err(|e| match e {
            ragjudge_human::HumanError::Label { .. } => ApiError::unprocessable(e.to_string()),
            other => ApiError::internal(format!("the label was not saved: {other}")),
        })?;
    Ok(Json(progress_of(&app, &annotator)))
}

async fn export_labels(State(app): State<Arc<Annotate>>) -> Result<Json<ExportSummary>, ApiError> {
    let Some(dir) = app.export_dir.clone() else {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "no export folder: start with --export DIR, or run `ragjudge annotate export`",
        ));
    };
    let labels = app.store().labels().clone();
    let questions = (app.tasks.view() == View::Review).then(|| app.tasks.all_records().to_vec());
    tokio::task::spawn_blocking(move || export(&labels, questions.as_deref(), &dir))
        .await
        .map_err(|e| ApiError::internal(format!("export failed: {e}")))?
        .map(Json)
        .map_err(|e| ApiError::unprocessable(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_hosts_pass() {
        for ok in ["127.0.0.1:8080", "localhost:1", "localhost", "[::1]:9000", "127.5.0.1"] {
            assert!(is_loopback_host(ok), "{ok}");
        }
        for bad in ["evil.example:8080", "10.0.0.1:80", "", "[fe80::1]:80", "localhost.evil.example"] {
            assert!(!is_loopback_host(bad), "{bad}");
        }
    }
}
