//! Tavli games and matches against an engine over a real loopback socket: the server's
//! external interface answering Tavli request lines plays whole matches without a
//! forfeit, and an engine answering with plays that are not legal forfeits its games.

#![allow(clippy::unwrap_used)]

mod common;

use std::io::{BufRead, BufReader, Write};

use common::ServerThread;
use stargammon::arena::tavli::{play_matches, Seat, TAVLI_ROTATION};
use stargammon::arena::{duel_from, DuelConfig, DuelResult};
use stargammon::config::Config;
use stargammon::game::Variant;
use stargammon::players::tavli::factory;
use stargammon::tavli::TavliPosition;

fn seat(spec: &str) -> Seat {
    TAVLI_ROTATION
        .iter()
        .map(|&v| (v, factory(spec, v).unwrap()))
        .collect()
}

fn duel(variant: Variant, a: &str, b: &str, games: u64) -> DuelResult {
    duel_from(
        TavliPosition::start(variant),
        &factory(a, variant).unwrap(),
        &factory(b, variant).unwrap(),
        &DuelConfig {
            games,
            seed: 1,
            threads: 1,
            progress: false,
            judge: None,
        },
    )
}

#[test]
fn the_server_plays_tavli_matches_over_its_socket() {
    let mut config = Config::throughput();
    config.engine.threads = 2;
    let server = ServerThread::from_config(&config);
    let (a, b) = (seat(&format!("tcp://{}", server.addr)), seat("heuristic"));
    let mut records = Vec::new();
    play_matches(3, &TAVLI_ROTATION, [&a, &b], 4, 5, 2, &mut |_, r| {
        records.push(r.clone())
    });
    assert_eq!(records.len(), 4);
    for r in &records {
        assert!(r.a_won.is_some());
        assert!(r.games.iter().all(|g| g.forfeit.is_none()), "{r:?}");
    }
    // The engine is the shipped net at the server's depth: it beats the heuristic.
    let wins = records.iter().filter(|r| r.a_won == Some(true)).count();
    assert!(wins >= 3, "{records:?}");
}

#[test]
fn an_engine_answering_illegal_plays_forfeits_its_games() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            std::thread::spawn(move || {
                let mut w = stream.try_clone().unwrap();
                for line in BufReader::new(stream).lines() {
                    if line.is_err() || writeln!(w, "24/1 24/1").is_err() {
                        break;
                    }
                }
            });
        }
    });
    let variant = Variant::Plakoto;
    let d = duel(variant, &format!("tcp://{addr}"), "heuristic", 6);
    assert_eq!(d.forfeits_a, 6);
    assert_eq!(d.ppg, -2.0);
    assert!(d.first_forfeit.unwrap().contains("illegal"));
    // A port nobody listens on: every game is forfeited, nothing hangs.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let gone = closed.local_addr().unwrap();
    drop(closed);
    let d = duel(variant, &format!("tcp://{gone}"), "random", 4);
    assert_eq!(d.forfeits_a, 4);
}
