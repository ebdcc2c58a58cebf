//! `stargammon rollout --cube`: the report of a cube decision's rollout, shaped as `hint`
//! reports a cube decision (the `cube` object of `hint --json`, each rolled-out value with
//! its standard error).

use std::fmt::Write as _;

use super::rollout::{estimate_fields, probs_text, r6, Header};
use super::{CliError, Report};
use crate::cube::{self, DoubleAction, TakeAction};
use crate::engine::cube_detail::{double_word, proper_action_text};
use crate::engine::{cube_answer, no_cube_reason};
use crate::game::{Decision, MatchState};
use crate::notation::position_id;
use crate::rollout::{roller_state, CubeRollout, Rollout};

/// gnubg's equivalent-to-money equity of a match-winning chance `mwc` for the roller of
/// `roller` (the value of winning and of losing a single game at the cube now scaled to +1
/// and -1); `None` in money play.
pub fn emg(roller: &MatchState, mwc: f64) -> Option<f64> {
    let (win, lose) = cube::result_chances(&crate::engine::cube_view(roller))?;
    let span = win[0] - lose[0];
    (span.abs() > 1e-12).then(|| (2.0 * mwc - (win[0] + lose[0])) / span)
}

/// The report of `r`, the cube rollout of `state`.
pub(super) fn cube_report(
    h: &Header<'_>,
    state: &MatchState,
    rollout: &Rollout,
    r: &CubeRollout,
) -> Result<Report, CliError> {
    Ok(Report {
        json: cube_json(h, state, rollout, r),
        text: cube_text(h, state, rollout, r)?,
    })
}

fn cube_json(
    h: &Header<'_>,
    state: &MatchState,
    rollout: &Rollout,
    r: &CubeRollout,
) -> serde_json::Value {
    use serde_json::json;
    let roller = roller_state(state);
    let rules = rollout.engine().rules_for(&roller);
    let blocked = no_cube_reason(state);
    let d = &r.decision;
    let money = state.is_money();
    let mut v = h.json(r.trials, r.partial, r.seconds);
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
    v["cube"] = c;
    let vr = !h.args.no_vr;
    let mut nd = json!({});
    estimate_fields(&r.no_double, &r.no_double_raw, r.trials, vr, &mut nd);
    v["no_double"] = nd;
    if let (Some(dt), Some(raw)) = (&r.double_take, &r.double_take_raw) {
        let mut o = json!({});
        estimate_fields(dt, raw, r.trials, vr, &mut o);
        v["double_take"] = o;
    }
    v
}

fn value_text(money: bool, x: f64) -> String {
    if money {
        format!("{x:+.4}")
    } else {
        format!("{:.2}%", x * 100.0)
    }
}

fn se_text(money: bool, x: f64) -> String {
    if money {
        format!("{x:.4}")
    } else {
        format!("{:.2}%", x * 100.0)
    }
}

fn cube_text(
    h: &Header<'_>,
    state: &MatchState,
    rollout: &Rollout,
    r: &CubeRollout,
) -> Result<String, CliError> {
    let roller = roller_state(state);
    let rules = rollout.engine().rules_for(&roller);
    let money = state.is_money();
    let d = &r.decision;
    let mut t = String::new();
    writeln!(
        t,
        "cube decision rollout of {} ({}), the {} to roll",
        position_id(&roller.position),
        if money {
            format!(
                "money, cube {}, Jacoby {}, beavers {}",
                roller.cube,
                on_off(rules.jacoby),
                on_off(rules.beavers)
            )
        } else {
            format!(
                "{}-point match, {}-away/{}-away, cube {}{}",
                roller.match_length,
                roller.away(),
                roller.opp_away(),
                roller.cube,
                if roller.crawford { ", Crawford" } else { "" }
            )
        },
        if state.decision == Decision::TakeOrDrop {
            "doubler"
        } else {
            "roller"
        }
    )?;
    writeln!(t, "{}", h.text(r.trials, r.partial, r.seconds))?;
    writeln!(
        t,
        "No double: {}",
        probs_text(&r.no_double).replace("win", "games won")
    )?;
    writeln!(
        t,
        "Cubeful {} of the roller (per unit of the cube now):",
        if money {
            "equities"
        } else {
            "match-winning chances"
        }
    )?;
    let blocked = no_cube_reason(state);
    let mut rows = vec![("No double", d.no_double, Some(r.no_double.equity_se()))];
    if let Some(dt) = &r.double_take {
        rows.push(("Double, take", dt.equity(), Some(dt.equity_se())));
        rows.push(("Double, pass", r.double_pass, None));
        if let Some((b, b_se)) = r.double_beaver {
            rows.push(("Double, beaver", b, Some(b_se)));
        }
    }
    let best = d.optimal();
    for (k, (name, v, se)) in rows.iter().enumerate() {
        let se = match se {
            Some(s) => format!("  se {}", se_text(money, *s)),
            None => String::new(),
        };
        let diff = if (v - best).abs() < 1e-12 || blocked.is_some() {
            String::new()
        } else {
            format!("  ({})", value_text(money, v - best))
        };
        writeln!(
            t,
            " {}. {:<16} {}{se}{diff}",
            k + 1,
            name,
            value_text(money, *v)
        )?;
    }
    if let Some((_, why)) = &blocked {
        writeln!(t, " {why}.")?;
        writeln!(t, " Proper cube action: No double")?;
        return Ok(t);
    }
    writeln!(
        t,
        " Double, take minus no double: {}  se {}",
        value_text(money, d.double_take - d.no_double),
        se_text(money, r.diff_se)
    )?;
    writeln!(t, " Proper cube action: {}", proper_action_text(state, d))?;
    let k = d.costs();
    let re = if double_word(state) == "redouble" {
        "Redouble"
    } else {
        "Double"
    };
    let cost = |name: &str, v: f64| (v > 0.0).then(|| format!("{name} {}", value_text(money, -v)));
    let doubler: Vec<String> = [cost("No double", k.no_double), cost(re, k.double)]
        .into_iter()
        .flatten()
        .collect();
    let taker: Vec<String> = [
        cost("Take", k.take),
        cost("Pass", k.pass),
        k.beaver.and_then(|b| cost("Beaver", b)),
    ]
    .into_iter()
    .flatten()
    .collect();
    if !doubler.is_empty() {
        writeln!(t, " Wrong doubler action: {}", doubler.join(", "))?;
    }
    if !taker.is_empty() {
        writeln!(t, " Wrong taker actions: {}", taker.join(", "))?;
    }
    if d.action == DoubleAction::TooGood {
        writeln!(
            t,
            " Too good: playing on is worth more than the opponent's pass{}.",
            if d.response == TakeAction::Take {
                " (and the opponent should take)"
            } else {
                ""
            }
        )?;
    }
    Ok(t)
}

fn on_off(b: bool) -> &'static str {
    if b {
        "on"
    } else {
        "off"
    }
}
