//! Reading a `/v1` request: the routes and the parameters each takes, a JSON body or a
//! query string into typed parameters, and the checks a position must pass before it is
//! asked about. Every refusal is a 400 naming what was wrong.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::Query as QueryString;
use axum::http::Uri;
use serde_json::{Map, Value};

use super::ApiError;
use crate::engine::Depth;
use crate::game::{Decision, Dice, MatchState, Position};
use crate::notation::text::parse_position_text;

/// Which `/v1` route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Route {
    Move,
    Cube,
    Eval,
    Rollout,
}

impl Route {
    pub(super) fn of(path: &str) -> Option<Route> {
        match path {
            "/v1/move" => Some(Route::Move),
            "/v1/cube" => Some(Route::Cube),
            "/v1/eval" => Some(Route::Eval),
            "/v1/rollout" => Some(Route::Rollout),
            _ => None,
        }
    }

    /// The parameters the route takes.
    pub(super) fn fields(self) -> &'static [&'static str] {
        match self {
            Route::Move => &["position", "dice", "depth"],
            Route::Cube | Route::Eval => &["position", "depth"],
            Route::Rollout => &[
                "position", "dice", "trials", "seed", "truncate", "top", "cube",
            ],
        }
    }
}

/// A request's parameters, read and checked.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Params {
    pub(super) state: MatchState,
    pub(super) dice: Option<Dice>,
    pub(super) depth: Option<Depth>,
    pub(super) trials: Option<u64>,
    pub(super) seed: Option<u64>,
    pub(super) truncate: Option<u32>,
    pub(super) top: Option<usize>,
    /// Roll out the cube decision (with the cube alive in every trial).
    pub(super) cube: bool,
}

/// A parameter as it arrived: JSON, or text from a query string.
#[derive(Debug, Clone, Copy)]
pub(super) enum Raw<'a> {
    Json(&'a Value),
    Text(&'a str),
}

fn position_param(raw: Raw<'_>) -> Result<MatchState, ApiError> {
    match raw {
        Raw::Json(Value::String(s)) => position_from_text(s),
        Raw::Text(s) => position_from_text(s),
        Raw::Json(Value::Array(items)) => {
            let mut counts = Vec::with_capacity(items.len());
            for v in items {
                counts.push(v.as_i64().ok_or_else(|| {
                    ApiError::bad_request(format!("position: a board holds 26 integers, found {v}"))
                })?);
            }
            board_state(&counts)
        }
        Raw::Json(v) => Err(ApiError::bad_request(format!(
            "position: expected a string (XGID, gnubg ids, FIBS board) or an array of 26 \
             integers, found {}",
            kind_of(v)
        ))),
    }
}

/// A position text: a board written as 26 comma-separated integers, or any format
/// [`parse_position_text`] reads.
fn position_from_text(text: &str) -> Result<MatchState, ApiError> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.len() == 26 {
        let counts: Option<Vec<i64>> = parts.iter().map(|p| p.parse().ok()).collect();
        if let Some(c) = counts {
            return board_state(&c);
        }
    }
    parse_position_text(text).map_err(|e| ApiError::bad_request(format!("position: {e}")))
}

/// A money-play state (centred cube) from 26 slot counts.
fn board_state(counts: &[i64]) -> Result<MatchState, ApiError> {
    if counts.len() != 26 {
        return Err(ApiError::bad_request(format!(
            "position: a board holds 26 slot counts, found {}",
            counts.len()
        )));
    }
    let mut slots = [0i8; 26];
    for (slot, &c) in slots.iter_mut().zip(counts) {
        *slot = i8::try_from(c)
            .ok()
            .filter(|c| (-15..=15).contains(c))
            .ok_or_else(|| {
                ApiError::bad_request(format!("position: slot count {c} is not within -15..15"))
            })?;
    }
    let position = Position::from_slots(slots)
        .map_err(|e| ApiError::bad_request(format!("position: not a legal board: {e}")))?;
    let decision = if position.is_game_over() {
        Decision::GameOver
    } else {
        Decision::DoubleOrRoll
    };
    Ok(MatchState::money(position, decision))
}

