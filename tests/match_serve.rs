//! The match runner against `stargammon serve`, started in-process on a loopback port:
//! the server reads the referee's boards (gnubg's external-interface convention) and its
//! answers are read back, with zero forfeits. The server and the in-process `engine` seat
//! are the same engine with the same settings, so with mirrored dice every pair of games
//! cancels exactly: any disagreement between the socket path and the in-process path
//! (board reading, reply writing, reply parsing) shows up as a non-zero result.

#![allow(clippy::unwrap_used)]

mod common;

use common::ServerThread;

use std::time::Duration;

use stargammon::arena::referee::{run_series, run_series_judged, SeriesConfig, SeriesKind};
use stargammon::config::{BoardConvention, Config};
use stargammon::players::socket::TcpFactory;
use stargammon::players::{self, BuildOptions};

/// Runs the server with `config` (one search thread) on a loopback port.
fn start_serve(mut config: Config) -> ServerThread {
    config.engine.threads = 1;
    ServerThread::from_config(&config)
}

/// The referee's seat factory for `parallel` connections to `serve`.
fn factory(serve: &ServerThread, parallel: usize) -> TcpFactory {
    let addr = serve.addr.to_string();
    TcpFactory::gnubg(
        format!("serve:tcp://{addr}"),
        vec![addr; parallel],
        Duration::from_secs(30),
    )
}

fn series(kind: SeriesKind, cube: bool, parallel: usize) -> SeriesConfig {
    SeriesConfig {
        kind,
        cube,
        seed: 12,
        parallel,
    }
}

#[test]
fn serve_and_the_in_process_engine_agree_through_the_referee() {
    let mut config = Config::throughput();
    config.server.board_convention = BoardConvention::Gnubg;
    let serve = start_serve(config);
    let remote = factory(&serve, 2);
    let local =
        players::factory("engine:config/throughput.toml", BuildOptions { cube: true }).unwrap();

    // Cubeless money games over two connections: mirrored pairs cancel exactly.
    let s = run_series(
        &series(SeriesKind::Money { games: 20 }, false, 2),
        &remote,
        &local,
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(s.tally.forfeits_a + s.tally.forfeits_b, 0, "{:?}", s.tally);
    assert_eq!(s.tally.games, 20);
    assert_eq!(s.tally.ppg(), 0.0, "{:?}", s.tally);

    // The same games judged for luck through the socket: the luck of each seat cancels
    // inside a pair as the points do, so the adjusted result is exactly zero too.
    let judge = stargammon::arena::luck::judge("net").unwrap();
    let s = run_series_judged(
        &series(SeriesKind::Money { games: 20 }, false, 2),
        &remote,
        &local,
        Some(&judge),
        &mut |_| {},
    )
    .unwrap();
    let (adjusted, ci) = s.tally.adjusted().unwrap();
    assert!(adjusted.abs() < 1e-12 && ci.abs() < 1e-12, "{:?}", s.tally);

    // Money games with the cube: doubles, takes and drops through the socket.
    let s = run_series(
        &series(SeriesKind::Money { games: 20 }, true, 2),
        &remote,
        &local,
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(s.tally.forfeits_a + s.tally.forfeits_b, 0, "{:?}", s.tally);
    assert_eq!(s.tally.ppg(), 0.0, "{:?}", s.tally);

    // Matches with the cube against a different player: zero forfeits.
    let pubeval_cube = players::factory("net", BuildOptions { cube: true }).unwrap();
    let s = run_series(
        &series(
            SeriesKind::Matches {
                length: 5,
                matches: 2,
            },
            true,
            2,
        ),
        &remote,
        &pubeval_cube,
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(s.tally.forfeits_a + s.tally.forfeits_b, 0, "{:?}", s.tally);
    assert_eq!(s.tally.matches, 2);
}
