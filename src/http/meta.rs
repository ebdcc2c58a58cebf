//! The routes about the server rather than positions: the board page (`/`), the OpenAPI
//! document, `/healthz`, `/metrics` (Prometheus text from [`crate::server::metrics`]), the
//! JSON answers to unknown paths and methods, and the middleware that counts every
//! response by route and status.

use std::time::Instant;

use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode, Uri};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::{json_response, ApiError, App, OPENAPI, PAGE, ROUTES};
use crate::server::metrics::Protocol;

pub(super) async fn page() -> Response {
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

pub(super) async fn openapi() -> Response {
    json_response(StatusCode::OK, OPENAPI.to_string())
}

pub(super) async fn healthz(State(app): State<App>) -> Response {
    let body = serde_json::json!({
        "status": "ok",
        "engine": app.shared.engine().name(),
        "workers": app.shared.pool_threads(),
        "queued": app.shared.pool_queued(),
    });
    json_response(StatusCode::OK, body.to_string())
}

pub(super) async fn metrics(State(app): State<App>) -> Response {
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

pub(super) async fn not_found(uri: Uri) -> Response {
    ApiError {
        status: StatusCode::NOT_FOUND,
        message: format!("no such resource: {}", uri.path()),
    }
    .into_response()
}

pub(super) async fn method_not_allowed() -> Response {
    ApiError {
        status: StatusCode::METHOD_NOT_ALLOWED,
        message: "method not allowed here (the API takes GET and POST; see /openapi.json)"
            .to_string(),
    }
    .into_response()
}

/// The `route` label of a path: one of [`ROUTES`], or `other`.
pub(super) fn route_label(path: &str) -> &'static str {
    ROUTES
        .iter()
        .find(|r| **r == path)
        .copied()
        .unwrap_or("other")
}

/// Counts every response for `/metrics`: by route and status; API answers as decisions
/// with their latency, 4xx and 5xx as errors.
pub(super) async fn track(State(app): State<App>, request: Request, next: Next) -> Response {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_are_labelled_from_a_fixed_set() {
        assert_eq!(route_label("/v1/move"), "/v1/move");
        assert_eq!(route_label("/v1/move/x"), "other");
        assert_eq!(route_label("/../etc"), "other");
    }
}
