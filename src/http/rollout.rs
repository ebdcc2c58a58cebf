//! `GET`/`POST /v1/rollout`: a cubeless rollout of a position before its roll, or of the
//! best plays of a roll side by side on the same dice, with standard errors (the fields of
//! `stargammon rollout --json`); with `cube`, the cube decision rolled out with the cube
//! alive (`stargammon rollout --cube --json`'s `cube` object). It runs on one pool worker
//! as a task and stops at `server.max_request_ms` with the trials that completed.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use serde_json::{json, Value};

use super::params::{playable, Params};
use super::reply::{describe, pool_error, r6};
use super::{ApiError, App};
use crate::engine::{Depth, EngineSpec};
use crate::game::Decision;
use crate::game::MatchState;
use crate::notation::{format_play, position_id, MoveStyle};
use crate::rollout::{
    cube_object, CubeRollout, Estimate, Hooks, PlaysRollout, PositionRollout, Rollout,
    RolloutSettings,
};

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

/// What a rollout task made.
enum Done {
    Position(PositionRollout),
    Plays(PlaysRollout),
    /// A cube rollout's fields, made on the worker (its `cube` object needs the engine).
    Cube(Vec<(&'static str, Value)>),
}

/// The fields of a cube rollout's answer: the trials, the `cube` object and the two
/// rolled-out positions' estimates.
fn cube_json(state: &MatchState, rollout: &Rollout, r: &CubeRollout) -> Vec<(&'static str, Value)> {
    let estimate = |e: &Estimate| {
        let mut o = json!({});
        estimate_json(e, r.trials, &mut o);
        o
    };
    let mut fields = vec![
        ("trials", json!(r.trials)),
        ("partial", json!(r.partial)),
        ("seconds", json!(r.seconds)),
        ("cube_depth", json!(1)),
        ("cube", cube_object(state, rollout, r)),
        ("no_double", estimate(&r.no_double)),
    ];
    if let Some(dt) = &r.double_take {
        fields.push(("double_take", estimate(dt)));
    }
    fields
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
pub(super) async fn answer(app: &App, p: Params) -> Result<String, ApiError> {
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
    if p.cube && dice.is_some() {
        return Err(ApiError::bad_request(
            "cube rolls out the cube decision before the roll: give a position without dice",
        ));
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
    // Depth 1 for the trials' checker plays and cube decisions, as gnubg's rollouts at 0-ply.
    let spec = EngineSpec {
        depth: Depth::ONE,
        cube_depth: Depth::ONE,
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
    let cube = p.cube;
    let task_state = state.clone();
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
            if cube {
                return rollout
                    .cube(&task_state, &settings, hooks)
                    .map(|r| Done::Cube(cube_json(&task_state, rollout, &r)))
                    .map_err(|e| e.to_string());
            }
            match dice {
                Some(d) => rollout
                    .plays(&position, d, top, &settings, hooks)
                    .map(Done::Plays)
                    .map_err(|e| e.to_string()),
                None => rollout
                    .position(&position, &settings, hooks)
                    .map(Done::Position)
                    .map_err(|e| e.to_string()),
            }
        })
        .await
        .map_err(pool_error)?;
    let done = result.map_err(ApiError::bad_request)?;
    let mut out = json!({
        "position": describe(&state),
        "seed": settings.seed,
        "truncate": settings.truncate,
        "variance_reduction": true,
        "depth": 1,
    });
    let (whole, of_plays) = match done {
        Done::Position(r) => (Some(r), None),
        Done::Plays(r) => (None, Some(r)),
        Done::Cube(fields) => {
            for (k, v) in fields {
                out[k] = v;
            }
            return Ok(out.to_string());
        }
    };
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
