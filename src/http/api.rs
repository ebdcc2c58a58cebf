//! The `/v1` routes: reading a request (JSON body or query string) into typed parameters,
//! the search or rollout on the pool, and the JSON answer.
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

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Query as QueryString, State};
use axum::http::{StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::{json, Map, Value};

use super::{json_response, ApiError, App};
use crate::cube::CubeSettings;
use crate::engine::{
    cube_answer, Depth, EngineSettings, EngineSpec, EvalOptions, Found, Need, Outcome, RankedPlay,
    Work,
};
use crate::eval::Probabilities;
use crate::game::{CubeOwner, Decision, Dice, MatchState, Position};
use crate::notation::text::parse_position_text;
use crate::notation::{encode_match_state, format_play, position_id, MoveStyle, Xgid};
use crate::rollout::{Estimate, Hooks, Rollout, RolloutSettings};
use crate::search::{Query, SearchOutcome};
use crate::server::PoolError;

/// How many of the best plays get an exact value at the full depth (as `hint`).
const RANK: usize = 5;
/// Trials of a rollout that names none.
const DEFAULT_TRIALS: u64 = 324;
/// Plays rolled out with dice when `top` is not given.
const DEFAULT_TOP: usize = 3;
/// Most plays one rollout may compare.
const MAX_TOP: usize = 10;
/// Longest truncation a rollout may ask for, in plies.
const MAX_TRUNCATE: u32 = 1000;
/// Transposition table of each rollout trial's players (as `stargammon rollout`).
const TRIAL_TT_MB: usize = 4;

/// Which `/v1` route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Route {
    Move,
    Cube,
    Eval,
    Rollout,
}

impl Route {
    fn of(path: &str) -> Option<Route> {
        match path {
            "/v1/move" => Some(Route::Move),
            "/v1/cube" => Some(Route::Cube),
            "/v1/eval" => Some(Route::Eval),
            "/v1/rollout" => Some(Route::Rollout),
            _ => None,
        }
    }

    /// The parameters the route takes.
    fn fields(self) -> &'static [&'static str] {
        match self {
            Route::Move => &["position", "dice", "depth"],
            Route::Cube | Route::Eval => &["position", "depth"],
            Route::Rollout => &["position", "dice", "trials", "seed", "truncate", "top"],
        }
    }
}

/// A request's parameters, read and checked.
#[derive(Debug, Clone, PartialEq)]
struct Params {
    state: MatchState,
    dice: Option<Dice>,
    depth: Option<Depth>,
    trials: Option<u64>,
    seed: Option<u64>,
    truncate: Option<u32>,
    top: Option<usize>,
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

fn params_from_body(route: Route, body: &[u8]) -> Result<Params, ApiError> {
    let map = json_object(body)?;
    read_params(route, map.iter().map(|(k, v)| (k.as_str(), Raw::Json(v))))
}

fn params_from_query(route: Route, uri: &Uri) -> Result<Params, ApiError> {
    let QueryString(pairs) = QueryString::<Vec<(String, String)>>::try_from_uri(uri)
        .map_err(|e| ApiError::bad_request(format!("bad query string: {e}")))?;
    read_params(
        route,
        pairs
            .iter()
            .map(|(k, v)| (k.as_str(), Raw::Text(v.as_str()))),
    )
}

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
        Route::Move => plays(app, p).await,
        Route::Cube => cube(app, p).await,
        Route::Eval => eval(app, p).await,
        Route::Rollout => rollout(app, p).await,
    };
    match result {
        Ok(body) => json_response(StatusCode::OK, body),
        Err(e) => e.into_response(),
    }
}

