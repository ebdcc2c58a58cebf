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
fn bench_eval_times_calibrates_kind_of_board_on_request() {
    let v = json_of(&stargammon(&[
        "bench",
        "eval",
        "--boards",
        "calibrate",
        "--rounds",
        "1",
        "--json",
    ]));
    assert_eq!(v["boards"], "calibrate", "{v}");
    assert_eq!(v["positions"], 10_000, "{v}");
    assert!(v["int16_evals_per_sec"].as_f64().unwrap() > 0.0, "{v}");
    assert!(
        v["command"]
            .as_str()
            .unwrap()
            .ends_with("--boards calibrate"),
        "{v}"
    );
    let err = one_line_error(&["bench", "eval", "--boards", "calibrate", "--bearoff"]);
    assert!(err.contains("--bearoff"), "{err}");
}

#[test]
fn bench_search_keeps_the_engine_specs_precision() {
    let out = stargammon(&[
        "bench",
        "search",
        "--engine",
        "net,precision=int16",
        "--depth",
        "1",
        "--positions",
        "2",
        "--algorithms",
        "star2",
        "--json",
    ]);
    let v = json_of(&out);
    let command = v["command"].as_str().unwrap();
    assert!(
        command.contains("--engine net,precision=int16"),
        "{command}"
    );
    assert!(
        v["algos"]["star2"]["mean_evals"].as_f64().unwrap() > 0.0,
        "{v}"
    );
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
    // The shipped configuration has both rules on (gnubg's defaults); the XGID's rules
    // field states them for the position, off or on.
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

/// A money position with the side to act on the bar against a closed board: no roll plays.
const CLOSED_OUT: &str = "0,0,0,0,0,0,14,0,0,0,0,0,-3,0,0,0,0,0,0,-2,-2,-2,-2,-2,-2,1";

#[test]
fn hint_reads_like_gnubgs_hint() {
    let run = |extra: &[&str]| {
        let mut args = vec!["hint", "4HPwATDgc/ABMA", "--dice", "3", "1"];
        args.extend_from_slice(extra);
        stargammon(&args)
    };
    // --plies counts as gnubg does: 0-ply is depth 1.
    let zero = json_of(&run(&["--plies", "0", "--json"]));
    let depth1 = json_of(&run(&["--depth", "1", "--json"]));
    assert_eq!(zero["plays"], depth1["plays"]);
    assert_eq!((&zero["plies"], &zero["depth"]), (&0.into(), &1.into()));
    assert_eq!(zero["evaluation"], "cubeful", "{zero}");
    assert_eq!(zero["value_kind"], "equity", "{zero}");
    assert_eq!(zero["position_id"], "4HPwATDgc/ABMA", "{zero}");
    assert_eq!(zero["no_legal_play"], false, "{zero}");
    assert_eq!(
        (&zero["jacoby"], &zero["beavers"]),
        (&true.into(), &true.into())
    );
    let plays = zero["plays"].as_array().unwrap();
    assert_eq!(plays[0]["move"], "8/5 6/5");
    assert_eq!(plays[0]["diff"], 0.0);
    let best = plays[0]["value"].as_f64().unwrap();
    let mut last = 0.0;
    for p in plays {
        let diff = p["diff"].as_f64().unwrap();
        assert!(
            (diff - (p["value"].as_f64().unwrap() - best)).abs() < 1e-5,
            "{p}"
        );
        assert!(diff <= last + 1e-9, "best first: {zero}");
        last = diff;
    }
    let one = json_of(&run(&["--plies", "1", "--json"]));
    assert_eq!((&one["plies"], &one["depth"]), (&1.into(), &3.into()));

    let text = String::from_utf8(run(&["--plies", "0"]).stdout).unwrap();
    assert!(text.contains("Position ID: 4HPwATDgc/ABMA"), "{text}");
    assert!(text.contains("Match ID   : "), "{text}");
    assert!(text.contains("+13-14-15-16-17-18"), "the board: {text}");
    assert!(text.contains("Cubeful money equities at 0-ply"), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    let first = lines
        .iter()
        .position(|l| l.contains("1. Cubeful 0-ply"))
        .unwrap();
    assert!(lines[first].contains("8/5 6/5") && lines[first].contains("Eq.: +"));
    assert!(
        !lines[first].contains('('),
        "no difference on the best play"
    );
    assert!(lines[first + 2].contains("2. Cubeful 0-ply") && lines[first + 2].contains("(-0."));
    // Both depth forms at once are refused.
    one_line_error(&["hint", "4HPwATDgc/ABMA", "--plies", "1", "--depth", "3"]);
    one_line_error(&["hint", "4HPwATDgc/ABMA", "--plies", "5"]);
}

#[test]
fn hint_says_when_no_play_is_legal() {
    let args = [
        "hint", "--slots", CLOSED_OUT, "--dice", "6", "6", "--plies", "0",
    ];
    let text = String::from_utf8(stargammon(&args).stdout).unwrap();
    assert!(
        text.contains("No legal play: X cannot move with 6-6"),
        "{text}"
    );
    let mut json = args.to_vec();
    json.push("--json");
    let v = json_of(&stargammon(&json));
    assert_eq!(v["no_legal_play"], true, "{v}");
    assert_eq!(v["plays"][0]["move"], "", "{v}");
}

#[test]
fn cube_hints_give_take_points_and_say_why_no_double_is_possible() {
    let cube = |pos: &str, env: &[(&str, &str)]| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_stargammon"));
        cmd.args(["hint", pos, "--plies", "0", "--json"]);
        for (k, v) in env {
            cmd.env(k, v);
        }
        json_of(&cmd.output().unwrap())
    };
    // Money, opening position: no double; the taker's take point against its chances.
    let v = cube("4HPwATDgc/ABMA", &[]);
    let c = &v["cube"];
    assert_eq!(c["action"], "no double", "{v}");
    assert_eq!(c["cube_available"], true, "{v}");
    assert_eq!(c["evaluation"], "cubeful", "{v}");
    let tp = c["take_point"].as_f64().unwrap();
    assert!((0.15..0.35).contains(&tp), "{v}");
    assert!(c["taker_wins"].as_f64().unwrap() > 0.4, "{v}");
    assert_eq!(v["evaluation"]["plies"], 0, "{v}");
    // gnubg's detail: the points dead, live and at the model's efficiency (the cash
    // point the doubler's side of the take point), the cost of each wrong action, and
    // no market losers in one exchange from the opening.
    let f = |x: &serde_json::Value| x.as_f64().unwrap();
    for k in ["dead", "live", "model"] {
        let sum = f(&c["take_points"][k]) + f(&c["cash_points"][k]);
        assert!((sum - 1.0).abs() < 1e-5, "{k}: {v}");
    }
    assert_eq!(f(&c["take_points"]["model"]), tp);
    assert_eq!(f(&c["cash_point"]), f(&c["cash_points"]["model"]));
    assert!(f(&c["take_points"]["live"]) < tp && tp < f(&c["take_points"]["dead"]));
    assert_eq!(c["proper_text"], "No double, beaver", "{v}");
    assert_eq!(f(&c["costs"]["no_double"]), 0.0, "{v}");
    assert_eq!(f(&c["costs"]["beaver"]), 0.0, "{v}");
    let after_double = f(&c["equities"]["double_beaver"]);
    let nd = f(&c["equities"]["no_double"]);
    assert!(
        (f(&c["costs"]["double"]) - (nd - after_double)).abs() < 2e-6,
        "{v}"
    );
    assert!(
        f(&c["costs"]["take"]) > 0.0 && f(&c["costs"]["pass"]) > 1.0,
        "{v}"
    );
    assert_eq!(c["market_losers"]["pass"], 0.0, "{v}");
    assert!(c["too_good_point"].is_null(), "{v}");
    assert!(
        (f(&c["cubeless"]) - f(&v["evaluation"]["equity"])).abs() < 1e-3,
        "{v}"
    );
    // Crawford game: no double, and no double/take values listed.
    let v = cube("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:4:6:1:7:10", &[]);
    let c = &v["cube"];
    assert_eq!(
        (&c["action"], &c["reason"]),
        (&"no double".into(), &"crawford".into())
    );
    assert_eq!(c["cube_available"], false, "{v}");
    assert!(c["equities"].get("double_take").is_none(), "{v}");
    assert!(c.get("take_point").is_none(), "{v}");
    // A cube of 4 with 3 points to go: dead.
    let v = cube("XGID=-b----E-C---eE---c-e----B-:2:1:1:00:4:4:0:7:10", &[]);
    assert_eq!(v["cube"]["reason"], "dead_cube", "{v}");
    assert!(v["cube"].get("costs").is_none(), "{v}");
    assert!(v["cube"].get("market_losers").is_none(), "{v}");
    // 2-away/2-away in a 7-point match: the 2-cube is dead after the take, so the take
    // point is the table's 2-away/1-away Crawford chance, dead or live.
    let v = cube("4HPwATDgc/ABMA:cAngAFAAKAAE", &[]);
    for k in ["dead", "live", "model"] {
        assert!(
            (f(&v["cube"]["take_points"][k]) - 0.32264).abs() < 1e-5,
            "{v}"
        );
        assert!(
            (f(&v["cube"]["cash_points"][k]) - 0.67736).abs() < 1e-5,
            "{v}"
        );
    }
    assert_eq!(v["cube"]["proper_text"], "Double, take", "{v}");
    assert_eq!(v["cube"]["value_kind"], "mwc", "{v}");
    // All the opponent's checkers on the bar: with Jacoby a cash, without it too good.
    let crushing = "-15,5,5,5,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0";
    let run = |env: &[(&str, &str)]| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_stargammon"));
        cmd.args(["hint", "--slots", crushing, "--plies", "0", "--json"]);
        for (k, v) in env {
            cmd.env(k, v);
        }
        json_of(&cmd.output().unwrap())
    };
    let cash = run(&[]);
    assert_eq!(cash["cube"]["action"], "double", "{cash}");
    assert_eq!(cash["cube"]["too_good"], false, "{cash}");
    // Whatever either side rolls, the opponent would still pass: every sequence loses
    // the market, and not doubling costs what the gammons cannot bring back.
    assert_eq!(cash["cube"]["market_losers"]["pass"], 1.0, "{cash}");
    assert_eq!(cash["cube"]["market_losers"]["too_good"], 0.0, "{cash}");
    assert_eq!(cash["cube"]["costs"]["double"], 0.0, "{cash}");
    assert!(
        cash["cube"]["costs"]["no_double"].as_f64().unwrap() > 0.0,
        "{cash}"
    );
    let too_good = run(&[("STARGAMMON_CUBE__JACOBY", "false")]);
    assert_eq!(too_good["cube"]["action"], "no double", "{too_good}");
    assert_eq!(too_good["cube"]["too_good"], true, "{too_good}");
    assert_eq!(too_good["cube"]["proper_text"], "Too good to double, pass");
    assert_eq!(
        too_good["cube"]["market_losers"]["too_good"], 1.0,
        "{too_good}"
    );
    let tgp = too_good["cube"]["too_good_point"].as_f64().unwrap();
    assert!(
        tgp < too_good["cube"]["doubler_wins"].as_f64().unwrap(),
        "{too_good}"
    );
    let text = std::process::Command::new(env!("CARGO_BIN_EXE_stargammon"))
        .args(["hint", "--slots", crushing, "--plies", "0"])
        .env("STARGAMMON_CUBE__JACOBY", "false")
        .output()
        .unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        text.contains("Proper cube action: Too good to double, pass"),
        "{text}"
    );
    assert!(text.contains("Take point: the taker needs"), "{text}");
    for line in [
        "Cash point: the doubler cashes from",
        "Too good point: playing on beats the pass from",
        "Wrong doubler action: Double -",
        "Wrong taker actions: Take -",
        "Market losers: after 100.0% of the roller's roll and the reply",
    ] {
        assert!(text.contains(line), "{line}: {text}");
    }
    let crawford = String::from_utf8(
        stargammon(&[
            "hint",
            "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:4:6:1:7:10",
            "--plies",
            "0",
        ])
        .stdout,
    )
    .unwrap();
    assert!(
        crawford.contains("Crawford game: no doubling"),
        "{crawford}"
    );
    assert!(!crawford.contains("Double, take"), "{crawford}");
}
