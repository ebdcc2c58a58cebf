//! The command-line contract (cli.md) on the binary itself: one-line errors with exit
//! status 2 for bad arguments and input, `--help`/`--version` as usual, exact counts,
//! and the positions' own rules.
#![allow(clippy::unwrap_used)]

mod common;

use std::io::Write;
use std::process::{Command, Output, Stdio};

use common::{json_of, stargammon};

fn stargammon_with_input(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_stargammon"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

/// Exit status 2, nothing on stdout, and exactly one line on stderr, which it returns.
fn one_line_error(args: &[&str]) -> String {
    let out = stargammon(args);
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(out.stdout.is_empty(), "{args:?}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err:?}");
    assert!(
        err.ends_with('\n') && err.starts_with("stargammon: "),
        "{err:?}"
    );
    err
}

#[test]
fn bad_arguments_get_one_line_with_the_help_hint() {
    let err = one_line_error(&["duel", "--a", "pubeval", "--b", "random", "--games", "x"]);
    assert!(err.contains("invalid value 'x'"), "{err}");
    assert!(err.contains("--games"), "{err}");
    assert!(err.contains("try '--help'"), "{err}");
    let err = one_line_error(&["duel", "--games", "4"]);
    // Every missing argument is named on the one line.
    assert!(err.contains("--a") && err.contains("--b"), "{err}");
    assert!(err.contains("try '--help'"), "{err}");
    one_line_error(&["frobnicate"]);
    one_line_error(&["moves", "--no-such-flag"]);
    one_line_error(&[]);
}

#[test]
fn help_and_version_still_print_normally() {
    for args in [&["--help"][..], &["duel", "--help"], &["--version"]] {
        let out = stargammon(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(!out.stdout.is_empty(), "{args:?}");
        assert!(out.stderr.is_empty(), "{args:?}");
    }
    let help = String::from_utf8(stargammon(&["--help"]).stdout).unwrap();
    assert!(help.lines().count() > 3, "{help}");
}

#[test]
fn multi_line_error_messages_are_printed_on_one_line() {
    // The TOML parser's message spans several lines (the line quoted, a caret under it).
    let dir = std::env::temp_dir().join(format!("sg-cli-contract-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "[engine\ndepth = 3\n").unwrap();
    let err = one_line_error(&["hint", "4HPwATDgc/ABMA", "--config", bad.to_str().unwrap()]);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(err.contains("bad.toml"), "{err}");
}

#[test]
fn duel_refuses_game_counts_without_two_whole_pairs() {
    for games in ["0", "2", "3", "5"] {
        let err = one_line_error(&["duel", "--a", "pubeval", "--b", "random", "--games", games]);
        assert!(err.contains("--games"), "{err}");
    }
    let out = stargammon(&["duel", "--a", "pubeval", "--b", "random", "--games", "4"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("4 games (2 mirrored pairs)"), "{text}");
    assert!(!text.contains("NaN"), "{text}");
}

#[test]
fn bench_server_sends_exactly_the_requests_asked_for() {
    let out = stargammon(&[
        "bench",
        "server",
        "--requests",
        "203",
        "--connections",
        "16",
        "--depth",
        "1",
        "--json",
    ]);
    let v = json_of(&out);
    assert_eq!(v["decisions"], 203, "{v}");
    let err = one_line_error(&["bench", "server", "--requests", "3", "--connections", "4"]);
    assert!(err.contains("--requests"), "{err}");
}

#[test]
fn ubgi_answers_after_a_line_of_invalid_utf8() {
    let out = stargammon_with_input(&["ubgi"], b"ubgi\n\xff\xfe\nisready\nquit\n");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.last(), Some(&"readyok"), "{text}");
    assert_eq!(lines[lines.len() - 2], "sorry", "{text}");
}

#[test]
fn show_writes_the_xgid_rules_and_refuses_impossible_states() {
    // Money, Jacoby off, beavers on, the dice written lower first.
    let xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:25:0:0:2:0:10";
    let out = stargammon(&["show", xgid, "--json"]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["xgid"], xgid, "{v}");
    // gnubg 1.07 gives this XGID the Match ID cIkKAAAAAAAE (Jacoby bit off).
    assert_eq!(v["match_id"], "cIkKAAAAAAAE", "{v}");
    for bad in [
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:9:3:0:3:10",
        "4HPwATDgc/ABMA:MIFqAJAAGAAA",
        "4HPwATDgc/ABMA:MIEqCBAAEAAA",
    ] {
        let err = one_line_error(&["show", bad]);
        assert!(
            err.contains("score") || err.contains("match length"),
            "{err}"
        );
        one_line_error(&["hint", bad, "--depth", "1"]);
    }
}

/// A money position too good to double without the Jacoby rule (gammons count) and a
/// double with it (an undoubled gammon counts single): the shipped configuration has the
/// rule off, the XGID's rules field turns it on for its position only.
#[test]
fn ubgi_honours_the_rules_of_the_xgid() {
    let xgid = |rules: u8| format!("XGID=cBBBBBBBA---l-------------:0:0:1:00:0:0:{rules}:0:10");
    // The same position by hint, as a check that the rule decides it.
    let action = |rules: u8| {
        let v = json_of(&stargammon(&[
            "hint",
            &xgid(rules),
            "--depth",
            "1",
            "--json",
        ]));
        v["cube"]["action"].clone()
    };
    assert_eq!(action(0), "no double");
    assert_eq!(action(1), "double");
    let input = [1, 0, 3, 2, 1].map(|r| xgid(r) + "\n").concat();
    let out = stargammon_with_input(&["ubgi"], input.as_bytes());
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines,
        ["double", "roll", "double", "roll", "double"],
        "{text}"
    );
}

#[test]
fn hint_honours_the_rules_of_the_xgid() {
    let cube = |rules: &str| {
        let xgid = format!("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:{rules}:0:10");
        let out = stargammon(&["hint", &xgid, "--depth", "1", "--json"]);
        let v = json_of(&out);
        v["cube"].clone()
    };
    // The shipped configuration has both rules off; the XGID turns them on.
    let off = cube("0");
    assert_eq!(
        (&off["jacoby"], &off["beavers"]),
        (&false.into(), &false.into())
    );
    assert!(off["equities"].get("double_beaver").is_none(), "{off}");
    let on = cube("3");
    assert_eq!(
        (&on["jacoby"], &on["beavers"]),
        (&true.into(), &true.into())
    );
    assert!(on["equities"].get("double_beaver").is_some(), "{on}");
}