fn die(v: i64) -> Result<u8, ApiError> {
    u8::try_from(v)
        .ok()
        .filter(|d| (1..=6).contains(d))
        .ok_or_else(|| ApiError::bad_request(format!("dice: {v} is not a die from 1 to 6")))
}

pub(super) fn dice_param(raw: Raw<'_>) -> Result<Dice, ApiError> {
    let pair: Vec<i64> = match raw {
        Raw::Json(Value::Array(items)) => items
            .iter()
            .map(|v| {
                v.as_i64()
                    .ok_or_else(|| ApiError::bad_request(format!("dice: {v} is not a die")))
            })
            .collect::<Result<_, _>>()?,
        Raw::Text(s) => {
            let chars: Vec<char> = s.trim().chars().collect();
            let (a, b) = match chars[..] {
                [a, b] | [a, ',' | '-' | ' ', b] => (a, b),
                _ => {
                    return Err(ApiError::bad_request(format!(
                        "dice: {s:?}: expected two dice such as 6,4"
                    )))
                }
            };
            let digit = |c: char| {
                c.to_digit(10).map(i64::from).ok_or_else(|| {
                    ApiError::bad_request(format!("dice: {s:?}: expected two dice such as 6,4"))
                })
            };
            vec![digit(a)?, digit(b)?]
        }
        Raw::Json(v) => {
            return Err(ApiError::bad_request(format!(
                "dice: expected an array of two dice, found {}",
                kind_of(v)
            )))
        }
    };
    let [a, b] = pair[..] else {
        return Err(ApiError::bad_request(format!(
            "dice: expected two dice, found {}",
            pair.len()
        )));
    };
    Dice::new(die(a)?, die(b)?).map_err(|e| ApiError::bad_request(format!("dice: {e}")))
}

/// A non-negative integer parameter.
pub(super) fn uint_param(name: &str, raw: Raw<'_>) -> Result<u64, ApiError> {
    let n = match raw {
        Raw::Json(v) => v.as_u64(),
        Raw::Text(s) => s.trim().parse().ok(),
    };
    n.ok_or_else(|| {
        let found = match raw {
            Raw::Json(v) => v.to_string(),
            Raw::Text(s) => format!("{s:?}"),
        };
        ApiError::bad_request(format!(
            "{name}: expected a non-negative integer, found {found}"
        ))
    })
}

pub(super) fn bool_param(name: &str, raw: Raw<'_>) -> Result<bool, ApiError> {
    match raw {
        Raw::Json(Value::Bool(b)) => Ok(*b),
        Raw::Text("true") => Ok(true),
        Raw::Text("false") => Ok(false),
        Raw::Json(v) => Err(ApiError::bad_request(format!(
            "{name}: expected true or false, found {}",
            kind_of(v)
        ))),
        Raw::Text(s) => Err(ApiError::bad_request(format!(
            "{name}: expected true or false, found {:?}",
            s.chars().take(40).collect::<String>()
        ))),
    }
}

