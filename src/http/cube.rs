//! `GET`/`POST /v1/cube`: the cube decision of a position before its roll (the doubler's
//! question, or the taker's at a pending double) with cubeful equities and the
//! probabilities it rests on.

use serde_json::json;

use super::api::{on_pool, request_engine};
use super::params::{before_roll, Params};
use super::reply::{describe, internal, pool_error, probs_json, r6, value_unit};
use super::{ApiError, App};
use crate::engine::cube_detail::{cube_detail, proper_action_text};
use crate::engine::{cube_answer, no_cube_reason, Depth, Engine, EvalOptions, Work};
use crate::game::{Decision, MatchState};
use crate::search::{Cancel, SearchOutcome};
use crate::server::{Detail, Searched};

/// `/v1/cube`: the cube decision with cubeful equities, written on the worker that
/// searched the roller's probabilities.
pub(super) async fn answer(app: &App, p: Params) -> Result<String, ApiError> {
    let state = before_roll(p.state)?;
    let depth = p
        .depth
        .map_or(app.shared.engine().settings().cube_depth, Depth::get);
    let engine = request_engine(app, &state, depth);
    // The roller's probabilities are searched even where it may not double (the cube is
    // the opponent's, the Crawford game, a dead cube): the analysis then says so, with the
    // equities, rather than skipping the search as a decision alone would.
    let opts = EvalOptions {
        depth,
        cubeful: false,
        noise: 0.0,
        deterministic: false,
    };
    let search = app.shared.answer_with(
        Work::Evaluate(state, opts),
        engine,
        Detail::Decision,
        |engine, work, searched| decision(engine, work.state(), searched),
    );
    on_pool(&app.shared, search).await.map_err(pool_error)?
}

/// The answer from the probabilities of the side about to roll (the doubler at a take
/// question), as JSON text.
fn decision(engine: &Engine, state: &MatchState, searched: Searched) -> Result<String, ApiError> {
    let e = match searched.outcome {
        Some(SearchOutcome::Position(e)) => e,
        None => return Err(internal("the roller's probabilities were not searched")),
        Some(_) => return Err(internal("a position search answered something else")),
    };
    let probs = e.probs;
    let reached = e.depth;
    let detail = cube_detail(engine, state, &probs, &e.rolls, &Cancel::new())
        .map_err(|e| internal(&format!("the cube detail: {e}")))?;
    let analysis = detail.analysis;
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
    let blocked = no_cube_reason(state);
    let action = if blocked.is_some() {
        "no double"
    } else {
        cube_answer(state, &analysis, &cube)
    };
    let mut answer = json!({
        "position": describe(state),
        "cube": {
            "action": action,
            "cube_available": blocked.is_none(),
            "equities": equities,
            "unit": value_unit(state),
            "proper": analysis.action.to_string(),
            "proper_text": if blocked.is_some() {
                "No double".to_string()
            } else {
                proper_action_text(state, &analysis)
            },
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
        "capped_from": searched.capped_from,
        "ms": e.elapsed.as_secs_f64() * 1000.0,
    });
    if let Some(fields) = answer["cube"].as_object_mut() {
        fields.extend(detail.json_fields());
    }
    if let Some((code, why)) = blocked {
        answer["cube"]["reason"] = json!(code);
        answer["cube"]["reason_text"] = json!(why);
    }
    Ok(answer.to_string())
}
