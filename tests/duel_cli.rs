//! `stargammon duel` on the command line: the JSON contract and argument errors.
#![allow(clippy::unwrap_used)]

mod common;

use common::{json_of, stargammon};

#[test]
fn json_fields_and_thread_independence() {
    let run = |threads: &str| {
        let out = stargammon(&[
            "duel",
            "--a",
            "pubeval",
            "--b",
            "random",
            "--games",
            "12",
            "--seed",
            "4",
            "--threads",
            threads,
            "--json",
        ]);
        json_of(&out)
    };
    let one = run("1");
    for key in [
        "a",
        "b",
        "games",
        "ppg",
        "ci95",
        "a_wins",
        "gammons_a",
        "gammons_b",
        "seconds",
    ] {
        assert!(one.get(key).is_some(), "missing {key}");
    }
    assert_eq!(one["a"], "pubeval");
    assert_eq!(one["games"], 12);
    let two = run("2");
    assert_eq!(one["ppg"], two["ppg"]);
    assert_eq!(one["ci95"], two["ci95"]);
    assert_eq!(one["gammons_a"], two["gammons_a"]);
}

#[test]
fn bad_specs_exit_with_status_two() {
    let out = stargammon(&[
        "duel",
        "--a",
        "net,breadth=3",
        "--b",
        "pubeval",
        "--games",
        "2",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown option 'breadth'"), "{err}");
    assert!(out.stdout.is_empty());
    let out = stargammon(&["duel", "--a", "net:/no/such/file", "--b", "pubeval"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("weights file"));
}

/// An ensemble of files (`net:A+B`) plays: twice the same nets play as those nets do (a
/// mirrored duel level to the point), another member changes the play, and a missing
/// member is named in the error.
#[test]
fn an_ensemble_of_files_plays() {
    let duel = |a: &str| {
        json_of(&stargammon(&[
            "duel",
            "--a",
            a,
            "--b",
            "net:weights/td.sgnet",
            "--games",
            "200",
            "--seed",
            "6",
            "--json",
        ]))
    };
    let twice = duel("net:weights/td.sgnet+weights/td.sgnet");
    assert_eq!(twice["a"], "net:weights/td.sgnet+weights/td.sgnet");
    assert_eq!(twice["ppg"], 0.0, "{twice}");
    assert_eq!(twice["a_wins"], 100, "{twice}");
    let other = duel("net:weights/td.sgnet+weights/default.sgnet");
    assert_ne!(other["ppg"], twice["ppg"], "{other}");
    let out = stargammon(&[
        "duel",
        "--a",
        "net:weights/td.sgnet+no/such.sgnet",
        "--b",
        "pubeval",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no/such.sgnet"), "{err}");
}
