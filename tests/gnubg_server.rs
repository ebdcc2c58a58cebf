//! Real GNU Backgammon against the server: gnubg connects as a client to its external player
//! (`set player 0 external 127.0.0.1:PORT`) and plays (a) a 7-point match with the cube and
//! (b) 50 cubeless money games. Both must finish (no stall), and every move in gnubg's saved
//! match is replayed through this project's rules and found legal.
//!
//! gnubg is `/usr/games/gnubg` (Debian package `gnubg`, installed by `scripts/test.sh`).
//! Without it these tests fail, unless `STARGAMMON_SKIP_GNUBG=1` skips them (see
//! `common::gnubg_or_skip`).

#![allow(clippy::unwrap_used)]

mod common;

use common::{gnubg_or_skip, ServerThread};
use std::path::PathBuf;

use stargammon::config::Config;
use stargammon::game::{legal_plays, Dice, Position};

/// A server at depth 1 with two search threads.
fn start_server() -> ServerThread {
    let mut config = Config::throughput();
    config.engine.threads = 2;
    config.engine.tt_megabytes = 8;
    config.engine.depth = stargammon::engine::Depth::ONE;
    // gnubg runs with `set jacoby off` and `set beavers 0` here (its SGF replay below
    // knows no beavers): the server's rules must match.
    config.cube.jacoby = false;
    config.cube.beavers = false;
    ServerThread::from_config(&config)
}

fn out_dir(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs gnubg with `script` on stdin; returns its stdout.
fn run_gnubg(script: &str) -> String {
    let out = common::run_gnubg(script);
    assert!(out.status.success(), "gnubg failed: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// One game of a gnubg SGF file: its result property and its move nodes (colour, text).
#[derive(Debug)]
struct SgfGame {
    result: Option<String>,
    moves: Vec<(char, String)>,
}

fn parse_sgf(text: &str) -> Vec<SgfGame> {
    let mut games = Vec::new();
    for part in text.split("(;FF[4]").skip(1) {
        let result = part
            .find("RE[")
            .map(|i| part[i + 3..].split(']').next().unwrap_or("").to_string());
        let mut moves = Vec::new();
        let bytes = part.as_bytes();
        let mut i = 0;
        while i + 2 < bytes.len() {
            if bytes[i] == b';'
                && (bytes[i + 1] == b'B' || bytes[i + 1] == b'W')
                && bytes[i + 2] == b'['
            {
                let start = i + 3;
                if let Some(len) = part[start..].find(']') {
                    moves.push((bytes[i + 1] as char, part[start..start + len].to_string()));
                    i = start + len;
                    continue;
                }
            }
            i += 1;
        }
        games.push(SgfGame { result, moves });
    }
    games
}

/// Replays one game's checker moves from the opening position. W is gnubg's player 0 (the
/// server), B player 1. Returns how many W (server) plays were checked.
fn replay(game: &SgfGame) -> usize {
    // `pos` is always from W's view.
    let mut pos = Position::OPENING;
    let mut server_plays = 0;
    for (colour, text) in &game.moves {
        let b = text.as_bytes();
        if b.len() < 2 || !b[0].is_ascii_digit() || !b[1].is_ascii_digit() {
            // Cube actions (double, take, drop) and resignations leave the board alone.
            continue;
        }
        let dice = Dice::new(b[0] - b'0', b[1] - b'0').unwrap();
        let mover = if *colour == 'W' { pos } else { pos.swap() };
        // SGF points: a..x = 0..23 absolute (W's point p is index p-1, B's is 24-p),
        // y = bar, z = off.
        let to_point = |c: u8| -> u8 {
            match c {
                b'y' => 25,
                b'z' => 0,
                c if *colour == 'W' => c - b'a' + 1,
                c => 24 - (c - b'a'),
            }
        };
        let mut slots = *mover.slots();
        for pair in b[2..].chunks(2) {
            assert_eq!(pair.len(), 2, "odd move text {text}");
            let (from, to) = (to_point(pair[0]) as usize, to_point(pair[1]) as usize);
            assert!(
                slots[from] > 0,
                "{colour} moves from an empty point in {text}"
            );
            slots[from] -= 1;
            if to != 0 {
                if slots[to] == -1 {
                    slots[to] = 0;
                    slots[0] -= 1;
                }
                assert!(slots[to] >= 0, "{colour} lands on a made point in {text}");
                slots[to] += 1;
            }
        }
        let after = Position::from_slots(slots).unwrap();
        let plays = legal_plays(&mover, dice);
        let play = plays
            .iter()
            .find(|p| p.position == after)
            .unwrap_or_else(|| {
                panic!("{colour}[{text}] is not a legal play of {dice:?} in {mover:?}")
            });
        if *colour == 'W' {
            server_plays += 1;
        }
        // After W moves the next position is B's view: swap back to W's.
        let next = play.next_position();
        pos = if *colour == 'W' { next.swap() } else { next };
        if pos.is_game_over() {
            break;
        }
    }
    server_plays
}

fn header(seed: u64, port: u16) -> String {
    format!(
        "set display off\nset rng mersenne\nset seed {seed}\nset beavers 0\nset jacoby off\n\
         set defaultnames bot gnubg\nset player 1 gnubg\n\
         set player 1 chequerplay evaluation plies 0\nset player 1 cubedecision evaluation plies 0\n\
         set player 0 external 127.0.0.1:{port}\n"
    )
}

#[test]
fn gnubg_plays_a_seven_point_match_with_the_cube() {
    if gnubg_or_skip("gnubg_plays_a_seven_point_match_with_the_cube").is_none() {
        return;
    }
    let server = start_server();
    let dir = out_dir("gnubg_match7");
    let sgf = dir.join("m7.sgf");
    let script = format!(
        "{}new match 7\nshow score\nsave match {}\n",
        header(42, server.addr.port()),
        sgf.display()
    );
    let out = run_gnubg(&script);
    assert!(
        out.contains("has won the match"),
        "the match did not finish (stall?):\n{}",
        out.chars()
            .rev()
            .take(2000)
            .collect::<String>()
            .chars()
            .rev()
            .collect::<String>()
    );
    let games = parse_sgf(&std::fs::read_to_string(&sgf).unwrap());
    assert!(!games.is_empty());
    let mut server_plays = 0;
    for g in &games {
        assert!(g.result.is_some(), "unfinished game in {}", sgf.display());
        server_plays += replay(g);
    }
    assert!(server_plays > 0);
    assert!(server.shared.decisions() as usize >= server_plays);
}

#[test]
fn gnubg_plays_fifty_cubeless_money_games() {
    if gnubg_or_skip("gnubg_plays_fifty_cubeless_money_games").is_none() {
        return;
    }
    let server = start_server();
    let dir = out_dir("gnubg_money50");
    let sgf = dir.join("money.sgf");
    let mut script = header(7, server.addr.port());
    script.push_str("set cube use off\nset automatic game off\n");
    for _ in 0..50 {
        script.push_str("new game\n");
    }
    script.push_str(&format!("show score\nsave match {}\n", sgf.display()));
    let out = run_gnubg(&script);
    let games = parse_sgf(&std::fs::read_to_string(&sgf).unwrap());
    let finished = games.iter().filter(|g| g.result.is_some()).count();
    assert_eq!(finished, 50, "finished games: {finished}\n{out}");
    assert!(out.contains("after 50 games"), "{out}");
    let mut server_plays = 0;
    for g in &games {
        server_plays += replay(g);
        assert!(
            !g.moves.iter().any(|(_, t)| t == "double"),
            "a double in a cubeless session"
        );
    }
    assert!(server_plays >= 50 * 5);
}
