//! `GET`/`POST /v1/move`: every legal play of a roll, best first, with cubeless and
//! cubeful values and probabilities (the fields of `stargammon hint --json`).

use std::collections::HashMap;

use serde::Serialize;

use super::api::{on_pool, request_engine};
use super::params::{playable, Params};
use super::reply::{describe, internal, pool_error, probs4, r6, value_unit};
use super::{ApiError, App};
use crate::engine::{Depth, Engine, EngineSettings, PlayProbs, Work};
use crate::game::{Decision, Dice, MatchState};
use crate::notation::{format_play, position_id, MoveStyle};
use crate::search::SearchOutcome;
use crate::server::{Detail, Searched};

/// How many of the best plays get an exact value at the full depth (as `hint`).
const RANK: usize = 5;

/// `/v1/move`: every legal play, best first, with equities and probabilities. The plays
/// are valued and the reply is written on the worker that searched them.
pub(super) async fn answer(app: &App, p: Params) -> Result<String, ApiError> {
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
    // The facade asks for the plays of the roll at `depth`, the search valuing results by
    // what they do to the match at a match score.
    let search = app.shared.answer_with(
        Work::Decide(state),
        engine,
        Detail::Ranked(RANK),
        move |engine, work, searched| ranked_plays(engine, work.state(), dice, searched),
    );
    on_pool(&app.shared, search).await.map_err(pool_error)?
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
    position: crate::notation::summary::PositionSummary,
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
    engine: &Engine,
    state: &MatchState,
    dice: Dice,
    searched: Searched,
) -> Result<String, ApiError> {
    let Some(SearchOutcome::Move(d)) = searched.outcome else {
        return Err(internal("a move search answered something else"));
    };
    // Valued at the depth reached (plays are re-ranked by their cubeful value at depth 1).
    let engine = engine.with_settings(EngineSettings {
        depth: u32::from(d.depth),
        ..*engine.settings()
    });
    let by_play: HashMap<crate::game::Play, &crate::search::RankedPlay> =
        d.plays.iter().map(|r| (r.play, r)).collect();
    let valued = engine.value_plays(state, d.plays.iter().map(PlayProbs::from).collect());
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
