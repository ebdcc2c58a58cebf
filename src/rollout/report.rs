//! The report of a cube decision's rollout: the `cube` object `hint --json` gives for a
//! cube decision, with the rolled-out values and their standard errors, as `rollout
//! --cube --json` and `/v1/rollout` with `cube` give it.

use serde_json::{json, Value};

use super::{roller_state, CubeRollout, Rollout};
use crate::cube::{self, DoubleAction};
use crate::engine::cube_detail::{proper_action_text, r6};
use crate::engine::{cube_answer, no_cube_reason};
use crate::game::MatchState;

/// gnubg's equivalent-to-money equity of a match-winning chance `mwc` for the roller of
/// `roller` (the value of winning and of losing a single game at the cube now scaled to +1
/// and -1); `None` in money play.
pub fn emg(roller: &MatchState, mwc: f64) -> Option<f64> {
    let (win, lose) = cube::result_chances(&crate::engine::cube_view(roller))?;
    let span = win[0] - lose[0];
    (span.abs() > 1e-12).then(|| (2.0 * mwc - (win[0] + lose[0])) / span)
}

/// The `cube` object of the cube rollout `r` of `state` made with `rollout`.
pub fn cube_object(state: &MatchState, rollout: &Rollout, r: &CubeRollout) -> Value {
    let roller = roller_state(state);
    let rules = rollout.engine().rules_for(&roller);
    let blocked = no_cube_reason(state);
    let d = &r.decision;
    let money = state.is_money();
    let mut equities = json!({ "no_double": r6(d.no_double) });
    let mut se = json!({ "no_double": r6(r.no_double.equity_se()) });
    if let Some(dt) = &r.double_take {
        equities["double_take"] = json!(r6(dt.equity()));
        equities["double_pass"] = json!(r6(r.double_pass));
        se["double_take"] = json!(r6(dt.equity_se()));
        se["double_pass"] = json!(0.0);
        if let Some((b, b_se)) = r.double_beaver {
            equities["double_beaver"] = json!(r6(b));
            se["double_beaver"] = json!(r6(b_se));
        }
    }
    let proper = if blocked.is_some() {
        ("no double".to_string(), "No double".to_string())
    } else {
        (d.action.to_string(), proper_action_text(state, d))
    };
    let mut c = json!({
        "action": if blocked.is_some() { "no double" } else { cube_answer(state, d, &rules) },
        "equities": equities,
        "se": se,
        "diff_se": r6(r.diff_se),
        "evaluation": "rollout",
        "value_kind": if money { "equity" } else { "mwc" },
        "proper": proper.0,
        "proper_text": proper.1,
        "response": d.response.to_string(),
        "jacoby": rules.jacoby,
        "beavers": rules.beavers,
        "crawford": state.crawford,
        "cube_available": blocked.is_none(),
        "too_good": blocked.is_none() && d.action == DoubleAction::TooGood,
    });
    if let Some((code, why)) = &blocked {
        c["reason"] = json!(code);
        c["reason_text"] = json!(why);
    } else {
        let k = d.costs();
        let mut costs = json!({
            "no_double": r6(k.no_double),
            "double": r6(k.double),
            "take": r6(k.take),
            "pass": r6(k.pass),
        });
        if let Some(b) = k.beaver {
            costs["beaver"] = json!(r6(b));
        }
        c["costs"] = costs;
    }
    if !money {
        let mut e = json!({});
        let mut put = |key: &str, x: f64| {
            if let Some(q) = emg(&roller, x) {
                e[key] = json!(r6(q));
            }
        };
        put("no_double", d.no_double);
        if r.double_take.is_some() {
            put("double_take", d.double_take);
            put("double_pass", d.double_pass);
        }
        c["emg"] = e;
    }
    c
}
