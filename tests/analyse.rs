//! `stargammon analyse` and the `.mat` reader: written matches read back as they were
//! played, any bytes give a typed error, an obviously bad play is a blunder, forced plays
//! are never flagged, the JSON follows docs/cli.md, bad files exit 2, and on a small match the
//! blunders gnubg finds are flagged by us too.

#![allow(clippy::unwrap_used)]

mod common;

use common::{gnubg_or_skip, json_of, stargammon};
use proptest::prelude::*;
use stargammon::analysis::{replay, Choice};
use stargammon::arena::export::write_sgf;
use stargammon::arena::referee::{play_match, write_mat, DiceStream, Event, MatchRecord};
use stargammon::game::{Decision, Play};
use stargammon::notation::match_file::{
    read_mat, read_match_file, read_sgf, ActionText, MatchFileError, MatchText,
};
use stargammon::notation::{position_id, Xgid};
use stargammon::players::Decide;

const NOISY: &str = "tests/data/analyse/net_vs_noisy.mat";
const BAD_66: &str = "tests/data/analyse/bad_66.mat";

/// Plays a random match, writes it as .mat and as SGF, reads and replays both, and checks
/// that every event comes back with the same seat, dice, resulting position and cube
/// action.
fn round_trip(seed: u64, length: u32) {
    let record = random_match(seed, length);
    let mut bytes = Vec::new();
    write_mat(&mut bytes, length, std::slice::from_ref(&record)).unwrap();
    let mut sgf = Vec::new();
    write_sgf(&mut sgf, length, std::slice::from_ref(&record)).unwrap();
    check_read_back(&record, length, &bytes, read_mat(&bytes));
    check_read_back(&record, length, &sgf, read_sgf(&sgf));
    check_read_back(&record, length, &sgf, read_match_file(&sgf));
}

fn random_match(seed: u64, length: u32) -> MatchRecord {
    let mut a = common::RandomSeat::new(seed, 0.15, 0.3);
    let mut b = common::RandomSeat::new(seed ^ 0x5eed, 0.15, 0.3);
    let mut seats: [&mut dyn Decide; 2] = [&mut a, &mut b];
    play_match(
        &mut seats,
        &mut DiceStream::new(seed),
        length,
        true,
        ["alpha".into(), "beta".into()],
    )
}

fn check_read_back(
    record: &MatchRecord,
    length: u32,
    bytes: &[u8],
    read: Result<MatchText, MatchFileError>,
) {
    let text = read.unwrap_or_else(|e| panic!("{e}\n{}", String::from_utf8_lossy(bytes)));
    assert_eq!(text.length, length);
    assert_eq!(text.games.len(), record.games.len());
    let games = replay(&text).unwrap_or_else(|e| panic!("{e}\n{}", String::from_utf8_lossy(bytes)));
    for ((setup, game), (read, replayed)) in record.games.iter().zip(text.games.iter().zip(&games))
    {
        assert_eq!(read.score, setup.score);
        assert_eq!(read.result, Some((game.winner, game.points)));
        assert_eq!(read.actions.len(), game.events.len());
        for (event, action) in game.events.iter().zip(&read.actions) {
            match (event, action) {
                (
                    Event::Move { seat, dice, .. },
                    ActionText::Roll {
                        seat: s, dice: d, ..
                    },
                ) => {
                    assert_eq!((seat, dice), (s, d))
                }
                (Event::Double { seat, cube }, ActionText::Double { seat: s, cube: c }) => {
                    assert_eq!(seat, s);
                    assert!(*c == 0 || c == cube, "{c} {cube}");
                }
                (Event::Take { seat }, ActionText::Take { seat: s })
                | (Event::Drop { seat }, ActionText::Drop { seat: s }) => assert_eq!(seat, s),
                other => panic!("{other:?}"),
            }
        }
        // Every checker play replays to the position the referee reached.
        let played: Vec<&Play> = game
            .events
            .iter()
            .filter_map(|e| match e {
                Event::Move { play, .. } => Some(play),
                _ => None,
            })
            .collect();
        let replayed_plays: Vec<&Play> = replayed
            .decisions
            .iter()
            .filter_map(|d| match &d.choice {
                Choice::Checker { play, .. } => Some(play),
                _ => None,
            })
            .collect();
        assert_eq!(played.len(), replayed_plays.len());
        for (p, q) in played.iter().zip(&replayed_plays) {
            assert_eq!(p.position, q.position);
        }
    }
}

