//! `GET`/`POST /v1/eval`: the probabilities of the side to act before it rolls, with its
//! cubeless and cubeful values (money equity or match-winning chance).

use serde_json::json;

use super::api::{on_pool, request_engine};
use super::params::{before_roll, Params};
use super::reply::{describe, internal, pool_error, probs_json, r6, value_unit};
use super::{ApiError, App};
use crate::engine::{Depth, Engine, EvalOptions, Found, Outcome, Work};
use crate::search::SearchOutcome;
use crate::server::{Detail, Searched};

/// `/v1/eval`: probabilities and equities of the side to act, before it rolls, written on
/// the worker that searched them.
pub(super) async fn answer(app: &App, p: Params) -> Result<String, ApiError> {
    let state = before_roll(p.state)?;
    let depth = p
        .depth
        .map_or(app.shared.engine().settings().cube_depth, Depth::get);
    let opts = EvalOptions {
        depth,
        cubeful: false,
        noise: 0.0,
        deterministic: false,
    };
    let engine = request_engine(app, &state, depth);
    let search = app.shared.answer_with(
        Work::Evaluate(state, opts),
        engine,
        Detail::Decision,
        evaluation,
    );
    on_pool(&app.shared, search).await.map_err(pool_error)?
}

/// The answer from the roller's probabilities, valued by the engine cubeless and cubeful,
/// as JSON text.
fn evaluation(engine: &Engine, work: &Work, searched: Searched) -> Result<String, ApiError> {
    let Work::Evaluate(state, opts) = work else {
        return Err(internal("an evaluation answered something else"));
    };
    let e = match searched.outcome {
        Some(SearchOutcome::Position(e)) => e,
        None => return Err(internal("a position question needs no probabilities")),
        Some(_) => return Err(internal("a position search answered something else")),
    };
    let report = |cubeful| match engine.complete(
        &Work::Evaluate(state.clone(), EvalOptions { cubeful, ..*opts }),
        Found::Probabilities(e.probs),
    ) {
        Ok(Outcome::Evaluation(r)) => Ok(r),
        _ => Err(internal("an evaluation answered something else")),
    };
    let cubeless = report(false)?;
    let cubeful = report(true)?;
    Ok(json!({
        "position": describe(state),
        "evaluation": {
            "probs": probs_json(&cubeless.probs),
            "equity": r6(cubeless.probs.equity() as f64),
            "cubeless": r6(cubeless.value),
            "cubeful": r6(cubeful.value),
            "unit": value_unit(state),
            "depth": e.depth,
        },
        "depth": e.depth,
        "capped_from": searched.capped_from,
        "ms": e.elapsed.as_secs_f64() * 1000.0,
    })
    .to_string())
}
