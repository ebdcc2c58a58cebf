//! The HTTP/JSON API and the board page: a second listener of `serve` (`[http] listen`),
//! on the same tokio runtime and the same worker pool as the line protocols.
//!
//! - `GET`/`POST /v1/move`, `/v1/cube`, `/v1/eval`, `/v1/rollout` ([`api`]): a position as
//!   an XGID, gnubg ids, a FIBS board or a board array, answered in JSON with the fields of
//!   `stargammon hint --json` (and `rollout --json`). Bad input gets `{"error": "..."}`
//!   with a 4xx status; nothing a client sends panics.
//! - `GET /openapi.json`: the API's OpenAPI 3 document (checked in as `openapi.json`;
//!   tests hold it to the routes and a schema-based fuzzer holds the server to it).
//! - `GET /healthz`, `GET /metrics` (Prometheus text: connections, decisions, latency
//!   histograms and errors of every protocol, from [`crate::server::metrics`]).
//! - `GET /`: the board page (`page.html`, one static file with its script and SVG
//!   drawing, no network fetches beyond this API).
//!
//! CPU work never runs here: searches go to the pool as jobs, rollouts as tasks
//! ([`Shared::search`], [`Shared::run_task`]), under the server's per-request caps.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode, Uri};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tracing::{info, warn};

use crate::config::Config;
use crate::server::metrics::Protocol;
use crate::server::Shared;

pub mod api;
pub mod tavli;

/// The API's OpenAPI document, served at `/openapi.json`.
pub const OPENAPI: &str = include_str!("openapi.json");
/// The board page, served at `/`.
pub const PAGE: &str = include_str!("page.html");

/// The routes, for the metrics' `route` label and the document's check.
pub const ROUTES: [&str; 9] = [
    "/",
    "/openapi.json",
    "/healthz",
    "/metrics",
    "/v1/move",
    "/v1/cube",
    "/v1/eval",
    "/v1/rollout",
    "/v1/tavli/move",
];

/// What every handler shares.
#[derive(Debug, Clone)]
pub struct App {
    pub shared: Arc<Shared>,
    pub config: Arc<Config>,
    rollouts: Arc<api::RolloutCache>,
}

impl App {
    pub fn new(shared: Arc<Shared>, config: &Config) -> App {
        App {
            shared,
            config: Arc::new(config.clone()),
            rollouts: Arc::default(),
        }
    }
}

/// An error answer: `{"error": message}` with a 4xx (or 5xx) status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    pub status: StatusCode,
    pub message: String,
}

impl ApiError {
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::BAD_REQUEST,
            message: message.into(),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({ "error": self.message }).to_string();
        json_response(self.status, body)
    }
}

/// A JSON body with `status`.
pub fn json_response(status: StatusCode, body: String) -> Response {
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response()
}

/// The router of the HTTP listener.
pub fn router(app: App) -> Router {
    let v1 = |path: &'static str| {
        get(move |s: State<App>, uri: Uri| api::get(s, path, uri))
            .post(move |s: State<App>, body| api::post(s, path, body))
    };
    Router::new()
        .route("/", get(page))
        .route("/openapi.json", get(openapi))
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics))
        .route("/v1/move", v1("/v1/move"))
        .route("/v1/cube", v1("/v1/cube"))
        .route("/v1/eval", v1("/v1/eval"))
        .route("/v1/rollout", v1("/v1/rollout"))
        .route("/v1/tavli/move", get(tavli::get).post(tavli::post))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::extract::DefaultBodyLimit::max(
            app.config.http.max_body_bytes,
        ))
        .layer(axum::middleware::from_fn_with_state(app.clone(), track))
        .with_state(app)
}

async fn page() -> Response {
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/html; charset=utf-8"),
            ),
            // The page loads nothing from elsewhere; say so to the browser.
            (
                header::CONTENT_SECURITY_POLICY,
                HeaderValue::from_static(
                    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; \
                     img-src data:; connect-src 'self'",
                ),
            ),
        ],
        PAGE,
    )
        .into_response()
}

async fn openapi() -> Response {
    json_response(StatusCode::OK, OPENAPI.to_string())
}

async fn healthz(State(app): State<App>) -> Response {
    let body = serde_json::json!({
        "status": "ok",
        "engine": app.shared.engine().name(),
        "workers": app.shared.pool_threads(),
        "queued": app.shared.pool_queued(),
    });
    json_response(StatusCode::OK, body.to_string())
}

async fn metrics(State(app): State<App>) -> Response {
    let s = &app.shared;
    let text = s.metrics().render(&[
        (
            "stargammon_pool_threads",
            "Search worker threads.",
            s.pool_threads() as f64,
        ),
        (
            "stargammon_pool_queued",
            "Jobs and tasks waiting for a worker.",
            s.pool_queued() as f64,
        ),
    ]);
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
        )],
        text,
    )
        .into_response()
}