#[test]
fn written_matches_read_back_as_played() {
    for seed in 0..12 {
        round_trip(seed, 3 + (seed as u32 % 5));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn random_matches_round_trip(seed in any::<u64>(), length in 1u32..8) {
        round_trip(seed, length);
    }

    #[test]
    fn any_bytes_give_a_match_or_an_error(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        if let Ok(m) = read_mat(&bytes) {
            let _ = replay(&m);
        }
    }

    #[test]
    fn any_bytes_give_an_sgf_match_or_an_error(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let mut text = b"(;GM[6]MI[length:3]".to_vec();
        text.extend(bytes);
        if let Ok(m) = read_sgf(&text) {
            let _ = replay(&m);
        }
        let _ = read_match_file(&text);
    }

    #[test]
    fn damaged_files_give_a_match_or_an_error(
        edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8),
        cut in any::<usize>(),
    ) {
        let mut bytes = std::fs::read(NOISY).unwrap();
        for (at, b) in edits {
            let n = bytes.len();
            bytes[at % n] = b;
        }
        bytes.truncate(cut % (bytes.len() + 1));
        if let Ok(m) = read_mat(&bytes) {
            let _ = replay(&m);
        }
    }
}

#[test]
fn an_obviously_bad_play_is_a_blunder() {
    // 13/7(2) 8/2(2) with 6-6 after the opening 3-1: the checkers die on the 2 point
    // instead of taking both 18 points.
    let v = json_of(&stargammon(&["analyse", BAD_66, "--json", "--quiet"]));
    let d = &v["games"][0]["decisions"];
    let bad = d
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["played"] == "13/7(2) 8/2(2)")
        .unwrap();
    assert_eq!(bad["kind"], "checker");
    assert_eq!(bad["player"], "bob");
    assert_eq!(bad["skill"], "blunder");
    assert!(bad["equity_lost"].as_f64().unwrap() > 0.12, "{bad}");
    assert_eq!(bad["best"], "24/18(2) 13/7(2)");
    let bob = &v["players"][1];
    assert_eq!(bob["name"], "bob");
    assert!(bob["blunders"].as_u64().unwrap() >= 1);
    assert_eq!(bob["rating"], "Awful!");
}

