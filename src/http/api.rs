//! The `/v1` routes of backgammon: a request (JSON body or query string) read into typed
//! parameters (`params.rs`), then one file per route: `/v1/move` (`moves.rs`), `/v1/cube`
//! (`cube.rs`), `/v1/eval` (`eval.rs`), `/v1/rollout` (`rollout.rs`). Searches take the
//! server's one path into the pool ([`Shared::answer_with`]: the engine facade's
//! [`Engine::need`] says what to search, under the server's caps, lanes and
//! cancellation); rollouts run on the pool as tasks.
//!
//! Parameters (the same names in a JSON body and a query string):
//! - `position` (required): an XGID, a gnubg Position ID with optional Match ID, a FIBS
//!   board string, or a board: 26 signed checker counts from the side to act's view (slot 0
//!   the opponent's bar, 1-24 the points in the mover's numbering, 25 the mover's bar;
//!   the mover's checkers positive), a JSON array or the same numbers comma-separated;
//!   a board is money play with a centred cube.
//! - `dice`: `[d1, d2]` (query: `6,4`, `64` or `6-4`); the position's own dice otherwise.
//! - `depth`: odd, 1-9 (capped at `server.max_request_depth`); the engine's own otherwise.
//! - rollouts: `trials`, `seed`, `truncate`, `top` (plays rolled out with dice).
//!
//! Unknown parameters, wrong types and impossible positions are refused with a 400 and a
//! message naming what was wrong.

use std::future::Future;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::State;
use axum::http::{StatusCode, Uri};
use axum::response::{IntoResponse, Response};

use super::params::{params_from_body, params_from_query, read_body, Params, Route};
use super::reply::json_response;
use super::{cube, eval, moves, rollout, ApiError, App};
use crate::cube::CubeSettings;
use crate::engine::{Engine, EngineSettings};
use crate::game::MatchState;
use crate::server::metrics::{Metrics, Protocol};
use crate::server::{PoolError, Shared};

/// `GET /v1/...`: parameters in the query string.
pub async fn get(State(app): State<App>, path: &'static str, uri: Uri) -> Response {
    let Some(route) = Route::of(path) else {
        return ApiError::bad_request("unknown route").into_response();
    };
    match params_from_query(route, &uri) {
        Ok(p) => answer(&app, route, p).await,
        Err(e) => e.into_response(),
    }
}

/// `POST /v1/...`: parameters in a JSON object.
pub async fn post(
    State(app): State<App>,
    path: &'static str,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let Some(route) = Route::of(path) else {
        return ApiError::bad_request("unknown route").into_response();
    };
    let body = match read_body(body) {
        Ok(b) => b,
        Err(e) => return e.into_response(),
    };
    match params_from_body(route, &body) {
        Ok(p) => answer(&app, route, p).await,
        Err(e) => e.into_response(),
    }
}

async fn answer(app: &App, route: Route, p: Params) -> Response {
    let result = match route {
        Route::Move => moves::answer(app, p).await,
        Route::Cube => cube::answer(app, p).await,
        Route::Eval => eval::answer(app, p).await,
        Route::Rollout => rollout::answer(app, p).await,
    };
    match result {
        Ok(body) => json_response(StatusCode::OK, body),
        Err(e) => e.into_response(),
    }
}

/// The server's engine with the position's own cube rules (an XGID's Jacoby and beaver
/// flags), searching (or valuing plays as searched) at `depth`.
pub(super) fn request_engine(app: &App, state: &MatchState, depth: u32) -> Engine {
    let engine = app.shared.engine();
    let base = *engine.settings();
    let cube = CubeSettings {
        jacoby: state.rules.jacoby.unwrap_or(base.cube.jacoby),
        beavers: state.rules.beavers.unwrap_or(base.cube.beavers),
        ..base.cube
    };
    engine.with_settings(EngineSettings {
        depth,
        cube_depth: depth,
        cube,
        ..base
    })
}

/// Counts a search whose HTTP client went away (axum drops the request's future) as
/// abandoned; dropping the search's future cancels it.
struct AbandonGuard<'a> {
    metrics: &'a Metrics,
    answered: bool,
}

impl Drop for AbandonGuard<'_> {
    fn drop(&mut self) {
        if !self.answered {
            self.metrics.abandoned(Protocol::Http);
            tracing::info!("HTTP client went away during a search; cancelled");
        }
    }
}

/// Awaits `search` (a [`Shared::answer_with`] future), counting it as abandoned if the
/// client leaves first.
pub(super) async fn on_pool<T>(
    shared: &Shared,
    search: impl Future<Output = Result<T, PoolError>>,
) -> Result<T, PoolError> {
    let mut guard = AbandonGuard {
        metrics: shared.metrics(),
        answered: false,
    };
    let answer = search.await;
    guard.answered = true;
    answer
}
