#![allow(clippy::unwrap_used)]
//! `stargammon hint` end to end: JSON shape, best play first, bad input rejected.

mod common;

use common::json_of;

fn hint(args: &[&str]) -> std::process::Output {
    let mut all = vec!["hint"];
    all.extend_from_slice(args);
    common::stargammon(&all)
}

#[test]
fn ranks_the_opening_three_one_with_the_five_point_first() {
    let out = hint(&[
        "4HPwATDgc/ABMA",
        "--dice",
        "3",
        "1",
        "--depth",
        "3",
        "--eval",
        "pip-sigmoid",
        "--json",
    ]);
    let v = json_of(&out);
    let plays = v["plays"].as_array().unwrap();
    assert_eq!(plays.len(), 16);
    assert_eq!(plays[0]["move"], "8/5 6/5");
    assert_eq!(plays[0]["probs"].as_array().unwrap().len(), 5);
    let e0 = plays[0]["equity"].as_f64().unwrap();
    let e1 = plays[1]["equity"].as_f64().unwrap();
    assert!(e0 >= e1);
    assert_eq!(v["depth"], 3);
}

#[test]
fn values_a_position_without_dice_and_rejects_bad_input() {
    let slots = "0,-2,0,0,0,0,5,0,3,0,0,0,-5,5,0,0,0,-3,0,-5,0,0,0,0,2,0";
    let out = hint(&[
        "--slots",
        slots,
        "--depth",
        "3",
        "--eval",
        "pip-sigmoid",
        "--json",
    ]);
    let v = json_of(&out);
    assert_eq!(v["evaluation"]["depth"], 3);

    for bad in [
        vec!["notanid", "--dice", "3", "1"],
        vec!["4HPwATDgc/ABMA", "--dice", "3", "7"],
        vec!["4HPwATDgc/ABMA", "--dice", "3", "1", "--depth", "4"],
        vec!["4HPwATDgc/ABMA", "--dice", "3", "1", "--algo", "minimax"],
        vec!["--slots", "1,2,3"],
    ] {
        let out = hint(&bad);
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
        assert!(!out.stderr.is_empty());
    }
}

#[test]
fn gives_cube_decisions_for_the_roller_and_the_taker() {
    // Money, centred cube, the opening position before the roll: no double.
    let out = hint(&["4HPwATDgc/ABMA", "--depth", "1", "--json"]);
    let v = json_of(&out);
    assert_eq!(v["cube"]["action"], "no double");
    assert!(v["cube"]["equities"]["no_double"].is_number());
    // gnubg's take question for P0 after P1 doubled (docs/protocols.md): take or drop.
    let out = hint(&[
        "board:gnubg0ply:probe:0:0:0:0:-1:0:-1:0:0:5:0:3:0:0:1:-5:4:0:0:0:-1:0:-5:-1:0:-1:1:1:0:1:0:0:0:0:1:1:1:1:1:-1:0:25:0:0:0:0:0:0:0:1",
        "--depth",
        "1",
        "--json",
    ]);
    let v = json_of(&out);
    let action = v["cube"]["action"].as_str().unwrap();
    assert!(action == "take" || action == "drop", "{action}");
    assert_eq!(v["evaluation"]["roller"], "opponent");
    // The roller bears off its last three checkers next turn or the one after: the
    // taker must drop.
    let slots = "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-15,0,0,0,0,0,0";
    let mut s: Vec<i64> = slots.split(',').map(|x| x.parse().unwrap()).collect();
    s[1] = 2;
    s[2] = 1;
    let slots: Vec<String> = s.iter().map(|x| x.to_string()).collect();
    let out = hint(&["--slots", &slots.join(","), "--depth", "1", "--json"]);
    let v = json_of(&out);
    assert_eq!(v["cube"]["response"], "drop");
}
