//! Cubeful rollouts: exact cases (Jacoby, gammons with the cube turned, passes), the same
//! results on one and two threads, variance reduction that keeps the mean, match play in
//! match-winning chance, and `stargammon rollout --cube` / `--cubeful` on the command line.
#![allow(clippy::unwrap_used)]

mod common;

use stargammon::cube::DoubleAction;
use stargammon::engine::{EngineSpec, EvaluatorKind};
use stargammon::game::{CubeOwner, Decision, Dice, MatchState, Position};
use stargammon::notation::position_id;
use stargammon::rollout::{CubeRollout, Hooks, Rollout, RolloutSettings};

fn rollout(jacoby: bool) -> Rollout {
    let mut spec = EngineSpec {
        tt_megabytes: 1,
        ..EngineSpec::of(EvaluatorKind::Net(None))
    };
    spec.cube.jacoby = jacoby;
    Rollout::new(&spec).unwrap()
}

fn settings(trials: u64, truncate: Option<u32>, vr: bool, threads: usize) -> RolloutSettings {
    RolloutSettings {
        trials,
        seed: 11,
        truncate,
        variance_reduction: vr,
        threads,
    }
}

/// The roller has one checker on its ace point; the opponent has all fifteen on its own
/// six point: the roller bears off with any roll and wins a gammon.
fn sure_gammon() -> Position {
    let mut slots = [0i8; 26];
    slots[1] = 1;
    slots[19] = -15;
    Position::from_slots(slots).unwrap()
}

/// A middle-game position with chances for both sides (a 3-1 opening answered by 6-4).
fn middle_game() -> Position {
    stargammon::notation::decode_position_id("4HPwATDgc/ABMA").unwrap()
}

fn money(pos: Position) -> MatchState {
    MatchState::money(pos, Decision::DoubleOrRoll)
}

/// The figures of a cube rollout that do not depend on timing.
fn figures(r: &CubeRollout) -> String {
    format!(
        "{} {:?} {:?} {:?} {:?} {} {:?} {} {:?}",
        r.trials,
        r.no_double,
        r.no_double_raw,
        r.double_take,
        r.double_take_raw,
        r.double_pass,
        r.double_beaver,
        r.diff_se,
        r.decision
    )
}

#[test]
fn a_sure_gammon_is_worth_one_point_under_jacoby_and_four_once_doubled() {
    let state = money(sure_gammon());
    let r = rollout(true)
        .cube(&state, &settings(36, None, true, 1), Hooks::none())
        .unwrap();
    // Centred cube under Jacoby: the gammon counts one point; taken, the cube is turned and
    // the gammon counts twice the doubled cube.
    assert_eq!(r.no_double.equity(), 1.0);
    assert_eq!(r.no_double.equity_se(), 0.0);
    let dt = r.double_take.unwrap();
    assert_eq!(dt.equity(), 4.0);
    assert_eq!(r.double_pass, 1.0);
    assert_eq!(r.decision.action, DoubleAction::TooGood);
    // Without Jacoby the gammon counts with the cube in the middle too.
    let r = rollout(false)
        .cube(&state, &settings(36, None, true, 1), Hooks::none())
        .unwrap();
    assert_eq!(r.no_double.equity(), 2.0);
    assert_eq!(r.decision.action, DoubleAction::TooGood);
    // The rolled-out probabilities are those of the games as played.
    assert_eq!(r.no_double.probs(), [1.0, 1.0, 0.0, 0.0, 0.0]);
}

#[test]
fn a_cube_rollout_is_the_same_on_one_and_two_threads() {
    let state = money(middle_game());
    let r = rollout(true);
    let one = r
        .cube(&state, &settings(48, Some(10), true, 1), Hooks::none())
        .unwrap();
    let two = r
        .cube(&state, &settings(48, Some(10), true, 2), Hooks::none())
        .unwrap();
    assert_eq!(figures(&one), figures(&two));
    assert_eq!(one.trials, 48);
    // The decision follows from the rolled-out values.
    let d = one.decision;
    assert_eq!(d.no_double, one.no_double.equity());
    assert_eq!(d.double_take, one.double_take.unwrap().equity());
    assert_eq!(d.action.doubles(), d.after_double() > d.no_double + 1e-9);
    // Money with beavers (the default): a beaver is worth twice the take.
    let (b, b_se) = one.double_beaver.unwrap();
    assert_eq!(b, 2.0 * d.double_take);
    assert_eq!(b_se, 2.0 * one.double_take.unwrap().equity_se());
    // Plays on the same dice, cubefully.
    let mover = MatchState::money(Position::OPENING, Decision::Move(Dice::new(3, 1).unwrap()));
    let candidates = r
        .candidates(&Position::OPENING, Dice::new(3, 1).unwrap(), 3)
        .unwrap();
    let a = r
        .these_plays_cubeful(
            &mover,
            &candidates,
            &settings(24, Some(8), true, 1),
            Hooks::none(),
        )
        .unwrap();
    let b = r
        .these_plays_cubeful(
            &mover,
            &candidates,
            &settings(24, Some(8), true, 2),
            Hooks::none(),
        )
        .unwrap();
    assert_eq!(a.plays, b.plays);
    assert_eq!(a.plays.len(), 3);
}

