//! What the HTTP answers share: the JSON error answer ([`ApiError`]) and the errors of
//! work on the pool, rounding, and the description of the position a request was about.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

use crate::eval::Probabilities;
use crate::game::MatchState;
use crate::notation::summary::PositionSummary;
use crate::server::PoolError;

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

pub(super) fn pool_error(e: PoolError) -> ApiError {
    let status = match e {
        PoolError::Failed => StatusCode::INTERNAL_SERVER_ERROR,
        PoolError::Busy | PoolError::ShuttingDown | PoolError::Cancelled => {
            StatusCode::SERVICE_UNAVAILABLE
        }
    };
    ApiError {
        status,
        message: e.to_string(),
    }
}

pub(super) fn internal(what: &str) -> ApiError {
    ApiError {
        status: StatusCode::INTERNAL_SERVER_ERROR,
        message: format!("internal error: {what}"),
    }
}

pub(super) use crate::engine::cube_detail::r6;

pub(super) fn probs4(p: &Probabilities) -> [f64; 5] {
    p.0.map(|x| (x as f64 * 1e4).round() / 1e4)
}

pub(super) fn probs_json(p: &Probabilities) -> Value {
    json!(probs4(p))
}

/// The position a request was about, in every notation, with the board to draw: the one
/// summary `show --json` prints too.
pub(super) fn describe(state: &MatchState) -> PositionSummary {
    PositionSummary::of(state)
}

pub(super) fn value_unit(state: &MatchState) -> &'static str {
    if state.is_money() {
        "equity"
    } else {
        "match winning chance"
    }
}
