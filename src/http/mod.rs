//! The HTTP/JSON API and the board page: a second listener of `serve` (`[http] listen`),
//! on the same tokio runtime and the same worker pool as the line protocols. One file per
//! route family:
//!
//! - `GET`/`POST /v1/move`, `/v1/cube`, `/v1/eval`, `/v1/rollout` (`api.rs` reads the
//!   request through `params.rs` and hands it to `moves.rs`, `cube.rs`, `eval.rs` or
//!   `rollout.rs`): a position as an XGID, gnubg ids, a FIBS board or a board array,
//!   answered in JSON with the fields of `stargammon hint --json` (and `rollout --json`).
//!   Bad input gets `{"error": "..."}` with a 4xx status (`reply.rs`); nothing a client
//!   sends panics.
//! - `GET`/`POST /v1/tavli/move` (`tavli.rs`): the plays of a roll in a Tavli game.
//! - `GET /openapi.json`: the API's OpenAPI 3 document (checked in as `openapi.json`;
//!   tests hold it to the routes and a schema-based fuzzer holds the server to it).
//! - `GET /healthz`, `GET /metrics` (Prometheus text: connections, decisions, latency
//!   histograms and errors of every protocol, from [`crate::server::metrics`]).
//! - `GET /`: the board page (`page.html`, one static file with its script and SVG
//!   drawing, no network fetches beyond this API). These and the answers to unknown
//!   paths are in `meta.rs`, the counting listener and [`serve`] in `listener.rs`.
//!
//! CPU work never runs here. Searches take the line protocols' path into the pool
//! ([`Shared::answer_with`]: what to search comes from the engine facade's `need`, under
//! the server's per-request caps, lanes and cancellation); rollouts and Tavli rankings go
//! to the pool as tasks ([`Shared::run_task`]).

use std::sync::Arc;

use axum::extract::State;
use axum::http::Uri;
use axum::routing::get;
use axum::Router;

use crate::config::Config;
use crate::server::Shared;

mod api;
mod cube;
mod eval;
mod listener;
mod meta;
mod moves;
mod params;
mod reply;
mod rollout;
mod tavli;

pub use listener::{serve, CountedStream, CountingListener};
pub use reply::{json_response, ApiError};

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
    rollouts: Arc<rollout::RolloutCache>,
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

/// The router of the HTTP listener.
pub fn router(app: App) -> Router {
    let v1 = |path: &'static str| {
        get(move |s: State<App>, uri: Uri| api::get(s, path, uri))
            .post(move |s: State<App>, body| api::post(s, path, body))
    };
    Router::new()
        .route("/", get(meta::page))
        .route("/openapi.json", get(meta::openapi))
        .route("/healthz", get(meta::healthz))
        .route("/metrics", get(meta::metrics))
        .route("/v1/move", v1("/v1/move"))
        .route("/v1/cube", v1("/v1/cube"))
        .route("/v1/eval", v1("/v1/eval"))
        .route("/v1/rollout", v1("/v1/rollout"))
        .route("/v1/tavli/move", get(tavli::get).post(tavli::post))
        .fallback(meta::not_found)
        .method_not_allowed_fallback(meta::method_not_allowed)
        .layer(axum::extract::DefaultBodyLimit::max(
            app.config.http.max_body_bytes,
        ))
        .layer(axum::middleware::from_fn_with_state(
            app.clone(),
            meta::track,
        ))
        .with_state(app)
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
}