#[test]
fn variance_reduction_keeps_the_mean_of_cubeful_trials() {
    // The same trials with and without the luck subtracted: the adjusted mean estimates the
    // same value, within the combined standard errors (the luck has mean zero).
    let state = money(middle_game());
    let r = rollout(true)
        .cube(&state, &settings(300, Some(12), true, 2), Hooks::none())
        .unwrap();
    for (adjusted, raw) in [
        (r.no_double, r.no_double_raw),
        (r.double_take.unwrap(), r.double_take_raw.unwrap()),
    ] {
        let gap = (adjusted.equity() - raw.equity()).abs();
        let bound = 3.0 * (adjusted.equity_se().powi(2) + raw.equity_se().powi(2)).sqrt();
        assert!(
            gap < bound,
            "adjusted {adjusted:?} and plain {raw:?} differ by {gap} (bound {bound})"
        );
        // The luck removes most of the spread.
        assert!(adjusted.equity_se() < raw.equity_se());
    }
    // Turning variance reduction off gives the plain means of the same trials.
    let plain = rollout(true)
        .cube(&state, &settings(300, Some(12), false, 2), Hooks::none())
        .unwrap();
    assert_eq!(plain.no_double.equity(), r.no_double_raw.equity());
}

#[test]
fn match_play_values_are_match_winning_chances_and_an_owned_cube_stays_put() {
    // 5-point match at 3-away/2-away, centred cube.
    let state = MatchState {
        match_length: 5,
        score: 2,
        opp_score: 3,
        ..money(middle_game())
    };
    let r = rollout(true)
        .cube(&state, &settings(48, Some(10), true, 2), Hooks::none())
        .unwrap();
    let in_unit = |x: f64| (0.0..=1.0).contains(&x);
    assert!(in_unit(r.no_double.equity()), "{r:?}");
    assert!(in_unit(r.double_take.unwrap().equity()), "{r:?}");
    // A pass loses one point: the table's 2-away/2-away.
    let met = stargammon::cube::met::mwc(2, 2, false);
    assert!((r.double_pass - met).abs() < 1e-12);
    assert!(r.double_beaver.is_none());
    // The opponent owns the cube: only "no double" is rolled out.
    let owned = MatchState {
        cube: 2,
        cube_owner: CubeOwner::Opponent,
        ..state
    };
    let r = rollout(true)
        .cube(&owned, &settings(24, Some(6), true, 1), Hooks::none())
        .unwrap();
    assert!(r.double_take.is_none());
    assert_eq!(r.decision.action, DoubleAction::NoDouble);
}

#[test]
fn the_command_line_rolls_out_a_cube_decision_and_cubeful_plays() {
    let pos = position_id(&middle_game());
    let out = common::stargammon(&[
        "rollout",
        &pos,
        "--cube",
        "--trials",
        "24",
        "--truncate",
        "6",
        "--threads",
        "2",
        "--json",
    ]);
    assert!(out.status.success(), "{out:?}");
    let v = common::json_of(&out);
    let cube = &v["cube"];
    for key in ["no_double", "double_take", "double_pass", "double_beaver"] {
        assert!(cube["equities"][key].is_number(), "{key}: {cube}");
        assert!(cube["se"][key].is_number(), "{key}: {cube}");
    }
    for key in ["action", "proper", "proper_text", "response", "value_kind"] {
        assert!(cube[key].is_string(), "{key}: {cube}");
    }
    assert_eq!(cube["value_kind"], "equity");
    assert!(cube["costs"]["no_double"].is_number());
    assert_eq!(v["cubeful"], true);
    assert_eq!(v["trials"], 24);
    // The plays of a roll, cubefully.
    let out = common::stargammon(&[
        "rollout",
        &pos,
        "--dice",
        "3",
        "1",
        "--cubeful",
        "--top",
        "2",
        "--trials",
        "12",
        "--truncate",
        "4",
        "--json",
    ]);
    assert!(out.status.success(), "{out:?}");
    let v = common::json_of(&out);
    assert_eq!(v["plays"].as_array().unwrap().len(), 2);
    assert_eq!(v["cubeful"], true);
    // A cube decision comes before the roll.
    let out = common::stargammon(&["rollout", &pos, "--cube", "--dice", "3", "1"]);
    assert_eq!(out.status.code(), Some(2));
}
