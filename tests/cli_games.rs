//! The commands written once for every game: `moves` (and `--play`), `show`, `hint` and
//! `duel` run on each of the four variants through the same path, and their outputs agree
//! with one another (a checked play is one of the listed plays, the hint's best play is
//! legal, a duel names its game).

#![allow(clippy::unwrap_used)]

mod common;

use common::{json_of, stargammon};

const VARIANTS: [&str; 4] = ["backgammon", "portes", "plakoto", "fevga"];

/// The starting position of `variant` as `moves` reads it, and the JSON key of the
/// positions after each play.
fn start(variant: &str) -> (String, &'static str) {
    if variant == "backgammon" {
        return ("4HPwATDgc/ABMA".to_string(), "position_id");
    }
    let v = json_of(&stargammon(&["show", "--variant", variant, "--json"]));
    (v["position"].as_str().unwrap().to_string(), "position")
}

#[test]
fn moves_lists_and_checks_plays_in_every_game() {
    for variant in VARIANTS {
        let (pos, key) = start(variant);
        let listed = json_of(&stargammon(&[
            "moves",
            "--variant",
            variant,
            &pos,
            "6",
            "4",
            "--json",
        ]));
        assert_eq!(listed["variant"], variant);
        let plays = listed["plays"].as_array().unwrap();
        assert!(!plays.is_empty(), "{variant}");
        let text = stargammon(&["moves", "--variant", variant, &pos, "6", "4"]);
        assert!(text.status.success(), "{variant}");
        let lines: Vec<String> = String::from_utf8_lossy(&text.stdout)
            .lines()
            .map(str::to_string)
            .collect();
        assert_eq!(lines.len(), plays.len(), "{variant}");
        for (line, p) in lines.iter().zip(plays) {
            let after = p[key].as_str().unwrap();
            assert_eq!(
                line,
                &format!("{}\t{after}", p["move"].as_str().unwrap()),
                "{variant}"
            );
            // Only the Tavli games name how a play ended the game.
            assert_eq!(p.get("end").is_some(), variant != "backgammon", "{p}");
        }
        // In the Tavli games each listed play, checked with --play, is itself with the
        // same position after.
        if variant == "backgammon" {
            continue;
        }
        let check = |mv: &str, json: bool| {
            let mut args = vec!["moves", "--variant", variant, &pos, "6", "4", "--play", mv];
            if json {
                args.push("--json");
            }
            stargammon(&args)
        };
        for p in plays.iter().take(3) {
            let one = json_of(&check(p["move"].as_str().unwrap(), true));
            assert_eq!(one["move"], p["move"], "{variant}");
            assert_eq!(one[key], p[key], "{variant}");
            assert_eq!(one["variant"], variant);
        }
        let bad = check("13/3 13/3", false);
        assert_eq!(bad.status.code(), Some(2), "{variant}");
        assert_eq!(String::from_utf8_lossy(&bad.stderr).lines().count(), 1);
    }
}

#[test]
fn show_hint_and_duel_serve_every_game() {
    for variant in VARIANTS {
        let (pos, _) = start(variant);
        let shown = stargammon(&["show", "--variant", variant, &pos]);
        assert!(shown.status.success(), "{variant}");
        assert!(String::from_utf8_lossy(&shown.stdout).contains("+13-14-15-16-17-18"));

        let legal = json_of(&stargammon(&[
            "moves",
            "--variant",
            variant,
            &pos,
            "3",
            "1",
            "--json",
        ]));
        let hint = json_of(&stargammon(&[
            "hint",
            "--variant",
            variant,
            &pos,
            "--dice",
            "3",
            "1",
            "--depth",
            "1",
            "--json",
        ]));
        let best = &hint["plays"][0]["move"];
        assert!(
            legal["plays"]
                .as_array()
                .unwrap()
                .iter()
                .any(|p| &p["move"] == best),
            "{variant}: {hint}"
        );

        let duel = json_of(&stargammon(&[
            "duel",
            "--variant",
            variant,
            "--a",
            "random",
            "--b",
            "heuristic",
            "--games",
            "4",
            "--threads",
            "1",
            "--json",
        ]));
        assert_eq!(duel["variant"], variant);
        assert_eq!(duel["games"], 4);
    }
}

/// The command line chooses the game in one place (`with_game!` in src/cli/game.rs): no
/// command asks whether a variant is a Tavli game.
#[test]
fn no_command_forks_on_tavli() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/cli");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            !text.contains("is_tavli("),
            "{} asks is_tavli()",
            path.display()
        );
    }
}