fn pool_error(e: PoolError) -> ApiError {
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

fn internal(what: &str) -> ApiError {
    ApiError {
        status: StatusCode::INTERNAL_SERVER_ERROR,
        message: format!("internal error: {what}"),
    }
}

pub(super) fn r6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

fn probs4(p: &Probabilities) -> [f64; 5] {
    p.0.map(|x| (x as f64 * 1e4).round() / 1e4)
}

fn probs_json(p: &Probabilities) -> Value {
    json!(probs4(p))
}

/// The position a request was about, in every notation, with the board to draw.
#[derive(Debug, Serialize)]
struct Summary {
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

fn describe(state: &MatchState) -> Summary {
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

/// The server's engine with the position's own cube rules (an XGID's Jacoby and beaver
/// flags) and the depth that was searched.
fn request_engine(app: &App, state: &MatchState, depth: u32) -> crate::engine::Engine {
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

fn value_unit(state: &MatchState) -> &'static str {
    if state.is_money() {
        "equity"
    } else {
        "match winning chance"
    }
}

fn playable(state: &MatchState) -> Result<(), ApiError> {
    match state.decision {
        Decision::GameOver => Err(ApiError::bad_request("the game is over: nothing to decide")),
        Decision::BeaverAnswer => Err(ApiError::bad_request(
            "the position waits for the answer to a beaver; ask about the position before it",
        )),
        _ => Ok(()),
    }
}

/// `/v1/move`: every legal play, best first, with equities and probabilities. The plays
/// are valued and the reply is written on the worker that searched them.
async fn plays(app: &App, p: Params) -> Result<String, ApiError> {
    let mut state = p.state;
    playable(&state)?;
    let own = match state.decision {
        Decision::Move(d) => Some(d),
        _ => None,
    };
    let dice = p.dice.or(own).ok_or_else(|| {
        ApiError::bad_request(
            "no dice: give \"dice\" or a position with dice (the cube decision is /v1/cube)",
        )
    })?;
    if state.decision == Decision::TakeOrDrop {
        return Err(ApiError::bad_request(
            "a double is pending: take or drop is /v1/cube",
        ));
    }
    state.decision = Decision::Move(dice);
    let depth = p
        .depth
        .map_or(app.shared.engine().settings().depth, Depth::get);
    let engine = request_engine(app, &state, depth);
    let query = Query::Move {
        position: state.position,
        dice,
    };
    // At a match score the search values results by what they do to the match.
    let utility = crate::engine::utility(&crate::engine::cube_view(&state));
    let adjust = move |s: &mut crate::search::SearchSettings| {
        s.rank = RANK;
        s.probabilities = true;
        s.utility = utility;
    };
    app.shared
        .search_then(query, depth, adjust, move |searched| {
            ranked_plays(&engine, &state, dice, searched)
        })
        .await
        .map_err(pool_error)?
}

/// One play of a `/v1/move` answer.
#[derive(Debug, Serialize)]
struct PlayOut {
    #[serde(rename = "move")]
    play: String,
    equity: f64,
    cubeful: f64,
    probs: [f64; 5],
    depth: u8,
    position_id: String,
    board: [i8; 26],
}

/// A `/v1/move` answer (serialized straight from these types: the reply is built on a
/// worker for every request, so it goes without an intermediate JSON tree).
#[derive(Debug, Serialize)]
struct MoveOut {
    position: Summary,
    dice: [u8; 2],
    plays: Vec<PlayOut>,
    cubeful_unit: &'static str,
    depth: u8,
    capped_from: Option<u32>,
    algo: &'static str,
    ms: f64,
    nodes: u64,
    evals: u64,
}

/// The answer of `/v1/move` from the search's ranked plays, as JSON text.
fn ranked_plays(
    engine: &crate::engine::Engine,
    state: &MatchState,
    dice: Dice,
    searched: crate::server::Searched,
) -> Result<String, ApiError> {
    let SearchOutcome::Move(d) = searched.outcome else {
        return Err(internal("a move search answered something else"));
    };
    // Valued at the depth reached (plays are re-ranked by their cubeful value at depth 1).
    let engine = engine.with_settings(EngineSettings {
        depth: u32::from(d.depth),
        ..*engine.settings()
    });
    let by_play: HashMap<crate::game::Play, &crate::search::RankedPlay> =
        d.plays.iter().map(|r| (r.play, r)).collect();
    let valued = engine.value_plays(
        state,
        d.plays
            .iter()
            .map(|r| RankedPlay {
                play: r.play,
                probs: r.probs,
            })
            .collect(),
    );
    let mut plays = Vec::with_capacity(valued.len());
    for (rp, value) in &valued {
        let Some(found) = by_play.get(&rp.play) else {
            return Err(internal("a ranked play was lost"));
        };
        plays.push(PlayOut {
            play: format_play(&state.position, &rp.play, MoveStyle::Gnubg),
            equity: r6(found.equity),
            cubeful: r6(*value),
            probs: probs4(&rp.probs),
            depth: found.depth,
            position_id: position_id(&rp.play.next_position()),
            board: *rp.play.position.slots(),
        });
    }
    let out = MoveOut {
        position: describe(state),
        dice: [dice.high(), dice.low()],
        plays,
        cubeful_unit: value_unit(state),
        depth: d.depth,
        capped_from: searched.capped_from,
        algo: engine.plan().algorithm.name(),
        ms: d.elapsed.as_secs_f64() * 1000.0,
        nodes: d.stats.nodes(),
        evals: d.stats.evals,
    };
    serde_json::to_string(&out).map_err(|e| internal(&format!("the answer did not serialize: {e}")))
}

/// The state of a question before the roll: a position with dice asks about the cube
/// before those dice were rolled.
fn before_roll(mut state: MatchState) -> Result<MatchState, ApiError> {
    playable(&state)?;
    if let Decision::Move(_) = state.decision {
        state.decision = Decision::DoubleOrRoll;
        state.dice_low_first = false;
    }
    Ok(state)
}

/// Probabilities of the side about to roll in `state` at `depth` (the doubler at a take
/// question), with the depth reached, the cap's note and the time taken.
async fn roller_probabilities(
    app: &App,
    work: &Work,
    depth: u32,
) -> Result<(Probabilities, u8, Option<u32>, f64), ApiError> {
    let engine = app.shared.engine();
    let (position, utility) = match engine.need(work) {
        Need::Probabilities {
            position, utility, ..
        } => (position, utility),
        _ => return Err(internal("a position question needs no probabilities")),
    };
    let searched = app
        .shared
        .search(Query::Position { position }, depth, move |s| {
            s.utility = utility
        })
        .await
        .map_err(pool_error)?;
    let SearchOutcome::Position(e) = searched.outcome else {
        return Err(internal("a position search answered something else"));
    };
    Ok((
        e.probs,
        e.depth,
        searched.capped_from,
        e.elapsed.as_secs_f64() * 1000.0,
    ))
}

/// `/v1/cube`: the cube decision with cubeful equities.
async fn cube(app: &App, p: Params) -> Result<String, ApiError> {
    let state = before_roll(p.state)?;
    let depth = p
        .depth
        .map_or(app.shared.engine().settings().cube_depth, Depth::get);
    let (probs, reached, capped_from, ms) =
        roller_probabilities(app, &Work::Decide(state.clone()), depth).await?;
    let engine = request_engine(app, &state, u32::from(reached));
    let analysis = engine.cube_analysis(&state, &probs);
    let taking = state.decision == Decision::TakeOrDrop;
    let mut equities = json!({
        "no_double": r6(analysis.no_double),
        "double_take": r6(analysis.double_take),
        "double_pass": r6(analysis.double_pass),
    });
    if let Some(b) = analysis.double_beaver {
        equities["double_beaver"] = json!(r6(b));
    }
    let cube = engine.settings().cube;
    Ok(json!({
        "position": describe(&state),
        "cube": {
            "action": cube_answer(&state, &analysis, &cube),
            "equities": equities,
            "unit": value_unit(&state),
            "proper": analysis.action.to_string(),
            "response": analysis.response.to_string(),
            "efficiency": analysis.efficiency,
            "jacoby": cube.jacoby,
            "beavers": cube.beavers,
        },
        "evaluation": {
            "equity": r6(probs.equity() as f64),
            "probs": probs_json(&probs),
            "depth": reached,
            "roller": if taking { "opponent" } else { "self" },
        },
        "depth": reached,
        "capped_from": capped_from,
        "ms": ms,
    })
    .to_string())
}

/// `/v1/eval`: probabilities and equities of the side to act, before it rolls.
async fn eval(app: &App, p: Params) -> Result<String, ApiError> {
    let state = before_roll(p.state)?;
    let depth = p
        .depth
        .map_or(app.shared.engine().settings().cube_depth, Depth::get);
    let opts = |cubeful| EvalOptions {
        depth,
        cubeful,
        noise: 0.0,
        deterministic: false,
    };
    let work = Work::Evaluate(state.clone(), opts(false));
    let (probs, reached, capped_from, ms) = roller_probabilities(app, &work, depth).await?;
    let engine = request_engine(app, &state, u32::from(reached));
    let report = |cubeful| match engine.complete(
        &Work::Evaluate(state.clone(), opts(cubeful)),
        Found::Probabilities(probs),
    ) {
        Ok(Outcome::Evaluation(r)) => Ok(r),
        _ => Err(internal("an evaluation answered something else")),
    };
    let cubeless = report(false)?;
    let cubeful = report(true)?;
    Ok(json!({
        "position": describe(&state),
        "evaluation": {
            "probs": probs_json(&cubeless.probs),
            "equity": r6(cubeless.probs.equity() as f64),
            "cubeless": r6(cubeless.value),
            "cubeful": r6(cubeful.value),
            "unit": value_unit(&state),
            "depth": reached,
        },
        "depth": reached,
        "capped_from": capped_from,
        "ms": ms,
    })
    .to_string())
}

/// The rollout engine, built once on a worker at the first rollout.
#[derive(Debug, Default)]
pub struct RolloutCache(OnceLock<Result<Rollout, String>>);

/// Raises a rollout's stop flag when dropped (the request ended or was abandoned).
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

fn estimate_json(e: &Estimate, trials: u64, out: &mut Value) {
    if trials == 0 {
        for key in ["equity", "se", "probs", "probs_se"] {
            out[key] = Value::Null;
        }
        return;
    }
    out["equity"] = json!(r6(e.equity()));
    out["se"] = json!(r6(e.equity_se()));
    out["probs"] = json!(e.probs().map(r6));
    out["probs_se"] = json!(e.probs_se().map(r6));
}

/// `/v1/rollout`: cubeless rollout of the position (before its roll) or of the best plays
/// of a roll, on one worker, stopped at `server.max_request_ms` with what completed.
async fn rollout(app: &App, p: Params) -> Result<String, ApiError> {
    let state = p.state;
    playable(&state)?;
    let dice = p.dice.or(match state.decision {
        Decision::Move(d) => Some(d),
        _ => None,
    });
    let cap = app.config.http.max_rollout_trials;
    let trials = p.trials.unwrap_or(DEFAULT_TRIALS.min(cap));
    if trials == 0 || trials > cap {
        return Err(ApiError::bad_request(format!(
            "trials: {trials} is not from 1 to {cap} (http.max_rollout_trials)"
        )));
    }
    if let Some(t) = p.truncate.filter(|t| !(1..=MAX_TRUNCATE).contains(t)) {
        return Err(ApiError::bad_request(format!(
            "truncate: {t} is not from 1 to {MAX_TRUNCATE} plies (0 would play no roll)"
        )));
    }
    if let Some(seed) = p.seed.filter(|s| *s > u64::from(u32::MAX)) {
        return Err(ApiError::bad_request(format!(
            "seed: {seed} is over {}",
            u32::MAX
        )));
    }
    let top = p.top.unwrap_or(DEFAULT_TOP);
    if !(1..=MAX_TOP).contains(&top) {
        return Err(ApiError::bad_request(format!(
            "top: {top} is not from 1 to {MAX_TOP}"
        )));
    }
    if dice.is_some() && state.decision == Decision::TakeOrDrop {
        return Err(ApiError::bad_request(
            "a double is pending: roll out the position without dice",
        ));
    }
    // At a take question the doubler is the one about to roll.
    let taking = dice.is_none() && state.decision == Decision::TakeOrDrop;
    let position = if taking {
        state.position.swap()
    } else {
        state.position
    };
    let settings = RolloutSettings {
        trials,
        seed: p.seed.unwrap_or(1),
        truncate: p.truncate,
        variance_reduction: true,
        threads: 1,
    };
    let spec = EngineSpec {
        depth: Depth::ONE,
        tt_megabytes: TRIAL_TT_MB,
        ..app.config.engine_spec()
    };
    let stop = Arc::new(AtomicBool::new(false));
    let _stop_guard = StopOnDrop(stop.clone());
    if let Some(limit) = app.shared.request_time_cap() {
        let stop = stop.clone();
        tokio::spawn(async move {
            tokio::time::sleep(limit).await;
            stop.store(true, Ordering::Relaxed);
        });
    }
    let cache = app.rollouts.clone();
    let task_stop = stop.clone();
    let result = app
        .shared
        .run_task(move || {
            let rollout = match cache
                .0
                .get_or_init(|| Rollout::new(&spec).map_err(|e| e.to_string()))
            {
                Ok(r) => r,
                Err(e) => return Err(e.clone()),
            };
            let hooks = Hooks {
                stop: &task_stop,
                progress: &|_| {},
            };
            match dice {
                Some(d) => rollout
                    .plays(&position, d, top, &settings, hooks)
                    .map(|r| (None, Some(r)))
                    .map_err(|e| e.to_string()),
                None => rollout
                    .position(&position, &settings, hooks)
                    .map(|r| (Some(r), None))
                    .map_err(|e| e.to_string()),
            }
        })
        .await
        .map_err(pool_error)?;
    let (whole, of_plays) = result.map_err(ApiError::bad_request)?;
    let mut out = json!({
        "position": describe(&state),
        "seed": settings.seed,
        "truncate": settings.truncate,
        "variance_reduction": true,
        "depth": 1,
    });
    if let Some(r) = whole {
        out["trials"] = json!(r.trials);
        out["partial"] = json!(r.partial);
        out["seconds"] = json!(r.seconds);
        out["roller"] = json!(if taking { "opponent" } else { "self" });
        estimate_json(&r.estimate, r.trials, &mut out);
    }
    if let (Some(r), Some(d)) = (of_plays, dice) {
        out["trials"] = json!(r.trials);
        out["partial"] = json!(r.partial);
        out["seconds"] = json!(r.seconds);
        out["dice"] = json!([d.high(), d.low()]);
        let plays: Vec<Value> = r
            .plays
            .iter()
            .map(|pr| {
                let mut o = json!({
                    "move": format_play(&position, &pr.play, MoveStyle::Gnubg),
                    "diff": r6(pr.diff),
                    "diff_se": r6(pr.diff_se),
                    "position_id": position_id(&pr.play.next_position()),
                });
                estimate_json(&pr.estimate, r.trials, &mut o);
                o
            })
            .collect();
        out["plays"] = json!(plays);
    }
    Ok(out.to_string())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

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
