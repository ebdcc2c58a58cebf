//! `stargammon rollout --cube`: the report of a cube decision's rollout, shaped as `hint`
//! reports a cube decision (the `cube` object of `hint --json`, each rolled-out value with
//! its standard error).

use std::fmt::Write as _;

use super::rollout::{estimate_fields, probs_text, Header};
use super::{CliError, Report};
use crate::cube::{DoubleAction, TakeAction};
use crate::engine::cube_detail::{double_word, proper_action_text};
use crate::engine::no_cube_reason;
use crate::game::{Decision, MatchState};
use crate::notation::position_id;
use crate::rollout::{roller_state, CubeRollout, Rollout};

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
    let mut v = h.json(r.trials, r.partial, r.seconds);
    v["cube"] = crate::rollout::cube_object(state, rollout, r);
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