pub(super) fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Reads the parameters of `route` from (name, value) pairs.
fn read_params<'a>(
    route: Route,
    pairs: impl Iterator<Item = (&'a str, Raw<'a>)>,
) -> Result<Params, ApiError> {
    let mut state = None;
    let mut p = Params {
        state: MatchState::money(Position::OPENING, Decision::DoubleOrRoll),
        dice: None,
        depth: None,
        trials: None,
        seed: None,
        truncate: None,
        top: None,
        cube: false,
    };
    let mut seen: Vec<&str> = Vec::new();
    for (name, raw) in pairs {
        if !route.fields().contains(&name) {
            return Err(ApiError::bad_request(format!(
                "unknown parameter {name:?} (this route takes {})",
                route.fields().join(", ")
            )));
        }
        if seen.contains(&name) {
            return Err(ApiError::bad_request(format!("{name} is given twice")));
        }
        seen.push(name);
        match name {
            "position" => state = Some(position_param(raw)?),
            "dice" => p.dice = Some(dice_param(raw)?),
            "depth" => {
                let d = uint_param(name, raw)?;
                let d = u32::try_from(d)
                    .ok()
                    .and_then(|d| Depth::new(d).ok())
                    .ok_or_else(|| {
                        ApiError::bad_request(format!("depth: {d} is not an odd depth from 1 to 9"))
                    })?;
                p.depth = Some(d);
            }
            "trials" => p.trials = Some(uint_param(name, raw)?),
            "seed" => p.seed = Some(uint_param(name, raw)?),
            "truncate" => {
                let t = uint_param(name, raw)?;
                p.truncate = Some(u32::try_from(t).unwrap_or(u32::MAX));
            }
            "top" => {
                let t = uint_param(name, raw)?;
                p.top = Some(usize::try_from(t).unwrap_or(usize::MAX));
            }
            "cube" => p.cube = bool_param(name, raw)?,
            _ => {}
        }
    }
    p.state = state.ok_or_else(|| ApiError::bad_request("position is required"))?;
    Ok(p)
}

/// A request body that axum could read, or the error answer.
pub(super) fn read_body(body: Result<Bytes, BytesRejection>) -> Result<Bytes, ApiError> {
    body.map_err(|e| ApiError {
        status: e.status(),
        message: format!("cannot read the body: {}", e.body_text()),
    })
}

/// The body as a JSON object.
pub(super) fn json_object(body: &[u8]) -> Result<Map<String, Value>, ApiError> {
    let value: Value = serde_json::from_slice(body)
        .map_err(|e| ApiError::bad_request(format!("the body is not JSON: {e}")))?;
    match value {
        Value::Object(map) => Ok(map),
        other => Err(ApiError::bad_request(format!(
            "the body must be a JSON object, found {}",
            kind_of(&other)
        ))),
    }
}

pub(super) fn params_from_body(route: Route, body: &[u8]) -> Result<Params, ApiError> {
    let map = json_object(body)?;
    read_params(route, map.iter().map(|(k, v)| (k.as_str(), Raw::Json(v))))
}

pub(super) fn params_from_query(route: Route, uri: &Uri) -> Result<Params, ApiError> {
    let QueryString(pairs) = QueryString::<Vec<(String, String)>>::try_from_uri(uri)
        .map_err(|e| ApiError::bad_request(format!("bad query string: {e}")))?;
    read_params(
        route,
        pairs
            .iter()
            .map(|(k, v)| (k.as_str(), Raw::Text(v.as_str()))),
    )
}

pub(super) fn playable(state: &MatchState) -> Result<(), ApiError> {
    match state.decision {
        Decision::GameOver => Err(ApiError::bad_request("the game is over: nothing to decide")),
        Decision::BeaverAnswer => Err(ApiError::bad_request(
            "the position waits for the answer to a beaver; ask about the position before it",
        )),
        _ => Ok(()),
    }
}

