//! `moves`, `show`, `bench movegen` and `duel` with `--variant`: Tavli position strings in and
//! out, JSON shapes with the variant, one-line errors with exit status 2.

mod common;

use common::{json_of, stargammon};

fn one_line_error(args: &[&str]) {
    let out = stargammon(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    assert!(out.stdout.is_empty(), "{args:?}");
}

#[test]
fn moves_lists_fevga_first_plays() {
    let v = json_of(&stargammon(&[
        "moves",
        "--variant",
        "fevga",
        "fevga:24-15:24-15",
        "5",
        "5",
        "--json",
    ]));
    assert_eq!(v["variant"], "fevga");
    let plays = v["plays"].as_array().expect("plays");
    let mut moves: Vec<&str> = plays.iter().filter_map(|p| p["move"].as_str()).collect();
    moves.sort();
    assert_eq!(moves, ["24/19 24/9", "24/4"]);
    // The position after, with the opponent to act, and no end.
    assert!(plays
        .iter()
        .any(|p| p["position"] == "fevga:24-15:24-14,4-1" && p["end"].is_null()));
}

#[test]
fn moves_takes_the_sides_alone_and_reports_a_mother_win() {
    let out = stargammon(&[
        "moves",
        "--variant",
        "plakoto",
        "9-2,7-2,6-3,5-3,4-3,3-2:24-1,8-4,6-5,5-5",
        "2",
        "1",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.lines().count(), 34);
    assert_eq!(text.lines().filter(|l| l.ends_with("\twin 2")).count(), 7);
}

#[test]
fn show_draws_the_start_and_pins() {
    let v = json_of(&stargammon(&["show", "--variant", "plakoto", "--json"]));
    assert_eq!(v["position"], "plakoto:24-15:24-15");
    assert_eq!(v["pips"][0], 360);
    let v = json_of(&stargammon(&[
        "show",
        "--variant",
        "plakoto",
        "plakoto:13-1,10-1p,8-2,6-11:24-11,20-2,18-1,15-1",
        "--json",
    ]));
    assert_eq!(v["pinned"][0][0], 10);
    let out = stargammon(&[
        "show",
        "--variant",
        "plakoto",
        "plakoto:13-1,10-1p,8-2,6-11:24-11,20-2,18-1,15-1",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    // X's 10 holds his pinned checker (lower case) under O's pinner.
    assert!(text.lines().any(|l| l.contains(" x ")), "{text}");
    let portes = stargammon(&["show", "--variant", "portes"]);
    let text = String::from_utf8_lossy(&portes.stdout);
    assert!(
        text.contains(" | X           O    |   | O              X |"),
        "{text}"
    );
}

#[test]
fn bad_input_is_one_line_and_status_two() {
    one_line_error(&[
        "moves",
        "--variant",
        "plakoto",
        "plakoto:24-16:24-15",
        "3",
        "1",
    ]);
    one_line_error(&[
        "moves",
        "--variant",
        "fevga",
        "plakoto:24-15:24-15",
        "3",
        "1",
    ]);
    one_line_error(&["moves", "--variant", "fevga", "fevga:24-15:24-15", "7", "1"]);
    one_line_error(&["moves", "--variant", "chess", "fevga:24-15:24-15", "3", "1"]);
    one_line_error(&["moves", "--variant", "portes", "\u{1}\u{7f}:::", "3", "1"]);
    one_line_error(&["moves", "--variant", "fevga", "fevga::24-15", "3", "1"]);
    one_line_error(&["show", "--variant", "plakoto", "plakoto:10-1p,24-14:24-15"]);
    one_line_error(&["show"]);
}

#[test]
fn bench_movegen_reports_the_variant() {
    let v = json_of(&stargammon(&[
        "bench",
        "movegen",
        "--variant",
        "fevga",
        "--rounds",
        "1",
        "--json",
    ]));
    assert_eq!(v["variant"], "fevga");
    assert_eq!(v["positions"], 12000);
}

#[test]
fn duels_in_each_game_report_the_variant_and_refuse_players_it_cannot_have() {
    for (variant, a, b) in [
        ("portes", "net", "pubeval"),
        ("plakoto", "heuristic", "random"),
        ("fevga", "heuristic", "random"),
    ] {
        let v = json_of(&stargammon(&[
            "duel",
            "--variant",
            variant,
            "--a",
            a,
            "--b",
            b,
            "--games",
            "40",
            "--seed",
            "3",
            "--json",
        ]));
        assert_eq!(v["variant"], variant);
        assert_eq!(v["games"], 40);
        assert_eq!(v["unfinished"], 0);
        let total = v["a_wins"].as_u64().unwrap_or(0)
            + v["b_wins"].as_u64().unwrap_or(0)
            + v["ties"].as_u64().unwrap_or(0);
        assert_eq!(total, 40, "{v}");
        assert!(v["ppg"].as_f64().is_some_and(f64::is_finite), "{v}");
    }
    one_line_error(&[
        "duel",
        "--variant",
        "plakoto",
        "--a",
        "net",
        "--b",
        "random",
    ]);
    one_line_error(&[
        "duel",
        "--variant",
        "fevga",
        "--a",
        "pubeval",
        "--b",
        "random",
    ]);
    one_line_error(&[
        "duel",
        "--variant",
        "portes",
        "--a",
        "net:",
        "--b",
        "random",
    ]);
    one_line_error(&[
        "duel",
        "--variant",
        "portes",
        "--a",
        "net:no/such.sgnet",
        "--b",
        "random",
    ]);
    one_line_error(&[
        "duel",
        "--variant",
        "fevga",
        "--a",
        "héuristic",
        "--b",
        "random",
    ]);
    one_line_error(&[
        "duel",
        "--variant",
        "fevga",
        "--a",
        "random",
        "--b",
        "random",
        "--games",
        "3",
    ]);
}