#[test]
fn json_follows_the_contract_and_forced_plays_are_never_flagged() {
    let v = json_of(&stargammon(&["analyse", NOISY, "--json", "--quiet"]));
    assert_eq!(v["file"], NOISY);
    let players = v["players"].as_array().unwrap();
    assert_eq!(players.len(), 2);
    for p in players {
        for key in ["decisions", "errors", "blunders"] {
            assert!(p[key].is_u64(), "{key}: {p}");
        }
        for key in ["error_mppg", "luck", "snowie_error_rate"] {
            assert!(
                p[key].is_f64() || p[key].is_i64() || p[key].is_u64(),
                "{key}: {p}"
            );
        }
        assert!(p["name"].is_string() && p["rating"].is_string());
    }
    let games = v["games"].as_array().unwrap();
    assert_eq!(games.len(), 2);
    let mut forced = 0;
    let mut cube = 0;
    for g in games {
        for d in g["decisions"].as_array().unwrap() {
            assert!(d["move_no"].is_u64() && d["player"].is_string());
            assert!(d["played"].is_string() && d["best"].is_string());
            let lost = d["equity_lost"].as_f64().unwrap();
            assert!(lost >= 0.0);
            // The XGID holds the whole state: the same position, a checker play's dice,
            // a cube decision before any roll.
            let state = Xgid::parse(d["xgid"].as_str().unwrap())
                .unwrap()
                .to_match_state()
                .unwrap();
            assert_eq!(position_id(&state.position), d["position_id"], "{d}");
            assert_eq!(state.match_length, 5, "{d}");
            match (d["kind"].as_str().unwrap(), state.decision) {
                ("checker", Decision::Move(dice)) => {
                    assert_eq!(d["dice"][0], dice.high(), "{d}");
                    assert_eq!(d["dice"][1], dice.low(), "{d}");
                }
                ("cube", Decision::DoubleOrRoll | Decision::TakeOrDrop) => cube += 1,
                (k, s) => panic!("kind {k} in state {s:?}: {d}"),
            }
            if d["forced"] == true {
                forced += 1;
                assert_eq!(lost, 0.0, "{d}");
                assert_eq!(d["skill"], "none");
                assert_eq!(d["counted"], false);
                assert_eq!(d["played"], d["best"]);
            }
            if d["played"] == d["best"] {
                assert_eq!(lost, 0.0, "{d}");
            }
        }
    }
    assert!(forced > 0, "the committed match has forced plays");
    assert!(cube > 0, "the committed match has cube decisions");
    // The net against itself with noise 0.15: the noisy side errs far more.
    let rate = |i: usize| players[i]["error_mppg"].as_f64().unwrap();
    assert!(rate(1) > 5.0 * rate(0).max(1.0), "{players:?}");
}

#[test]
fn plies_are_gnubgs_units() {
    let v = json_of(&stargammon(&[
        "analyse", BAD_66, "--plies", "1", "--json", "--quiet",
    ]));
    assert_eq!(v["depth"], 3);
    assert_eq!(v["plies"], 1);
}

