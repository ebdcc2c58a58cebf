//! `moves`, `show`, `hint`, `bench movegen`, `duel`, `match` and `train` with `--variant`:
//! Tavli position strings in and out, JSON shapes with the variant, one-line errors with
//! exit status 2.

#![allow(clippy::unwrap_used)]

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
    // Ensembles of files are backgammon's: said so, not a missing file "a+b".
    let args = [
        "duel",
        "--variant",
        "fevga",
        "--a",
        "net:weights/tavli-fevga.sgnet+weights/tavli-fevga.sgnet",
        "--b",
        "random",
        "--games",
        "2",
    ];
    one_line_error(&args);
    let err = String::from_utf8_lossy(&stargammon(&args).stderr).to_string();
    assert!(err.contains("one weights file in the Tavli games"), "{err}");
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
    // Backgammon's random set, the counterpart of the variants' random sets, beside its
    // committed set of pubeval's games.
    let random = json_of(&stargammon(&[
        "bench", "movegen", "--games", "random", "--rounds", "1", "--json",
    ]));
    assert_eq!(random["variant"], "backgammon");
    assert_eq!(random["positions"], 12000);
    let committed = json_of(&stargammon(&[
        "bench", "movegen", "--rounds", "1", "--json",
    ]));
    assert_eq!(committed["variant"], "backgammon");
    assert_ne!(random["plays"], committed["plays"]);
}

