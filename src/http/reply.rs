//! What the HTTP answers share: the JSON error answer ([`ApiError`]) and the errors of
//! work on the pool, rounding, and the description of the position a request was about.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::{json, Value};

use crate::eval::Probabilities;
use crate::game::{CubeOwner, Decision, MatchState};
use crate::notation::{encode_match_state, position_id, Xgid};
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

pub(super) fn r6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

pub(super) fn probs4(p: &Probabilities) -> [f64; 5] {
    p.0.map(|x| (x as f64 * 1e4).round() / 1e4)
}

pub(super) fn probs_json(p: &Probabilities) -> Value {
    json!(probs4(p))
}

/// The position a request was about, in every notation, with the board to draw.
#[derive(Debug, Serialize)]
pub(super) struct Summary {
    position_id: String,
    match_id: Option<String>,
    xgid: String,
    board: [i8; 26],
    pips: [u32; 2],
    cube: u32,
    cube_owner: &'static str,
    match_length: u32,
    score: [u32; 2],
    crawford: bool,
    decision: &'static str,
    dice: Option<[u8; 2]>,
}

pub(super) fn describe(state: &MatchState) -> Summary {
    let (position_id, match_id) = match encode_match_state(state) {
        Ok((p, m)) => (p, Some(m)),
        Err(_) => (position_id(&state.position), None),
    };
    Summary {
        position_id,
        match_id,
        xgid: Xgid::from_match_state(state).to_string(),
        board: *state.position.slots(),
        pips: [state.position.pips(), state.position.opp_pips()],
        cube: state.cube,
        cube_owner: match state.cube_owner {
            CubeOwner::Centered => "centered",
            CubeOwner::Me => "self",
            CubeOwner::Opponent => "opponent",
        },
        match_length: state.match_length,
        score: [state.score, state.opp_score],
        crawford: state.crawford,
        decision: match state.decision {
            Decision::Move(_) => "move",
            Decision::DoubleOrRoll => "double or roll",
            Decision::TakeOrDrop => "take or drop",
            Decision::BeaverAnswer => "beaver answer",
            Decision::GameOver => "game over",
        },
        dice: match state.decision {
            Decision::Move(d) => Some([d.high(), d.low()]),
            _ => None,
        },
    }
}

pub(super) fn value_unit(state: &MatchState) -> &'static str {
    if state.is_money() {
        "equity"
    } else {
        "match winning chance"
    }
}