/// The state of a question before the roll: a position with dice asks about the cube
/// before those dice were rolled.
pub(super) fn before_roll(mut state: MatchState) -> Result<MatchState, ApiError> {
    playable(&state)?;
    if let Decision::Move(_) = state.decision {
        state.decision = Decision::DoubleOrRoll;
        state.dice_low_first = false;
    }
    Ok(state)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use axum::http::StatusCode;

    fn body(route: Route, text: &str) -> Result<Params, ApiError> {
        params_from_body(route, text.as_bytes())
    }

    fn query(route: Route, q: &str) -> Result<Params, ApiError> {
        params_from_query(route, &format!("/v1/x?{q}").parse().unwrap())
    }

    #[test]
    fn every_position_format_is_read() {
        let opening = Position::OPENING;
        let xgid = r#"{"position":"XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10"}"#;
        let p = body(Route::Move, xgid).unwrap();
        assert_eq!(p.state.position, opening);
        assert!(matches!(p.state.decision, Decision::Move(_)));
        let p = body(Route::Cube, r#"{"position":"4HPwATDgc/ABMA"}"#).unwrap();
        assert_eq!(p.state.position, opening);
        let slots: Vec<String> = opening.slots().iter().map(|s| s.to_string()).collect();
        let p = body(
            Route::Eval,
            &format!(r#"{{"position":[{}],"depth":3}}"#, slots.join(",")),
        )
        .unwrap();
        assert_eq!(p.state.position, opening);
        assert_eq!(p.depth.map(Depth::get), Some(3));
        let q = format!("position={}&dice=6-4&depth=1", slots.join(","));
        let p = query(Route::Move, &q).unwrap();
        assert_eq!(p.state.position, opening);
        assert_eq!(p.dice, Some(Dice::new(6, 4).unwrap()));
        let p = query(Route::Move, "position=4HPwATDgc%2FABMA&dice=31").unwrap();
        assert_eq!(p.dice, Some(Dice::new(3, 1).unwrap()));
    }

    #[test]
    fn bad_input_gets_a_message_naming_it() {
        let cases = [
            (Route::Move, "", "not JSON"),
            (Route::Move, "[]", "JSON object"),
            (Route::Move, "{}", "position is required"),
            (Route::Move, r#"{"position":7}"#, "position: expected"),
            (
                Route::Move,
                r#"{"position":"zzz"}"#,
                "position: bad gnubg id",
            ),
            (Route::Move, r#"{"position":[1,2]}"#, "26 slot counts"),
            (
                Route::Move,
                r#"{"position":"4HPwATDgc/ABMA","dice":[7,1]}"#,
                "not a die",
            ),
            (
                Route::Move,
                r#"{"position":"4HPwATDgc/ABMA","dice":[1]}"#,
                "two dice",
            ),
            (
                Route::Move,
                r#"{"position":"4HPwATDgc/ABMA","depth":2}"#,
                "odd depth",
            ),
            (
                Route::Move,
                r#"{"position":"4HPwATDgc/ABMA","depth":-1}"#,
                "non-negative",
            ),
            (
                Route::Move,
                r#"{"position":"4HPwATDgc/ABMA","trials":5}"#,
                "unknown parameter",
            ),
            (
                Route::Cube,
                r#"{"position":"4HPwATDgc/ABMA","dice":[1,2]}"#,
                "unknown",
            ),
        ];
        for (route, text, expected) in cases {
            let e = body(route, text).unwrap_err();
            assert_eq!(e.status, StatusCode::BAD_REQUEST);
            assert!(e.message.contains(expected), "{text}: {}", e.message);
        }
        let mut board = vec!["0"; 26];
        board[1] = "16";
        let e = query(Route::Move, &format!("position={}", board.join(","))).unwrap_err();
        assert!(e.message.contains("within -15..15"), "{}", e.message);
        board[1] = "15";
        board[2] = "1";
        let e = query(Route::Move, &format!("position={}", board.join(","))).unwrap_err();
        assert!(e.message.contains("not a legal board"), "{}", e.message);
        // A board with every checker of one side off is a finished game.
        let mut done = vec!["0"; 26];
        done[1] = "-15";
        let p = query(Route::Move, &format!("position={}", done.join(","))).unwrap();
        assert_eq!(p.state.decision, Decision::GameOver);
        let e = query(Route::Move, "position=4HPwATDgc%2FABMA&position=x").unwrap_err();
        assert!(e.message.contains("twice"), "{}", e.message);
        let e = query(Route::Move, "position=4HPwATDgc%2FABMA&dice=6,4,1").unwrap_err();
        assert!(e.message.contains("dice"), "{}", e.message);
    }
}