#[test]
fn bad_files_fail_with_one_line_and_exit_2() {
    let dir = std::env::temp_dir().join(format!("stargammon-analyse-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let illegal = dir.join("illegal.mat");
    std::fs::write(
        &illegal,
        " 1 point match\n\n Game 1\n a : 0                      b : 0\n  1) 31: 8/5 6/5                 66: 13/7 13/7 7/1 7/1\n",
    )
    .unwrap();
    let binary = dir.join("binary.mat");
    std::fs::write(&binary, [0u8, 159, 146, 150, 7, 0]).unwrap();
    let missing = dir.join("missing.mat");
    for (path, needle) in [
        (&illegal, "game 1, action 2"),
        (&binary, "not a .mat match file"),
        (&missing, "missing.mat"),
    ] {
        let out = stargammon(&["analyse", path.to_str().unwrap(), "--quiet"]);
        assert_eq!(out.status.code(), Some(2), "{path:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains(needle), "{err}");
        assert!(out.stdout.is_empty());
    }
    let out = stargammon(&["analyse", BAD_66, "--depth", "3", "--plies", "1"]);
    assert_eq!(out.status.code(), Some(2));
}

/// gnubg analyses the committed match at 0-ply (scripts/gnubg_analyse.py); of the checker
/// plays it marks "very bad", we flag most as errors or worse, and most of our blunders
/// are errors or worse for gnubg too.
#[test]
fn gnubgs_blunders_are_flagged_by_us_too() {
    let Some(gnubg) = gnubg_or_skip("gnubgs_blunders_are_flagged_by_us_too") else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("stargammon-analyse-g-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out_json = dir.join("gnubg.json");
    let mat = std::fs::canonicalize(NOISY).unwrap();
    let status = std::process::Command::new(gnubg)
        .args(["-t", "-q", "-r", "-p", "scripts/gnubg_analyse.py"])
        .env("MAT", &mat)
        .env("PLIES", "0")
        .env("OUT", &out_json)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    let theirs: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&out_json).unwrap()).unwrap();
    let ours = json_of(&stargammon(&["analyse", NOISY, "--json", "--quiet"]));
    let (mut g_blunders, mut agreed, mut ours_b, mut confirmed, mut matched) = (0, 0, 0, 0, 0);
    for (og, tg) in ours["games"]
        .as_array()
        .unwrap()
        .iter()
        .zip(theirs["games"].as_array().unwrap())
    {
        for t in tg["decisions"].as_array().unwrap() {
            if t["action"] != "move" || t["dice"].as_array().unwrap().is_empty() {
                continue;
            }
            let mut dice: Vec<u64> = t["dice"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_u64().unwrap())
                .collect();
            dice.sort_unstable_by(|a, b| b.cmp(a));
            let Some(o) = og["decisions"].as_array().unwrap().iter().find(|o| {
                o["kind"] == "checker"
                    && o["position_id"] == t["board"]
                    && o["dice"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|d| d.as_u64().unwrap())
                        .collect::<Vec<_>>()
                        == dice
            }) else {
                continue;
            };
            matched += 1;
            let ours_bad = o["skill"] == "error" || o["skill"] == "blunder";
            let theirs_bad = t["skill"] == "bad" || t["skill"] == "very bad";
            if t["skill"] == "very bad" {
                g_blunders += 1;
                agreed += usize::from(ours_bad);
            }
            if o["skill"] == "blunder" {
                ours_b += 1;
                confirmed += usize::from(theirs_bad);
            }
        }
    }
    eprintln!(
        "{matched} plays matched; gnubg's blunders {g_blunders}, errors or worse for us \
         {agreed}; our blunders {ours_b}, errors or worse for gnubg {confirmed}"
    );
    assert!(matched > 60, "only {matched} checker plays matched gnubg's");
    assert!(g_blunders >= 3, "gnubg found {g_blunders} blunders");
    assert!(
        agreed * 10 >= g_blunders * 7,
        "{agreed} of gnubg's {g_blunders} blunders flagged by us"
    );
    assert!(
        confirmed * 10 >= ours_b * 8,
        "{confirmed} of our {ours_b} blunders are errors for gnubg"
    );
}

/// gnubg loads the SGF files `match --sgf` writes with the same final score, and the SGF
/// reader reads gnubg's own saved matches to the same plays as the .mat it imported.
#[test]
fn sgf_files_are_read_and_written_as_gnubg_does() {
    if gnubg_or_skip("sgf_files_are_read_and_written_as_gnubg_does").is_none() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("stargammon-sgf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for seed in 0..4u64 {
        let record = random_match(seed, 5);
        let ours = dir.join(format!("ours{seed}.sgf"));
        let mut bytes = Vec::new();
        write_sgf(&mut bytes, 5, std::slice::from_ref(&record)).unwrap();
        std::fs::write(&ours, &bytes).unwrap();
        let mat = dir.join(format!("m{seed}.mat"));
        let mut m = Vec::new();
        write_mat(&mut m, 5, std::slice::from_ref(&record)).unwrap();
        std::fs::write(&mat, &m).unwrap();
        let saved = dir.join(format!("gnubg{seed}.sgf"));
        let script = format!(
            "set display off\nload match {}\nshow score\nimport mat {}\nsave match {}\n",
            ours.display(),
            mat.display(),
            saved.display()
        );
        let out = common::run_gnubg(&script);
        let text = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        let expected = format!("alpha {}, beta {}", record.score[0], record.score[1]);
        assert!(text.contains(&expected), "{expected} not in:\n{text}");
        let theirs = read_sgf(&std::fs::read(&saved).unwrap()).unwrap();
        let mine = read_mat(&m).unwrap();
        let a = replay(&theirs).unwrap();
        let b = replay(&mine).unwrap();
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x.names, y.names);
            assert_eq!(x.score, y.score);
            let plays = |g: &stargammon::analysis::ReplayedGame| -> Vec<_> {
                g.decisions
                    .iter()
                    .filter_map(|d| match &d.choice {
                        Choice::Checker { play, .. } => Some((d.seat, play.position)),
                        _ => None,
                    })
                    .collect()
            };
            assert_eq!(plays(x), plays(y));
        }
    }
}
