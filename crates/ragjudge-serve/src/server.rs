//! The accept loop: HTTP/1 connections with a header timeout, a bound on open connections, and a
//! graceful shutdown with a deadline.
//!
//! `axum::serve` has none of these bounds (a client that sends half a header is held forever,
//! and shutdown waits for it), so connections are served here with hyper directly.

use crate::app::{router, App, Limits};
use crate::error::ServeError;
use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use std::future::Future;
use std::io::ErrorKind;
use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::{watch, Semaphore};
use tokio::task::JoinSet;

/// Serves `app` on `listener` until `shutdown` resolves; then stops accepting connections, lets
/// the requests in flight finish for at most `shutdown_grace`, closes whatever is still open and
/// returns.
///
/// At most `max_connections` connections are open at once: beyond them a connection waits in the
/// listen backlog until one closes. A connection that does not send a complete request header
/// within `header_timeout` (from when it opens, or from its previous answer) is closed.
pub async fn serve(
    listener: TcpListener,
    app: Arc<App>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let limits = app.limits().clone();
    serve_router(listener, router(app), &limits, shutdown).await
}

/// Serves any `router` on `listener` with the connection bounds of `limits`
/// (`header_timeout`, `max_connections`, `shutdown_grace`), as [`serve`] does.
#[allow(clippy::expect_used, reason = "the semaphore lives as long as the loop and is never closed")]
pub async fn serve_router(
    listener: TcpListener,
    router: Router,
    limits: &Limits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let service = TowerToHyperService::new(router);
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new()).header_read_timeout(limits.header_timeout);
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let (stop, stopped) = watch::channel(false);
    let mut connections = JoinSet::new();
    let mut shutdown = pin!(shutdown);
    loop {
        let slot = tokio::select! {
            _ = &mut shutdown => break,
            slot = slots.clone().acquire_owned() => slot.expect("the semaphore is never closed"),
        };
        let stream = tokio::select! {
            _ = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    accept_failed(e).await;
                    continue;
                }
            },
        };
        let (http, service, mut stopped) = (http.clone(), service.clone(), stopped.clone());
        connections.spawn(async move {
            let _slot = slot;
            let mut conn = pin!(http.serve_connection(TokioIo::new(stream), service));
            tokio::select! {
                _ = conn.as_mut() => return,
                _ = stopped.wait_for(|s| *s) => {}
            }
            // Answer the request in flight, if any, then close.
            conn.as_mut().graceful_shutdown();
            let _ = conn.await;
        });
        // Forget the connections that have ended.
        while connections.try_join_next().is_some() {}
    }
    drop(listener);
    let _ = stop.send(true);
    let drained =
        tokio::time::timeout(limits.shutdown_grace, async { while connections.join_next().await.is_some() {} }).await;
    if drained.is_err() {
        eprintln!(
            "ragjudge serve: {} connections still open after the shutdown grace of {} s; closing them",
            connections.len(),
            limits.shutdown_grace.as_secs_f64()
        );
        connections.shutdown().await;
    }
    Ok(())
}

/// After a failed accept: a client's own failure is skipped at once; anything else (too many
/// open files) is waited out for a moment rather than retried in a busy loop.
async fn accept_failed(e: std::io::Error) {
    let client_side =
        matches!(e.kind(), ErrorKind::ConnectionAborted | ErrorKind::ConnectionReset | ErrorKind::ConnectionRefused);
    if !client_side {
        eprintln!("ragjudge serve: accept failed: {e}");
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// Resolves on ctrl-c (SIGINT) or SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
}