async fn not_found(uri: Uri) -> Response {
    ApiError {
        status: StatusCode::NOT_FOUND,
        message: format!("no such resource: {}", uri.path()),
    }
    .into_response()
}

async fn method_not_allowed() -> Response {
    ApiError {
        status: StatusCode::METHOD_NOT_ALLOWED,
        message: "method not allowed here (the API takes GET and POST; see /openapi.json)"
            .to_string(),
    }
    .into_response()
}

/// The `route` label of a path: one of [`ROUTES`], or `other`.
fn route_label(path: &str) -> &'static str {
    ROUTES
        .iter()
        .find(|r| **r == path)
        .copied()
        .unwrap_or("other")
}

/// Counts every response for `/metrics`: by route and status; API answers as decisions
/// with their latency, 4xx and 5xx as errors.
async fn track(State(app): State<App>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let route = route_label(request.uri().path());
    let response = next.run(request).await;
    let status = response.status();
    let m = app.shared.metrics();
    m.response(route, status.as_u16());
    if status.is_client_error() || status.is_server_error() {
        m.error(Protocol::Http);
    } else if route.starts_with("/v1/") {
        m.decision(Protocol::Http, started.elapsed());
    }
    response
}

/// A TCP listener that counts HTTP connections (open and total) for `/metrics`.
#[derive(Debug)]
pub struct CountingListener {
    inner: TcpListener,
    shared: Arc<Shared>,
}

/// A connection counted open until dropped.
#[derive(Debug)]
pub struct CountedStream {
    stream: TcpStream,
    shared: Arc<Shared>,
}

impl Drop for CountedStream {
    fn drop(&mut self) {
        self.shared.metrics().connection_closed(Protocol::Http);
    }
}

impl AsyncRead for CountedStream {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for CountedStream {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        std::pin::Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> std::task::Poll<std::io::Result<usize>> {
        std::pin::Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

impl axum::serve::Listener for CountingListener {
    type Io = CountedStream;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (CountedStream, SocketAddr) {
        loop {
            match self.inner.accept().await {
                Ok((stream, peer)) => {
                    let _ = stream.set_nodelay(true);
                    self.shared.metrics().connection_opened(Protocol::Http);
                    let counted = CountedStream {
                        stream,
                        shared: self.shared.clone(),
                    };
                    return (counted, peer);
                }
                Err(e) => {
                    // Out of file descriptors and the like: back off instead of spinning.
                    warn!(error = %e, "HTTP accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }
    }

    fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.inner.local_addr()
    }
}

/// Serves the HTTP API on `listener` until `shutdown` completes, then lets open requests
/// finish for at most `server.shutdown_grace_ms`.
pub async fn serve(
    listener: TcpListener,
    shared: Arc<Shared>,
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) {
    if let Ok(addr) = listener.local_addr() {
        info!(%addr, "HTTP API listening");
    }
    let grace = Duration::from_millis(config.server.shutdown_grace_ms);
    let app = App::new(shared.clone(), &config);
    let listener = CountingListener {
        inner: listener,
        shared,
    };
    let (stopped_tx, stopped_rx) = tokio::sync::oneshot::channel::<()>();
    let server = axum::serve(listener, router(app)).with_graceful_shutdown(async move {
        shutdown.await;
        let _ = stopped_tx.send(());
    });
    let server = std::future::IntoFuture::into_future(server);
    tokio::pin!(server);
    tokio::select! {
        r = &mut server => {
            if let Err(e) = r {
                warn!(error = %e, "HTTP server stopped");
            }
            return;
        }
        _ = stopped_rx => {}
    }
    if tokio::time::timeout(grace, server).await.is_err() {
        warn!("HTTP connections still open after the grace period");
    }
    info!("HTTP API stopped");
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_openapi_document_lists_every_route() {
        let doc: serde_json::Value = serde_json::from_str(OPENAPI).unwrap();
        assert!(doc["openapi"].as_str().unwrap().starts_with("3."));
        let paths = doc["paths"].as_object().unwrap();
        for route in ROUTES {
            assert!(
                paths.contains_key(route),
                "{route} missing from openapi.json"
            );
        }
        assert_eq!(
            paths.len(),
            ROUTES.len(),
            "openapi.json lists routes the server lacks"
        );
        for route in ROUTES.iter().filter(|r| r.starts_with("/v1/")) {
            for method in ["get", "post"] {
                let op = &doc["paths"][route][method];
                assert!(op.is_object(), "{method} {route} missing");
                assert!(
                    op["responses"]["200"].is_object(),
                    "{method} {route}: no 200"
                );
                assert!(
                    op["responses"]["400"].is_object(),
                    "{method} {route}: no 400"
                );
            }
        }
    }

    #[test]
    fn routes_are_labelled_from_a_fixed_set() {
        assert_eq!(route_label("/v1/move"), "/v1/move");
        assert_eq!(route_label("/v1/move/x"), "other");
        assert_eq!(route_label("/../etc"), "other");
    }
}