#[test]
fn duels_in_each_game_report_the_variant_and_refuse_players_it_cannot_have() {
    for (variant, a, b) in [
        ("portes", "net", "pubeval"),
        ("plakoto", "net", "random"),
        ("fevga", "net,depth=3", "heuristic"),
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
        "net,depth=2",
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

#[test]
fn hint_ranks_the_legal_plays_best_first() {
    for (variant, pos, d1, d2) in [
        ("plakoto", "plakoto:24-15:24-15", "6", "5"),
        ("fevga", "24-14,20-1:24-15", "4", "4"),
        (
            "portes",
            "portes:24-2,13-5,8-3,6-5:24-2,13-5,8-3,6-5",
            "3",
            "1",
        ),
    ] {
        for depth in ["1", "3"] {
            let v = json_of(&stargammon(&[
                "hint",
                "--variant",
                variant,
                pos,
                "--dice",
                d1,
                d2,
                "--depth",
                depth,
                "--json",
            ]));
            let legal = json_of(&stargammon(&[
                "moves",
                "--variant",
                variant,
                pos,
                d1,
                d2,
                "--json",
            ]));
            let plays = v["plays"].as_array().expect("plays");
            assert_eq!(plays.len(), legal["plays"].as_array().unwrap().len(), "{v}");
            for p in plays {
                assert!(legal["plays"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|l| l["move"] == p["move"] && l["position"] == p["position"]));
                let w = p["win"].as_f64().unwrap();
                assert!((0.0..=1.0).contains(&w));
            }
            assert_eq!(plays[0]["diff"], 0.0);
            assert_eq!(v["depth"].as_u64(), depth.parse().ok());
        }
    }
    // Without dice: the chances of the side to roll.
    let v = json_of(&stargammon(&["hint", "--variant", "fevga", "--json"]));
    let value = v["value"].as_f64().unwrap();
    assert!(value.abs() < 1.0, "{v}");
    one_line_error(&["hint", "--variant", "plakoto", "plakoto:24-16:24-15"]);
    one_line_error(&[
        "hint",
        "--variant",
        "plakoto",
        "--dice",
        "6",
        "5",
        "--depth",
        "4",
    ]);
    one_line_error(&[
        "hint",
        "--variant",
        "plakoto",
        "--dice",
        "6",
        "5",
        "--evaluator",
        "pipsigmoid",
    ]);
    one_line_error(&[
        "hint",
        "--variant",
        "fevga",
        "\u{1F600}",
        "--dice",
        "6",
        "5",
    ]);
}

/// Every algorithm and the time budget of backgammon's searcher, in every Tavli game.
#[test]
fn hint_searches_the_tavli_games_with_every_algorithm_and_a_budget() {
    for (variant, pos, d1, d2) in [
        ("plakoto", "plakoto:24-15:24-15", "6", "5"),
        ("fevga", "fevga:24-14,20-1:24-15", "4", "2"),
        (
            "portes",
            "portes:24-2,13-5,8-3,6-5:24-2,13-5,8-3,6-5",
            "3",
            "1",
        ),
    ] {
        let legal = json_of(&stargammon(&[
            "moves",
            "--variant",
            variant,
            pos,
            d1,
            d2,
            "--json",
        ]));
        let legal = legal["plays"].as_array().unwrap().len();
        for extra in [
            &["--algorithm", "mcts", "--playouts", "300"][..],
            &["--algorithm", "filter", "--depth", "5"][..],
            &["--algorithm", "expectimax", "--depth", "3"][..],
            &["--algorithm", "star1", "--depth", "3"][..],
            &["--depth", "9", "--time-ms", "300"][..],
        ] {
            let mut args = vec![
                "hint",
                "--variant",
                variant,
                pos,
                "--dice",
                d1,
                d2,
                "--json",
            ];
            args.extend_from_slice(extra);
            let started = std::time::Instant::now();
            let v = json_of(&stargammon(&args));
            let plays = v["plays"].as_array().expect("plays");
            assert_eq!(plays.len(), legal, "{variant} {extra:?}: {v}");
            assert_eq!(plays[0]["diff"], 0.0, "{variant} {extra:?}");
            if extra.contains(&"--time-ms") {
                // Depth 9 does not fit 300 ms: the deepest completed iteration answers,
                // in about the budget (the process's start and the nets' load besides).
                let depth = v["depth"].as_u64().unwrap();
                assert!((3..9).contains(&depth), "{variant}: depth {depth}");
                assert!(started.elapsed().as_secs_f64() < 10.0);
            }
        }
    }
    // The same searches over every Tavli game's flags, and a finished game refused.
    let mcts = json_of(&stargammon(&[
        "hint",
        "--variant",
        "fevga",
        "--algorithm",
        "mcts",
        "--playouts",
        "200",
        "--dice",
        "6",
        "6",
        "--json",
    ]));
    assert!(!mcts["plays"].as_array().unwrap().is_empty());
}

#[test]
fn tavli_matches_rotate_the_games_and_end_with_a_winner() {
    let v = json_of(&stargammon(&[
        "match",
        "--variant",
        "tavli",
        "--a",
        "net",
        "--b",
        "heuristic",
        "--length",
        "3",
        "--matches",
        "4",
        "--seed",
        "2",
        "--parallel",
        "2",
        "--json",
    ]));
    assert_eq!(v["variant"], "tavli");
    assert_eq!(v["matches"], 4);
    assert_eq!(v["unfinished"], 0);
    let games = v["games"].as_array().unwrap();
    let scores = v["scores"].as_array().unwrap();
    assert_eq!(scores.len(), 4);
    for (m, score) in scores.iter().enumerate() {
        let (a, b) = (score[0].as_u64().unwrap(), score[1].as_u64().unwrap());
        assert!(a >= 3 || b >= 3, "{score}");
        let these: Vec<&serde_json::Value> =
            games.iter().filter(|g| g["match"] == m as u64).collect();
        let rotation = ["portes", "plakoto", "fevga"];
        for (i, g) in these.iter().enumerate() {
            assert_eq!(g["variant"], rotation[i % 3], "{g}");
            assert!(g["points"].as_u64().unwrap() <= 2);
        }
    }
    // One game alone, and players a game cannot have.
    let one = json_of(&stargammon(&[
        "match",
        "--variant",
        "fevga",
        "--a",
        "net",
        "--b",
        "random",
        "--length",
        "3",
        "--matches",
        "2",
        "--json",
    ]));
    assert!(one["games"]
        .as_array()
        .unwrap()
        .iter()
        .all(|g| g["variant"] == "fevga"));
    one_line_error(&[
        "match",
        "--variant",
        "tavli",
        "--a",
        "pubeval",
        "--b",
        "net",
        "--length",
        "3",
        "--matches",
        "1",
    ]);
    one_line_error(&[
        "match",
        "--variant",
        "tavla",
        "--a",
        "net",
        "--b",
        "net",
        "--length",
        "3",
        "--matches",
        "1",
    ]);
    one_line_error(&[
        "match",
        "--variant",
        "tavli",
        "--a",
        "net",
        "--b",
        "net",
        "--length",
        "3",
        "--matches",
        "1",
        "--cube",
        "on",
    ]);
}

#[test]
fn train_variant_runs_resumes_and_exports_a_net_duel_can_load() {
    let dir = std::env::temp_dir().join(format!("sg-tavli-train-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let run = dir.join("run");
    let config = dir.join("fevga.toml");
    std::fs::write(
        &config,
        format!(
            "name = \"t\"\nvariant = \"fevga\"\nrun_dir = {:?}\nseed = 1\nhidden = 6\n\
             init_scale = 0.1\nmax_games = 3\ncheckpoint_minutes = 5.0\nbench_every = 2\n\
             bench_games = 2\nbench_seed = 1\n[[schedule]]\nuntil = 10\nalpha = 0.01\nlambda = 0.5\n",
            run.display().to_string()
        ),
    )
    .unwrap();
    let c = config.display().to_string();
    let out = stargammon(&["train", "--variant", "fevga", "--config", &c, "--quiet"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r = run.display().to_string();
    let out = stargammon(&[
        "train",
        "--variant",
        "fevga",
        "--resume",
        &r,
        "--max-games",
        "5",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("state.json")).unwrap()).unwrap();
    assert_eq!(state["games"], 5);
    let net = dir.join("fevga.sgnet").display().to_string();
    let out = stargammon(&[
        "train",
        "--variant",
        "fevga",
        "--resume",
        &r,
        "--export",
        &net,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let spec = format!("net:{net}");
    let v = json_of(&stargammon(&[
        "duel",
        "--variant",
        "fevga",
        "--a",
        &spec,
        "--b",
        "random",
        "--games",
        "4",
        "--json",
    ]));
    assert_eq!(v["games"], 4);
    // The Fevga net is no Plakoto net.
    one_line_error(&[
        "duel",
        "--variant",
        "plakoto",
        "--a",
        &spec,
        "--b",
        "random",
        "--games",
        "2",
    ]);
    one_line_error(&[
        "train",
        "--variant",
        "plakoto",
        "--resume",
        &r,
        "--max-games",
        "6",
    ]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn moves_play_checks_a_play_and_gives_the_position_after() {
    let v = json_of(&stargammon(&[
        "moves",
        "--variant",
        "plakoto",
        "plakoto:24-15:24-15",
        "6",
        "5",
        "--play",
        "24/18 24/19",
        "--json",
    ]));
    assert_eq!(v["variant"], "plakoto");
    assert_eq!(v["move"], "24/19 24/18");
    assert_eq!(v["position"], "plakoto:24-15:24-13,19-1,18-1");
    for bad in ["24/18 24/18", "24-18", "13/7", "\u{e9}"] {
        one_line_error(&[
            "moves",
            "--variant",
            "plakoto",
            "plakoto:24-15:24-15",
            "6",
            "5",
            "--play",
            bad,
        ]);
    }
    one_line_error(&["moves", "4HPwATDgc/ABMA", "6", "5", "--play", "24/18 13/8"]);
}
